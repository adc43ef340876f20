package stack

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// allStatements returns every policy statement in the template: identity
// policies, roles' inline and trust policies, and resource policies.
func allStatements(v any) []map[string]any {
	var out []map[string]any
	switch v := v.(type) {
	case map[string]any:
		if list, ok := v["Statement"].([]any); ok {
			for _, st := range list {
				if m, ok := st.(map[string]any); ok {
					out = append(out, m)
				}
			}
		}
		for _, item := range v {
			out = append(out, allStatements(item)...)
		}
	case []any:
		for _, item := range v {
			out = append(out, allStatements(item)...)
		}
	}
	return out
}

// grantStatements returns the statements of every policy but KMS key
// policies: in those "*" is the key itself, and the account's kms:* is
// KMS's default, which grants nothing but lets IAM policies grant (none
// here does). TestAlarmTopic checks the one key policy whole.
func grantStatements(s *synthesized) []map[string]any {
	var out []map[string]any
	for _, r := range s.resources {
		if r.Type != "AWS::KMS::Key" {
			out = append(out, allStatements(r.Properties)...)
		}
	}
	return out
}

// TestNoWildcardActions: no statement that allows anything names a
// wildcard action. (Deny statements may: the queues' TLS-only policy
// denies sqs:* without TLS, which only takes away.)
func TestNoWildcardActions(t *testing.T) {
	for _, fixture := range []string{existingName, demoName} {
		t.Run(fixture, func(t *testing.T) {
			s := synth(t, fixture)
			allows := 0
			for _, st := range grantStatements(s) {
				if st["Effect"] != "Allow" {
					continue
				}
				allows++
				for _, action := range renderAll(st["Action"]) {
					assert.NotContains(t, action, "*", "wildcard action in %s", render(st))
				}
				assert.Nil(t, st["NotAction"], "NotAction allows everything else: %s", render(st))
			}
			assert.Greater(t, allows, 10, "the walk found the stack's policies")
		})
	}
}

// wildcardResourceActions are the only actions allowed on "*": IAM takes
// no resource for them.
var wildcardResourceActions = []string{
	"logs:CreateLogDelivery", "logs:GetLogDelivery", "logs:UpdateLogDelivery", "logs:DeleteLogDelivery",
	"logs:ListLogDeliveries", "logs:PutResourcePolicy", "logs:DescribeResourcePolicies", "logs:DescribeLogGroups",
	"xray:PutTraceSegments", "xray:PutTelemetryRecords", "xray:GetSamplingRules", "xray:GetSamplingTargets",
	"states:SendTaskSuccess",
}

func TestWildcardResourcesOnlyWhereIAMHasNoResource(t *testing.T) {
	for _, fixture := range []string{existingName, demoName} {
		t.Run(fixture, func(t *testing.T) {
			s := synth(t, fixture)
			for _, st := range grantStatements(s) {
				if st["Effect"] != "Allow" || !slices.Contains(renderAll(st["Resource"]), "*") {
					continue
				}
				for _, action := range renderAll(st["Action"]) {
					assert.Contains(t, wildcardResourceActions, action, "allowed on every resource")
				}
			}
		})
	}
}

// TestSendTaskSuccessStandsAlone: resuming a task token needs "*" (IAM has
// no resource for it), so its one statement is the whole of its own
// policy, attached to the three roles that release waiting messages, with a
// cdk-nag suppression on that policy only, saying why. No statement
// anywhere else names a SendTask action, and none grants SendTaskFailure
// or SendTaskHeartbeat, which nothing calls.
func TestSendTaskSuccessStandsAlone(t *testing.T) {
	for _, fixture := range []string{existingName, demoName} {
		t.Run(fixture, func(t *testing.T) {
			s := synth(t, fixture)
			id := s.id(t, "AWS::IAM::Policy", "ResumeWaitingExecutions")
			p := s.resources[id]
			assert.JSONEq(t, `[{"Action":"states:SendTaskSuccess","Effect":"Allow","Resource":"*"}]`,
				render(statementsOf(p.Properties["PolicyDocument"])), "one statement, one action")
			assert.ElementsMatch(t, []string{
				"{" + s.id(t, "AWS::IAM::Role", "ReleaseRole") + "}", "{" + s.id(t, "AWS::IAM::Role", "AttemptRole") + "}",
				"{" + s.id(t, "AWS::IAM::Role", "AdminRole") + "}",
			}, renderAll(p.Properties["Roles"]))

			assert.Equal(t, []any{map[string]any{
				"id": "AwsSolutions-IAM5", "reason": sendTaskSuccessReason, "applies_to": []any{"Resource::*"},
			}}, p.Metadata["cdk_nag"].(map[string]any)["rules_to_suppress"], "suppressed for Resource::* on this policy only, with its reason")
			assert.Contains(t, sendTaskSuccessReason, "no resource")

			for rid, r := range s.resources {
				for _, st := range allStatements(r.Properties) {
					for _, action := range renderAll(st["Action"]) {
						if rid != id {
							assert.NotContains(t, action, "states:SendTask", "%s: %s", rid, render(st))
						}
						assert.NotContains(t, []string{"states:SendTaskFailure", "states:SendTaskHeartbeat"}, action, rid)
					}
				}
			}
		})
	}
}

// statementsOf returns a policy document's Statement list as it is.
func statementsOf(doc any) any {
	d, _ := doc.(map[string]any)
	return d["Statement"]
}

// TestLeastPrivilege lists everything each role may do, exactly.
func TestLeastPrivilege(t *testing.T) {
	for _, fixture := range []string{existingName, demoName} {
		s := synth(t, fixture)
		ref := func(typ, constructID string) string { return "{" + s.id(t, typ, constructID) + "}" }
		arn := func(typ, constructID string) string { return "{" + s.id(t, typ, constructID) + ".Arn}" }
		fnArn := func(name string) string { id, _ := s.function(t, name); return "{" + id + ".Arn}" }
		on := func(resource string, actions ...string) []string {
			out := make([]string, len(actions))
			for i, a := range actions {
				out[i] = a + " on " + resource
			}
			return out
		}
		logs := func(id string) []string {
			return on(arn("AWS::Logs::LogGroup", id+"Logs"), "logs:CreateLogStream", "logs:PutLogEvents")
		}
		table := arn("AWS::DynamoDB::Table", "Table")
		roomIndex := table + "/index/room"
		lot := arn("AWS::SQS::Queue", "ParkingLot")
		redrive := ref("AWS::StepFunctions::StateMachine", "RedriveStateMachine")
		release := ref("AWS::StepFunctions::StateMachine", "ReleaseStateMachine")
		releaseByName := "arn:{AWS::Partition}:states:{AWS::Region}:{AWS::AccountId}:stateMachine:Redrive-Release"
		dlq, source := dlqArn, sourceArn
		if fixture == demoName {
			dlq, source = arn("AWS::SQS::Queue", "DeadLetterQueue"), arn("AWS::SQS::Queue", "SourceQueue")
		} else {
			releaseByName = "arn:{AWS::Partition}:states:eu-west-1:123456789012:stateMachine:Redrive-Release"
		}
		var xray []string
		if s.settings.Tracing {
			xray = on("*", "xray:PutTraceSegments", "xray:PutTelemetryRecords")
		}
		resume := on("*", "states:SendTaskSuccess")

		// The parking lot's index items (TestIndexGrants checks the
		// condition that keeps it to them).
		index := on(table, "dynamodb:PutItem")
		// The starter's read of the routing rules (TestIndexGrants checks
		// its condition too).
		rulesRead := on(table, "dynamodb:GetItem")
		want := map[string][]string{
			"Starter": join(logs("Starter"), xray,
				on(dlq, "sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:GetQueueAttributes", "sqs:ChangeMessageVisibility"),
				on(redrive, "states:StartExecution"), on(lot, "sqs:SendMessage"), index, rulesRead),
			"Attempt": join(logs("Attempt"), xray, resume,
				on(table, "dynamodb:GetItem", "dynamodb:UpdateItem", "dynamodb:PutItem", "dynamodb:DeleteItem"),
				on(roomIndex, "dynamodb:Query"), on(release, "states:StartExecution")),
			"Park":      join(logs("Park"), xray, on(lot, "sqs:SendMessage"), index),
			"Continuer": join(logs("Continuer"), xray, on(redrive, "states:StartExecution")),
			"Admin": join(logs("Admin"), xray, resume, on(table, "dynamodb:GetItem", "dynamodb:UpdateItem", "dynamodb:PutItem", "dynamodb:DeleteItem"),
				on(roomIndex, "dynamodb:Query"), on(release, "states:StartExecution"),
				on(lot, "sqs:ReceiveMessage", "sqs:ChangeMessageVisibility", "sqs:DeleteMessage"), on(dlq, "sqs:SendMessage")),
			"WaitingRoom": join(logs("WaitingRoom"), xray, on(table, "dynamodb:GetItem", "dynamodb:PutItem"), on(release, "states:StartExecution")),
			"Release": join(logs("Release"), xray, resume,
				on(table, "dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:DeleteItem"),
				on(roomIndex, "dynamodb:Query"), on(releaseByName, "states:StartExecution")),
		}
		switch fixture {
		case existingName:
			want["Starter"] = join(want["Starter"], on(dlqKeyArn, "kms:Decrypt"), on(table, "dynamodb:UpdateItem"))
			want["Admin"] = join(want["Admin"], on(dlqKeyArn, "kms:GenerateDataKey", "kms:Decrypt"))
			want["Attempt"] = join(want["Attempt"], on(consumerArn, "lambda:InvokeFunction"))
		case demoName:
			want["Starter"] = join(want["Starter"], on(table, "dynamodb:GetItem", "dynamodb:UpdateItem"))
			want["Attempt"] = join(want["Attempt"], on(source, "sqs:SendMessage"))
		}
		invoke := func(names ...string) []string {
			var out []string
			for _, n := range names {
				out = append(out, on(fnArn(n), "lambda:InvokeFunction")...)
				out = append(out, on(fnArn(n)+":*", "lambda:InvokeFunction")...)
			}
			return out
		}
		delivery := on("*", wildcardResourceActions[:8]...)
		var smXray []string
		if s.settings.Tracing {
			smXray = on("*", wildcardResourceActions[8:12]...)
		}
		want["RedriveStateMachine"] = join(delivery, smXray, invoke(attemptFn, continuerFn, parkFn, waitroomFn))
		want["AdminStateMachine"] = join(delivery, smXray, invoke(adminFn))
		want["ReleaseStateMachine"] = join(delivery, smXray, invoke(releaseFn))

		t.Run(fixture+"/every role", func(t *testing.T) {
			assert.Len(t, s.ofType("AWS::IAM::Role"), len(want), "every role's grants are listed here")
		})
		for role, grants := range want {
			t.Run(fixture+"/"+role, func(t *testing.T) {
				slices.Sort(grants)
				assert.Equal(t, grants, s.grants(t, s.id(t, "AWS::IAM::Role", role+"Role")))
			})
		}
		t.Run(fixture+"/no managed policies", func(t *testing.T) {
			for _, id := range s.ofType("AWS::IAM::Role") {
				assert.Nil(t, s.resources[id].Properties["ManagedPolicyArns"], "role %s", id)
			}
		})
	}
}

func join(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// TestIndexGrants: the starter and the park function, which park, may
// PutItem in the table only the parking lot's index items: the one
// statement that grants it to each has a dynamodb:LeadingKeys condition on
// their partition key's prefix, and no other of their statements grants
// PutItem.
func TestIndexGrants(t *testing.T) {
	for _, fixture := range []string{existingName, demoName} {
		s := synth(t, fixture)
		table := "{" + s.id(t, "AWS::DynamoDB::Table", "Table") + ".Arn}"
		for _, role := range []string{"StarterRole", "ParkRole"} {
			t.Run(fixture+"/"+role, func(t *testing.T) {
				puts := s.granting(t, role, "dynamodb:PutItem")
				require.Len(t, puts, 1, "one statement grants PutItem")
				assert.Equal(t, []string{"dynamodb:PutItem"}, renderAll(puts[0]["Action"]), "and nothing else")
				assert.Equal(t, []string{table}, renderAll(puts[0]["Resource"]))
				assert.JSONEq(t, `{"ForAllValues:StringLike":{"dynamodb:LeadingKeys":["parked#*"]}}`, render(puts[0]["Condition"]))
			})
		}
	}
}

// granting returns the statements of role's policies that grant action.
func (s *synthesized) granting(t *testing.T, role, action string) []map[string]any {
	t.Helper()
	roleID := "{" + s.id(t, "AWS::IAM::Role", role) + "}"
	var out []map[string]any
	for _, pid := range s.ofType("AWS::IAM::Policy") {
		p := s.resources[pid].Properties
		if !slices.Contains(renderAll(p["Roles"]), roleID) {
			continue
		}
		for _, st := range statements(p["PolicyDocument"]) {
			if slices.Contains(renderAll(st["Action"]), action) {
				out = append(out, st)
			}
		}
	}
	return out
}

// With the lambda target, the starter reads the routing rules item and no
// other (with the sqs target it reads breaker rows too, to record returns).
func TestTheStarterReadsOnlyTheRulesItem(t *testing.T) {
	s := synth(t, existingName)
	gets := s.granting(t, "StarterRole", "dynamodb:GetItem")
	require.Len(t, gets, 1, "one statement grants GetItem")
	assert.Equal(t, []string{"dynamodb:GetItem"}, renderAll(gets[0]["Action"]), "and nothing else")
	assert.JSONEq(t, `{"ForAllValues:StringLike":{"dynamodb:LeadingKeys":["rules"]}}`, render(gets[0]["Condition"]))
}
