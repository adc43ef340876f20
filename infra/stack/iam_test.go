package stack

import (
	"maps"
	"slices"
	"sort"
	"strings"
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

// TestNoTaskTokens: nothing waits on a task token any more, so no
// statement anywhere names a SendTask action.
func TestNoTaskTokens(t *testing.T) {
	for _, fixture := range []string{existingName, demoName} {
		t.Run(fixture, func(t *testing.T) {
			s := synth(t, fixture)
			for rid, r := range s.resources {
				for _, st := range allStatements(r.Properties) {
					for _, action := range renderAll(st["Action"]) {
						assert.NotContains(t, action, "states:SendTask", "%s: %s", rid, render(st))
					}
				}
			}
		})
	}
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
		roomIndex := table + "/index/room_line"
		lot := arn("AWS::SQS::Queue", "ParkingLot")
		// The claim-checked bodies: the objects under bodies/, nothing
		// else of the bucket.
		bodies := arn("AWS::S3::Bucket", "BodyBucket") + "/bodies/*"
		redrive := ref("AWS::StepFunctions::StateMachine", "RedriveStateMachine")
		release := ref("AWS::StepFunctions::StateMachine", "ReleaseStateMachine")
		byName := func(name string) string {
			return "arn:{AWS::Partition}:states:{AWS::Region}:{AWS::AccountId}:stateMachine:" + name
		}
		dlq, source := dlqArn, sourceArn
		if fixture == demoName {
			dlq, source = arn("AWS::SQS::Queue", "DeadLetterQueue"), arn("AWS::SQS::Queue", "SourceQueue")
		} else {
			byName = func(name string) string {
				return "arn:{AWS::Partition}:states:eu-west-1:123456789012:stateMachine:" + name
			}
		}
		var xray []string
		if s.settings.Tracing {
			xray = on("*", "xray:PutTraceSegments", "xray:PutTelemetryRecords")
		}

		// The table's items by partition key, one statement per kind of
		// item (TestKeyScopedGrants checks the conditions that keep each
		// to its items): the parking lot's index, the routing rules,
		// breaker rows, pace rows, room items, delivery records and the
		// replays' journal.
		index := on(table, "dynamodb:PutItem")
		rulesRead := on(table, "dynamodb:GetItem")
		pace := on(table, "dynamodb:GetItem", "dynamodb:UpdateItem")
		turns, turnEnds := on(table, "dynamodb:GetItem", "dynamodb:UpdateItem"), on(table, "dynamodb:UpdateItem")
		want := map[string][]string{
			"Starter": join(logs("Starter"), xray,
				on(dlq, "sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:GetQueueAttributes", "sqs:ChangeMessageVisibility"),
				on(redrive, "states:StartExecution"), on(release, "states:StartExecution"), on(lot, "sqs:SendMessage"), index, rulesRead,
				on(table, "dynamodb:GetItem"), pace, on(table, "dynamodb:PutItem"), turns,
				on(bodies, "s3:PutObject")),
			"Attempt": join(logs("Attempt"), xray,
				on(table, "dynamodb:GetItem", "dynamodb:UpdateItem"), on(table, "dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem"),
				rulesRead, pace, turnEnds, on(table, "dynamodb:DeleteItem"), on(release, "states:StartExecution"),
				on(bodies, "s3:GetObject")),
			"Park": join(logs("Park"), xray, on(lot, "sqs:SendMessage"), index, turnEnds, on(table, "dynamodb:DeleteItem"), on(bodies, "s3:GetObject")),
			"Admin": join(logs("Admin"), xray,
				on(table, "dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem"), pace, on(table, "dynamodb:GetItem", "dynamodb:PutItem"),
				on(table, "dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem"), on(table, "dynamodb:DeleteItem", "dynamodb:PutItem"),
				on(release, "states:StartExecution"),
				on(lot, "sqs:ReceiveMessage", "sqs:ChangeMessageVisibility", "sqs:DeleteMessage"), on(dlq, "sqs:SendMessage")),
			"WaitingRoom": join(logs("WaitingRoom"), xray, on(table, "dynamodb:PutItem"), pace,
				on(release, "states:StartExecution"), on(bodies, "s3:PutObject")),
			"Release": join(logs("Release"), xray,
				on(table, "dynamodb:GetItem"), pace, on(table, "dynamodb:DeleteItem", "dynamodb:UpdateItem", "dynamodb:GetItem"), turns, rulesRead, on(roomIndex, "dynamodb:Query"),
				on(byName("Redrive-Redrive"), "states:StartExecution"), on(byName("Redrive-Release"), "states:StartExecution")),
		}
		switch fixture {
		case existingName:
			want["Starter"] = join(want["Starter"], on(dlqKeyArn, "kms:Decrypt"))
			want["Admin"] = join(want["Admin"], on(dlqKeyArn, "kms:GenerateDataKey", "kms:Decrypt"))
			want["Attempt"] = join(want["Attempt"], on(consumerArn, "lambda:InvokeFunction"))
		case demoName:
			// It records returns on the breaker rows.
			want["Starter"] = join(want["Starter"], on(table, "dynamodb:UpdateItem"))
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
		want["RedriveStateMachine"] = join(delivery, smXray, invoke(attemptFn, parkFn, waitroomFn))
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

// TestIndexGrants: the park function may PutItem in the table only the
// parking lot's index items: the one statement that grants it has a
// dynamodb:LeadingKeys condition on their partition key's prefix, and no
// other of its statements grants PutItem. (Every function's table grants
// are TestKeyScopedGrants'.)
func TestIndexGrants(t *testing.T) {
	for _, fixture := range []string{existingName, demoName} {
		s := synth(t, fixture)
		table := "{" + s.id(t, "AWS::DynamoDB::Table", "Table") + ".Arn}"
		t.Run(fixture, func(t *testing.T) {
			puts := s.granting(t, "ParkRole", "dynamodb:PutItem")
			require.Len(t, puts, 1, "one statement grants PutItem")
			assert.Equal(t, []string{"dynamodb:PutItem"}, renderAll(puts[0]["Action"]), "and nothing else")
			assert.Equal(t, []string{table}, renderAll(puts[0]["Resource"]))
			assert.JSONEq(t, `{"ForAllValues:StringLike":{"dynamodb:LeadingKeys":["parked#*"]}}`, render(puts[0]["Condition"]))
		})
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

// tableGrants lists role's statements on the table as "actions by leading
// key" lines, sorted: "dynamodb:GetItem,dynamodb:UpdateItem on pace#*", or
// "... on any item" without a condition.
func (s *synthesized) tableGrants(t *testing.T, role string) []string {
	t.Helper()
	table := "{" + s.id(t, "AWS::DynamoDB::Table", "Table") + ".Arn}"
	roleID := "{" + s.id(t, "AWS::IAM::Role", role) + "}"
	var out []string
	for _, pid := range s.ofType("AWS::IAM::Policy") {
		p := s.resources[pid].Properties
		if !slices.Contains(renderAll(p["Roles"]), roleID) {
			continue
		}
		for _, st := range statements(p["PolicyDocument"]) {
			if !slices.Contains(renderAll(st["Resource"]), table) {
				continue
			}
			require.Equal(t, []string{table}, renderAll(st["Resource"]), "the table alone: %s", render(st))
			keys := "any item"
			if cond, ok := st["Condition"]; ok {
				c, _ := cond.(map[string]any)
				like, _ := c["ForAllValues:StringLike"].(map[string]any)
				require.Len(t, c, 1, "one condition: %s", render(cond))
				keys = strings.Join(renderAll(like["dynamodb:LeadingKeys"]), ",")
			}
			out = append(out, strings.Join(renderAll(st["Action"]), ",")+" on "+keys)
		}
	}
	sort.Strings(out)
	return out
}

// TestKeyScopedGrants: every function may touch only the items it uses,
// each grant on the table held to its items' partition keys by a
// dynamodb:LeadingKeys condition, and no grant on any item:
//   - the starter reads the routing rules and the breakers' rows (and,
//     with the sqs target, records returns on them), counts arrivals and
//     takes controllers' leases on the pace rows, enters the room and
//     indexes what it parks, and moves FIFO groups' tails;
//   - the attempt admits and records on the breaker rows, keeps the
//     delivery records, reads the rules, takes leases (after a canary)
//     and ends a delivered FIFO message's turn, taking a duplicate's
//     entry of it out of the room: it puts no room item;
//   - the waiting room enters the room and takes leases, and reads no
//     breaker row;
//   - the release (the controller) reads the breaker rows but never
//     changes them, keeps its pace row, claims, takes and reads room
//     entries, takes FIFO groups' turns and reads the rules (whether a
//     held group's rule is gone); it may not put an entry, nor change the
//     rules;
//   - park indexes what it parks and ends a FIFO message's turn, taking
//     a duplicate's entry of it out of the room (with
//     FIFO_ON_PARK=hold, the fifo fixture, it adds hold rules);
//   - admin reads and changes (or replaces) breaker rows, takes over
//     leases, reads and writes the rules, keeps the replays' journal and
//     removes replayed messages from the lot's index.
//
// Roles with no table grant (the state machines') have none here either.
func TestKeyScopedGrants(t *testing.T) {
	const (
		breakerRead = "dynamodb:GetItem on breaker#*"
		leases      = "dynamodb:GetItem,dynamodb:UpdateItem on pace#*"
		rulesRead   = "dynamodb:GetItem on rules"
		enter       = "dynamodb:PutItem on room#*"
		turns       = "dynamodb:GetItem,dynamodb:UpdateItem on group#*"
		turnEnds    = "dynamodb:UpdateItem on group#*"
	)
	starter := []string{rulesRead, leases, enter, turns, "dynamodb:PutItem on parked#*"}
	want := map[string][]string{
		"AttemptRole": {
			"dynamodb:GetItem,dynamodb:UpdateItem on breaker#*",
			"dynamodb:GetItem,dynamodb:PutItem,dynamodb:UpdateItem on delivery#*",
			rulesRead, leases, turnEnds, "dynamodb:DeleteItem on room#*",
		},
		"WaitingRoomRole": {enter, leases},
		"ReleaseRole":     {breakerRead, leases, "dynamodb:DeleteItem,dynamodb:UpdateItem,dynamodb:GetItem on room#*", turns, rulesRead},
		"ParkRole":        {"dynamodb:PutItem on parked#*", turnEnds, "dynamodb:DeleteItem on room#*"},
		"AdminRole": {
			"dynamodb:GetItem,dynamodb:PutItem,dynamodb:UpdateItem on breaker#*",
			leases,
			"dynamodb:GetItem,dynamodb:PutItem on rules",
			"dynamodb:GetItem,dynamodb:PutItem,dynamodb:UpdateItem on replay#*",
			"dynamodb:DeleteItem,dynamodb:PutItem on parked#*",
		},
		"RedriveStateMachineRole": nil,
		"ReleaseStateMachineRole": nil,
		"AdminStateMachineRole":   nil,
	}
	for _, fixture := range []string{existingName, demoName, fifoName} {
		s := synth(t, fixture)
		roles := maps.Clone(want)
		roles["StarterRole"] = append([]string{breakerRead}, starter...)
		if fixture == fifoName { // FIFO_ON_PARK=hold: park adds hold rules
			roles["ParkRole"] = append(slices.Clone(roles["ParkRole"]), "dynamodb:GetItem,dynamodb:PutItem on rules")
		}
		if fixture != existingName { // the sqs target: returns are recorded
			roles["StarterRole"] = append([]string{"dynamodb:GetItem,dynamodb:UpdateItem on breaker#*"}, starter...)
		}
		t.Run(fixture+"/every role", func(t *testing.T) {
			assert.Len(t, s.ofType("AWS::IAM::Role"), len(roles), "every role's table grants are listed here")
		})
		for role, grants := range roles {
			t.Run(fixture+"/"+role, func(t *testing.T) {
				grants := slices.Clone(grants)
				sort.Strings(grants)
				assert.Equal(t, grants, s.tableGrants(t, role))
			})
		}
	}
}
