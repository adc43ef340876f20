package stack

import (
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
	"github.com/cdklabs/cdk-nag-go/cdknag/v2"
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

// grantAccess gives each function exactly the calls it makes, on exactly
// the resources it makes them on; the state machines' invoke grants are
// made with them (newStateMachines). It returns the continuer's policy,
// which nothing may start executions before.
func grantAccess(scope constructs.Construct, s Settings, st *storage, fns map[string]*function, redrive string) awsiam.Policy {
	table := []string{*st.table.TableArn()}
	parkingLot := []string{*st.parkingLot.QueueArn()}

	starter := fns[starterFn]
	// What the SQS event source mapping does with the starter's role,
	// plus ChangeMessageVisibility for the starter's own backoff.
	starter.allow([]string{*st.dlq.QueueArn()},
		"sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:GetQueueAttributes", "sqs:ChangeMessageVisibility")
	if s.DeadLetterQueueKeyArn != "" {
		starter.allow([]string{s.DeadLetterQueueKeyArn}, "kms:Decrypt")
	}
	starter.allow([]string{redrive}, "states:StartExecution")
	// Oversized messages are parked by the starter itself.
	starter.allow(parkingLot, "sqs:SendMessage")
	if s.Target.Kind == TargetSQS {
		// A message back in the DLQ with lineage is a failure of its
		// breaker, which the starter records.
		starter.allow(table, "dynamodb:GetItem", "dynamodb:UpdateItem")
	}

	attempt := fns[attemptFn]
	attempt.allow(table, "dynamodb:GetItem", "dynamodb:UpdateItem", "dynamodb:PutItem")
	if s.Target.Kind == TargetLambda {
		attempt.allow([]string{s.Target.FunctionArn}, "lambda:InvokeFunction")
	} else {
		attempt.allow([]string{*st.source.QueueArn()}, "sqs:SendMessage")
		if s.Target.SourceQueueKeyArn != "" {
			attempt.allow([]string{s.Target.SourceQueueKeyArn}, "kms:GenerateDataKey", "kms:Decrypt")
		}
	}

	fns[parkFn].allow(parkingLot, "sqs:SendMessage")
	fns[adminFn].allow(table, "dynamodb:GetItem", "dynamodb:UpdateItem")

	// The continuer's grant is a policy of its own, not its role's default
	// policy: the function depends on its default policy, and a grant on
	// the state machine there would close the cycle state machine ->
	// continuer -> policy -> state machine.
	continuer := fns[continuerFn]
	policy := awsiam.NewPolicy(scope, jsii.String("ContinuerStartExecution"), &awsiam.PolicyProps{
		Roles:      &[]awsiam.IRole{continuer.role},
		Statements: &[]awsiam.PolicyStatement{statement([]string{redrive}, "states:StartExecution")},
	})

	if s.Tracing {
		for _, f := range fns {
			suppress(f.role, "AwsSolutions-IAM5", "X-Ray's PutTraceSegments and PutTelemetryRecords take no resource: IAM requires \"*\".", "Resource::*")
		}
	}
	return policy
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
