package wire

import (
	"errors"
	"fmt"
	"time"

	"github.com/redrive/redrive/admin"
	"github.com/redrive/redrive/attempt"
	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/delivery"
	"github.com/redrive/redrive/dynamo"
	"github.com/redrive/redrive/lambda/config"
	"github.com/redrive/redrive/park/lotindex"
	"github.com/redrive/redrive/park/replay"
	"github.com/redrive/redrive/room"
	"github.com/redrive/redrive/room/pace"
	"github.com/redrive/redrive/room/release"
	"github.com/redrive/redrive/room/waitroom"
	"github.com/redrive/redrive/rules"
	"github.com/redrive/redrive/starter"
)

// The environment variables of the waiting room and its release.
const (
	EnvReleaseStateMachineARN = "RELEASE_STATE_MACHINE_ARN"
	EnvRoomTimeout            = attempt.EnvRoomTimeout
	EnvRoomMaxWait            = attempt.EnvRoomMaxWait
)

// DynamoDB is the part of the DynamoDB client the handlers call;
// *dynamodb.Client satisfies it.
type DynamoDB interface {
	delivery.API
	room.API
	dynamo.API
	lotindex.API
	rules.API
	replay.JournalAPI
	replay.IndexAPI
}

// StepFunctions is the part of the Step Functions client the handlers
// call; *sfn.Client satisfies it.
type StepFunctions interface {
	starter.StartExecutionAPI
	room.TaskAPI
}

// RoomConfig is the waiting room's settings, shared by the functions that
// enter, release or scout it (attempt, waitroom, release, admin).
type RoomConfig struct {
	// Table is TABLE_NAME: the room lives beside the breaker rows.
	Table string
	// ReleaseStateMachineARN is RELEASE_STATE_MACHINE_ARN, the releaser's
	// state machine. Required.
	ReleaseStateMachineARN string
	// Timeout is ROOM_TIMEOUT: how long the room's watcher waits before
	// it attempts again on its own. Default attempt.DefaultRoomTimeout.
	Timeout time.Duration
	// MaxWait is ROOM_MAX_WAIT: how long any other message waits before
	// it attempts again on its own. Default: attempt.Config's.
	MaxWait time.Duration
	// Pace is the release pace: RELEASE_START_RATE, RELEASE_MAX_RATE (the
	// SendTaskSuccess budget per breaker key), RELEASE_BACKOFF,
	// RELEASE_TICK, RELEASE_LEASE; zero fields mean pace's defaults.
	Pace pace.Policy
}

// RoomConfigFromEnv reads a RoomConfig on table (the function's
// TABLE_NAME, read by the caller) through env.
func RoomConfigFromEnv(env *config.Env, table string) RoomConfig {
	timeout := env.PositiveDuration(EnvRoomTimeout, attempt.DefaultRoomTimeout)
	c := RoomConfig{
		Table:                  table,
		ReleaseStateMachineARN: env.Required(EnvReleaseStateMachineARN),
		Timeout:                timeout,
		MaxWait:                env.PositiveDuration(EnvRoomMaxWait, attempt.Config{RoomTimeout: timeout}.WithDefaults().RoomMaxWait),
		Pace:                   pace.PolicyFromEnv(env),
	}
	if c.Timeout > 0 && c.MaxWait > 0 { // a value that did not parse, or is not positive, is reported already
		for _, e := range config.Split(c.timeoutProblem()) {
			if v, ok := errors.AsType[*config.VarError](e); ok {
				env.Fail(v.Name, v.Problem)
			}
		}
	}
	return c
}

// Validate reports every problem with c.
func (c RoomConfig) Validate() error {
	var errs []error
	if c.ReleaseStateMachineARN == "" {
		errs = append(errs, &config.VarError{Name: EnvReleaseStateMachineARN, Problem: "required but not set"})
	}
	errs = append(errs, c.timeoutProblem())
	if err := c.Pace.Validate(); err != nil {
		errs = append(errs, &config.VarError{Name: pace.Variable(err), Problem: err.Error()})
	}
	return errors.Join(append(errs, tableProblem(c.Table))...)
}

// timeoutProblem is what the attempt's own check finds wrong with Timeout
// and MaxWait (the range of the callback state's TimeoutSeconds), so that
// a bad ROOM_TIMEOUT or ROOM_MAX_WAIT fails at start rather than every
// Attempt invocation; nil when they are usable (zero means the default).
func (c RoomConfig) timeoutProblem() error {
	return c.attempt().Validate()
}

// attempt is the attempt's Config with the room's timeouts alone.
func (c RoomConfig) attempt() attempt.Config {
	return attempt.Config{RoomTimeout: c.Timeout, RoomMaxWait: c.MaxWait}
}

// ttl is how long room items live: twice the longest wait in the room,
// after which their tokens are worthless.
func (c RoomConfig) ttl() time.Duration {
	return 2 * c.attempt().WithDefaults().RoomMaxWait
}

// room builds the room, the pace store and the releaser's launcher on cfg
// (validated by the caller), the launcher's pace with its defaults
// applied, as the releaser reads it.
func (b *Builder) room(cfg RoomConfig) (*room.Room, *release.Launcher) {
	c := b.deps.Clients
	l := &release.Launcher{Pace: pace.NewStore(c.DynamoDB, cfg.Table), Policy: cfg.Pace.WithDefaults(), SFN: c.SFN,
		StateMachineARN: cfg.ReleaseStateMachineARN, Clock: b.deps.Clock}
	return room.New(c.DynamoDB, cfg.Table, cfg.ttl()), l
}

// WaitingRoom builds the waiting room's entry handler. It needs
// Clients.DynamoDB and Clients.SFN.
func (b *Builder) WaitingRoom(cfg RoomConfig, p breaker.Policy) (*waitroom.Handler, error) {
	c := b.deps.Clients
	if err := errors.Join(cfg.Validate(), needs("waitroom", need{"DynamoDB", c.DynamoDB != nil}, need{"SFN", c.SFN != nil})); err != nil {
		return nil, fmt.Errorf("wire: waitroom: %w", err)
	}
	br, err := b.breaker("waitroom", dynamo.New(c.DynamoDB, cfg.Table), p, seedRoomBreaker)
	if err != nil {
		return nil, err
	}
	rm, l := b.room(cfg)
	return &waitroom.Handler{Room: rm, Breaker: br, Launcher: l, Logger: b.deps.Logger, Clock: b.deps.Clock}, nil
}

// Release builds the releaser's tick handler. It needs Clients.DynamoDB
// and Clients.SFN; sleep waits on the clock (time-based in AWS, the
// executor's virtual time locally).
func (b *Builder) Release(cfg RoomConfig, p breaker.Policy) (*release.Handler, error) {
	c := b.deps.Clients
	if err := errors.Join(cfg.Validate(), needs("release", need{"DynamoDB", c.DynamoDB != nil}, need{"SFN", c.SFN != nil})); err != nil {
		return nil, fmt.Errorf("wire: release: %w", err)
	}
	br, err := b.breaker("release", dynamo.New(c.DynamoDB, cfg.Table), p, seedReleaseBreaker)
	if err != nil {
		return nil, err
	}
	rm, l := b.room(cfg)
	return &release.Handler{Breaker: br, Room: rm, Tasks: c.SFN, Launcher: l, Metrics: b.metrics,
		Logger: b.deps.Logger, Clock: b.deps.Clock}, nil
}

// RoomFromEnv reads the settings of a function that works the waiting room
// (waitroom, release, admin) through getenv: TABLE_NAME, the room's
// variables and the BREAKER_* policy. The error names every bad variable.
func RoomFromEnv(getenv func(string) string) (RoomConfig, breaker.Policy, error) {
	env := config.From(getenv)
	c := RoomConfigFromEnv(env, env.Required(admin.EnvTable))
	p := config.Policy(env)
	return c, p, env.Err()
}
