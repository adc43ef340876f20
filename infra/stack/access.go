package stack

import (
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
// item.
func (f *function) allowKeys(table []string, key string, actions ...string) {
	f.role.AddToPrincipalPolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Actions:   jsii.Strings(actions...),
		Resources: jsii.Strings(table...),
		Conditions: &map[string]any{
			"ForAllValues:StringLike": map[string]any{"dynamodb:LeadingKeys": []string{key}},
		},
	}))
}

// allowIndex lets f record parked messages in the parking lot's index in
// table: PutItem of items whose partition key starts with
// lotindex.KeyPrefix, and of no other item.
func (f *function) allowIndex(table []string) {
	f.allowKeys(table, dynamo.ParkedPrefix+"*", "dynamodb:PutItem")
}

// workflowArns are the state machines' ARNs the grants name.
type workflowArns struct {
	// redrive is the redrive state machine's.
	redrive string
	// release is the release state machine's, by reference;
	// releaseByName the same ARN built from its name, for the release
	// function (see NewRedriveStack).
	release, releaseByName string
}

// grantAccess gives each function exactly the calls it makes, on exactly
// the resources it makes them on; the state machines' invoke grants are
// made with them (newStateMachine). It returns the policies that are not
// a role's default policy, which nothing may start executions before.
func grantAccess(scope constructs.Construct, s Settings, st *storage, fns map[string]*function, arns workflowArns) []awsiam.Policy {
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
	starter.allow([]string{arns.redrive}, "states:StartExecution")
	// Oversized and malformed messages are parked by the starter itself,
	// and indexed.
	starter.allow(parkingLot, "sqs:SendMessage")
	starter.allowIndex(table)
	// It reads the routing rules, to park what a rule quarantines.
	starter.allowKeys(table, dynamo.RulesKey, "dynamodb:GetItem")
	if s.Target.Kind == TargetSQS {
		// Fresh arrivals are counted on the pace rows (UpdateItem); a
		// message back in the DLQ with lineage is a failure of its breaker,
		// which the starter records (GetItem, UpdateItem).
		starter.allow(table, "dynamodb:GetItem", "dynamodb:UpdateItem")
	} else {
		starter.allow(table, "dynamodb:UpdateItem")
	}

	// The attempt reads and writes its breaker row (GetItem, UpdateItem)
	// and delivery records (PutItem, UpdateItem, GetItem); it releases the
	// room's oldest message as the next scout (Query on the room's index,
	// DeleteItem, and PutItem to put it back if SendTaskSuccess fails) and
	// starts a releaser after a successful canary (GetItem and PutItem on
	// the pace row, StartExecution).
	attempt := fns[attemptFn]
	attempt.allow(table, "dynamodb:GetItem", "dynamodb:UpdateItem", "dynamodb:PutItem", "dynamodb:DeleteItem")
	attempt.allow(roomIndex, "dynamodb:Query")
	attempt.allow([]string{arns.release}, "states:StartExecution")
	if s.Target.Kind == TargetLambda {
		attempt.allow([]string{s.Target.FunctionArn}, "lambda:InvokeFunction")
	} else {
		attempt.allow([]string{*st.source.QueueArn()}, "sqs:SendMessage")
		if s.Target.SourceQueueKeyArn != "" {
			attempt.allow([]string{s.Target.SourceQueueKeyArn}, "kms:GenerateDataKey", "kms:Decrypt")
		}
	}

	// The waiting room stores a token (PutItem), reads the breaker row and
	// starts a releaser for a breaker that lets messages through (GetItem
	// and PutItem on the pace row, StartExecution).
	waitroom := fns[waitroomFn]
	waitroom.allow(table, "dynamodb:GetItem", "dynamodb:PutItem")
	waitroom.allow([]string{arns.release}, "states:StartExecution")

	// The releaser reads the breaker row and its pace row (GetItem), saves
	// the pace (PutItem), lists and counts the room (Query on the index),
	// takes entries (DeleteItem), puts one back if SendTaskSuccess fails
	// (PutItem), and hands over to the next releaser (StartExecution).
	release := fns[releaseFn]
	release.allow(table, "dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:DeleteItem")
	release.allow(roomIndex, "dynamodb:Query")
	release.allow([]string{arns.releaseByName}, "states:StartExecution")

	fns[parkFn].allow(parkingLot, "sqs:SendMessage")
	fns[parkFn].allowIndex(table)
	// Admin commands change the breaker row (GetItem, UpdateItem); close,
	// release and reset start a releaser (GetItem and PutItem on the pace
	// row, StartExecution); the rule commands read and write the rules
	// item (GetItem, PutItem), and removing a hold resumes the messages it
	// held (Query on the room's index, DeleteItem, PutItem to put one back,
	// SendTaskSuccess).
	admin := fns[adminFn]
	admin.allow(table, "dynamodb:GetItem", "dynamodb:UpdateItem", "dynamodb:PutItem", "dynamodb:DeleteItem")
	admin.allow(roomIndex, "dynamodb:Query")
	admin.allow([]string{arns.release}, "states:StartExecution")
	// The replay command scans the parking lot (ReceiveMessage, and
	// ChangeMessageVisibility to keep what it saw hidden, then visible
	// again), sends what matches to the DLQ and deletes it from the lot;
	// its record and the lot's index are table items it already may
	// write and delete.
	admin.allow(parkingLot, "sqs:ReceiveMessage", "sqs:ChangeMessageVisibility", "sqs:DeleteMessage")
	admin.allow([]string{*st.dlq.QueueArn()}, "sqs:SendMessage")
	if s.DeadLetterQueueKeyArn != "" {
		admin.allow([]string{s.DeadLetterQueueKeyArn}, "kms:GenerateDataKey", "kms:Decrypt")
	}

	// The continuer's grant is a policy of its own, not its role's default
	// policy: the function depends on its default policy, and a grant on
	// the state machine there would close the cycle state machine ->
	// continuer -> policy -> state machine.
	continuer := fns[continuerFn]
	continuerPolicy := awsiam.NewPolicy(scope, jsii.String("ContinuerStartExecution"), &awsiam.PolicyProps{
		Roles:      &[]awsiam.IRole{continuer.role},
		Statements: &[]awsiam.PolicyStatement{statement([]string{arns.redrive}, "states:StartExecution")},
	})

	// Releasing a waiting message resumes its execution by task token.
	// SendTaskSuccess takes no resource (IAM requires "*"), so this
	// statement stands alone in a policy of its own, and the suppression
	// covers that policy only: the releaser, the attempt (which releases
	// scouts) and the admin (which resumes a removed hold's messages) call
	// it; nothing calls SendTaskFailure or
	// SendTaskHeartbeat, so neither is granted.
	resume := awsiam.NewPolicy(scope, jsii.String("ResumeWaitingExecutions"), &awsiam.PolicyProps{
		Roles:      &[]awsiam.IRole{release.role, attempt.role, admin.role},
		Statements: &[]awsiam.PolicyStatement{statement([]string{"*"}, sendTaskSuccess)},
	})
	suppress(resume, "AwsSolutions-IAM5", sendTaskSuccessReason, "Resource::*")

	if s.Tracing {
		for _, f := range fns {
			suppress(f.role, "AwsSolutions-IAM5", "X-Ray's PutTraceSegments and PutTelemetryRecords take no resource: IAM requires \"*\".", "Resource::*")
		}
	}
	return []awsiam.Policy{continuerPolicy, resume}
}

// sendTaskSuccess resumes a task token's execution.
const sendTaskSuccess = "states:SendTaskSuccess"

// sendTaskSuccessReason is the suppression's reason for SendTaskSuccess on
// "*".
const sendTaskSuccessReason = "states:SendTaskSuccess takes no resource: IAM authorizes it on \"*\" only (a task token " +
	"names no state machine). This policy holds that one action and nothing else; the releaser, the attempt and the admin " +
	"resume waiting executions with it. SendTaskFailure and SendTaskHeartbeat are not granted: nothing calls them."

// suppress records that construct (and its children) knowingly breaks
// rule, for reason; appliesTo narrows it to those findings.
func suppress(construct constructs.IConstruct, rule, reason string, appliesTo ...any) {
	sup := &cdknag.NagPackSuppression{Id: jsii.String(rule), Reason: jsii.String(reason)}
	if len(appliesTo) > 0 {
		sup.AppliesTo = &appliesTo
	}
	cdknag.NagSuppressions_AddResourceSuppressions(construct, &[]*cdknag.NagPackSuppression{sup}, jsii.Bool(true))
}
