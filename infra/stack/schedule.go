package stack

import (
	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsevents"
	"github.com/aws/aws-cdk-go/awscdk/v2/awseventstargets"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
)

// sweepEvent is what the sweep schedule sends the release function
// (release.Input.Sweep).
var sweepEvent = map[string]any{"sweep": true}

// newSweepSchedule invokes the release function every minute with
// sweepEvent: it starts the controllers that could not be started when
// messages entered their rooms (release.Launcher.Sweep). A missed or
// failed sweep is not retried for long: the next minute's sweeps again.
func newSweepSchedule(scope constructs.Construct, release *function) awsevents.Rule {
	rule := awsevents.NewRule(scope, jsii.String("SweepSchedule"), &awsevents.RuleProps{
		Description: jsii.String("Redrive: every minute, starts the controllers of waiting rooms whose controller could not be started"),
		Schedule:    awsevents.Schedule_Rate(awscdk.Duration_Minutes(jsii.Number(1))),
	})
	rule.AddTarget(awseventstargets.NewLambdaFunction(release.fn, &awseventstargets.LambdaFunctionProps{
		Event:         awsevents.RuleTargetInput_FromObject(sweepEvent),
		MaxEventAge:   awscdk.Duration_Minutes(jsii.Number(1)),
		RetryAttempts: jsii.Number(2),
	}))
	return rule
}
