package stack

import (
	"fmt"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsstepfunctions"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
	"github.com/cdklabs/cdk-nag-go/cdknag/v2"
	"github.com/redrive/redrive/statemachine"
)

// stateMachines are the two workflows.
type stateMachines struct {
	redrive, admin awsstepfunctions.StateMachine
}

// newStateMachines deploys the embedded ASL as Standard workflows, each
// function ARN given through DefinitionSubstitutions (so the template shows
// the definition and CloudFormation fills in the ARNs), and lets each state
// machine invoke its functions and nothing else.
func newStateMachines(scope constructs.Construct, s Settings, fns map[string]*function) (*stateMachines, error) {
	arns := map[string]*function{
		statemachine.AttemptFunctionArn:  fns[attemptFn],
		statemachine.ContinueFunctionArn: fns[continuerFn],
		statemachine.ParkFunctionArn:     fns[parkFn],
		statemachine.AdminFunctionArn:    fns[adminFn],
	}
	stackName := *awscdk.Stack_Of(scope).StackName()

	redrive, err := newStateMachine(scope, "RedriveStateMachine", statemachine.Redrive(), arns, &awsstepfunctions.LogOptions{
		Destination: newLogGroup(scope, "RedriveExecutionLogs", "/aws/vendedlogs/states/"+stackName+"-Redrive", s),
		Level:       awsstepfunctions.LogLevel(s.ExecutionLogLevel),
		// Message bodies stay out of the logs; the execution history has
		// them for 90 days.
		IncludeExecutionData: jsii.Bool(false),
	}, s.Tracing)
	if err != nil {
		return nil, err
	}
	if s.ExecutionLogLevel != "ALL" {
		suppress(redrive, "AwsSolutions-SF1", fmt.Sprintf("Logs at %s by choice (ExecutionLogLevel): ALL would log every message on every "+
			"transition, doubling the cost per message; each execution's history keeps every step for 90 days.", s.ExecutionLogLevel))
	}

	admin, err := newStateMachine(scope, "AdminStateMachine", statemachine.Admin(), arns, &awsstepfunctions.LogOptions{
		Destination: newLogGroup(scope, "AdminExecutionLogs", "/aws/vendedlogs/states/"+stackName+"-Admin", s),
		Level:       awsstepfunctions.LogLevel_ALL,
		// Operators' commands, with their input: the audit trail.
		IncludeExecutionData: jsii.Bool(true),
	}, s.Tracing)
	if err != nil {
		return nil, err
	}
	return &stateMachines{redrive: redrive, admin: admin}, nil
}

// newStateMachine deploys def with its placeholders bound to the functions
// in arns, each of which it may invoke.
func newStateMachine(scope constructs.Construct, id string, def statemachine.Definition, arns map[string]*function,
	logs *awsstepfunctions.LogOptions, tracing bool) (awsstepfunctions.StateMachine, error) {
	subs := map[string]*string{}
	var invoked []*function
	for _, name := range def.Placeholders() {
		f, ok := arns[name]
		if !ok {
			return nil, fmt.Errorf("stack: %s has placeholder ${%s}, which names no function the stack deploys", def.Name, name)
		}
		subs[name] = f.fn.FunctionArn()
		invoked = append(invoked, f)
	}
	sm := awsstepfunctions.NewStateMachine(scope, jsii.String(id), &awsstepfunctions.StateMachineProps{
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
