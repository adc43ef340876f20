package stack

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/jsii-runtime-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/lambda/config"
)

func TestValidateAcceptsFixtures(t *testing.T) {
	for _, name := range []string{existingName, demoName} {
		t.Run(name, func(t *testing.T) {
			assert.NoError(t, fixtureSettings(name).Validate())
		})
	}
}

func TestValidateAcceptsALongOldestWaiting(t *testing.T) {
	// A message keeps its place in line however long its breaker stays
	// open: no upper bound.
	s := fixtureSettings(existingName)
	s.Alarms.OldestWaiting = Duration(72 * time.Hour)
	assert.NoError(t, s.Validate())
}

// TestValidateAttemptStateMachineType: EXPRESS or STANDARD, any case; an
// Express attempt state machine must log (its log is the record of a
// failed execution), a Standard one may not.
func TestValidateAttemptStateMachineType(t *testing.T) {
	for _, typ := range []string{"", "express", "EXPRESS", "Standard", "STANDARD"} {
		s := fixtureSettings(demoName)
		s.AttemptStateMachineType = typ
		assert.NoError(t, s.Validate(), "%q", typ)
	}
	standard := fixtureSettings(demoName)
	standard.AttemptStateMachineType, standard.ExecutionLogLevel = AttemptStandard, "OFF"
	assert.NoError(t, standard.Validate(), "a Standard execution keeps its history")
}

func TestValidateNamesTheField(t *testing.T) {
	valid := func() Settings { return fixtureSettings(existingName) }
	demo := func() Settings { return fixtureSettings(demoName) }
	tests := []struct {
		name   string
		edit   func() Settings
		field  string
		reason string // a fragment of the problem
	}{
		{"no source", func() Settings { s := valid(); s.DeadLetterQueueArn = ""; s.DeadLetterQueueKeyArn = ""; return s },
			"DeadLetterQueueArn", "required"},
		{"two sources", func() Settings { s := valid(); s.DemoQueues = true; return s }, "DeadLetterQueueArn", "not both"},
		{"DLQ not an ARN", func() Settings { s := valid(); s.DeadLetterQueueArn = "orders-dlq"; return s }, "DeadLetterQueueArn", "not an ARN"},
		{"DLQ of another service", func() Settings {
			s := valid()
			s.DeadLetterQueueArn = "arn:aws:sns:eu-west-1:123456789012:orders"
			return s
		}, "DeadLetterQueueArn", `want "sqs"`},
		{"bad account", func() Settings {
			s := valid()
			s.DeadLetterQueueArn = "arn:aws:sqs:eu-west-1:1234:orders-dlq"
			return s
		}, "DeadLetterQueueArn", "12 digits"},
		{"key with demo queues", func() Settings { s := demo(); s.DeadLetterQueueKeyArn = dlqKeyArn; return s },
			"DeadLetterQueueKeyArn", "existing"},
		{"bad key ARN", func() Settings {
			s := valid()
			s.DeadLetterQueueKeyArn = "arn:aws:kms:eu-west-1:123456789012:alias/x"
			return s
		},
			"DeadLetterQueueKeyArn", "resource"},
		{"no target kind", func() Settings { s := valid(); s.Target.Kind = ""; return s }, "Target.Kind", "required"},
		{"unknown target kind", func() Settings { s := valid(); s.Target.Kind = "http"; return s }, "Target.Kind", `"http"`},
		{"lambda without function", func() Settings { s := valid(); s.Target.FunctionArn = ""; return s }, "Target.FunctionArn", "required"},
		{"function ARN of a queue", func() Settings { s := valid(); s.Target.FunctionArn = sourceArn; return s }, "Target.FunctionArn", `want "lambda"`},
		{"lambda with a queue key", func() Settings { s := valid(); s.Target.SourceQueueKeyArn = dlqKeyArn; return s },
			"Target.SourceQueueKeyArn", "only for"},
		{"sqs without a queue", func() Settings {
			s := valid()
			s.Target = Target{Kind: TargetSQS}
			return s
		}, "Target.SourceQueueArn", "required"},
		{"sqs with a function", func() Settings { s := demo(); s.Target.FunctionArn = consumerArn; return s }, "Target.FunctionArn", "only for"},
		{"sqs queue with demo queues", func() Settings { s := demo(); s.Target.SourceQueueArn = sourceArn; return s },
			"Target.SourceQueueArn", "demo"},
		{"FIFO source of a standard DLQ", func() Settings { s := valid(); s.Target.SourceQueueArn = sourceArn + ".fifo"; return s },
			"Target.SourceQueueArn", "both FIFO or both standard"},
		{"standard source of a FIFO DLQ", func() Settings {
			s := valid()
			s.DeadLetterQueueArn, s.Target.SourceQueueArn = dlqArn+".fifo", sourceArn
			return s
		}, "Target.SourceQueueArn", "both FIFO or both standard"},
		{"poison type with a comma", func() Settings { s := valid(); s.PoisonErrorTypes = []string{"A,B"}; return s }, "PoisonErrorTypes", "comma"},
		{"poison type the target refuses", func() Settings { s := valid(); s.PoisonErrorTypes = []string{"Runtime.ExitError"}; return s },
			"PoisonErrorTypes", "the attempt function rejects POISON_ERROR_TYPES"},
		{"throttle type with a comma", func() Settings { s := valid(); s.ThrottleErrorTypes = []string{"A,B"}; return s }, "ThrottleErrorTypes", "comma"},
		{"throttle type that is poison too", func() Settings { s := valid(); s.ThrottleErrorTypes = []string{"ValidationError"}; return s },
			"ThrottleErrorTypes", "the attempt function rejects THROTTLE_ERROR_TYPES"},
		{"room TTL under an hour", func() Settings { s := valid(); s.RoomTTL = Duration(30 * time.Minute); return s },
			"RoomTTL", "rejects ROOM_TTL=\"30m0s\": must be at least 1h"},
		{"room TTL negative", func() Settings { s := demo(); s.RoomTTL = Duration(-time.Hour); return s }, "RoomTTL", "ROOM_TTL"},
		{"too many release workers", func() Settings { s := valid(); s.ReleaseWorkers = 257; return s },
			"ReleaseWorkers", "rejects RELEASE_WORKERS=\"257\": want 1 to 256"},
		{"release workers negative", func() Settings { s := demo(); s.ReleaseWorkers = -1; return s }, "ReleaseWorkers", "RELEASE_WORKERS"},
		{"unknown attempt state machine type", func() Settings { s := demo(); s.AttemptStateMachineType = "sync"; return s },
			"AttemptStateMachineType", `"SYNC", want one of [EXPRESS STANDARD]`},
		{"an Express attempt state machine that does not log", func() Settings { s := demo(); s.ExecutionLogLevel = "off"; return s },
			"ExecutionLogLevel", "OFF with an EXPRESS attempt state machine"},
		{"release start rate negative", func() Settings { s := valid(); s.Release.StartRate = -1; return s },
			"Release.StartRate", "rejects RELEASE_START_RATE=\"-1\": pace: policy Start -1: must be a positive rate"},
		{"release max rate below start", func() Settings { s := valid(); s.Release = ReleasePace{StartRate: 50, MaxRate: 10}; return s },
			"Release.MaxRate", "must be at least Start"},
		{"release backoff not a fraction", func() Settings { s := demo(); s.Release.Backoff = 1.5; return s }, "Release.Backoff", "(0, 1)"},
		{"release lease under three ticks", func() Settings {
			s := valid()
			s.Release.Lease = Duration(5 * time.Second)
			return s
		}, "Release.Lease", "three ticks"},
		{"release tick too long for a Lambda invocation", func() Settings {
			s := valid()
			s.Release.Tick, s.Release.Lease = Duration(20*time.Second), Duration(time.Hour)
			return s
		}, "Release.Tick", "its timeout would be 20m30s, over Lambda's 15m0s"},
		{"ramp variables are gone", func() Settings { s := valid(); s.Policy = map[string]string{"BREAKER_RAMP_DURATION": "5m"}; return s },
			"Policy.BREAKER_RAMP_DURATION", "not a breaker policy variable"},
		{"two key sources", func() Settings { s := valid(); s.BreakerKey.Attribute = "tenant"; return s }, "BreakerKey.Fixed", "at most one"},
		{"pointer without slash", func() Settings { s := demo(); s.BreakerKey.Pointer = "tenant"; return s }, "BreakerKey.Pointer", `start with "/"`},
		{"pointer bad escape", func() Settings { s := demo(); s.BreakerKey.Pointer = "/a~2b"; return s }, "BreakerKey.Pointer", `"~" must be followed by 0 or 1`},
		{"attribute reserved", func() Settings { s := demo(); s.BreakerKey = KeySelector{Attribute: "AWS.tenant"}; return s },
			"BreakerKey.Attribute", "reserved"},
		{"attribute is the lineage", func() Settings { s := demo(); s.BreakerKey = KeySelector{Attribute: "redrive"}; return s },
			"BreakerKey.Attribute", "lineage"},
		{"attribute bad name", func() Settings { s := demo(); s.BreakerKey = KeySelector{Attribute: "ten ant"}; return s },
			"BreakerKey.Attribute", "not an SQS message attribute name"},
		{"key too long", func() Settings { s := valid(); s.BreakerKey.Fixed = strings.Repeat("k", 257); return s }, "BreakerKey.Fixed", "at most 256"},
		{"alarm key twice", func() Settings { s := demo(); s.AlarmBreakerKeys = []string{"a", "a"}; return s }, "AlarmBreakerKeys[1]", "twice"},
		{"alarm key too long", func() Settings { s := demo(); s.AlarmBreakerKeys = []string{strings.Repeat("k", 256)}; return s },
			"AlarmBreakerKeys[0]", "1 to 255 bytes"},
		{"unknown policy variable", func() Settings { s := valid(); s.Policy = map[string]string{"BREAKER_COOLDOWN": "1m"}; return s },
			"Policy.BREAKER_COOLDOWN", "not a breaker policy variable the tasks read; want one of BREAKER_CONSECUTIVE_FAILURES, "},
		{"policy value unparsable", func() Settings { s := valid(); s.Policy = map[string]string{"BREAKER_COOLDOWN_BASE": "60"}; return s },
			"Policy.BREAKER_COOLDOWN_BASE", "duration"},
		{"policy invalid as a whole", func() Settings { s := valid(); s.Policy = map[string]string{"BREAKER_WINDOW_SIZE": "5"}; return s },
			"Policy.BREAKER_MINIMUM_CALLS", "BREAKER_WINDOW_SIZE"},
		{"negative max attempts", func() Settings { s := valid(); s.MaxAttempts = -1; return s }, "MaxAttempts", `MAX_ATTEMPTS="-1": must be at least 1`},
		{"backoff under a second", func() Settings { s := valid(); s.BackoffBase = Duration(500 * time.Millisecond); return s },
			"BackoffBase", "at least 1s"},
		{"backoff max below base", func() Settings { s := valid(); s.BackoffMax = Duration(time.Second); return s }, "BackoffMax", "BACKOFF_BASE"},
		{"attempt timeout too long", func() Settings { s := valid(); s.AttemptTimeout = Duration(16 * time.Minute); return s },
			"AttemptTimeout", "15m"},
		{"attempt timeout fractional", func() Settings {
			s := valid()
			s.AttemptTimeout = Duration(1500 * time.Millisecond)
			s.DeliveryLease = Duration(time.Minute)
			return s
		}, "AttemptTimeout", "whole seconds"},
		{"lease not longer than timeout", func() Settings { s := valid(); s.DeliveryLease = s.AttemptTimeout; return s }, "DeliveryLease", "longer"},
		{"unknown outcomes neither redelivered nor parked", func() Settings { s := valid(); s.UnknownOutcome = "drop"; return s },
			"UnknownOutcome", `want "redeliver" (at least once) or "park"`},
		{"a table retry budget under a minute", func() Settings { s := valid(); s.TableRetryBudget = Duration(time.Second); return s },
			"TableRetryBudget", "at least 1m"},
		{"lease over 16 minutes", func() Settings { s := valid(); s.DeliveryLease = Duration(17 * time.Minute); return s },
			"DeliveryLease", "must be between 1s and 16m0s"},
		{"canary lease not longer than the attempt timeout", func() Settings { s := valid(); s.AttemptTimeout = Duration(5 * time.Minute); return s },
			"Policy.BREAKER_CANARY_LEASE", "longer than AttemptTimeout"},
		{"batch too large", func() Settings { s := valid(); s.StarterBatchSize = 11; return s }, "StarterBatchSize", "1 to 10"},
		{"record concurrency too high", func() Settings { s := valid(); s.StarterRecordConcurrency = 65; return s },
			"StarterRecordConcurrency", "1 to 64"},
		{"concurrency below Lambda's minimum", func() Settings { s := valid(); s.StarterMaxConcurrency = 1; return s },
			"StarterMaxConcurrency", "2 to 1000"},
		{"DLQ age not whole minutes", func() Settings { s := valid(); s.Alarms.DeadLetterQueueAge = Duration(90 * time.Second); return s },
			"Alarms.DeadLetterQueueAge", "whole minutes"},
		{"critical DLQ age not whole minutes", func() Settings {
			s := valid()
			s.Alarms.DeadLetterQueueAgeCritical = Duration(90 * time.Second)
			return s
		},
			"Alarms.DeadLetterQueueAgeCritical", "whole minutes"},
		{"critical DLQ age not after the warning", func() Settings {
			s := valid()
			s.Alarms.DeadLetterQueueAgeCritical = s.Alarms.DeadLetterQueueAge
			return s
		},
			"Alarms.DeadLetterQueueAgeCritical", "10m0s, want longer than DeadLetterQueueAge (10m0s), the warning tier"},
		{"critical DLQ age below the default warning", func() Settings {
			s := demo()
			s.Alarms.DeadLetterQueueAgeCritical = Duration(5 * time.Minute)
			return s
		},
			"Alarms.DeadLetterQueueAgeCritical", "want longer than DeadLetterQueueAge (15m0s)"},
		{"no attempt errors", func() Settings { s := valid(); s.Alarms.AttemptErrors = -1; return s }, "Alarms.AttemptErrors", "-1, want at least 1"},
		{"negative room depth", func() Settings { s := valid(); s.Alarms.RoomDepth = -1; return s }, "Alarms.RoomDepth", "at least 1"},
		{"oldest waiting not whole minutes", func() Settings { s := valid(); s.Alarms.OldestWaiting = Duration(90 * time.Second); return s },
			"Alarms.OldestWaiting", "whole minutes"},
		{"topic of another service", func() Settings { s := valid(); s.Alarms.TopicArn = sourceArn; return s }, "Alarms.TopicArn", `want "sns"`},
		{"retention not offered", func() Settings { s := valid(); s.LogRetentionDays = 31; return s }, "LogRetentionDays", "30"},
		{"log level", func() Settings { s := valid(); s.LogLevel = "verbose"; return s }, "LogLevel", "DEBUG"},
		{"execution log level", func() Settings { s := valid(); s.ExecutionLogLevel = "info"; return s }, "ExecutionLogLevel", "ALL"},
		{"no build", func() Settings { s := valid(); s.BuildDir = t.TempDir(); return s }, "BuildDir", "make build"},
		{"bodies kept no longer than the parking lot", func() Settings { s := valid(); s.BodyRetentionDays = 14; return s },
			"BodyRetentionDays", "15 to 2147483647"},
		{"negative body retention", func() Settings { s := demo(); s.BodyRetentionDays = -1; return s },
			"BodyRetentionDays", "parking lot"},
		{"body retention over S3's limit", func() Settings { s := demo(); s.BodyRetentionDays = math.MaxInt32 + 1; return s },
			"BodyRetentionDays", "S3's"},
		{"bodies kept no longer than the room", func() Settings {
			s := valid()
			s.RoomTTL, s.BodyRetentionDays = Duration(45*24*time.Hour), 45
			return s
		}, "BodyRetentionDays", "RoomTTL (1080h0m0s)"},
		{"bodies kept less than a room TTL of part days", func() Settings {
			s := demo()
			s.RoomTTL, s.BodyRetentionDays = Duration(30*24*time.Hour+time.Hour), 30
			return s
		}, "BodyRetentionDays", "RoomTTL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.edit().Validate()
			require.Error(t, err)
			assert.ErrorIs(t, err, ErrInvalidProps)
			perr := findPropError(err, tt.field)
			require.NotNil(t, perr, "no problem reported for %s in: %v", tt.field, err)
			assert.Contains(t, perr.Problem, tt.reason)
		})
	}
}

// findPropError returns the problem reported for field, or nil.
func findPropError(err error, field string) *PropError {
	for _, e := range config.Split(err) {
		if perr, ok := errors.AsType[*PropError](e); ok && perr.Field == field {
			return perr
		}
	}
	return nil
}

// TestValidateBodyRetention: the bodies are kept more days than the
// parking lot keeps a message (14) and than a message may wait in the room
// (RoomTTL, the tasks' 14 days when unset), and at most S3's limit.
func TestValidateBodyRetention(t *testing.T) {
	for _, tt := range []struct {
		days    int
		roomTTL time.Duration
	}{
		{15, 0},
		{15, 14 * 24 * time.Hour},
		{31, 30*24*time.Hour + time.Hour},
		{90, 0},
		{math.MaxInt32, 0},
		{math.MaxInt32, 1000 * 24 * time.Hour},
	} {
		s := fixtureSettings(demoName)
		s.BodyRetentionDays, s.RoomTTL = tt.days, Duration(tt.roomTTL)
		assert.NoError(t, s.Validate(), "%d days with a room TTL of %v", tt.days, tt.roomTTL)
	}
	s := fixtureSettings(demoName)
	s.BodyRetentionDays = 14
	perr := findPropError(s.Validate(), "BodyRetentionDays")
	require.NotNil(t, perr, "no longer than the room's default TTL and the parking lot")
	assert.Equal(t, "14, want 15 to 2147483647: more days than the parking lot keeps a message (336h0m0s), and at most S3's lifecycle limit",
		perr.Problem)
}

func TestValidateReportsEveryProblem(t *testing.T) {
	s := Settings{Target: Target{Kind: "smtp"}, StarterBatchSize: 20, LogLevel: "loud", BuildDir: t.TempDir()}
	err := s.Validate()
	require.Error(t, err)
	for _, field := range []string{"DeadLetterQueueArn", "Target.Kind", "StarterBatchSize", "LogLevel", "BuildDir"} {
		assert.NotNil(t, findPropError(err, field), "no problem reported for %s", field)
	}
}

func TestValidateBuildNeedsEveryBootstrap(t *testing.T) {
	dir := t.TempDir()
	for _, fn := range functions[1:] {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, fn.name), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, fn.name, "bootstrap"), []byte("x"), 0o755))
	}
	s := fixtureSettings(existingName)
	s.BuildDir = dir
	perr := findPropError(s.Validate(), "BuildDir")
	require.NotNil(t, perr)
	assert.Contains(t, perr.Problem, filepath.Join(dir, functions[0].name, "bootstrap"))
	assert.NotContains(t, perr.Problem, filepath.Join(dir, functions[1].name, "bootstrap"))
}

func TestNewRedriveStackRejectsBadPropsBeforeBuilding(t *testing.T) {
	app := awscdk.NewApp(nil)
	s := fixtureSettings(existingName)
	s.Target.FunctionArn = ""
	stack, err := NewRedriveStack(app, "Bad", &Props{Settings: s})
	require.Error(t, err)
	assert.Nil(t, stack)
	assert.NotNil(t, findPropError(err, "Target.FunctionArn"))
	assert.Empty(t, *app.Node().Children(), "nothing is built from invalid props")
}

func TestNewRedriveStackRejectsQueueInAnotherRegion(t *testing.T) {
	app := awscdk.NewApp(nil)
	_, err := NewRedriveStack(app, "Elsewhere", &Props{
		StackProps: awscdk.StackProps{Env: &awscdk.Environment{Account: jsii.String(testAccount), Region: jsii.String("us-east-1")}},
		Settings:   fixtureSettings(existingName),
	})
	perr := findPropError(err, "DeadLetterQueueArn")
	require.NotNil(t, perr, "error: %v", err)
	assert.Contains(t, perr.Problem, "eu-west-1")
}

func TestWithDefaults(t *testing.T) {
	s := Settings{LogLevel: "debug"}.withDefaults()
	assert.Equal(t, KeySelector{Fixed: "default", Default: "default"}, s.BreakerKey)
	assert.Equal(t, []string{"default"}, s.AlarmBreakerKeys, "a fixed breaker gets its own alarm")
	assert.Equal(t, Duration(60*time.Second), s.AttemptTimeout)
	assert.Equal(t, Duration(90*time.Second), s.DeliveryLease, "lease = timeout + 30s")
	assert.Equal(t, "DEBUG", s.LogLevel)
	assert.Equal(t, "ERROR", s.ExecutionLogLevel)
	assert.Equal(t, 10, s.StarterBatchSize)
	assert.Equal(t, 2, s.StarterMaxConcurrency)
	assert.Equal(t, Duration(15*time.Minute), s.Alarms.DeadLetterQueueAge)
	assert.Equal(t, Duration(time.Hour), s.Alarms.DeadLetterQueueAgeCritical, "four times the warning tier")
	assert.Equal(t, 5, s.Alarms.AttemptErrors)
	assert.Equal(t, 10000, s.Alarms.RoomDepth)
	assert.Equal(t, Duration(time.Hour), s.Alarms.OldestWaiting)
	assert.Equal(t, AttemptExpress, s.AttemptStateMachineType)
	assert.Zero(t, s.RoomTTL, "the tasks' default, left to them")
	assert.Zero(t, s.ReleaseWorkers, "the tasks' default, left to them")
	assert.Equal(t, ReleasePace{}, s.Release, "the tasks' defaults, left to them")
	assert.Equal(t, 30, s.BodyRetentionDays)
	assert.Equal(t, 45, Settings{BodyRetentionDays: 45}.withDefaults().BodyRetentionDays)
	assert.Equal(t, AttemptStandard, Settings{AttemptStateMachineType: "standard"}.withDefaults().AttemptStateMachineType)

	late := Settings{Alarms: Alarms{DeadLetterQueueAge: Duration(2 * time.Hour)}}.withDefaults()
	assert.Equal(t, Duration(8*time.Hour), late.Alarms.DeadLetterQueueAgeCritical, "the critical tier follows a later warning")

	pointer := Settings{BreakerKey: KeySelector{Pointer: "/tenant"}}.withDefaults()
	assert.Empty(t, pointer.BreakerKey.Fixed, "a pointer selector stays a pointer selector")
	assert.Nil(t, pointer.AlarmBreakerKeys, "keys taken from messages have no fixed alarm list")
}
