package stack

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/lambda/config"
	"github.com/redrive/redrive/message"
	"github.com/redrive/redrive/room"
	"github.com/redrive/redrive/room/release"
)

// ErrInvalidProps matches every *PropError, so callers can tell bad
// settings from other failures with errors.Is.
var ErrInvalidProps = errors.New("stack: invalid props")

// PropError names one invalid setting and what is wrong with it.
type PropError struct {
	// Field is the setting's path, e.g. "Target.FunctionArn".
	Field string
	// Problem says what the value must be instead.
	Problem string
}

// Error implements error.
func (e *PropError) Error() string { return fmt.Sprintf("stack: %s: %s", e.Field, e.Problem) }

// Unwrap makes errors.Is(err, ErrInvalidProps) hold.
func (e *PropError) Unwrap() error { return ErrInvalidProps }

// Limits the settings are checked against.
const (
	maxDimensionLength = 255 // a CloudWatch dimension value, for per-key alarms
	maxLambdaTimeout   = 15 * time.Minute
	minStarterConc     = 2 // Lambda's minimum MaximumConcurrency for SQS
	maxStarterConc     = 1000
	maxStarterBatch    = 10 // larger batches need a batching window and a longer starter timeout
	lineageAttribute   = "redrive"
	// minBodyRetentionDays is the fewest days a claim-checked body is
	// kept: one more than the parking lot keeps a message.
	minBodyRetentionDays = int(parkingLotRetention/day) + 1
	// maxBodyRetentionDays is S3's limit: a lifecycle rule's expiration
	// Days is a positive Integer (32 bits).
	maxBodyRetentionDays = math.MaxInt32
	day                  = 24 * time.Hour
)

var (
	logLevels          = []string{"DEBUG", "INFO"}
	executionLogLevels = []string{"ALL", "ERROR", "FATAL", "OFF"}
	attemptTypes       = []string{AttemptExpress, AttemptStandard}
	// SQS message attribute names: letters, digits, _ - and ., no leading,
	// trailing or repeated period, and not reserved for AWS.
	attributeName = regexp.MustCompile(`^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$`)
)

// Validate reports every invalid setting (after defaults), joined into one
// error of *PropError values; nil means NewRedriveStack can build it. It
// runs each function's environment through that task's own parser, so
// settings that validate are settings the functions accept at cold start,
// and checks that BuildDir holds every function's bootstrap.
func (s Settings) Validate() error {
	s = s.withDefaults()
	v := &validator{}
	v.source(s)
	v.target(s)
	v.keys(s)
	v.attempt(s, v.policy(s.Policy))
	v.release(s)
	v.starter(s)
	v.alarms(s)
	v.logs(s)
	v.bodies(s)
	v.build(s.BuildDir)
	v.tasks(s)
	return errors.Join(v.errs...)
}

// validator collects PropErrors.
type validator struct{ errs []error }

func (v *validator) fail(field, format string, args ...any) {
	v.errs = append(v.errs, &PropError{Field: field, Problem: fmt.Sprintf(format, args...)})
}

// arn checks an optional ARN of service and returns it parsed.
func (v *validator) arn(field, value, service string) (arn, bool) {
	if value == "" {
		return arn{}, false
	}
	a, err := parseARN(value, service)
	if err != nil {
		v.fail(field, "%v", err)
		return arn{}, false
	}
	return a, true
}

// queue checks an optional queue ARN.
func (v *validator) queue(field, value string) {
	v.arn(field, value, "sqs")
}

func (v *validator) source(s Settings) {
	switch {
	case s.DeadLetterQueueArn == "" && !s.DemoQueues:
		v.fail("DeadLetterQueueArn", "required: the ARN of the dead-letter queue to redrive, or set DemoQueues")
	case s.DeadLetterQueueArn != "" && s.DemoQueues:
		v.fail("DeadLetterQueueArn", "set either DeadLetterQueueArn or DemoQueues, not both")
	}
	v.queue("DeadLetterQueueArn", s.DeadLetterQueueArn)
	v.arn("DeadLetterQueueKeyArn", s.DeadLetterQueueKeyArn, "kms")
	if s.DemoQueues && s.DeadLetterQueueKeyArn != "" {
		v.fail("DeadLetterQueueKeyArn", "only for an existing DeadLetterQueueArn; the demo queues use SSE-SQS")
	}
}

func (v *validator) target(s Settings) {
	t := s.Target
	switch t.Kind {
	case TargetLambda:
		if t.FunctionArn == "" {
			v.fail("Target.FunctionArn", "required when Target.Kind is %q", TargetLambda)
		}
		v.arn("Target.FunctionArn", t.FunctionArn, "lambda")
		if t.SourceQueueKeyArn != "" {
			v.fail("Target.SourceQueueKeyArn", "only for Target.Kind %q: the lambda target does not write to the source queue", TargetSQS)
		}
	case TargetSQS:
		if t.FunctionArn != "" {
			v.fail("Target.FunctionArn", "only for Target.Kind %q", TargetLambda)
		}
		switch {
		case t.SourceQueueArn == "" && !s.DemoQueues:
			v.fail("Target.SourceQueueArn", "required when Target.Kind is %q: the queue messages are sent back to", TargetSQS)
		case t.SourceQueueArn != "" && s.DemoQueues:
			v.fail("Target.SourceQueueArn", "leave empty with DemoQueues: messages go back to the demo source queue")
		}
		v.arn("Target.SourceQueueKeyArn", t.SourceQueueKeyArn, "kms")
	case "":
		v.fail("Target.Kind", "required: %q or %q", TargetLambda, TargetSQS)
	default:
		v.fail("Target.Kind", "%q, want %q or %q", t.Kind, TargetLambda, TargetSQS)
	}
	v.queue("Target.SourceQueueArn", t.SourceQueueArn)
	if t.SourceQueueArn != "" && s.DeadLetterQueueArn != "" && message.IsFIFOQueue(t.SourceQueueArn) != message.IsFIFOQueue(s.DeadLetterQueueArn) {
		v.fail("Target.SourceQueueArn", "%q and the dead-letter queue %q must be of one type, both FIFO or both standard, as SQS requires of a queue and its dead-letter queue",
			t.SourceQueueArn, s.DeadLetterQueueArn)
	}
	v.typeList("PoisonErrorTypes", envPoisonErrorTypes, s.PoisonErrorTypes)
	v.typeList("ThrottleErrorTypes", envThrottleErrorTypes, s.ThrottleErrorTypes)
}

// typeList checks what the comma-separated variable cannot carry; the
// attempt task checks the rest (tasks).
func (v *validator) typeList(field, variable string, types []string) {
	for _, typ := range types {
		if strings.Contains(typ, ",") {
			v.fail(field, "%q: the list travels comma-separated (%s), so a type cannot hold a comma", typ, variable)
		}
	}
}

// keys checks what the tasks' key selector does not: the attribute name
// (SQS's rules) and the keys that name alarms (CloudWatch's).
func (v *validator) keys(s Settings) {
	if a := s.BreakerKey.Attribute; a != "" {
		lower := strings.ToLower(a)
		switch {
		case len(a) > 256 || !attributeName.MatchString(a):
			v.fail("BreakerKey.Attribute", "%q is not an SQS message attribute name (letters, digits, _ - and single periods, at most 256)", a)
		case strings.HasPrefix(lower, "aws.") || strings.HasPrefix(lower, "amazon."):
			v.fail("BreakerKey.Attribute", "%q: names starting with AWS. or Amazon. are reserved", a)
		case a == lineageAttribute:
			v.fail("BreakerKey.Attribute", "%q is Redrive's own lineage attribute", a)
		}
	}
	for i, key := range s.AlarmBreakerKeys {
		field := fmt.Sprintf("AlarmBreakerKeys[%d]", i)
		switch {
		case key == "" || len(key) > maxDimensionLength || !utf8.ValidString(key):
			v.fail(field, "%q, want 1 to %d bytes of UTF-8 (a CloudWatch dimension value)", key, maxDimensionLength)
		case slices.Index(s.AlarmBreakerKeys, key) != i:
			v.fail(field, "%q is listed twice", key)
		}
	}
}

// policy checks the BREAKER_* variables with the parser the tasks use, so
// a policy that synthesizes is one the tasks accept at cold start. It
// returns the policy, defaults applied, or nil when it is invalid.
func (v *validator) policy(vars map[string]string) *breaker.Policy {
	known := config.PolicyVariables()
	for _, name := range slices.Sorted(maps.Keys(vars)) {
		if !slices.Contains(known, name) {
			v.fail("Policy."+name, "not a breaker policy variable the tasks read; want one of %s", strings.Join(known, ", "))
		}
	}
	env := config.From(func(name string) string { return vars[name] })
	p := config.Policy(env).WithDefaults()
	for _, err := range config.Split(env.Err()) {
		if verr, ok := errors.AsType[*config.VarError](err); ok {
			v.fail("Policy."+verr.Name, "%s", strings.TrimPrefix(err.Error(), "config: "+verr.Name+": "))
			continue
		}
		v.fail("Policy", "%v", err)
	}
	if env.Err() != nil {
		return nil
	}
	return &p
}

// attempt checks the attempt function's timeout and lease, and that p's
// canary lease (p nil: an invalid policy, reported already) outlasts the
// timeout; the attempt task checks its own settings (tasks).
func (v *validator) attempt(s Settings, p *breaker.Policy) {
	timeout := s.AttemptTimeout.Std()
	switch {
	case timeout < time.Second || timeout > maxLambdaTimeout:
		v.fail("AttemptTimeout", "%v, want 1s to %v (Lambda's limits)", timeout, maxLambdaTimeout)
	case timeout%time.Second != 0:
		v.fail("AttemptTimeout", "%v, want whole seconds (Lambda's timeout unit)", timeout)
	}
	if s.DeliveryLease <= s.AttemptTimeout {
		v.fail("DeliveryLease", "%v, want longer than AttemptTimeout (%v): a lease must not expire under a running delivery", s.DeliveryLease, s.AttemptTimeout)
	}
	if p != nil && p.CanaryLease <= timeout {
		v.fail("Policy.BREAKER_CANARY_LEASE", "%v, want longer than AttemptTimeout (%v): a canary's outcome that comes after its lease is dropped, "+
			"so a slow target would keep the breaker half-open for ever", p.CanaryLease, timeout)
	}
}

// release checks that the release function's timeout, which follows the
// tick (releaseTimeout), is one Lambda allows; the tasks check the pace
// itself (tasks).
func (v *validator) release(s Settings) {
	if timeout := releaseTimeout(s); timeout > maxLambdaTimeout {
		v.fail("Release.Tick", "%v: one release invocation runs %d ticks, so its timeout would be %v, over Lambda's %v",
			s.Release.Tick, release.TicksPerInvocation, timeout, maxLambdaTimeout)
	}
}

func (v *validator) starter(s Settings) {
	if s.StarterBatchSize < 1 || s.StarterBatchSize > maxStarterBatch {
		v.fail("StarterBatchSize", "%d, want 1 to %d", s.StarterBatchSize, maxStarterBatch)
	}
	if s.StarterMaxConcurrency < minStarterConc || s.StarterMaxConcurrency > maxStarterConc {
		v.fail("StarterMaxConcurrency", "%d, want %d to %d (Lambda's limits for SQS event sources)", s.StarterMaxConcurrency, minStarterConc, maxStarterConc)
	}
}

func (v *validator) alarms(s Settings) {
	a := s.Alarms
	warning, critical := a.DeadLetterQueueAge.Std(), a.DeadLetterQueueAgeCritical.Std()
	warningOK, criticalOK := v.wholeMinutes("Alarms.DeadLetterQueueAge", warning), v.wholeMinutes("Alarms.DeadLetterQueueAgeCritical", critical)
	if warningOK && criticalOK && critical <= warning {
		v.fail("Alarms.DeadLetterQueueAgeCritical", "%v, want longer than DeadLetterQueueAge (%v), the warning tier", critical, warning)
	}
	for _, c := range []struct {
		field string
		value int
	}{
		{"Alarms.AttemptErrors", a.AttemptErrors}, {"Alarms.FailedExecutions", a.FailedExecutions},
		{"Alarms.Throttles", a.Throttles}, {"Alarms.RoomDepth", a.RoomDepth},
	} {
		if c.value < 1 {
			v.fail(c.field, "%d, want at least 1", c.value)
		}
	}
	// A message keeps its place in line (its arrival or last failed try)
	// however long its breaker stays open: no upper bound.
	v.wholeMinutes("Alarms.OldestWaiting", a.OldestWaiting.Std())
	v.arn("Alarms.TopicArn", a.TopicArn, "sns")
}

// wholeMinutes checks an alarm's age threshold against the metric's
// resolution, reporting whether it is whole minutes, at least one.
func (v *validator) wholeMinutes(field string, d time.Duration) bool {
	if d < time.Minute || d%time.Minute != 0 {
		v.fail(field, "%v, want whole minutes, at least 1m (the metric's resolution)", d)
		return false
	}
	return true
}

func (v *validator) logs(s Settings) {
	if _, ok := retentionDays[s.LogRetentionDays]; !ok {
		v.fail("LogRetentionDays", "%d, want one of CloudWatch Logs' values: %v", s.LogRetentionDays, retentionChoices())
	}
	if !slices.Contains(logLevels, s.LogLevel) {
		v.fail("LogLevel", "%q, want one of %v", s.LogLevel, logLevels)
	}
	if !slices.Contains(executionLogLevels, s.ExecutionLogLevel) {
		v.fail("ExecutionLogLevel", "%q, want one of %v", s.ExecutionLogLevel, executionLogLevels)
	}
	if !slices.Contains(attemptTypes, s.AttemptStateMachineType) {
		v.fail("AttemptStateMachineType", "%q, want one of %v", s.AttemptStateMachineType, attemptTypes)
	} else if s.AttemptStateMachineType == AttemptExpress && s.ExecutionLogLevel == "OFF" {
		v.fail("ExecutionLogLevel", "OFF with an EXPRESS attempt state machine: an Express execution keeps no history, so its log "+
			"(with execution data) is the only record of a failed execution's message; want ERROR, FATAL or ALL, or set "+
			"AttemptStateMachineType to STANDARD")
	}
}

// bodies checks the body bucket's lifecycle expiry: within S3's limits,
// and longer than anything that may still refer to a claim-checked body,
// so none expires under a message Redrive still holds: the parking lot's
// retention (minBodyRetentionDays) and the room's TTL (RoomTTL, the
// tasks' default when unset; a negative one is the tasks' to report).
func (v *validator) bodies(s Settings) {
	days := s.BodyRetentionDays
	if days < minBodyRetentionDays || days > maxBodyRetentionDays {
		v.fail("BodyRetentionDays", "%d, want %d to %d: more days than the parking lot keeps a message (%v), and at most S3's "+
			"lifecycle limit", days, minBodyRetentionDays, maxBodyRetentionDays, parkingLotRetention)
		return
	}
	// days*24h > ttl, without overflowing a Duration: days is more than
	// the ttl's whole days.
	if ttl := cmp.Or(s.RoomTTL.Std(), room.DefaultTTL); int64(days) <= int64(ttl/day) {
		v.fail("BodyRetentionDays", "%d, want more days than RoomTTL (%v): a body must outlive the room entry that refers to it", days, ttl)
	}
}

// build checks that dir holds every function's bootstrap executable.
func (v *validator) build(dir string) {
	var missing []string
	for _, fn := range functions {
		path := filepath.Join(dir, fn.name, "bootstrap")
		if info, err := os.Stat(path); err != nil || !info.Mode().IsRegular() {
			missing = append(missing, path)
		}
	}
	if len(missing) > 0 {
		v.fail("BuildDir", "%q lacks %s; run `make build` first", dir, strings.Join(missing, ", "))
	}
}
