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

// stateMachines are the three workflows: redrive (the attempt state
// machine, one execution per delivery try), admin, and release (the
// breakers' controllers).
type stateMachines struct {
	redrive, admin, release awsstepfunctions.StateMachine
}

// invokedBy maps each function placeholder of the embedded ASL to its
// function.
func invokedBy(fns map[string]*function) map[string]*function {
	return map[string]*function{
		statemachine.AttemptFunctionArn:     fns[attemptFn],
		statemachine.ParkFunctionArn:        fns[parkFn],
		statemachine.AdminFunctionArn:       fns[adminFn],
		statemachine.WaitingRoomFunctionArn: fns[waitroomFn],
		statemachine.ReleaseFunctionArn:     fns[releaseFn],
	}
}

// newStateMachines deploys the redrive (attempt) and admin workflows from
// the embedded ASL, each function ARN given through
// DefinitionSubstitutions (so the template shows the definition and
// CloudFormation fills in the ARNs), and lets each state machine invoke its
// functions and nothing else. The redrive workflow is named redriveName
// (the release function knows it by that name) and is of
// AttemptStateMachineType, Express by default; admin is Standard. The
// release workflow is deployed before (newReleaseStateMachine): the
// functions that start controllers get its ARN.
func newStateMachines(scope constructs.Construct, s Settings, fns map[string]*function, redriveName string) (redrive, admin awsstepfunctions.StateMachine, err error) {
	arns := invokedBy(fns)
	stackName := *awscdk.Stack_Of(scope).StackName()

	typ, logs := awsstepfunctions.StateMachineType_STANDARD, executionLogs(scope, "RedriveExecutionLogs", stackName+redriveSuffix, s)
	if s.AttemptStateMachineType == AttemptExpress {
		// An Express execution keeps no history: its log is the record of
		// a failed execution, with the message (execution data).
		typ, logs.IncludeExecutionData = awsstepfunctions.StateMachineType_EXPRESS, jsii.Bool(true)
	}
	redrive, err = newStateMachine(scope, "RedriveStateMachine", redriveName, typ, statemachine.Redrive(), arns, logs, s.Tracing)
	if err != nil {
		return nil, nil, err
	}
	suppressExecutionLogLevel(redrive, s, s.AttemptStateMachineType == AttemptExpress)

	admin, err = newStateMachine(scope, "AdminStateMachine", "", awsstepfunctions.StateMachineType_STANDARD, statemachine.Admin(), arns, &awsstepfunctions.LogOptions{
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

// The suffixes that end the named state machines' names.
const (
	redriveSuffix = "-Redrive"
	releaseSuffix = "-Release"
)

// maxStateMachineName is Step Functions' limit on a state machine's name.
const maxStateMachineName = 80

// stateMachineName names a state machine after the stack (unique per
// account and Region, as the name must be): "<stack><suffix>", or for a
// stack name too long for that, its first characters and a hash of the
// whole.
func stateMachineName(stackName, suffix string) string {
	name := stackName + suffix
	if len(name) <= maxStateMachineName {
		return name
	}
	h := fnv.New32a()
	h.Write([]byte(stackName))
	hash := fmt.Sprintf("-%08x", h.Sum32())
	return stackName[:maxStateMachineName-len(hash)-len(suffix)] + hash + suffix
}

// releaseStateMachineName is the release state machine's name,
// "<stack>-Release".
func releaseStateMachineName(stackName string) string {
	return stateMachineName(stackName, releaseSuffix)
}

// redriveStateMachineName is the redrive (attempt) state machine's name,
// "<stack>-Redrive".
func redriveStateMachineName(stackName string) string {
	return stateMachineName(stackName, redriveSuffix)
}

// stateMachineArnOf is the ARN of the state machine named name in scope's
// stack, from the name alone: the release function's STATE_MACHINE_ARN and
// RELEASE_STATE_MACHINE_ARN (it starts released messages' attempt
// executions and the next controller) and its IAM grants. A reference to
// either state machine there would close a cycle: release state machine ->
// release function -> itself, and release function -> attempt state
// machine -> attempt function -> release state machine -> release
// function.
func stateMachineArnOf(scope constructs.Construct, name string) string {
	return *awscdk.Stack_Of(scope).FormatArn(&awscdk.ArnComponents{
		Service:      jsii.String("states"),
		Resource:     jsii.String("stateMachine"),
		ResourceName: jsii.String(name),
		ArnFormat:    awscdk.ArnFormat_COLON_RESOURCE_NAME,
	})
}

// newReleaseStateMachine deploys the release workflow (the breakers'
// controllers: one Standard execution per breaker key while its room holds
// messages) as name, invoking the release function.
func newReleaseStateMachine(scope constructs.Construct, s Settings, fns map[string]*function, name string) (awsstepfunctions.StateMachine, error) {
	stackName := *awscdk.Stack_Of(scope).StackName()
	sm, err := newStateMachine(scope, "ReleaseStateMachine", name, awsstepfunctions.StateMachineType_STANDARD, statemachine.Release(), invokedBy(fns),
		executionLogs(scope, "ReleaseExecutionLogs", stackName+releaseSuffix, s), s.Tracing)
	if err != nil {
		return nil, err
	}
	suppressExecutionLogLevel(sm, s, false)
	return sm, nil
}

// executionLogs are the redrive and release workflows' logs: at
// ExecutionLogLevel, without execution data (message bodies stay out of
// the logs; a Standard execution's history has them for 90 days).
func executionLogs(scope constructs.Construct, id, name string, s Settings) *awsstepfunctions.LogOptions {
	return &awsstepfunctions.LogOptions{
		Destination:          newLogGroup(scope, id, "/aws/vendedlogs/states/"+name, s),
		Level:                awsstepfunctions.LogLevel(s.ExecutionLogLevel),
		IncludeExecutionData: jsii.Bool(false),
	}
}

// suppressExecutionLogLevel records that sm (express: an Express state
// machine) logs below ALL by choice.
func suppressExecutionLogLevel(sm awsstepfunctions.StateMachine, s Settings, express bool) {
	if s.ExecutionLogLevel == "ALL" {
		return
	}
	reason := fmt.Sprintf("Logs at %s by choice (ExecutionLogLevel): ALL would log every message on every "+
		"transition, doubling the cost per message; each execution's history keeps every step for 90 days.", s.ExecutionLogLevel)
	if express {
		reason = fmt.Sprintf("Logs at %s by choice (ExecutionLogLevel), with execution data: a failed Express execution's log "+
			"keeps its message. ALL would log every message on every state of every delivery try, billed per GB ingested.", s.ExecutionLogLevel)
	}
	suppress(sm, "AwsSolutions-SF1", reason)
}

// newStateMachine deploys def as a typ state machine, with its placeholders
// bound to the functions in arns, each of which it may invoke; name names
// it, when not empty.
func newStateMachine(scope constructs.Construct, id, name string, typ awsstepfunctions.StateMachineType, def statemachine.Definition, arns map[string]*function,
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
		StateMachineType:        typ,
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
