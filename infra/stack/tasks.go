package stack

import (
	"errors"
	"strings"

	"github.com/redrive/redrive/admin"
	"github.com/redrive/redrive/lambda/config"
	"github.com/redrive/redrive/lambda/wire"
	"github.com/redrive/redrive/park"
	"github.com/redrive/redrive/starter"
)

// settingOf names the setting behind each variable a task may reject.
// Variables not listed carry deploy-time references the stack fills in.
var settingOf = map[string]string{
	envTargetKind:       "Target.Kind",
	envTargetFunction:   "Target.FunctionArn",
	envTargetSourceArn:  "Target.SourceQueueArn",
	envPoisonErrorTypes: "PoisonErrorTypes",
	envMaxAttempts:      "MaxAttempts",
	envBackoffBase:      "BackoffBase",
	envBackoffMax:       "BackoffMax",
	envDeliveryLease:    "DeliveryLease",
	envUnknownOutcome:   "UnknownOutcome",
	envFIFOOnPark:       "FIFOOnPark",
	envTableRetryBudget: "TableRetryBudget",
	envStartConcurrency: "StarterRecordConcurrency",
	envKey:              "BreakerKey.Fixed",
	envKeyAttribute:     "BreakerKey.Attribute",
	envKeyPointer:       "BreakerKey.Pointer",
	envKeyDefault:       "BreakerKey.Default",

	envThrottleErrorTypes: "ThrottleErrorTypes",
	envRoomTTL:            "RoomTTL",
	envReleaseWorkers:     "ReleaseWorkers",
	envReleaseStartRate:   "Release.StartRate",
	envReleaseMaxRate:     "Release.MaxRate",
	envReleaseBackoff:     "Release.Backoff",
	envReleaseTick:        "Release.Tick",
	envReleaseLease:       "Release.Lease",
}

// exampleRefs stand in for the deploy-time references, shaped as the
// tasks expect them, when Validate runs the environment through the tasks'
// parsers.
func exampleRefs(s Settings) refs {
	r := refs{
		tableName:              "Redrive-Table",
		stateMachineArn:        "arn:aws:states:us-east-1:123456789012:stateMachine:Redrive",
		releaseStateMachineArn: "arn:aws:states:us-east-1:123456789012:stateMachine:Redrive-Release",
		parkingLotURL:          "https://sqs.us-east-1.amazonaws.com/123456789012/Redrive-ParkingLot",
		bodyBucket:             "redrive-bodybucket-0123456789ab",
		dlqURL:                 "https://sqs.us-east-1.amazonaws.com/123456789012/Redrive-DLQ",
		targetQueueURL:         "https://sqs.us-east-1.amazonaws.com/123456789012/Redrive-SourceQueue",
		sourceQueueArn:         s.Target.SourceQueueArn,
	}
	if s.DemoQueues {
		r.sourceQueueArn = "arn:aws:sqs:us-east-1:123456789012:Redrive-SourceQueue"
	}
	return r
}

// taskProblems parses function name's environment as its main does, and
// checks the result as the wire.Builder does before it builds the
// handler, and returns what the task rejects.
func taskProblems(name string, env map[string]string) error {
	getenv := func(k string) string { return env[k] }
	switch name {
	case starterFn:
		c, err := starter.ConfigFromEnv(getenv)
		return validated(err, c.Validate)
	case attemptFn:
		c, err := wire.AttemptConfigFromEnv(getenv)
		return validated(err, c.Validate)
	case parkFn:
		c, err := park.ConfigFromEnv(getenv)
		return validated(err, c.Validate)
	case adminFn:
		_, err := admin.ConfigFromEnv(getenv)
		rc, _, roomErr := wire.RoomFromEnv(getenv)
		return validated(errors.Join(err, roomErr), rc.Validate)
	case waitroomFn:
		rc, _, err := wire.RoomFromEnv(getenv)
		return validated(err, rc.Validate)
	case releaseFn:
		rc, _, err := wire.RoomFromEnv(getenv)
		return validated(err, func() error {
			// What the builder checks besides (wire.Builder.Release).
			var missing error
			if rc.AttemptStateMachineARN == "" {
				missing = &config.VarError{Name: wire.EnvAttemptStateMachineARN, Problem: "required but not set"}
			}
			return errors.Join(missing, rc.Validate())
		})
	}
	return nil
}

// validated is err, or when the parse succeeded, what validate finds.
func validated(err error, validate func() error) error {
	if err != nil {
		return err
	}
	return validate()
}

// tasks reports what the functions would refuse at cold start, against
// the setting that causes it, unless that setting is already reported.
// Policy problems are the policy check's.
func (v *validator) tasks(s Settings) {
	reported := map[string]bool{}
	for _, err := range v.errs {
		if perr, ok := errors.AsType[*PropError](err); ok {
			reported[perr.Field] = true
		}
	}
	r := exampleRefs(s)
	for _, fn := range functions {
		env := environment(fn.name, s, r)
		for _, err := range config.Split(taskProblems(fn.name, env)) {
			verr, ok := errors.AsType[*config.VarError](err)
			if !ok {
				v.fail("Settings", "the %s function rejects its environment: %v", fn.name, err)
				continue
			}
			if strings.HasPrefix(verr.Name, "BREAKER_") && settingOf[verr.Name] == "" {
				continue
			}
			field := settingOf[verr.Name]
			if field == "" {
				field = "Settings"
			}
			if reported[field] {
				continue
			}
			reported[field] = true
			v.fail(field, "the %s function rejects %s=%q: %s", fn.name, verr.Name, env[verr.Name], verr.Problem)
		}
	}
}
