package stack

import (
	"regexp"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
	"github.com/cdklabs/cdk-nag-go/cdknag/v2"
	"github.com/redrive/redrive/dynamo"
)

// statement allows actions on resources.
func statement(resources []string, actions ...string) awsiam.PolicyStatement {
	return awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Actions:   jsii.Strings(actions...),
		Resources: jsii.Strings(resources...),
	})
}

// allow adds a statement to f's role.
func (f *function) allow(resources []string, actions ...string) {
	f.role.AddToPrincipalPolicy(statement(resources, actions...))
}

// allowKeys allows actions on the items of table whose partition key is
// like key (a pattern: "*" matches any run of characters), and on no other
// item. It is for the single-item actions (GetItem, PutItem, UpdateItem,
// DeleteItem), which always name a key: ForAllValues holds of a request
// that names none, such as a Scan, so none is ever granted this way.
func (f *function) allowKeys(table []string, key string, actions ...string) {
	f.role.AddToPrincipalPolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Actions:   jsii.Strings(actions...),
		Resources: jsii.Strings(table...),
		Conditions: &map[string]any{
			"ForAllValues:StringLike": map[string]any{"dynamodb:LeadingKeys": []string{key}},
		},
	}))
}

// workflowArns are the state machines' ARNs the grants name.
type workflowArns struct {
	// redrive and release are the redrive (attempt) and release state
	// machines' ARNs, by reference; redriveByName and releaseByName the
	// same ARNs built from their names, for the release function (see
	// NewRedriveStack).
	redrive, redriveByName string
	release, releaseByName string
}

// Partition keys of the table's items, as dynamodb:LeadingKeys patterns:
// every grant on the table names the kinds of item it is for.
var (
	breakerRows     = dynamo.BreakerPrefix + "*"
	deliveryRecords = dynamo.DeliveryPrefix + "*"
	paceRows        = dynamo.PacePrefix + "*"
	roomItems       = dynamo.RoomPrefix + "*"
	groupTurns      = dynamo.GroupPrefix + "*"
	lotIndexItems   = dynamo.ParkedPrefix + "*"
	replayJournal   = dynamo.ReplayPrefix + "*"
	rulesItem       = dynamo.RulesKey
)

// bodyObjectsFinding matches, as a JavaScript regular expression, what
// cdk-nag's AwsSolutions-IAM5 reports of the body grant:
// "Resource::<BodyBucket1A2B3C4D.Arn>/bodies/*".
var bodyObjectsFinding = `/^Resource::<` + bodyBucketID + `[A-Za-z0-9]+\.Arn>` +
	strings.ReplaceAll(regexp.QuoteMeta("/"+bodyKeyPrefix+"*"), "/", `\/`) + `$/`

// grantAccess gives each function exactly the calls it makes, on exactly
// the resources it makes them on; the state machines' invoke grants are
// made with them (newStateMachine).
func grantAccess(s Settings, st *storage, fns map[string]*function, arns workflowArns) {
	table := []string{*st.table.TableArn()}
	roomIndex := []string{st.roomIndexArn()}
	parkingLot := []string{*st.parkingLot.QueueArn()}

	starter := fns[starterFn]
	// What the SQS event source mapping does with the starter's role,
	// plus ChangeMessageVisibility for the starter's own backoff.
	starter.allow([]string{*st.dlq.QueueArn()},
		"sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:GetQueueAttributes", "sqs:ChangeMessageVisibility")
	if s.DeadLetterQueueKeyArn != "" {
		starter.allow([]string{s.DeadLetterQueueKeyArn}, "kms:Decrypt")
	}
	// It starts a message's first attempt execution, or, when it would
	// only wait, puts it straight into its breaker's room and makes sure
	// the breaker's controller runs.
	starter.allow([]string{arns.redrive}, "states:StartExecution")
	starter.allow([]string{arns.release}, "states:StartExecution")
	// Oversized and malformed messages are parked by the starter itself,
	// and indexed.
	starter.allow(parkingLot, "sqs:SendMessage")
	starter.allowKeys(table, lotIndexItems, "dynamodb:PutItem")
	// It reads the routing rules, to park what a rule quarantines.
	starter.allowKeys(table, rulesItem, "dynamodb:GetItem")
	// It reads the breakers' rows (whether a message would only wait); a
	// message back in the DLQ with lineage is, with the sqs target, a
	// failure of its breaker, which it records (UpdateItem).
	if s.Target.Kind == TargetSQS {
		starter.allowKeys(table, breakerRows, "dynamodb:GetItem", "dynamodb:UpdateItem")
	} else {
		starter.allowKeys(table, breakerRows, "dynamodb:GetItem")
	}
	// It counts fresh arrivals on the pace rows and takes a controller's
	// lease there (GetItem, UpdateItem), and enters the room (PutItem of
	// room items).
	starter.allowKeys(table, paceRows, "dynamodb:GetItem", "dynamodb:UpdateItem")
	starter.allowKeys(table, roomItems, "dynamodb:PutItem")
	// A FIFO message enters in line behind its group: it reads the
	// group's turn item and moves its tail (GetItem, UpdateItem).
	starter.allowKeys(table, groupTurns, "dynamodb:GetItem", "dynamodb:UpdateItem")

	// The attempt admits and records on its breaker's row (GetItem,
	// UpdateItem: it only ever updates one, under its version),
	// begins and completes the message's delivery record (GetItem, PutItem,
	// UpdateItem), reads the routing rules (GetItem) and, to start the
	// breaker's controller after a successful canary, notes the entry on
	// the pace row and takes the lease there (GetItem, UpdateItem). It
	// never enters the room: the Queue task (waitroom) does. A delivered
	// FIFO message ends its turn in its group (UpdateItem of the group's
	// turn item) and takes a duplicate's entry of it out of the room
	// (DeleteItem).
	attempt := fns[attemptFn]
	attempt.allowKeys(table, breakerRows, "dynamodb:GetItem", "dynamodb:UpdateItem")
	attempt.allowKeys(table, deliveryRecords, "dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem")
	attempt.allowKeys(table, rulesItem, "dynamodb:GetItem")
	attempt.allowKeys(table, paceRows, "dynamodb:GetItem", "dynamodb:UpdateItem")
	attempt.allowKeys(table, groupTurns, "dynamodb:UpdateItem")
	attempt.allowKeys(table, roomItems, "dynamodb:DeleteItem")
	attempt.allow([]string{arns.release}, "states:StartExecution")
	if s.Target.Kind == TargetLambda {
		attempt.allow([]string{s.Target.FunctionArn}, "lambda:InvokeFunction")
	} else {
		attempt.allow([]string{*st.source.QueueArn()}, "sqs:SendMessage")
		if s.Target.SourceQueueKeyArn != "" {
			attempt.allow([]string{s.Target.SourceQueueKeyArn}, "kms:GenerateDataKey", "kms:Decrypt")
		}
	}

	// The waiting room (the Queue task) stores the document (PutItem of a
	// room item) and makes sure the breaker's controller runs (GetItem and
	// UpdateItem of the pace row, StartExecution); it reads no breaker row.
	waitroom := fns[waitroomFn]
	waitroom.allowKeys(table, roomItems, "dynamodb:PutItem")
	waitroom.allowKeys(table, paceRows, "dynamodb:GetItem", "dynamodb:UpdateItem")
	waitroom.allow([]string{arns.release}, "states:StartExecution")

	// The controller reads the breaker row (GetItem: it never changes
	// it), reads and saves its pace row and gives up its lease (GetItem,
	// UpdateItem), claims and unclaims room entries (UpdateItem) and takes
	// them (DeleteItem); it starts each released message's attempt
	// execution and hands over to the next controller (StartExecution,
	// both by name). It lists and counts the room by Query on the room's
	// index, the only function that does, with no dynamodb:LeadingKeys
	// condition: on an index the condition reads the index's partition
	// key, here the bare breaker key (no prefix to name), and the index is
	// sparse, holding room entries only (what a listing reads of them), so
	// the Query reaches no other item.
	release := fns[releaseFn]
	release.allowKeys(table, breakerRows, "dynamodb:GetItem")
	release.allowKeys(table, paceRows, "dynamodb:GetItem", "dynamodb:UpdateItem")
	release.allowKeys(table, roomItems, "dynamodb:DeleteItem", "dynamodb:UpdateItem", "dynamodb:GetItem")
	// A FIFO entry goes only with its group's turn, which the controller
	// takes (UpdateItem of the group's turn item); to take a stale turn
	// over it reads the turn and whether its message is still in the room
	// (GetItem of both).
	release.allowKeys(table, groupTurns, "dynamodb:GetItem", "dynamodb:UpdateItem")
	// A group held behind a hold rule goes on once the rule is gone: it
	// reads the routing rules (GetItem).
	release.allowKeys(table, rulesItem, "dynamodb:GetItem")
	release.allow(roomIndex, "dynamodb:Query")
	release.allow([]string{arns.redriveByName}, "states:StartExecution")
	release.allow([]string{arns.releaseByName}, "states:StartExecution")

	// Park sends to the parking lot and indexes what it sent (PutItem of
	// the index's items); a parked FIFO message ends its turn in its group
	// (UpdateItem of the group's turn item) and takes a duplicate's entry
	// of it out of the room (DeleteItem).
	fns[parkFn].allow(parkingLot, "sqs:SendMessage")
	fns[parkFn].allowKeys(table, lotIndexItems, "dynamodb:PutItem")
	fns[parkFn].allowKeys(table, groupTurns, "dynamodb:UpdateItem")
	fns[parkFn].allowKeys(table, roomItems, "dynamodb:DeleteItem")
	if s.FIFOOnPark == "hold" {
		// It holds a parked FIFO message's group behind a hold rule it
		// adds (GetItem and PutItem of the rules item).
		fns[parkFn].allowKeys(table, rulesItem, "dynamodb:GetItem", "dynamodb:PutItem")
	}

	// Claim-checked bodies (claimcheck): the starter puts a body too large
	// for a document under bodies/ (PutObject), the starter and the Queue
	// task (waitroom) one too large for a document that waits; the attempt
	// gets it back for the delivery and park for the parking lot
	// (GetObject). No function lists or deletes: a lifecycle rule expires
	// the bodies, and no other function touches the bucket.
	bodies := []string{st.bodyObjectsArn()}
	starter.allow(bodies, "s3:PutObject")
	waitroom.allow(bodies, "s3:PutObject")
	attempt.allow(bodies, "s3:GetObject")
	fns[parkFn].allow(bodies, "s3:GetObject")
	for _, f := range []*function{starter, attempt, fns[parkFn], waitroom} {
		suppress(f.role, "AwsSolutions-IAM5", "The claim check's keys are per message (bodies/<execution name>/<SHA-256>), "+
			"unknown at deploy: the grant is the one S3 action the function makes, on the body bucket's bodies/ prefix only.",
			&cdknag.RegexAppliesTo{Regex: jsii.String(bodyObjectsFinding)})
	}
	// Admin commands read and change the breaker row they name (GetItem,
	// UpdateItem, and PutItem to replace one that does not decode); close,
	// release and reset take over the breaker's controller (GetItem and
	// UpdateItem of the pace row, StartExecution); the rule commands read
	// and write the rules item (GetItem, PutItem). Every command names its
	// breaker: none lists the table (no Scan, no Query), so no grant is on
	// every item.
	admin := fns[adminFn]
	admin.allowKeys(table, breakerRows, "dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem")
	admin.allowKeys(table, paceRows, "dynamodb:GetItem", "dynamodb:UpdateItem")
	admin.allowKeys(table, rulesItem, "dynamodb:GetItem", "dynamodb:PutItem")
	admin.allow([]string{arns.release}, "states:StartExecution")
	// The replay command scans the parking lot (ReceiveMessage, and
	// ChangeMessageVisibility to keep what it saw hidden, then visible
	// again), sends what matches to the DLQ and deletes it from the lot;
	// it keeps its journal (GetItem, PutItem, UpdateItem of the replay
	// items), takes each message it moves in the lot's index (PutItem) and
	// removes it from the index once moved (DeleteItem).
	admin.allowKeys(table, replayJournal, "dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem")
	admin.allowKeys(table, lotIndexItems, "dynamodb:DeleteItem", "dynamodb:PutItem")
	admin.allow(parkingLot, "sqs:ReceiveMessage", "sqs:ChangeMessageVisibility", "sqs:DeleteMessage")
	admin.allow([]string{*st.dlq.QueueArn()}, "sqs:SendMessage")
	if s.DeadLetterQueueKeyArn != "" {
		admin.allow([]string{s.DeadLetterQueueKeyArn}, "kms:GenerateDataKey", "kms:Decrypt")
	}

	if s.Tracing {
		for _, f := range fns {
			suppress(f.role, "AwsSolutions-IAM5", "X-Ray's PutTraceSegments and PutTelemetryRecords take no resource: IAM requires \"*\".", "Resource::*")
		}
	}
}

// suppress records that construct (and its children) knowingly breaks
// rule, for reason; appliesTo narrows it to those findings.
func suppress(construct constructs.IConstruct, rule, reason string, appliesTo ...any) {
	sup := &cdknag.NagPackSuppression{Id: jsii.String(rule), Reason: jsii.String(reason)}
	if len(appliesTo) > 0 {
		sup.AppliesTo = &appliesTo
	}
	cdknag.NagSuppressions_AddResourceSuppressions(construct, &[]*cdknag.NagPackSuppression{sup}, jsii.Bool(true))
}
