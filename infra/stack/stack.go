package stack

import (
	"errors"
	"fmt"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/redrive/redrive/starter"
)

// NewRedriveStack validates props and builds the Redrive stack in scope.
// Invalid props return every problem (see Settings.Validate) and build
// nothing.
func NewRedriveStack(scope constructs.Construct, id string, props *Props) (awscdk.Stack, error) {
	if props == nil {
		props = &Props{}
	}
	if err := errors.Join(props.Settings.Validate(), checkRegion(props)); err != nil {
		return nil, err
	}
	s := props.Settings.withDefaults()
	stack := awscdk.NewStack(scope, &id, &props.StackProps)

	st := newStorage(stack, s)
	r := st.refs()
	fns := map[string]*function{}

	// The release workflow first: the functions that start controllers
	// get its ARN. The release function starts the next controller of its
	// own workflow and released messages' attempt executions, so it gets
	// both ARNs from the workflows' names, not references (which would
	// close cycles: see stateMachineArnOf).
	releaseName := releaseStateMachineName(*stack.StackName())
	redriveName := redriveStateMachineName(*stack.StackName())
	self := r
	self.releaseStateMachineArn = stateMachineArnOf(stack, releaseName)
	self.stateMachineArn = stateMachineArnOf(stack, redriveName)
	fns[releaseFn] = newFunction(stack, releaseFn, s, self)
	sms := &stateMachines{}
	var err error
	if sms.release, err = newReleaseStateMachine(stack, s, fns, releaseName); err != nil {
		return nil, err
	}
	r.releaseStateMachineArn = *sms.release.StateMachineArn()

	for _, name := range []string{attemptFn, parkFn, adminFn, waitroomFn} {
		fns[name] = newFunction(stack, name, s, r)
	}
	if sms.redrive, sms.admin, err = newStateMachines(stack, s, fns, redriveName); err != nil {
		return nil, err
	}
	r.stateMachineArn = *sms.redrive.StateMachineArn()
	fns[starterFn] = newFunction(stack, starterFn, s, r)
	grantAccess(s, st, fns, workflowArns{
		redrive: r.stateMachineArn, redriveByName: self.stateMachineArn,
		release: r.releaseStateMachineArn, releaseByName: self.releaseStateMachineArn,
	})

	// Batch size and concurrency bound the StartExecution rate; see the
	// README for the arithmetic; the batching window fills the batches
	// (starter.BatchWindow).
	mapping := fns[starterFn].fn.AddEventSourceMapping(jsii.String("DeadLetterQueue"), &awslambda.EventSourceMappingOptions{
		EventSourceArn:          st.dlq.QueueArn(),
		BatchSize:               jsii.Number(float64(s.StarterBatchSize)),
		MaxBatchingWindow:       awscdk.Duration_Seconds(jsii.Number(starter.BatchWindow.Seconds())),
		MaxConcurrency:          jsii.Number(float64(s.StarterMaxConcurrency)),
		ReportBatchItemFailures: jsii.Bool(true),
	})
	// No message starts before every function can do its part: the
	// workflows the release function knows by name only must exist (the
	// starter's references make the mapping wait for the rest).
	mapping.Node().AddDependency(sms.release, sms.redrive)

	newSweepSchedule(stack, fns[releaseFn])

	topic := newAlarmTopic(stack, s)
	alarms := newAlarms(stack, s, st, fns, sms, topic)
	dashboard := newDashboard(stack, st, fns, sms, alarms)
	newOutputs(stack, st, sms, dashboard, topic)
	return stack, nil
}

// checkRegion rejects a dead-letter queue in another Region than the
// stack's, when the stack's Region is known: an event source mapping reads
// a queue in its own Region only.
func checkRegion(props *Props) error {
	if props.Env == nil || props.Env.Region == nil || *awscdk.Token_IsUnresolved(props.Env.Region) || props.DeadLetterQueueArn == "" {
		return nil
	}
	a, err := parseARN(props.DeadLetterQueueArn, "sqs")
	if err != nil || a.region == *props.Env.Region {
		return nil // a malformed ARN is reported by Validate
	}
	return &PropError{Field: "DeadLetterQueueArn", Problem: fmt.Sprintf("queue is in %s, the stack in %s; deploy the stack to the queue's Region", a.region, *props.Env.Region)}
}
