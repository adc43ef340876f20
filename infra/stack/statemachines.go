package stack

import (
	"fmt"
	"hash/fnv"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsstepfunctions"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
	"github.com/cdklabs/cdk-nag-go/cdknag/v2"
	"github.com/redrive/redrive/statemachine"
)

// stateMachines are the three workflows.
type stateMachines struct {
	redrive, admin, release awsstepfunctions.StateMachine
}

// invokedBy maps each function placeholder of the embedded ASL to its
// function.
func invokedBy(fns map[string]*function) map[string]*function {
	return map[string]*function{
		statemachine.AttemptFunctionArn:     fns[attemptFn],
		statemachine.ContinueFunctionArn:    fns[continuerFn],
		statemachine.ParkFunctionArn:        fns[parkFn],
		statemachine.AdminFunctionArn:       fns[adminFn],
		statemachine.WaitingRoomFunctionArn: fns[waitroomFn],
		statemachine.ReleaseFunctionArn:     fns[releaseFn],
	}
}

// newStateMachines deploys the redrive and admin workflows from the
// embedded ASL as Standard workflows, each function ARN given through
// DefinitionSubstitutions (so the template shows the definition and
// CloudFormation fills in the ARNs), and lets each state machine invoke its
// functions and nothing else. The release workflow is deployed before
// (newReleaseStateMachine): the functions that start releasers get its
// ARN.
func newStateMachines(scope constructs.Construct, s Settings, fns map[string]*function) (redrive, admin awsstepfunctions.StateMachine, err error) {
	arns := invokedBy(fns)
	stackName := *awscdk.Stack_Of(scope).StackName()

	redrive, err = newStateMachine(scope, "RedriveStateMachine", "", statemachine.Redrive(), arns, executionLogs(scope, "RedriveExecutionLogs", stackName+"-Redrive", s), s.Tracing)
	if err != nil {
		return nil, nil, err
	}
	suppressExecutionLogLevel(redrive, s)

	admin, err = newStateMachine(scope, "AdminStateMachine", "", statemachine.Admin(), arns, &awsstepfunctions.LogOptions{
		Destination: newLogGroup(scope, "AdminExecutionLogs", "/aws/vendedlogs/states/"+stackName+"-Admin", s),
		Level:       awsstepfunctions.LogLevel_ALL,
		// Operators' commands, with their input: the audit trail.
		IncludeExecutionData: jsii.Bool(true),
	}, s.Tracing)
	if err != nil {
		return nil, nil, err
	}
	return redrive, admin, nil
}

// releaseSuffix ends the release state machine's name.
const releaseSuffix = "-Release"

// maxStateMachineName is Step Functions' limit on a state machine's name.
const maxStateMachineName = 80

// releaseStateMachineName names the release state machine after the stack
// (unique per account and Region, as the name must be): "<stack>-Release",
// or for a stack name too long for that, its first characters and a hash
// of the whole.
func releaseStateMachineName(stackName string) string {
	name := stackName + releaseSuffix
	if len(name) <= maxStateMachineName {
		return name
	}
	h := fnv.New32a()
	h.Write([]byte(stackName))
	hash := fmt.Sprintf("-%08x", h.Sum32())
	return stackName[:maxStateMachineName-len(hash)-len(releaseSuffix)] + hash + releaseSuffix
}

// releaseStateMachineArn is the ARN of the state machine named name in
// scope's stack, from the name alone: the release function's own
// RELEASE_STATE_MACHINE_ARN (it starts the next releaser) and IAM grant. A
// reference to the state machine there would close the cycle state
// machine -> release function -> state machine.
func releaseStateMachineArn(scope constructs.Construct, name string) string {
	return *awscdk.Stack_Of(scope).FormatArn(&awscdk.ArnComponents{
		Service:      jsii.String("states"),
		Resource:     jsii.String("stateMachine"),
		ResourceName: jsii.String(name),
		ArnFormat:    awscdk.ArnFormat_COLON_RESOURCE_NAME,
	})
}

// newReleaseStateMachine deploys the release workflow (one execution per
// breaker key releases its waiting room) as name, invoking the release
// function.
func newReleaseStateMachine(scope constructs.Construct, s Settings, fns map[string]*function, name string) (awsstepfunctions.StateMachine, error) {
	stackName := *awscdk.Stack_Of(scope).StackName()
	sm, err := newStateMachine(scope, "ReleaseStateMachine", name, statemachine.Release(), invokedBy(fns),
		executionLogs(scope, "ReleaseExecutionLogs", stackName+releaseSuffix, s), s.Tracing)
	if err != nil {
		return nil, err
	}
	suppressExecutionLogLevel(sm, s)
	return sm, nil
}

// executionLogs are the redrive and release workflows' logs: at
// ExecutionLogLevel, without execution data (message bodies stay out of
// the logs; the execution history has them for 90 days).
func executionLogs(scope constructs.Construct, id, name string, s Settings) *awsstepfunctions.LogOptions {
	return &awsstepfunctions.LogOptions{
		Destination:          newLogGroup(scope, id, "/aws/vendedlogs/states/"+name, s),
		Level:                awsstepfunctions.LogLevel(s.ExecutionLogLevel),
		IncludeExecutionData: jsii.Bool(false),
	}
}

// suppressExecutionLogLevel records that sm logs below ALL by choice.
func suppressExecutionLogLevel(sm awsstepfunctions.StateMachine, s Settings) {
	if s.ExecutionLogLevel != "ALL" {
		suppress(sm, "AwsSolutions-SF1", fmt.Sprintf("Logs at %s by choice (ExecutionLogLevel): ALL would log every message on every "+
			"transition, doubling the cost per message; each execution's history keeps every step for 90 days.", s.ExecutionLogLevel))
	}
}

// newStateMachine deploys def with its placeholders bound to the functions
// in arns, each of which it may invoke; name names it, when not empty.
func newStateMachine(scope constructs.Construct, id, name string, def statemachine.Definition, arns map[string]*function,
	logs *awsstepfunctions.LogOptions, tracing bool) (awsstepfunctions.StateMachine, error) {
	subs := map[string]*string{}
	var invoked []*function
	for _, placeholder := range def.Placeholders() {
		f, ok := arns[placeholder]
		if !ok || f == nil {
			return nil, fmt.Errorf("stack: %s has placeholder ${%s}, which names no function the stack deploys", def.Name, placeholder)
		}
		subs[placeholder] = f.fn.FunctionArn()
		invoked = append(invoked, f)
	}
	var smName *string
	if name != "" {
		smName = &name
	}
	sm := awsstepfunctions.NewStateMachine(scope, jsii.String(id), &awsstepfunctions.StateMachineProps{
		StateMachineName:        smName,
		DefinitionBody:          awsstepfunctions.DefinitionBody_FromString(jsii.String(def.Template)),
		DefinitionSubstitutions: &subs,
		StateMachineType:        awsstepfunctions.StateMachineType_STANDARD,
		Logs:                    logs,
		TracingEnabled:          jsii.Bool(tracing),
	})
	for _, f := range invoked {
		f.fn.GrantInvoke(sm)
	}

	suppress(sm, "AwsSolutions-IAM5", "lambda:InvokeFunction on \"<function ARN>:*\" is CDK's invoke grant: it covers "+
		"the versions and aliases of this stack's own functions only. CloudWatch Logs vended delivery "+
		"(logs:CreateLogDelivery, PutResourcePolicy, ...) and X-Ray's PutTraceSegments take no resource: IAM requires \"*\".",
		&cdknag.RegexAppliesTo{Regex: jsii.String(`/^Resource::<[A-Za-z0-9]+\.Arn>:\*$/`)}, "Resource::*")
	if !tracing {
		suppress(sm, "AwsSolutions-SF2", "X-Ray tracing is off by choice (Tracing): the execution history shows every step, "+
			"and tracing costs per trace. Set Tracing to turn it on.")
	}
	return sm, nil
}
