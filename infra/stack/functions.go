package stack

import (
	"path/filepath"
	"slices"
	"time"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/redrive/redrive/room/pace"
	"github.com/redrive/redrive/room/release"
)

// The functions, by their directory under BuildDir (`make build` writes
// build/<name>/bootstrap).
const (
	starterFn  = "starter"
	attemptFn  = "attempt"
	parkFn     = "park"
	adminFn    = "admin"
	waitroomFn = "waitroom"
	releaseFn  = "release"
)

// functionSpec is what differs between the functions.
type functionSpec struct {
	name        string // directory under BuildDir
	id          string // construct id
	description string
	memoryMB    float64
	timeout     func(Settings) time.Duration
}

// taskTimeout bounds the functions that make a few AWS calls. The starter's
// must not exceed the DLQ's visibility timeout (30s by default), or Lambda
// refuses the event source mapping.
const taskTimeout = 30 * time.Second

// adminTimeout bounds an admin command: a replay runs until about half a
// minute before it, then stops, recorded as interrupted and resumable
// (admin); the other commands take a second.
const adminTimeout = 5 * time.Minute

// releaseMargin is what a release invocation may take beyond its ticks'
// sleeps: listing and taking entries, the pace row, counting the room.
const releaseMargin = 30 * time.Second

// functions lists every function the stack deploys.
var functions = []functionSpec{
	{starterFn, "Starter", "Redrive: starts one attempt execution per dead-lettered message, or puts it straight into its breaker's waiting room", 256, fixedTimeout},
	{attemptFn, "Attempt", "Redrive: admits by the breaker, delivers to the target, records the outcome", 256,
		func(s Settings) time.Duration { return s.AttemptTimeout.Std() }},
	{parkFn, "Park", "Redrive: sends a message to the parking lot with its lineage and failure history", 128, fixedTimeout},
	{adminFn, "Admin", "Redrive: runs an operator's command on a breaker (status, reset, open, close, release), on the routing rules, or a replay of the parking lot", 128,
		func(Settings) time.Duration { return adminTimeout }},
	{waitroomFn, "WaitingRoom", "Redrive: keeps a turned-away message's document in its breaker's waiting room", 128, fixedTimeout},
	// The controller's tick starts up to RELEASE_MAX_RATE Express
	// executions a second, RELEASE_WORKERS at once: more memory is more
	// CPU for them.
	{releaseFn, "Release", "Redrive: a breaker's controller: releases its waiting room in line, at the pace the target takes, as new attempt executions", 256, releaseTimeout},
}

// fixedTimeout is taskTimeout, whatever the settings.
func fixedTimeout(Settings) time.Duration { return taskTimeout }

// releaseTimeout covers one release invocation: its ticks
// (release.TicksPerInvocation of RELEASE_TICK, the pace's default when
// unset) and releaseMargin, in whole seconds.
func releaseTimeout(s Settings) time.Duration {
	tick := pace.Policy{Tick: s.Release.Tick.Std()}.WithDefaults().Tick
	return (release.TicksPerInvocation*tick + releaseMargin + time.Second - 1).Truncate(time.Second)
}

// function is one deployed function and the role it runs as.
type function struct {
	fn   awslambda.Function
	role awsiam.Role
}

// newFunction deploys function name from BuildDir with its own role (no
// managed policies: it may write only to its own log group) and log group,
// JSON logs and its environment.
func newFunction(scope constructs.Construct, name string, s Settings, r refs) *function {
	spec := specOf(name)
	role := awsiam.NewRole(scope, jsii.String(spec.id+"Role"), &awsiam.RoleProps{
		AssumedBy:   awsiam.NewServicePrincipal(jsii.String("lambda.amazonaws.com"), nil),
		Description: jsii.String("Runs the Redrive " + name + " function"),
	})
	logs := newLogGroup(scope, spec.id+"Logs", "", s)
	logs.GrantWrite(role)

	timeout := spec.timeout(s)
	tracing := awslambda.Tracing_DISABLED
	if s.Tracing {
		tracing = awslambda.Tracing_ACTIVE
	}
	env := environment(name, s, r)
	fn := awslambda.NewFunction(scope, jsii.String(spec.id), &awslambda.FunctionProps{
		Description:  jsii.String(spec.description),
		Runtime:      awslambda.Runtime_PROVIDED_AL2023(),
		Architecture: awslambda.Architecture_ARM_64(),
		Handler:      jsii.String("bootstrap"),
		Code:         awslambda.Code_FromAsset(jsii.String(filepath.Join(s.BuildDir, name)), nil),
		Role:         role,
		MemorySize:   jsii.Number(spec.memoryMB),
		Timeout:      awscdk.Duration_Seconds(jsii.Number(timeout.Seconds())),
		Environment:  jsiiStrings(env),
		LogGroup:     logs,
		// JSON logs; Lambda's own filter stays at INFO (DEBUG when asked):
		// the embedded-metric lines carry no level, count as INFO, and a
		// stricter filter would drop the metrics.
		LoggingFormat:         awslambda.LoggingFormat_JSON,
		ApplicationLogLevelV2: lambdaLogLevel(s.LogLevel),
		SystemLogLevelV2:      awslambda.SystemLogLevel_INFO,
		Tracing:               tracing,
	})
	return &function{fn: fn, role: role}
}

// lambdaLogLevel is Lambda's application log filter for Settings.LogLevel.
func lambdaLogLevel(level string) awslambda.ApplicationLogLevel {
	if level == "DEBUG" {
		return awslambda.ApplicationLogLevel_DEBUG
	}
	return awslambda.ApplicationLogLevel_INFO
}

func specOf(name string) functionSpec {
	i := slices.IndexFunc(functions, func(f functionSpec) bool { return f.name == name })
	return functions[i]
}

// jsiiStrings converts a string map for a CDK prop.
func jsiiStrings(m map[string]string) *map[string]*string {
	out := make(map[string]*string, len(m))
	for k, v := range m {
		out[k] = jsii.String(v)
	}
	return &out
}
