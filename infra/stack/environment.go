package stack

import (
	"maps"
	"strconv"
	"strings"

	"github.com/redrive/redrive/claimcheck"
)

// Environment variables the functions read, as the tasks' contract names
// them (lambda/config, message, delivery/target and the handlers'
// ConfigFromEnv).
const (
	envTableName           = "TABLE_NAME"
	envStateMachineArn     = "STATE_MACHINE_ARN"
	envParkingLotURL       = "PARKING_LOT_URL"
	envDLQURL              = "DLQ_URL"
	envParkingLotRetention = "PARKING_LOT_RETENTION"
	envKey                 = "BREAKER_KEY"
	envKeyAttribute        = "BREAKER_KEY_ATTRIBUTE"
	envKeyPointer          = "BREAKER_KEY_POINTER"
	envKeyDefault          = "BREAKER_KEY_DEFAULT"
	envTargetKind          = "TARGET_KIND"
	envTargetFunction      = "TARGET_FUNCTION"
	envTargetQueueURL      = "TARGET_QUEUE_URL"
	envTargetSourceArn     = "TARGET_SOURCE_ARN"
	envPoisonErrorTypes    = "POISON_ERROR_TYPES"
	envMaxAttempts         = "MAX_ATTEMPTS"
	envBackoffBase         = "BACKOFF_BASE"
	envBackoffMax          = "BACKOFF_MAX"
	envDeliveryLease       = "DELIVERY_LEASE"
	envUnknownOutcome      = "UNKNOWN_OUTCOME"
	envFIFOOnPark          = "FIFO_ON_PARK"
	envTableRetryBudget    = "TABLE_RETRY_BUDGET"
	envStartConcurrency    = "START_CONCURRENCY"
	// The waiting room's (wire.RoomConfigFromEnv, pace.PolicyFromEnv,
	// target.FromEnv).
	envReleaseStateMachineArn = "RELEASE_STATE_MACHINE_ARN"
	envRoomTTL                = "ROOM_TTL"
	envReleaseWorkers         = "RELEASE_WORKERS"
	envReleaseStartRate       = "RELEASE_START_RATE"
	envReleaseMaxRate         = "RELEASE_MAX_RATE"
	envReleaseBackoff         = "RELEASE_BACKOFF"
	envReleaseTick            = "RELEASE_TICK"
	envReleaseLease           = "RELEASE_LEASE"
	envThrottleErrorTypes     = "THROTTLE_ERROR_TYPES"
	// The claim check's bucket (claimcheck.EnvBucket), for the functions
	// that put a large body there or get it back.
	envBodyBucket = claimcheck.EnvBucket
)

// refs are the deployed resources' names and addresses the environment
// carries; in a stack they are CloudFormation tokens.
type refs struct {
	tableName string
	// stateMachineArn is the attempt (redrive) state machine's: a
	// reference to it in the starter's environment, built from its name
	// in the release function's (see stateMachineArnOf).
	stateMachineArn string
	// releaseStateMachineArn is the release state machine's: a reference
	// to it, except in the release function's own environment, where it
	// is built from the machine's name (see stateMachineArnOf).
	releaseStateMachineArn string
	parkingLotURL          string
	dlqURL                 string // the DLQ, where the admin's replay sends
	bodyBucket             string // the claim-checked bodies' bucket
	targetQueueURL         string // sqs targets
	sourceQueueArn         string // the records' eventSourceARN, lambda targets; may be empty
}

// environment is the variables function name gets: the common ones
// (table, the policy variables that are set) and its own; the starter,
// attempt, park and waitroom the body bucket (BODY_BUCKET). Park needs no
// state machine ARN, and the release function gets both of its from the
// state machines' names (a reference would close a cycle: see
// NewRedriveStack).
func environment(name string, s Settings, r refs) map[string]string {
	env := map[string]string{envTableName: r.tableName}
	maps.Copy(env, s.Policy)
	switch name {
	case starterFn, attemptFn, waitroomFn, releaseFn, adminFn:
		// Every function that enters, releases or launches the room reads
		// the room's settings (wire.RoomConfigFromEnv; the starter's own
		// Config): the same values, so the room's TTL and the
		// controllers' leases agree. The starter also paces fresh
		// arrivals (RELEASE_*) on the pace rows.
		env[envReleaseStateMachineArn] = r.releaseStateMachineArn
		setIf(env, envRoomTTL, duration(s.RoomTTL))
		setIf(env, envReleaseWorkers, nonZero(s.ReleaseWorkers))
		setPace(env, s.Release)
	}
	switch name {
	case starterFn, attemptFn, parkFn, waitroomFn:
		// The starter puts a body too large for a document in the body
		// bucket, the starter and the Queue task (waitroom) one too large
		// for a document that waits; the attempt gets it back for the
		// delivery, park for the parking lot (claimcheck).
		env[envBodyBucket] = r.bodyBucket
	}
	switch name {
	case starterFn:
		env[envStateMachineArn] = r.stateMachineArn
		setLot(env, r)
		env[envTargetKind] = s.Target.Kind
		env[envStartConcurrency] = strconv.Itoa(s.StarterRecordConcurrency)
		setIf(env, envKey, s.BreakerKey.Fixed)
		setIf(env, envKeyAttribute, s.BreakerKey.Attribute)
		setIf(env, envKeyPointer, s.BreakerKey.Pointer)
		env[envKeyDefault] = s.BreakerKey.Default
	case releaseFn:
		// The attempt state machine it starts released messages on.
		env[envStateMachineArn] = r.stateMachineArn
	case attemptFn:
		env[envTargetKind] = s.Target.Kind
		if s.Target.Kind == TargetLambda {
			env[envTargetFunction] = s.Target.FunctionArn
			setIf(env, envTargetSourceArn, r.sourceQueueArn)
		} else {
			env[envTargetQueueURL] = r.targetQueueURL
		}
		setIf(env, envPoisonErrorTypes, strings.Join(s.PoisonErrorTypes, ","))
		setIf(env, envThrottleErrorTypes, strings.Join(s.ThrottleErrorTypes, ","))
		setIf(env, envMaxAttempts, nonZero(s.MaxAttempts))
		setIf(env, envBackoffBase, duration(s.BackoffBase))
		setIf(env, envBackoffMax, duration(s.BackoffMax))
		env[envDeliveryLease] = s.DeliveryLease.String()
		setIf(env, envUnknownOutcome, s.UnknownOutcome)
		setIf(env, envTableRetryBudget, duration(s.TableRetryBudget))
	case parkFn:
		setLot(env, r)
		setIf(env, envFIFOOnPark, s.FIFOOnPark)
	case adminFn:
		// The replay command reads the parking lot and sends to the DLQ.
		env[envParkingLotURL] = r.parkingLotURL
		env[envDLQURL] = r.dlqURL
	}
	return env
}

// setLot sets the parking lot's variables, for the functions that park
// (and index what they park): its URL and its retention.
func setLot(env map[string]string, r refs) {
	env[envParkingLotURL] = r.parkingLotURL
	env[envParkingLotRetention] = parkingLotRetention.String()
}

// setPace sets the RELEASE_* variables that are set.
func setPace(env map[string]string, p ReleasePace) {
	setIf(env, envReleaseStartRate, rate(p.StartRate))
	setIf(env, envReleaseMaxRate, rate(p.MaxRate))
	setIf(env, envReleaseBackoff, rate(p.Backoff))
	setIf(env, envReleaseTick, duration(p.Tick))
	setIf(env, envReleaseLease, duration(p.Lease))
}

// setIf sets env[name] when value is not empty: an unset variable means
// the task's default. Settings are rendered whenever they are not zero,
// negative ones too, so the task's parser judges them (Validate).
func setIf(env map[string]string, name, value string) {
	if value != "" {
		env[name] = value
	}
}

func nonZero(n int) string {
	if n == 0 {
		return ""
	}
	return strconv.Itoa(n)
}

// rate formats a rate or factor as its shortest decimal; "" for zero.
func rate(f float64) string {
	if f == 0 {
		return ""
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

func duration(d Duration) string {
	if d == 0 {
		return ""
	}
	return d.String()
}
