package stack

import (
	"cmp"
	"strings"
	"time"

	"github.com/aws/aws-cdk-go/awscdk/v2"

	"github.com/redrive/redrive/attempt"
)

// Props configures NewRedriveStack: the CDK stack options and the Redrive
// settings.
type Props struct {
	awscdk.StackProps
	Settings
}

// Settings are the Redrive deployment's choices. The zero value of every
// field means the default its comment names; they are what cdk.json's
// "redrive" context object holds (see the JSON tags).
type Settings struct {
	// DeadLetterQueueArn is the existing dead-letter queue to redrive from,
	// in the stack's account and Region. Exactly one of it and DemoQueues.
	DeadLetterQueueArn string `json:"deadLetterQueueArn,omitempty"`
	// DeadLetterQueueKeyArn is the KMS key the dead-letter queue is
	// encrypted with, when it is a customer-managed key; the starter gets
	// kms:Decrypt on it. Empty for SSE-SQS or no encryption.
	DeadLetterQueueKeyArn string `json:"deadLetterQueueKeyArn,omitempty"`
	// DemoQueues creates a source queue and its dead-letter queue (three
	// receives, then dead-lettered) instead of using an existing one.
	DemoQueues bool `json:"demoQueues,omitempty"`

	// Target is where redriven messages are delivered.
	Target Target `json:"target"`
	// BreakerKey chooses each message's breaker. Default: one fixed
	// breaker named "default".
	BreakerKey KeySelector `json:"breakerKey"`
	// AlarmBreakerKeys are the breakers that get their own "breaker not
	// closed" alarm. Default: the fixed key, if BreakerKey is fixed; with
	// attribute or pointer keys the "any breaker tripped" alarm covers every
	// key without a list.
	AlarmBreakerKeys []string `json:"alarmBreakerKeys,omitempty"`
	// Policy is the breaker policy as the BREAKER_* variables the tasks read
	// (lambda/config), e.g. {"BREAKER_COOLDOWN_BASE": "1m"}. Unset
	// variables take the policy's documented defaults.
	Policy map[string]string `json:"policy,omitempty"`

	// MaxAttempts bounds delivery tries per message before it is parked
	// (MAX_ATTEMPTS). Default: the attempt task's.
	MaxAttempts int `json:"maxAttempts,omitempty"`
	// BackoffBase is the first per-message backoff between tries
	// (BACKOFF_BASE). Default: the attempt task's.
	BackoffBase Duration `json:"backoffBase,omitempty"`
	// BackoffMax caps the per-message exponential backoff (BACKOFF_MAX).
	// Default: the attempt task's.
	BackoffMax Duration `json:"backoffMax,omitempty"`
	// PoisonErrorTypes are the consumer error types that mean the message
	// itself is bad: parked at once, never counted against the breaker
	// (POISON_ERROR_TYPES).
	PoisonErrorTypes []string `json:"poisonErrorTypes,omitempty"`
	// ThrottleErrorTypes are the consumer error types that mean the target
	// is overloaded (e.g. a downstream's 429 surfaced by the consumer): the
	// message goes back to the waiting room without using an attempt, the
	// release slows down, and the breaker never counts it
	// (THROTTLE_ERROR_TYPES). Lambda's and SQS's own throttling errors
	// always count as throttling. None may also be a poison type.
	ThrottleErrorTypes []string `json:"throttleErrorTypes,omitempty"`
	// AttemptTimeout is the attempt function's timeout; it must cover the
	// consumer's own timeout when Target.Kind is lambda. Default 60s; at
	// most 15m.
	AttemptTimeout Duration `json:"attemptTimeout,omitempty"`
	// DeliveryLease is how long a delivery record stays IN_PROGRESS before
	// another Attempt may take it over (DELIVERY_LEASE). Default
	// AttemptTimeout + 30s; it must be longer than AttemptTimeout, so a
	// lease never expires under a still-running delivery.
	DeliveryLease Duration `json:"deliveryLease,omitempty"`
	// UnknownOutcome is what a delivery whose outcome is unknown (its
	// Attempt died with the consumer call in flight) does: "redeliver" (at
	// least once; the consumer deduplicates on the origin id) or "park" (at
	// most once; a person decides) (UNKNOWN_OUTCOME). Default: redeliver.
	UnknownOutcome string `json:"unknownOutcome,omitempty"`
	// FIFOOnPark is what becomes of the rest of a FIFO message's group
	// when it is parked (FIFO_ON_PARK): "continue" (the default: the group
	// goes on, as SQS's own dead-letter queue does) or "hold" (the group
	// waits behind a hold rule on it, rules.OnGroup, until a person
	// removes the rule).
	FIFOOnPark string `json:"fifoOnPark,omitempty"`
	// TableRetryBudget is how long a message waits out a table that keeps
	// failing its Attempt before it is parked (TABLE_RETRY_BUDGET).
	// Default: the attempt task's (6h).
	TableRetryBudget Duration `json:"tableRetryBudget,omitempty"`

	// AttemptStateMachineType is the type of the attempt (redrive) state
	// machine, one execution per delivery try: "EXPRESS" (cheap, at most
	// five minutes, logged to its log group, see ExecutionLogLevel) or
	// "STANDARD" (billed per transition; each execution's history kept 90
	// days). Default EXPRESS. The release and admin state machines are
	// Standard whatever it says.
	AttemptStateMachineType string `json:"attemptStateMachineType,omitempty"`
	// RoomTTL is how long a message may wait in its breaker's room before
	// DynamoDB's TTL removes its entry (ROOM_TTL). Default: the tasks'
	// (14 days, as long as SQS keeps a message); at least 1h.
	RoomTTL Duration `json:"roomTtl,omitempty"`
	// ReleaseWorkers is how many releases (claim, Express start, delete)
	// one breaker's controller runs at once (RELEASE_WORKERS). Default: the
	// tasks' (16, about 500 messages a second per controller); 1 to 256.
	ReleaseWorkers int `json:"releaseWorkers,omitempty"`
	// Release is the waiting room's release pace (RELEASE_*). Default: the
	// tasks' (package room/pace).
	Release ReleasePace `json:"release"`
	// BodyRetentionDays is how many days the body bucket keeps a
	// claim-checked body (one over 64 KiB, which the starter puts in S3:
	// package claimcheck) before its lifecycle rule expires it; nothing
	// else deletes one. Default 30; at least 15 and more days than
	// RoomTTL, so a body outlives the parking lot's retention (14 days)
	// and a room entry that refers to it; at most S3's limit.
	BodyRetentionDays int `json:"bodyRetentionDays,omitempty"`

	// StarterBatchSize is how many DLQ messages one starter invocation
	// gets. Default 10; 1 to 10.
	StarterBatchSize int `json:"starterBatchSize,omitempty"`
	// StarterMaxConcurrency caps concurrent starter invocations. Default
	// 2; 2 to 1000.
	StarterMaxConcurrency int `json:"starterMaxConcurrency,omitempty"`
	// StarterRecordConcurrency is how many records one starter invocation
	// starts at once (START_CONCURRENCY). With StarterMaxConcurrency it
	// bounds the StartExecution calls in flight, and so their rate (see
	// the README). Default 2.
	StarterRecordConcurrency int `json:"starterRecordConcurrency,omitempty"`

	// Alarms sets the alarm thresholds and where alarms notify.
	Alarms Alarms `json:"alarms"`
	// LogRetentionDays is how long function and state machine logs are
	// kept; one of CloudWatch Logs' retention values. Default 30.
	LogRetentionDays int `json:"logRetentionDays,omitempty"`
	// LogLevel is the functions' log level, DEBUG or INFO, applied as
	// Lambda's application log filter (which the functions' logger reads
	// from AWS_LAMBDA_LOG_LEVEL). Default INFO. Nothing stricter: the
	// embedded-metric lines count as INFO and would be dropped.
	LogLevel string `json:"logLevel,omitempty"`
	// ExecutionLogLevel is the attempt and release state machines'
	// CloudWatch Logs level: ALL, ERROR, FATAL or OFF. Default ERROR: ALL
	// logs every message body on every transition (cost and data
	// exposure). An Express attempt state machine logs with execution data
	// (a failed execution's log keeps its message: Express keeps no
	// history), so it may not be OFF; a Standard one without (its history
	// shows each step for 90 days).
	ExecutionLogLevel string `json:"executionLogLevel,omitempty"`
	// Tracing turns on X-Ray for the functions and state machines.
	Tracing bool `json:"tracing,omitempty"`
	// BuildDir holds build/<function>/bootstrap from `make build`. Default
	// "../build" (relative to infra/, where the CDK CLI runs the app).
	BuildDir string `json:"buildDir,omitempty"`
	// KeepLegacyRoomIndex keeps the table's index "room"
	// (dynamo.LegacyRoomIndex, every attribute projected), which stacks
	// deployed before the index room_line had, beside room_line: the
	// first of an upgrade's two deploys (infra/README.md, Upgrading), since
	// CloudFormation adds or deletes one index per update, never both.
	// Nothing queries it. Default false: a new stack never has it.
	KeepLegacyRoomIndex bool `json:"keepLegacyRoomIndex,omitempty"`
}

// ReleasePace is the pace at which a breaker's releaser resumes the
// waiting room, and at which the starter lets fresh arrivals through. The
// zero value of every field means the tasks' default.
type ReleasePace struct {
	// StartRate is the release rate, messages per second, a releaser
	// starts from (RELEASE_START_RATE). Default 10.
	StartRate float64 `json:"startRate,omitempty"`
	// MaxRate caps one controller's rate, i.e. the Express executions it
	// starts per second (RELEASE_MAX_RATE). Default 3000, half the
	// account's Express StartExecution quota (6,000 a second), which every
	// breaker key and the starter share.
	MaxRate float64 `json:"maxRate,omitempty"`
	// Backoff multiplies the rate after a throttle (RELEASE_BACKOFF).
	// Default 0.9; in (0, 1).
	Backoff float64 `json:"backoff,omitempty"`
	// Tick is how often a releaser adjusts its rate (RELEASE_TICK); one
	// invocation of the release function runs sixty ticks, and its timeout
	// follows. Default 1s.
	Tick Duration `json:"tick,omitempty"`
	// Lease is how long a releaser holds its breaker's pace row without
	// renewing it (RELEASE_LEASE); a releaser that died is replaced after
	// it. Default 1m; at least three ticks.
	Lease Duration `json:"lease,omitempty"`
}

// Attempt state machine types (AttemptStateMachineType).
const (
	// AttemptExpress runs each delivery try as an Express execution.
	AttemptExpress = "EXPRESS"
	// AttemptStandard runs each delivery try as a Standard execution.
	AttemptStandard = "STANDARD"
)

// Target kinds.
const (
	// TargetLambda invokes the consumer function synchronously.
	TargetLambda = "lambda"
	// TargetSQS sends the message back to the source queue.
	TargetSQS = "sqs"
)

// Target says where redriven messages go.
type Target struct {
	// Kind is TargetLambda or TargetSQS. Required.
	Kind string `json:"kind"`
	// FunctionArn is the consumer's ARN (optionally with a version or
	// alias). Required for lambda.
	FunctionArn string `json:"functionArn,omitempty"`
	// SourceQueueArn is the queue the messages came from. Required for sqs
	// (they are sent back to it) unless DemoQueues; optional for lambda,
	// where it becomes the records' eventSourceARN.
	SourceQueueArn string `json:"sourceQueueArn,omitempty"`
	// SourceQueueKeyArn is the source queue's customer-managed KMS key, if
	// any; the attempt function gets kms:GenerateDataKey and kms:Decrypt on
	// it to send there. sqs only.
	SourceQueueKeyArn string `json:"sourceQueueKeyArn,omitempty"`
}

// KeySelector chooses each message's breaker: at most one of Fixed,
// Attribute and Pointer; with none, every message uses Default.
type KeySelector struct {
	// Fixed is one breaker for every message (BREAKER_KEY).
	Fixed string `json:"fixed,omitempty"`
	// Attribute names the message attribute holding the key
	// (BREAKER_KEY_ATTRIBUTE).
	Attribute string `json:"attribute,omitempty"`
	// Pointer is an RFC 6901 JSON pointer to the key in the body
	// (BREAKER_KEY_POINTER), e.g. "/tenant/id".
	Pointer string `json:"pointer,omitempty"`
	// Default is the key for messages the key cannot be taken from
	// (BREAKER_KEY_DEFAULT). Default "default".
	Default string `json:"default,omitempty"`
}

// Alarms sets the alarm thresholds and the topic every alarm notifies.
type Alarms struct {
	// DeadLetterQueueAge is the warning tier of the DLQ's oldest-message
	// age: the starter normally takes messages within seconds. Whole
	// minutes. Default 15m.
	DeadLetterQueueAge Duration `json:"deadLetterQueueAge,omitempty"`
	// DeadLetterQueueAgeCritical is the critical tier: longer than
	// DeadLetterQueueAge, whole minutes. Default four times
	// DeadLetterQueueAge (1h with its default).
	DeadLetterQueueAgeCritical Duration `json:"deadLetterQueueAgeCritical,omitempty"`
	// AttemptErrors alarms at this many errors of the attempt function in
	// each of three 5-minute periods. Consumer failures are outcomes, not
	// errors: these are the function failing. Default 5.
	AttemptErrors int `json:"attemptErrors,omitempty"`
	// FailedExecutions alarms at this many failed or timed-out (or, when
	// Standard, aborted) attempt executions in 5 minutes. Default 1.
	FailedExecutions int `json:"failedExecutions,omitempty"`
	// Throttles alarms at this many throttled function invocations plus
	// throttled state transitions in 5 minutes. Default 1.
	Throttles int `json:"throttles,omitempty"`
	// RoomDepth alarms when a breaker's waiting room holds this many
	// messages or more in each of three 5-minute periods while it is being
	// released: the release is not keeping up. Default 10000.
	RoomDepth int `json:"roomDepth,omitempty"`
	// OldestWaiting alarms when the first message in line in a waiting
	// room that is being released has waited this long (since it arrived
	// or its last try failed): messages are not getting out. Whole
	// minutes. Default 1h.
	OldestWaiting Duration `json:"oldestWaiting,omitempty"`
	// TopicArn is the SNS topic every alarm notifies on ALARM and OK; it
	// must let CloudWatch alarms publish (and use its KMS key, if any).
	// Empty: the stack creates one (output AlarmTopicArn).
	TopicArn string `json:"topicArn,omitempty"`
}

// The defaults withDefaults applies.
const (
	defaultKey                = "default"
	defaultLeaseMargin        = 30 * time.Second
	defaultStarterBatchSize   = 10
	defaultStarterConcurrency = 2
	defaultRecordConcurrency  = 2
	defaultDLQAge             = 15 * time.Minute
	criticalDLQAgeFactor      = 4 // the critical tier's default, times the warning tier
	defaultAttemptErrors      = 5
	defaultFailedExecutions   = 1
	defaultThrottles          = 1
	defaultRoomDepth          = 10000
	defaultLogRetentionDays   = 30
	defaultBodyRetentionDays  = 30
	defaultLogLevel           = "INFO"
	defaultExecutionLogLevel  = "ERROR"
	defaultOldestWaiting      = time.Hour
	defaultAttemptType        = AttemptExpress
	defaultBuildDir           = "../build"
)

// withDefaults returns s with every zero field that has a default set to
// it.
func (s Settings) withDefaults() Settings {
	if s.BreakerKey.Default == "" {
		s.BreakerKey.Default = defaultKey
	}
	if s.BreakerKey.Fixed == "" && s.BreakerKey.Attribute == "" && s.BreakerKey.Pointer == "" {
		s.BreakerKey.Fixed = s.BreakerKey.Default
	}
	if s.AlarmBreakerKeys == nil && s.BreakerKey.Fixed != "" {
		s.AlarmBreakerKeys = []string{s.BreakerKey.Fixed}
	}
	s.AttemptTimeout = cmp.Or(s.AttemptTimeout, Duration(attempt.DefaultFunctionTimeout))
	s.DeliveryLease = cmp.Or(s.DeliveryLease, s.AttemptTimeout+Duration(defaultLeaseMargin))
	s.StarterBatchSize = cmp.Or(s.StarterBatchSize, defaultStarterBatchSize)
	s.StarterMaxConcurrency = cmp.Or(s.StarterMaxConcurrency, defaultStarterConcurrency)
	s.StarterRecordConcurrency = cmp.Or(s.StarterRecordConcurrency, defaultRecordConcurrency)
	s.Alarms.DeadLetterQueueAge = cmp.Or(s.Alarms.DeadLetterQueueAge, Duration(defaultDLQAge))
	s.Alarms.DeadLetterQueueAgeCritical = cmp.Or(s.Alarms.DeadLetterQueueAgeCritical, criticalDLQAgeFactor*s.Alarms.DeadLetterQueueAge)
	s.Alarms.AttemptErrors = cmp.Or(s.Alarms.AttemptErrors, defaultAttemptErrors)
	s.Alarms.FailedExecutions = cmp.Or(s.Alarms.FailedExecutions, defaultFailedExecutions)
	s.Alarms.Throttles = cmp.Or(s.Alarms.Throttles, defaultThrottles)
	s.Alarms.RoomDepth = cmp.Or(s.Alarms.RoomDepth, defaultRoomDepth)
	s.Alarms.OldestWaiting = cmp.Or(s.Alarms.OldestWaiting, Duration(defaultOldestWaiting))
	s.LogRetentionDays = cmp.Or(s.LogRetentionDays, defaultLogRetentionDays)
	s.BodyRetentionDays = cmp.Or(s.BodyRetentionDays, defaultBodyRetentionDays)
	s.LogLevel = cmp.Or(s.LogLevel, defaultLogLevel)
	s.ExecutionLogLevel = cmp.Or(s.ExecutionLogLevel, defaultExecutionLogLevel)
	s.LogLevel = strings.ToUpper(s.LogLevel)
	s.ExecutionLogLevel = strings.ToUpper(s.ExecutionLogLevel)
	s.AttemptStateMachineType = strings.ToUpper(cmp.Or(s.AttemptStateMachineType, defaultAttemptType))
	s.BuildDir = cmp.Or(s.BuildDir, defaultBuildDir)
	return s
}
