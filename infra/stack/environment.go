package stack

import (
	"maps"
	"strconv"
	"strings"
)

// Environment variables the functions read, as the tasks' contract names
// them (tasks/config, tasks/message, tasks/target and the handlers'
// ConfigFromEnv).
const (
	envTableName        = "TABLE_NAME"
	envStateMachineArn  = "STATE_MACHINE_ARN"
	envParkingLotURL    = "PARKING_LOT_URL"
	envKey              = "BREAKER_KEY"
	envKeyAttribute     = "BREAKER_KEY_ATTRIBUTE"
	envKeyPointer       = "BREAKER_KEY_POINTER"
	envKeyDefault       = "BREAKER_KEY_DEFAULT"
	envTargetKind       = "TARGET_KIND"
	envTargetFunction   = "TARGET_FUNCTION"
	envTargetQueueURL   = "TARGET_QUEUE_URL"
	envTargetSourceArn  = "TARGET_SOURCE_ARN"
	envPoisonErrorTypes = "POISON_ERROR_TYPES"
	envMaxAttempts      = "MAX_ATTEMPTS"
	envBackoffBase      = "BACKOFF_BASE"
	envBackoffMax       = "BACKOFF_MAX"
	envMaxCycles        = "MAX_CYCLES"
	envDeliveryLease    = "DELIVERY_LEASE"
	envStartConcurrency = "START_CONCURRENCY"
)

// refs are the deployed resources' names and addresses the environment
// carries; in a stack they are CloudFormation tokens.
type refs struct {
	tableName       string
	stateMachineArn string // the redrive state machine
	parkingLotURL   string
	targetQueueURL  string // sqs targets
	sourceQueueArn  string // the records' eventSourceARN, lambda targets; may be empty
}

// environment is the variables function name gets: the common ones
// (table, the policy variables that are set) and its own. The
// continuer needs no state machine ARN: it derives it from the executionArn
// in its payload, which also avoids a function -> state machine -> function
// reference cycle.
func environment(name string, s Settings, r refs) map[string]string {
	env := map[string]string{envTableName: r.tableName}
	maps.Copy(env, s.Policy)
	switch name {
	case starterFn:
		env[envStateMachineArn] = r.stateMachineArn
		env[envParkingLotURL] = r.parkingLotURL
		env[envTargetKind] = s.Target.Kind
		env[envStartConcurrency] = strconv.Itoa(s.StarterRecordConcurrency)
		setIf(env, envKey, s.BreakerKey.Fixed)
		setIf(env, envKeyAttribute, s.BreakerKey.Attribute)
		setIf(env, envKeyPointer, s.BreakerKey.Pointer)
		env[envKeyDefault] = s.BreakerKey.Default
	case attemptFn:
		env[envTargetKind] = s.Target.Kind
		if s.Target.Kind == TargetLambda {
			env[envTargetFunction] = s.Target.FunctionArn
			setIf(env, envTargetSourceArn, r.sourceQueueArn)
		} else {
			env[envTargetQueueURL] = r.targetQueueURL
		}
		setIf(env, envPoisonErrorTypes, strings.Join(s.PoisonErrorTypes, ","))
		setIf(env, envMaxAttempts, nonZero(s.MaxAttempts))
		setIf(env, envMaxCycles, nonZero(s.MaxCycles))
		setIf(env, envBackoffBase, duration(s.BackoffBase))
		setIf(env, envBackoffMax, duration(s.BackoffMax))
		env[envDeliveryLease] = s.DeliveryLease.String()
	case parkFn:
		env[envParkingLotURL] = r.parkingLotURL
	}
	return env
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

func duration(d Duration) string {
	if d == 0 {
		return ""
	}
	return d.String()
}
