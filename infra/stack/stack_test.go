package stack

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/jsii-runtime-go"

	"github.com/redrive/redrive/dynamo"
	"github.com/redrive/redrive/room/release"
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
			"AWS::Lambda::Function": 6, "AWS::Lambda::EventSourceMapping": 1, "AWS::StepFunctions::StateMachine": 3,
			"AWS::DynamoDB::Table": 1, "AWS::SQS::Queue": 1, "AWS::Logs::LogGroup": 9, "AWS::IAM::Role": 9,
			"AWS::IAM::Policy": 9, "AWS::CloudWatch::Alarm": 17, "AWS::CloudWatch::Dashboard": 1,
			"AWS::SNS::Topic": 0, "AWS::SNS::TopicPolicy": 0, "AWS::KMS::Key": 0,
			"AWS::S3::Bucket": 1, "AWS::S3::BucketPolicy": 1, "Custom::S3AutoDeleteObjects": 0,
			"AWS::Events::Rule": 1, "AWS::Lambda::Permission": 1,
		}},
		{demoName, map[string]int{
			"AWS::Lambda::Function": 6, "AWS::Lambda::EventSourceMapping": 1, "AWS::StepFunctions::StateMachine": 3,
			"AWS::DynamoDB::Table": 1, "AWS::SQS::Queue": 3, "AWS::Logs::LogGroup": 9, "AWS::IAM::Role": 9,
			"AWS::IAM::Policy": 9, "AWS::CloudWatch::Alarm": 18, "AWS::CloudWatch::Dashboard": 1,
			"AWS::SNS::Topic": 1, "AWS::SNS::TopicPolicy": 1, "AWS::KMS::Key": 1,
			"AWS::S3::Bucket": 1, "AWS::S3::BucketPolicy": 1, "Custom::S3AutoDeleteObjects": 0,
			"AWS::Events::Rule": 1, "AWS::Lambda::Permission": 1,
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

	// The sparse indexes, spelled out: the waiting room's, which the room
	// queries by breaker key, oldest first (without the documents, which a
	// claim reads); the parking lot's, which `redrive parked` queries by
	// day.
	assert.JSONEq(t, `[{"IndexName":"room_line","KeySchema":[{"AttributeName":"room","KeyType":"HASH"},
		{"AttributeName":"seq","KeyType":"RANGE"}],"Projection":{"ProjectionType":"INCLUDE","NonKeyAttributes":["message_id","entered_at","since"]}},
		{"IndexName":"parked","KeySchema":[{"AttributeName":"parked_day","KeyType":"HASH"},
		{"AttributeName":"parked_seq","KeyType":"RANGE"}],"Projection":{"ProjectionType":"ALL"}}]`, render(p["GlobalSecondaryIndexes"]))
	assert.JSONEq(t, `[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"room","AttributeType":"S"},
		{"AttributeName":"seq","AttributeType":"S"},{"AttributeName":"parked_day","AttributeType":"S"},
		{"AttributeName":"parked_seq","AttributeType":"S"}]`, render(p["AttributeDefinitions"]))
}

// TestTableKeepsTheLegacyRoomIndexOnRequest: with KeepLegacyRoomIndex, the
// first deploy of an upgrade, the table keeps the room index of stacks
// deployed before room_line, as they have it (every attribute), after the
// two it always has: CloudFormation adds room_line beside it, one index
// creation. The functions query room_line only.
func TestTableKeepsTheLegacyRoomIndexOnRequest(t *testing.T) {
	s := fixtureSettings(demoName)
	s.KeepLegacyRoomIndex = true
	app := awscdk.NewApp(nil)
	stack, err := NewRedriveStack(app, "Redrive", &Props{Settings: s})
	require.NoError(t, err)
	template := *assertions.Template_FromStack(stack, nil).ToJSON()
	var indexes any
	for _, r := range template["Resources"].(map[string]any) {
		if m := r.(map[string]any); m["Type"] == "AWS::DynamoDB::Table" {
			indexes = m["Properties"].(map[string]any)["GlobalSecondaryIndexes"]
		}
	}
	assert.JSONEq(t, `[{"IndexName":"room_line","KeySchema":[{"AttributeName":"room","KeyType":"HASH"},
		{"AttributeName":"seq","KeyType":"RANGE"}],"Projection":{"ProjectionType":"INCLUDE","NonKeyAttributes":["message_id","entered_at","since"]}},
		{"IndexName":"parked","KeySchema":[{"AttributeName":"parked_day","KeyType":"HASH"},
		{"AttributeName":"parked_seq","KeyType":"RANGE"}],"Projection":{"ProjectionType":"ALL"}},
		{"IndexName":"room","KeySchema":[{"AttributeName":"room","KeyType":"HASH"},
		{"AttributeName":"seq","KeyType":"RANGE"}],"Projection":{"ProjectionType":"ALL"}}]`, render(indexes))
}

// TestTableMatchesTheStoreSchema compares the deployed table with
// dynamo.TableInput, the schema the store, the delivery ledger and the
// waiting room are tested on (and the local emulators create).
func TestTableMatchesTheStoreSchema(t *testing.T) {
	s := synth(t, demoName)
	_, table := s.only(t, "AWS::DynamoDB::Table")
	p := table.Properties
	want := dynamo.TableInput("Table")
	sdk := func(v any) string {
		b, err := json.Marshal(v)
		require.NoError(t, err)
		return string(b)
	}
	assert.JSONEq(t, sdk(want.KeySchema), render(p["KeySchema"]))
	assert.ElementsMatch(t, decodeList(t, sdk(want.AttributeDefinitions)), decodeList(t, render(p["AttributeDefinitions"])))
	require.Len(t, want.GlobalSecondaryIndexes, 2, "the schema has the room's index and the parking lot's")
	var indexes []any
	for _, gsi := range want.GlobalSecondaryIndexes {
		projection := map[string]any{"ProjectionType": gsi.Projection.ProjectionType}
		if len(gsi.Projection.NonKeyAttributes) > 0 {
			projection["NonKeyAttributes"] = gsi.Projection.NonKeyAttributes
		}
		indexes = append(indexes, map[string]any{"IndexName": gsi.IndexName, "KeySchema": gsi.KeySchema, "Projection": projection})
	}
	assert.JSONEq(t, sdk(indexes), render(p["GlobalSecondaryIndexes"]))
	assert.Equal(t, string(want.BillingMode), p["BillingMode"])
}

// decodeList reads a JSON list for an order-insensitive comparison.
func decodeList(t *testing.T, text string) []any {
	t.Helper()
	var out []any
	require.NoError(t, json.Unmarshal([]byte(text), &out))
	return out
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

// A FIFO dead-letter queue gets a FIFO parking lot, so each group's
// parked messages keep their order there.
func TestFIFOParkingLot(t *testing.T) {
	for fixture, fifo := range map[string]any{fifoName: true, existingName: nil} {
		s := synth(t, fixture)
		assert.Equal(t, fifo, s.resources[s.id(t, "AWS::SQS::Queue", "ParkingLot")].Properties["FifoQueue"], fixture)
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
	assert.EqualValues(t, 181, p["VisibilityTimeout"], "6x the starter's timeout plus the batching window")
	assert.Equal(t, true, p["SqsManagedSseEnabled"])
}

func TestFunctions(t *testing.T) {
	// The release function runs sixty ticks an invocation, plus 30s.
	timeouts := map[string]map[string]int{
		existingName: {starterFn: 30, attemptFn: 120, parkFn: 30, adminFn: 300, waitroomFn: 30, releaseFn: 60*2 + 30},
		demoName:     {starterFn: 30, attemptFn: 60, parkFn: 30, adminFn: 300, waitroomFn: 30, releaseFn: 60*1 + 30},
	}
	memory := map[string]int{starterFn: 256, attemptFn: 256, parkFn: 128, adminFn: 128, waitroomFn: 128, releaseFn: 256}
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
				assert.EqualValues(t, timeouts[fixture][spec.name], p["Timeout"])
				assert.EqualValues(t, memory[spec.name], p["MemorySize"])
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
		release := "{" + s.id(t, "AWS::StepFunctions::StateMachine", "ReleaseStateMachine") + "}"
		bodies := map[string]string{"BODY_BUCKET": "{" + s.id(t, "AWS::S3::Bucket", "BodyBucket") + "}"}
		common := map[string]string{"TABLE_NAME": table}
		maps.Copy(common, s.settings.Policy)
		with := func(extra ...map[string]string) map[string]string {
			out := maps.Clone(common)
			for _, e := range extra {
				maps.Copy(out, e)
			}
			return out
		}
		// The functions that park: the lot and its retention (14 days, as
		// deployed), which their index entries expire with.
		parking := map[string]string{"PARKING_LOT_URL": lot, "PARKING_LOT_RETENTION": "336h0m0s"}
		var want map[string]map[string]string
		// The release function knows both state machines it starts by name
		// (a reference would be a cycle); the others by reference.
		byName := func(name string) string {
			return "arn:{AWS::Partition}:states:{AWS::Region}:{AWS::AccountId}:stateMachine:" + name
		}
		switch fixture {
		case existingName:
			byName = func(name string) string {
				return "arn:{AWS::Partition}:states:eu-west-1:123456789012:stateMachine:" + name
			}
			// The room's settings, in every function that works the room.
			room := map[string]string{"RELEASE_STATE_MACHINE_ARN": release, "ROOM_TTL": "168h0m0s", "RELEASE_WORKERS": "32",
				"RELEASE_START_RATE": "5", "RELEASE_MAX_RATE": "120.5", "RELEASE_BACKOFF": "0.8", "RELEASE_TICK": "2s", "RELEASE_LEASE": "1m30s"}
			want = map[string]map[string]string{
				starterFn: with(room, parking, bodies, map[string]string{"STATE_MACHINE_ARN": redrive, "TARGET_KIND": "lambda",
					"START_CONCURRENCY": "2", "BREAKER_KEY": "orders", "BREAKER_KEY_DEFAULT": "default"}),
				attemptFn: with(room, bodies, map[string]string{"TARGET_KIND": "lambda", "TARGET_FUNCTION": consumerArn, "TARGET_SOURCE_ARN": sourceArn,
					"POISON_ERROR_TYPES": "ValidationError,SchemaError", "THROTTLE_ERROR_TYPES": "TooBusy,RateLimited",
					"MAX_ATTEMPTS": "8", "BACKOFF_BASE": "2s", "BACKOFF_MAX": "5m0s", "DELIVERY_LEASE": "2m30s",
					"UNKNOWN_OUTCOME": "park", "TABLE_RETRY_BUDGET": "2h0m0s"}),
				waitroomFn: with(room, bodies),
				adminFn: with(room, map[string]string{"PARKING_LOT_URL": lot,
					"DLQ_URL": "https://sqs.eu-west-1.{AWS::URLSuffix}/123456789012/orders-dlq"}),
				releaseFn: with(room, map[string]string{"RELEASE_STATE_MACHINE_ARN": byName("Redrive-Release"),
					"STATE_MACHINE_ARN": byName("Redrive-Redrive")}),
			}
		case demoName:
			source := "{" + s.id(t, "AWS::SQS::Queue", "SourceQueue") + "}"
			room := map[string]string{"RELEASE_STATE_MACHINE_ARN": release}
			want = map[string]map[string]string{
				starterFn: with(room, parking, bodies, map[string]string{"STATE_MACHINE_ARN": redrive, "TARGET_KIND": "sqs",
					"START_CONCURRENCY": "2", "BREAKER_KEY_POINTER": "/tenant/id", "BREAKER_KEY_DEFAULT": "default"}),
				attemptFn:  with(room, bodies, map[string]string{"TARGET_KIND": "sqs", "TARGET_QUEUE_URL": source, "DELIVERY_LEASE": "1m30s"}),
				waitroomFn: with(room, bodies),
				adminFn: with(room, map[string]string{"PARKING_LOT_URL": lot,
					"DLQ_URL": "{" + s.id(t, "AWS::SQS::Queue", "DeadLetterQueue") + "}"}),
				releaseFn: with(map[string]string{"RELEASE_STATE_MACHINE_ARN": byName("Redrive-Release"),
					"STATE_MACHINE_ARN": byName("Redrive-Redrive")}),
			}
		}
		// The claim check's bucket goes to the starter and the Queue task
		// (waitroom), which put large bodies there, and to the attempt
		// and park, which get them back: to no other function.
		want[parkFn] = with(parking, bodies)

		for _, spec := range functions {
			t.Run(fixture+"/"+spec.name, func(t *testing.T) {
				assert.Equal(t, want[spec.name], s.environment(t, spec.name))
			})
		}
	}
}

// environment returns function name's environment variables, rendered.
func (s *synthesized) environment(t *testing.T, name string) map[string]string {
	t.Helper()
	_, fn := s.function(t, name)
	vars := fn.Properties["Environment"].(map[string]any)["Variables"].(map[string]any)
	got := map[string]string{}
	for k, v := range vars {
		got[k] = render(v)
	}
	return got
}

// TestStateMachinesByName: the ARNs the release function has for the
// state machines it starts (from their names) are theirs.
func TestStateMachinesByName(t *testing.T) {
	for _, fixture := range []string{existingName, demoName} {
		for _, tt := range []struct{ constructID, name, variable string }{
			{"ReleaseStateMachine", "Redrive-Release", "RELEASE_STATE_MACHINE_ARN"},
			{"RedriveStateMachine", "Redrive-Redrive", "STATE_MACHINE_ARN"},
		} {
			t.Run(fixture+"/"+tt.constructID, func(t *testing.T) {
				s := synth(t, fixture)
				sm := s.resources[s.id(t, "AWS::StepFunctions::StateMachine", tt.constructID)].Properties
				name, _ := sm["StateMachineName"].(string)
				require.Equal(t, tt.name, name, "named after the stack")
				region, account := "{AWS::Region}", "{AWS::AccountId}"
				if fixture == existingName {
					region, account = testRegion, testAccount
				}
				assert.Equal(t, "arn:{AWS::Partition}:states:"+region+":"+account+":stateMachine:"+name,
					s.environment(t, releaseFn)[tt.variable])
			})
		}
	}
}

func TestStateMachineName(t *testing.T) {
	assert.Equal(t, "Orders-Release", releaseStateMachineName("Orders"))
	assert.Equal(t, "Orders-Redrive", redriveStateMachineName("Orders"))
	fits := strings.Repeat("s", 80-len("-Release"))
	assert.Equal(t, fits+"-Release", releaseStateMachineName(fits))

	long := strings.Repeat("s", 100)
	for _, suffix := range []string{"-Release", "-Redrive"} {
		name := stateMachineName(long, suffix)
		assert.Len(t, name, 80, "Step Functions' limit")
		assert.True(t, strings.HasPrefix(name, long[:63]) && strings.HasSuffix(name, suffix), name)
		other := stateMachineName(long[:99]+"t", suffix)
		assert.NotEqual(t, name, other, "stacks whose names share the first characters get different names")
		assert.Len(t, other, 80)
	}
	assert.NotEqual(t, releaseStateMachineName(long), redriveStateMachineName(long))
}

// TestTasksAcceptTheirEnvironment feeds each function's environment, as
// synthesized, to the parser its main uses (and the checks its builder
// makes); deploy-time references and pseudo parameters get example values
// of their shape.
func TestTasksAcceptTheirEnvironment(t *testing.T) {
	pseudo := strings.NewReplacer("{AWS::Partition}", "aws", "{AWS::Region}", "us-east-1", "{AWS::AccountId}", "123456789012",
		"{AWS::URLSuffix}", "amazonaws.com")
	for _, fixture := range []string{existingName, demoName} {
		s := synth(t, fixture)
		example := exampleRefs(s.settings)
		values := map[string]string{
			"{" + s.id(t, "AWS::DynamoDB::Table", "Table") + "}":                           example.tableName,
			"{" + s.id(t, "AWS::StepFunctions::StateMachine", "RedriveStateMachine") + "}": example.stateMachineArn,
			"{" + s.id(t, "AWS::StepFunctions::StateMachine", "ReleaseStateMachine") + "}": example.releaseStateMachineArn,
			"{" + s.id(t, "AWS::SQS::Queue", "ParkingLot") + "}":                           example.parkingLotURL,
			"{" + s.id(t, "AWS::S3::Bucket", "BodyBucket") + "}":                           example.bodyBucket,
		}
		if fixture == demoName {
			values["{"+s.id(t, "AWS::SQS::Queue", "SourceQueue")+"}"] = example.targetQueueURL
			values["{"+s.id(t, "AWS::SQS::Queue", "DeadLetterQueue")+"}"] = example.dlqURL
		}
		for _, spec := range functions {
			t.Run(fixture+"/"+spec.name, func(t *testing.T) {
				env := s.environment(t, spec.name)
				for k, v := range env {
					if example, ok := values[v]; ok {
						v = example
					}
					env[k] = pseudo.Replace(v)
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
			assert.EqualValues(t, 1, p["MaximumBatchingWindowInSeconds"], "batches filled when messages arrive fast")
			assert.Equal(t, `{"MaximumConcurrency":`+render(float64(s.settings.StarterMaxConcurrency))+`}`, render(p["ScalingConfig"]))
			assert.Equal(t, `["ReportBatchItemFailures"]`, render(p["FunctionResponseTypes"]))
			if fixture == existingName {
				assert.Equal(t, dlqArn, render(p["EventSourceArn"]))
			} else {
				assert.Equal(t, "{"+s.id(t, "AWS::SQS::Queue", "DeadLetterQueue")+".Arn}", render(p["EventSourceArn"]))
			}
			deps := renderAll(m.DependsOn)
			assert.Contains(t, deps, s.id(t, "AWS::StepFunctions::StateMachine", "ReleaseStateMachine"),
				"no message starts before the release state machine, which the release function knows by name only, exists")
			assert.Contains(t, deps, s.id(t, "AWS::StepFunctions::StateMachine", "RedriveStateMachine"),
				"nor before the attempt state machine, which it knows by name only too")
		})
	}
}

func TestStateMachines(t *testing.T) {
	tests := []struct {
		constructID string
		def         statemachine.Definition
		functions   map[string]string // placeholder -> function
		// typ, level and withData by fixture: the attempt state machine
		// is STANDARD in the existing fixture, EXPRESS (the default) in
		// the demo, where it logs with execution data.
		typ, level, withData map[string]any
	}{
		{"RedriveStateMachine", statemachine.Redrive(), map[string]string{
			statemachine.AttemptFunctionArn: attemptFn, statemachine.ParkFunctionArn: parkFn,
			statemachine.WaitingRoomFunctionArn: waitroomFn,
		}, map[string]any{existingName: "STANDARD", demoName: "EXPRESS"}, map[string]any{existingName: "ERROR", demoName: "ERROR"},
			map[string]any{existingName: false, demoName: true}},
		{"AdminStateMachine", statemachine.Admin(), map[string]string{statemachine.AdminFunctionArn: adminFn},
			map[string]any{existingName: "STANDARD", demoName: "STANDARD"}, map[string]any{existingName: "ALL", demoName: "ALL"},
			map[string]any{existingName: true, demoName: true}},
		{"ReleaseStateMachine", statemachine.Release(), map[string]string{statemachine.ReleaseFunctionArn: releaseFn},
			map[string]any{existingName: "STANDARD", demoName: "STANDARD"}, map[string]any{existingName: "ERROR", demoName: "ERROR"},
			map[string]any{existingName: false, demoName: false}},
	}
	for _, fixture := range []string{existingName, demoName} {
		s := synth(t, fixture)
		for _, tt := range tests {
			t.Run(fixture+"/"+tt.constructID, func(t *testing.T) {
				p := s.resources[s.id(t, "AWS::StepFunctions::StateMachine", tt.constructID)].Properties
				assert.Equal(t, tt.typ[fixture], p["StateMachineType"])
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
				assert.Len(t, want, len(tt.functions), "the definition has the placeholders the test expects")
				assert.Equal(t, want, subs, "every placeholder bound to its function's ARN")

				logging := p["LoggingConfiguration"].(map[string]any)
				assert.Equal(t, tt.level[fixture], logging["Level"])
				assert.Equal(t, tt.withData[fixture], logging["IncludeExecutionData"])
				assert.Equal(t, `{"Enabled":`+render(s.settings.Tracing)+`}`, render(p["TracingConfiguration"]))
				logs := render(logging["Destinations"])
				assert.Contains(t, logs, s.id(t, "AWS::Logs::LogGroup", strings.TrimSuffix(tt.constructID, "StateMachine")+"ExecutionLogs"))
			})
		}
	}
}

// TestExpressExecutionLogLevel: an Express attempt state machine logs at
// ExecutionLogLevel when it says otherwise than ERROR, still with
// execution data.
func TestExpressExecutionLogLevel(t *testing.T) {
	s := fixtureSettings(demoName)
	s.ExecutionLogLevel = "all"
	app := awscdk.NewApp(nil)
	stack, err := NewRedriveStack(app, "Redrive", &Props{Settings: s})
	require.NoError(t, err)
	template := assertions.Template_FromStack(stack, nil)
	template.HasResourceProperties(jsii.String("AWS::StepFunctions::StateMachine"), map[string]any{
		"StateMachineName": "Redrive-Redrive",
		"StateMachineType": "EXPRESS",
		"LoggingConfiguration": assertions.Match_ObjectLike(&map[string]any{
			"Level": "ALL", "IncludeExecutionData": true,
		}),
	})
}

// renderDefinition is a state machine's definition as CloudFormation
// deploys it: DefinitionString with DefinitionSubstitutions filled in
// (rendered as {Id.Arn}), through the statemachine package's own renderer.
func (s *synthesized) renderDefinition(t *testing.T, constructID string, def statemachine.Definition) map[string]any {
	t.Helper()
	p := s.resources[s.id(t, "AWS::StepFunctions::StateMachine", constructID)].Properties
	require.Equal(t, def.Template, p["DefinitionString"])
	values := map[string]string{}
	for name, v := range p["DefinitionSubstitutions"].(map[string]any) {
		values[name] = render(v)
	}
	text, err := def.Render(values)
	require.NoError(t, err)
	var out map[string]any
	require.NoError(t, json.Unmarshal([]byte(text), &out))
	return out
}

// stateParameters returns a state's Parameters from a rendered definition.
func stateParameters(t *testing.T, def map[string]any, state string) map[string]any {
	t.Helper()
	states, _ := def["States"].(map[string]any)
	st, ok := states[state].(map[string]any)
	require.True(t, ok, "state %s", state)
	params, _ := st["Parameters"].(map[string]any)
	return params
}

// TestRenderedDefinitions: as deployed, the release workflow invokes the
// release function, and the redrive workflow's Queue state hands the
// waiting room function the document (no task token: nothing waits in an
// execution).
func TestRenderedDefinitions(t *testing.T) {
	for _, fixture := range []string{existingName, demoName} {
		t.Run(fixture, func(t *testing.T) {
			s := synth(t, fixture)
			fnArn := func(name string) string { id, _ := s.function(t, name); return "{" + id + ".Arn}" }

			release := s.renderDefinition(t, "ReleaseStateMachine", statemachine.Release())
			assert.Equal(t, "Release", release["StartAt"])
			states := release["States"].(map[string]any)
			assert.Equal(t, "arn:aws:states:::lambda:invoke", states["Release"].(map[string]any)["Resource"])
			assert.Equal(t, map[string]any{"FunctionName": fnArn(releaseFn), "Payload.$": "$"}, stateParameters(t, release, "Release"))

			redrive := s.renderDefinition(t, "RedriveStateMachine", statemachine.Redrive())
			queue := redrive["States"].(map[string]any)["Queue"].(map[string]any)
			assert.Equal(t, "arn:aws:states:::lambda:invoke", queue["Resource"])
			assert.Equal(t, map[string]any{"FunctionName": fnArn(waitroomFn), "Payload.$": "$"}, stateParameters(t, redrive, "Queue"))
			assert.Equal(t, fnArn(attemptFn), stateParameters(t, redrive, "Attempt")["FunctionName"])
			assert.Equal(t, fnArn(parkFn), stateParameters(t, redrive, "Park")["FunctionName"])
			assert.NotContains(t, render(redrive), "waitForTaskToken", "an Express workflow cannot wait for a task token")
		})
	}
}

// TestNoReferenceCycles checks what CloudFormation would refuse at deploy
// and synth does not catch: resources that reference each other in a
// cycle (the release function, which starts both the release and the
// redrive state machines, is the risk).
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

// output returns the value of the stack output name, rendered.
func output(t testing.TB, s *synthesized, name string) string {
	t.Helper()
	o, ok := s.template["Outputs"].(map[string]any)[name].(map[string]any)
	require.True(t, ok, "output %s", name)
	return render(o["Value"])
}

func TestOutputs(t *testing.T) {
	for _, fixture := range []string{existingName, demoName} {
		t.Run(fixture, func(t *testing.T) {
			s := synth(t, fixture)
			value := func(name string) string { return output(t, s, name) }
			admin := s.id(t, "AWS::StepFunctions::StateMachine", "AdminStateMachine")
			assert.Equal(t, "{"+s.id(t, "AWS::StepFunctions::StateMachine", "RedriveStateMachine")+"}", value("RedriveStateMachineArn"))
			assert.Equal(t, "{"+s.id(t, "AWS::StepFunctions::StateMachine", "ReleaseStateMachine")+"}", value("ReleaseStateMachineArn"))
			assert.Equal(t, "{"+admin+"}", value("AdminStateMachineArn"))
			assert.Equal(t, "https://{AWS::Region}.console.aws.amazon.com/states/home?region={AWS::Region}#/statemachines/view/{"+admin+"}",
				value("AdminConsoleUrl"))
			assert.Equal(t, "{"+s.id(t, "AWS::DynamoDB::Table", "Table")+"}", value("TableName"))
			lot := s.id(t, "AWS::SQS::Queue", "ParkingLot")
			assert.Equal(t, "{"+lot+".QueueName}", value("ParkingLotQueueName"))
			assert.Equal(t, "{"+lot+"}", value("ParkingLotQueueUrl"))
			assert.Equal(t, "{"+lot+".Arn}", value("ParkingLotQueueArn"))
			assert.Equal(t, "{"+s.id(t, "AWS::CloudWatch::Dashboard", "Dashboard")+"}", value("DashboardName"))
			assert.Equal(t, "{"+s.id(t, "AWS::S3::Bucket", "BodyBucket")+"}", value("BodyBucketName"))
			if fixture == demoName {
				assert.Equal(t, "{"+s.id(t, "AWS::SQS::Queue", "SourceQueue")+"}", value("SourceQueueUrl"))
			} else {
				assert.NotContains(t, s.template["Outputs"], "SourceQueueUrl")
				assert.Equal(t, "orders-dlq", value("DeadLetterQueueName"))
			}
		})
	}
}

// TestSweepSchedule: every minute, EventBridge invokes the release function
// with the sweep event, which the release handler reads as a sweep.
func TestSweepSchedule(t *testing.T) {
	s := synth(t, existingName)
	_, rule := s.only(t, "AWS::Events::Rule")
	p := rule.Properties
	assert.Equal(t, "rate(1 minute)", p["ScheduleExpression"])
	assert.Equal(t, "ENABLED", p["State"])
	targets, ok := p["Targets"].([]any)
	require.True(t, ok, "targets: %v", p["Targets"])
	require.Len(t, targets, 1)
	target := targets[0].(map[string]any)
	fn, _ := s.function(t, releaseFn)
	assert.Equal(t, "{"+fn+".Arn}", render(target["Arn"]))
	assert.Equal(t, `{"MaximumEventAgeInSeconds":60,"MaximumRetryAttempts":2}`, render(target["RetryPolicy"]))

	var in release.Input
	require.NoError(t, json.Unmarshal([]byte(target["Input"].(string)), &in))
	assert.Equal(t, release.Input{Sweep: true}, in, "the release handler reads the event as a sweep")

	_, permission := s.only(t, "AWS::Lambda::Permission")
	assert.Equal(t, "events.amazonaws.com", permission.Properties["Principal"])
	assert.Equal(t, "{"+s.id(t, "AWS::Events::Rule", "SweepSchedule")+".Arn}", render(permission.Properties["SourceArn"]))
}
