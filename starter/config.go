package starter

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/claimcheck"
	"github.com/redrive/redrive/delivery/target"
	"github.com/redrive/redrive/lambda/config"
	"github.com/redrive/redrive/message"
	"github.com/redrive/redrive/park"
	"github.com/redrive/redrive/room"
	"github.com/redrive/redrive/room/pace"
)

// The environment variables Config is read from, besides the parking
// lot's (park.LotConfigFromEnv), the breaker key's
// (message.KeySelectorFromEnv), TARGET_KIND (target.EnvKind) and the
// BREAKER_* policy (config.Policy).
const (
	// EnvStateMachine is the redrive state machine's ARN. Required.
	EnvStateMachine = "STATE_MACHINE_ARN"
	// EnvTable is the breaker table; required when TARGET_KIND=sqs, and
	// where the starter paces fresh arrivals and indexes what it parks
	// when set.
	EnvTable = "TABLE_NAME"
	// EnvConcurrency bounds the records started at once; default
	// DefaultConcurrency.
	EnvConcurrency = "START_CONCURRENCY"
	// EnvControllerStateMachine is the controller state machine's ARN
	// (lambda/wire's RELEASE_STATE_MACHINE_ARN); required with TABLE_NAME:
	// a message that would only wait goes straight to its breaker's room,
	// and its controller is started.
	EnvControllerStateMachine = "RELEASE_STATE_MACHINE_ARN"
)

// Bounds of START_CONCURRENCY.
const (
	// DefaultConcurrency keeps a batch of 10 records to two rounds of
	// StartExecution calls, well inside the API's default rate.
	DefaultConcurrency = 8
	// MaxConcurrency is the largest START_CONCURRENCY: Step Functions'
	// StartExecution bucket refills at a few hundred calls a second, and
	// more goroutines only buy throttling.
	MaxConcurrency = 64
)

// stateMachineARN matches a state machine ARN.
var stateMachineARN = regexp.MustCompile(`^arn:aws[a-zA-Z-]*:states:[a-z]{2}(-gov)?-[a-z]+-\d:\d{12}:stateMachine:[A-Za-z0-9_-]{1,80}$`)

// Config is the starter's settings.
type Config struct {
	// StateMachineARN is STATE_MACHINE_ARN, the redrive state machine.
	StateMachineARN string
	// Lot is the parking lot, for what cannot be started.
	Lot park.LotConfig
	// Keys picks each message's breaker key (BREAKER_KEY,
	// BREAKER_KEY_ATTRIBUTE, BREAKER_KEY_POINTER, BREAKER_KEY_DEFAULT).
	Keys message.KeySelector
	// TargetKind is TARGET_KIND, as the Attempt task's: with "sqs", a
	// message back in the DLQ with lineage is a consumer failure the
	// starter records on its breaker.
	TargetKind target.Kind
	// Table is TABLE_NAME, the breaker table, for the breakers' states,
	// the arrival pace, the waiting room, the parking lot's index and,
	// with TargetKind sqs, the failures it records.
	Table string
	// ControllerStateMachineARN is RELEASE_STATE_MACHINE_ARN, the
	// controller state machine; required with Table.
	ControllerStateMachineARN string
	// BodyBucket is BODY_BUCKET, where a body too large for a document is
	// kept (claimcheck); empty, such a message is parked as oversize.
	BodyBucket string
	// RoomTTL is ROOM_TTL, how long a document the starter puts in the
	// room may wait there; default room.DefaultTTL, at least room.MinTTL.
	RoomTTL time.Duration
	// Policy is the breaker policy from BREAKER_*; used with Table, and
	// must be the Attempt task's.
	Policy breaker.Policy
	// Concurrency is START_CONCURRENCY, how many records are processed at
	// once, from 1 to MaxConcurrency; default DefaultConcurrency.
	Concurrency int
	// Pace is the waiting room's pace (RELEASE_*): with TABLE_NAME set, a
	// batch's fresh arrivals beyond Pace.Start per second and breaker key
	// (or the last controller's rate, if higher), or while the key's room
	// is being released, go straight to the room, as do all of them while
	// their breaker is not CLOSED.
	Pace pace.Policy
}

// RecordsReturns reports whether a message back in the DLQ with lineage
// counts as a failure of its breaker: with the sqs target, a redriven
// message returns only when its consumer failed it again.
func (c Config) RecordsReturns() bool { return c.TargetKind == target.KindSQS }

// ConfigFromEnv reads a Config through getenv; the error names every bad
// variable.
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	env := config.From(getenv)
	c := Config{
		StateMachineARN: env.Value(EnvStateMachine),
		Lot:             park.LotConfigFromEnv(env),
		Keys:            message.KeySelectorFromEnv(env),
		TargetKind:      target.Kind(strings.ToLower(env.Value(target.EnvKind))),
		Table:           env.Value(EnvTable),
		Concurrency:     env.Int(EnvConcurrency, DefaultConcurrency),
		Pace:            pace.PolicyFromEnv(env),
		BodyBucket:      env.Value(claimcheck.EnvBucket),
	}
	if c.Table != "" {
		c.ControllerStateMachineARN = env.Value(EnvControllerStateMachine)
		c.RoomTTL = env.PositiveDuration(room.EnvTTL, room.DefaultTTL)
		c.Policy = config.Policy(env)
	}
	env.FailAll(c.problems())
	return c, env.Err()
}

// Validate reports every problem with c, each naming its variable. The key
// selector is checked when it is read (message.KeySelectorFromEnv).
func (c Config) Validate() error {
	errs := []error{c.Lot.Validate()}
	for _, p := range c.problems() {
		errs = append(errs, p)
	}
	if c.Table != "" {
		errs = append(errs, c.Policy.Validate())
	}
	return errors.Join(errs...)
}

// problems lists what is wrong with c's own fields.
func (c Config) problems() []*config.VarError {
	var out []*config.VarError
	fail := func(name, value, problem string) {
		out = append(out, &config.VarError{Name: name, Value: value, Problem: problem})
	}
	if !stateMachineARN.MatchString(c.StateMachineARN) {
		fail(EnvStateMachine, c.StateMachineARN, "want a state machine ARN, e.g. arn:aws:states:us-east-1:123456789012:stateMachine:redrive")
	}
	switch c.TargetKind {
	case target.KindLambda:
	case target.KindSQS:
		if c.Table == "" {
			fail(EnvTable, "", "required when TARGET_KIND=sqs: the starter records consumer failures on the breaker")
		}
	default:
		fail(target.EnvKind, string(c.TargetKind), `want "lambda" or "sqs", as the Attempt task's`)
	}
	if c.RoomTTL != 0 && c.RoomTTL < room.MinTTL {
		fail(room.EnvTTL, c.RoomTTL.String(), "must be at least 1h")
	}
	if c.Table != "" && !stateMachineARN.MatchString(c.ControllerStateMachineARN) {
		fail(EnvControllerStateMachine, c.ControllerStateMachineARN, "want the controller state machine's ARN (required with TABLE_NAME)")
	}
	if c.Concurrency < 1 || c.Concurrency > MaxConcurrency {
		fail(EnvConcurrency, fmt.Sprint(c.Concurrency), fmt.Sprintf("want 1 to %d", MaxConcurrency))
	}
	return out
}
