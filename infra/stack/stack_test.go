package stack

import (
	"maps"
	"slices"
	"testing"

	"github.com/redrive/redrive/statemachine"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestResourceCounts(t *testing.T) {
	tests := []struct {
		fixture string
		want    map[string]int
	}{
		{existingName, map[string]int{
			"AWS::Lambda::Function": 5, "AWS::Lambda::EventSourceMapping": 1, "AWS::StepFunctions::StateMachine": 2,
			"AWS::DynamoDB::Table": 1, "AWS::SQS::Queue": 1, "AWS::Logs::LogGroup": 7, "AWS::IAM::Role": 7,
			"AWS::CloudWatch::Alarm": 7, "AWS::CloudWatch::Dashboard": 1,
		}},
		{demoName, map[string]int{
			"AWS::Lambda::Function": 5, "AWS::Lambda::EventSourceMapping": 1, "AWS::StepFunctions::StateMachine": 2,
			"AWS::DynamoDB::Table": 1, "AWS::SQS::Queue": 3, "AWS::Logs::LogGroup": 7, "AWS::IAM::Role": 7,
			"AWS::CloudWatch::Alarm": 8, "AWS::CloudWatch::Dashboard": 1,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			s := synth(t, tt.fixture)
			for typ, n := range tt.want {
				assert.Len(t, s.ofType(typ), n, typ)
			}
		})
	}
}

func TestTable(t *testing.T) {
	s := synth(t, existingName)
	_, table := s.only(t, "AWS::DynamoDB::Table")
	p := table.Properties
	assert.Equal(t, "PAY_PER_REQUEST", p["BillingMode"])
	assert.Equal(t, `[{"AttributeName":"pk","KeyType":"HASH"}]`, render(p["KeySchema"]))
	assert.Equal(t, `{"PointInTimeRecoveryEnabled":true}`, render(p["PointInTimeRecoverySpecification"]))
	assert.Equal(t, `{"AttributeName":"ttl","Enabled":true}`, render(p["TimeToLiveSpecification"]))
	assert.Equal(t, `{"SSEEnabled":true}`, render(p["SSESpecification"]), "encrypted with the AWS managed key")
	assert.Equal(t, "Retain", table.DeletionPolicy, "breaker state outlives the stack")
}

func TestParkingLot(t *testing.T) {
	for _, fixture := range []string{existingName, demoName} {
		t.Run(fixture, func(t *testing.T) {
			s := synth(t, fixture)
			id := s.id(t, "AWS::SQS::Queue", "ParkingLot")
			lot := s.resources[id]
			assert.EqualValues(t, 14*24*3600, lot.Properties["MessageRetentionPeriod"])
			assert.Equal(t, true, lot.Properties["SqsManagedSseEnabled"])
			assert.Equal(t, "Retain", lot.DeletionPolicy, "parked messages outlive the stack")
			policy := s.resources[s.id(t, "AWS::SQS::QueuePolicy", "ParkingLotPolicy")].Properties
			assert.Contains(t, render(policy["PolicyDocument"]), `"aws:SecureTransport":"false"`, "TLS only")
		})
	}
}

func TestDemoQueues(t *testing.T) {
	s := synth(t, demoName)
	dlq := s.id(t, "AWS::SQS::Queue", "DeadLetterQueue")
	source := s.resources[s.id(t, "AWS::SQS::Queue", "SourceQueue")].Properties
	assert.Equal(t, `{"deadLetterTargetArn":{"Fn::GetAtt":["`+dlq+`","Arn"]},"maxReceiveCount":3}`, render(source["RedrivePolicy"]))

	p := s.resources[dlq].Properties
	lot := s.id(t, "AWS::SQS::Queue", "ParkingLot")
	assert.Equal(t, `{"deadLetterTargetArn":{"Fn::GetAtt":["`+lot+`","Arn"]},"maxReceiveCount":50}`, render(p["RedrivePolicy"]),
		"what the starter cannot start goes to the parking lot, not to expiry")
	assert.EqualValues(t, 180, p["VisibilityTimeout"], "6x the starter's timeout")
	assert.Equal(t, true, p["SqsManagedSseEnabled"])
}

func TestFunctions(t *testing.T) {
	for _, fixture := range []string{existingName, demoName} {
		s := synth(t, fixture)
		for _, spec := range functions {
			t.Run(fixture+"/"+spec.name, func(t *testing.T) {
				_, fn := s.function(t, spec.name)
				p := fn.Properties
				assert.Equal(t, "provided.al2023", p["Runtime"])
				assert.Equal(t, `["arm64"]`, render(p["Architectures"]))
				assert.Equal(t, "bootstrap", p["Handler"])
				assert.Equal(t, "{"+s.id(t, "AWS::IAM::Role", spec.id+"Role")+".Arn}", render(p["Role"]), "its own role")
				logging := p["LoggingConfig"].(map[string]any)
				assert.Equal(t, "JSON", logging["LogFormat"])
				assert.Equal(t, "INFO", logging["ApplicationLogLevel"], "never stricter than INFO: metric lines count as INFO")
				assert.Equal(t, "{"+s.id(t, "AWS::Logs::LogGroup", spec.id+"Logs")+"}", render(logging["LogGroup"]))
				want := spec.timeout.Seconds()
				if spec.timeout == 0 {
					want = s.settings.AttemptTimeout.Std().Seconds()
				}
				assert.EqualValues(t, want, p["Timeout"])
				if s.settings.Tracing {
					assert.Equal(t, `{"Mode":"Active"}`, render(p["TracingConfig"]))
				} else {
					assert.Nil(t, p["TracingConfig"], "Lambda's default: no tracing of its own")
				}
			})
		}
	}
}

func TestFunctionEnvironment(t *testing.T) {
	for _, fixture := range []string{existingName, demoName} {
		s := synth(t, fixture)
		table := "{" + s.id(t, "AWS::DynamoDB::Table", "Table") + "}"
		lot := "{" + s.id(t, "AWS::SQS::Queue", "ParkingLot") + "}"
		redrive := "{" + s.id(t, "AWS::StepFunctions::StateMachine", "RedriveStateMachine") + "}"
		common := map[string]string{"TABLE_NAME": table}
		maps.Copy(common, s.settings.Policy)
		with := func(extra map[string]string) map[string]string {
			out := maps.Clone(common)
			maps.Copy(out, extra)
			return out
		}
		var want map[string]map[string]string
		switch fixture {
		case existingName:
			want = map[string]map[string]string{
				starterFn: with(map[string]string{"STATE_MACHINE_ARN": redrive, "PARKING_LOT_URL": lot, "TARGET_KIND": "lambda",
					"START_CONCURRENCY": "2", "BREAKER_KEY": "orders", "BREAKER_KEY_DEFAULT": "default"}),
				attemptFn: with(map[string]string{"TARGET_KIND": "lambda", "TARGET_FUNCTION": consumerArn, "TARGET_SOURCE_ARN": sourceArn,
					"POISON_ERROR_TYPES": "ValidationError,SchemaError", "MAX_ATTEMPTS": "8", "MAX_CYCLES": "200",
					"BACKOFF_BASE": "2s", "BACKOFF_MAX": "5m0s", "DELIVERY_LEASE": "2m30s"}),
			}
		case demoName:
			source := "{" + s.id(t, "AWS::SQS::Queue", "SourceQueue") + "}"
			want = map[string]map[string]string{
				starterFn: with(map[string]string{"STATE_MACHINE_ARN": redrive, "PARKING_LOT_URL": lot, "TARGET_KIND": "sqs",
					"START_CONCURRENCY": "2", "BREAKER_KEY_POINTER": "/tenant/id", "BREAKER_KEY_DEFAULT": "default"}),
				attemptFn: with(map[string]string{"TARGET_KIND": "sqs", "TARGET_QUEUE_URL": source, "DELIVERY_LEASE": "1m30s"}),
			}
		}
		want[parkFn] = with(map[string]string{"PARKING_LOT_URL": lot})
		want[continuerFn] = with(nil)
		want[adminFn] = with(nil)

		for _, spec := range functions {
			t.Run(fixture+"/"+spec.name, func(t *testing.T) {
				_, fn := s.function(t, spec.name)
				vars := fn.Properties["Environment"].(map[string]any)["Variables"].(map[string]any)
				got := map[string]string{}
				for k, v := range vars {
					got[k] = render(v)
				}
				assert.Equal(t, want[spec.name], got)
			})
		}
	}
}

// TestTasksAcceptTheirEnvironment feeds each function's environment, as
// synthesized, to the parser its main uses; deploy-time references get
// example values of their shape.
func TestTasksAcceptTheirEnvironment(t *testing.T) {
	for _, fixture := range []string{existingName, demoName} {
		s := synth(t, fixture)
		example := exampleRefs(s.settings)
		values := map[string]string{
			"{" + s.id(t, "AWS::DynamoDB::Table", "Table") + "}":                           example.tableName,
			"{" + s.id(t, "AWS::StepFunctions::StateMachine", "RedriveStateMachine") + "}": example.stateMachineArn,
			"{" + s.id(t, "AWS::SQS::Queue", "ParkingLot") + "}":                           example.parkingLotURL,
		}
		if fixture == demoName {
			values["{"+s.id(t, "AWS::SQS::Queue", "SourceQueue")+"}"] = example.targetQueueURL
		}
		for _, spec := range functions {
			t.Run(fixture+"/"+spec.name, func(t *testing.T) {
				_, fn := s.function(t, spec.name)
				env := map[string]string{}
				for k, v := range fn.Properties["Environment"].(map[string]any)["Variables"].(map[string]any) {
					env[k] = render(v)
					if example, ok := values[env[k]]; ok {
						env[k] = example
					}
					require.NotContains(t, env[k], "{", "%s has a reference the test has no example for", k)
				}
				assert.NoError(t, taskProblems(spec.name, env))
			})
		}
	}
}

func TestEventSourceMapping(t *testing.T) {
	for _, fixture := range []string{existingName, demoName} {
		t.Run(fixture, func(t *testing.T) {
			s := synth(t, fixture)
			_, m := s.only(t, "AWS::Lambda::EventSourceMapping")
			p := m.Properties
			starter, _ := s.function(t, starterFn)
			assert.Equal(t, "{"+starter+"}", render(p["FunctionName"]))
			assert.EqualValues(t, s.settings.StarterBatchSize, p["BatchSize"])
			assert.Equal(t, `{"MaximumConcurrency":`+render(float64(s.settings.StarterMaxConcurrency))+`}`, render(p["ScalingConfig"]))
			assert.Equal(t, `["ReportBatchItemFailures"]`, render(p["FunctionResponseTypes"]))
			if fixture == existingName {
				assert.Equal(t, dlqArn, render(p["EventSourceArn"]))
			} else {
				assert.Equal(t, "{"+s.id(t, "AWS::SQS::Queue", "DeadLetterQueue")+".Arn}", render(p["EventSourceArn"]))
			}
			assert.Contains(t, renderAll(m.DependsOn), s.id(t, "AWS::IAM::Policy", "ContinuerStartExecution"),
				"no execution starts before the continuer may start its continuation")
		})
	}
}

func TestStateMachines(t *testing.T) {
	tests := []struct {
		constructID string
		def         statemachine.Definition
		functions   map[string]string // placeholder -> function
		level       string
		withData    bool
	}{
		{"RedriveStateMachine", statemachine.Redrive(), map[string]string{
			statemachine.AttemptFunctionArn: attemptFn, statemachine.ContinueFunctionArn: continuerFn, statemachine.ParkFunctionArn: parkFn,
		}, "ERROR", false},
		{"AdminStateMachine", statemachine.Admin(), map[string]string{statemachine.AdminFunctionArn: adminFn}, "ALL", true},
	}
	for _, fixture := range []string{existingName, demoName} {
		s := synth(t, fixture)
		for _, tt := range tests {
			t.Run(fixture+"/"+tt.constructID, func(t *testing.T) {
				p := s.resources[s.id(t, "AWS::StepFunctions::StateMachine", tt.constructID)].Properties
				assert.Equal(t, "STANDARD", p["StateMachineType"])
				assert.Equal(t, tt.def.Template, p["DefinitionString"], "the embedded ASL, placeholders left to CloudFormation")
				subs := map[string]string{}
				for name, v := range p["DefinitionSubstitutions"].(map[string]any) {
					subs[name] = render(v)
				}
				want := map[string]string{}
				for _, name := range tt.def.Placeholders() {
					fn, _ := s.function(t, tt.functions[name])
					want[name] = "{" + fn + ".Arn}"
				}
				assert.Equal(t, want, subs, "every placeholder bound to its function's ARN")

				logging := p["LoggingConfiguration"].(map[string]any)
				assert.Equal(t, tt.level, logging["Level"])
				assert.Equal(t, tt.withData, logging["IncludeExecutionData"])
				assert.Equal(t, `{"Enabled":`+render(s.settings.Tracing)+`}`, render(p["TracingConfiguration"]))
			})
		}
	}
}

// TestNoReferenceCycles checks what CloudFormation would refuse at deploy
// and synth does not catch: resources that reference each other in a
// cycle (the continuer and the redrive state machine are the risk).
func TestNoReferenceCycles(t *testing.T) {
	for _, fixture := range []string{existingName, demoName} {
		t.Run(fixture, func(t *testing.T) {
			s := synth(t, fixture)
			edges := map[string][]string{}
			for id, r := range s.resources {
				edges[id] = append(references(r.Properties), renderAll(r.DependsOn)...)
			}
			state := map[string]int{} // 1 visiting, 2 done
			var path []string
			var visit func(id string) bool
			visit = func(id string) bool {
				switch state[id] {
				case 1:
					path = append(path, id)
					return false
				case 2:
					return true
				}
				state[id] = 1
				path = append(path, id)
				for _, next := range edges[id] {
					if _, ok := s.resources[next]; ok && !visit(next) {
						return false
					}
				}
				path = path[:len(path)-1]
				state[id] = 2
				return true
			}
			for _, id := range slices.Sorted(maps.Keys(s.resources)) {
				require.True(t, visit(id), "reference cycle: %v", path)
			}
		})
	}
}

// references lists the logical ids v refers to with Ref or Fn::GetAtt.
func references(v any) []string {
	var out []string
	switch v := v.(type) {
	case map[string]any:
		if ref, ok := v["Ref"].(string); ok {
			out = append(out, ref)
		}
		if att, ok := v["Fn::GetAtt"].([]any); ok && len(att) > 0 {
			if id, ok := att[0].(string); ok {
				out = append(out, id)
			}
		}
		for _, item := range v {
			out = append(out, references(item)...)
		}
	case []any:
		for _, item := range v {
			out = append(out, references(item)...)
		}
	}
	return out
}

func TestOutputs(t *testing.T) {
	for _, fixture := range []string{existingName, demoName} {
		t.Run(fixture, func(t *testing.T) {
			s := synth(t, fixture)
			outputs := s.template["Outputs"].(map[string]any)
			value := func(name string) string {
				o, ok := outputs[name].(map[string]any)
				require.True(t, ok, "output %s", name)
				return render(o["Value"])
			}
			admin := s.id(t, "AWS::StepFunctions::StateMachine", "AdminStateMachine")
			assert.Equal(t, "{"+s.id(t, "AWS::StepFunctions::StateMachine", "RedriveStateMachine")+"}", value("RedriveStateMachineArn"))
			assert.Equal(t, "{"+admin+"}", value("AdminStateMachineArn"))
			assert.Equal(t, "https://{AWS::Region}.console.aws.amazon.com/states/home?region={AWS::Region}#/statemachines/view/{"+admin+"}",
				value("AdminConsoleUrl"))
			assert.Equal(t, "{"+s.id(t, "AWS::DynamoDB::Table", "Table")+"}", value("TableName"))
			lot := s.id(t, "AWS::SQS::Queue", "ParkingLot")
			assert.Equal(t, "{"+lot+".QueueName}", value("ParkingLotQueueName"))
			assert.Equal(t, "{"+lot+"}", value("ParkingLotQueueUrl"))
			assert.Equal(t, "{"+lot+".Arn}", value("ParkingLotQueueArn"))
			assert.Equal(t, "{"+s.id(t, "AWS::CloudWatch::Dashboard", "Dashboard")+"}", value("DashboardName"))
			if fixture == demoName {
				assert.Equal(t, "{"+s.id(t, "AWS::SQS::Queue", "SourceQueue")+"}", value("SourceQueueUrl"))
			} else {
				assert.NotContains(t, outputs, "SourceQueueUrl")
				assert.Equal(t, "orders-dlq", value("DeadLetterQueueName"))
			}
		})
	}
}
