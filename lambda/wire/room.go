package wire

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redrive/redrive/admin"
	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/claimcheck"
	"github.com/redrive/redrive/delivery"
	"github.com/redrive/redrive/dynamo"
	"github.com/redrive/redrive/lambda/config"
	"github.com/redrive/redrive/message"
	"github.com/redrive/redrive/park/lotindex"
	"github.com/redrive/redrive/park/replay"
	"github.com/redrive/redrive/room"
	"github.com/redrive/redrive/room/pace"
	"github.com/redrive/redrive/room/release"
	"github.com/redrive/redrive/room/waitroom"
	"github.com/redrive/redrive/rules"
	"github.com/redrive/redrive/starter"
)

// The environment variables of the waiting room and its controller.
const (
	EnvReleaseStateMachineARN = starter.EnvControllerStateMachine
	EnvAttemptStateMachineARN = starter.EnvStateMachine
	EnvRoomTTL                = room.EnvTTL
	EnvReleaseWorkers         = "RELEASE_WORKERS"
)

// Defaults of the room's settings.
const (
	// DefaultRoomTTL is how long a message may wait in the room.
	DefaultRoomTTL = room.DefaultTTL
	// DefaultReleaseWorkers is how many releases a controller runs at
	// once: each is a claim, an Express start and a delete, about 30 ms in
	// all, so 16 release about 500 messages a second per controller.
	DefaultReleaseWorkers = 16
	// MaxReleaseWorkers bounds RELEASE_WORKERS.
	MaxReleaseWorkers = 256
	// claimLease is how long a release's claim on a room entry holds: far
	// longer than a release takes.
	claimLease = time.Minute
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
}

// RoomConfig is the waiting room's settings, shared by the functions that
// enter or release it (starter, attempt, waitroom, release, admin).
type RoomConfig struct {
	// Table is TABLE_NAME: the room lives beside the breaker rows.
	Table string
	// ReleaseStateMachineARN is RELEASE_STATE_MACHINE_ARN, the
	// controller's state machine. Required.
	ReleaseStateMachineARN string
	// AttemptStateMachineARN is STATE_MACHINE_ARN, the attempt state
	// machine a controller starts a released message's execution of;
	// required by the release function only.
	AttemptStateMachineARN string
	// TTL is ROOM_TTL: how long an entry may wait before DynamoDB's TTL
	// removes it. Default DefaultRoomTTL, at least 1h.
	TTL time.Duration
	// Workers is RELEASE_WORKERS: how many releases a controller runs at
	// once. Default DefaultReleaseWorkers; 1 releases in line, one at a
	// time (the local simulation does, so that its runs repeat).
	Workers int
	// BodyBucket is BODY_BUCKET: the Queue task keeps a waiting
	// document's body over claimcheck.RoomThreshold there; empty, bodies
	// wait in their documents.
	BodyBucket string
	// Pace is the release pace: RELEASE_START_RATE, RELEASE_MAX_RATE (one
	// controller's share of the Express StartExecution quota),
	// RELEASE_BACKOFF, RELEASE_TICK, RELEASE_LEASE; zero fields mean
	// pace's defaults.
	Pace pace.Policy
}

// RoomConfigFromEnv reads a RoomConfig on table (the function's
// TABLE_NAME, read by the caller) through env.
func RoomConfigFromEnv(env *config.Env, table string) RoomConfig {
	c := RoomConfig{
		Table:                  table,
		ReleaseStateMachineARN: env.Required(EnvReleaseStateMachineARN),
		AttemptStateMachineARN: env.Value(EnvAttemptStateMachineARN),
		TTL:                    env.PositiveDuration(EnvRoomTTL, DefaultRoomTTL),
		Workers:                env.PositiveInt(EnvReleaseWorkers, DefaultReleaseWorkers),
		BodyBucket:             env.Value(claimcheck.EnvBucket),
		Pace:                   pace.PolicyFromEnv(env),
	}
	if p := c.ttlProblem(); p != "" && c.TTL > 0 {
		env.Fail(EnvRoomTTL, p)
	}
	if p := c.workersProblem(); p != "" && c.Workers > 0 {
		env.Fail(EnvReleaseWorkers, p)
	}
	return c
}

// ttlProblem says what is wrong with TTL; "" when it is usable (zero
// means the default).
func (c RoomConfig) ttlProblem() string {
	if c.TTL != 0 && c.TTL < room.MinTTL {
		return "must be at least 1h"
	}
	return ""
}

// workersProblem says what is wrong with Workers; "" when it is usable
// (zero means the default).
func (c RoomConfig) workersProblem() string {
	if c.Workers < 0 || c.Workers > MaxReleaseWorkers {
		return fmt.Sprintf("want 1 to %d", MaxReleaseWorkers)
	}
	return ""
}

// Validate reports every problem with c.
func (c RoomConfig) Validate() error {
	var errs []error
	if c.ReleaseStateMachineARN == "" {
		errs = append(errs, &config.VarError{Name: EnvReleaseStateMachineARN, Problem: "required but not set"})
	}
	if p := c.ttlProblem(); p != "" {
		errs = append(errs, &config.VarError{Name: EnvRoomTTL, Value: c.TTL.String(), Problem: p})
	}
	if p := c.workersProblem(); p != "" {
		errs = append(errs, &config.VarError{Name: EnvReleaseWorkers, Value: fmt.Sprint(c.Workers), Problem: p})
	}
	if err := c.Pace.Validate(); err != nil {
		errs = append(errs, &config.VarError{Name: pace.Variable(err), Problem: err.Error()})
	}
	return errors.Join(append(errs, tableProblem(c.Table))...)
}

// room builds the room and the controller's launcher on cfg (validated by
// the caller), the launcher's pace with its defaults applied, as the
// controller reads it.
func (b *Builder) room(cfg RoomConfig) (*room.Room, *release.Launcher) {
	c := b.deps.Clients
	l := &release.Launcher{Pace: pace.NewStore(c.DynamoDB, cfg.Table), Policy: cfg.Pace.WithDefaults(), SFN: c.SFN,
		StateMachineARN: cfg.ReleaseStateMachineARN, Clock: b.deps.Clock}
	return room.New(c.DynamoDB, cfg.Table, cmp.Or(cfg.TTL, DefaultRoomTTL)), l
}

// WaitingRoom builds the waiting room's entry handler (the Queue task). It
// needs Clients.DynamoDB and Clients.SFN, and with BODY_BUCKET set
// Clients.S3.
func (b *Builder) WaitingRoom(cfg RoomConfig) (*waitroom.Handler, error) {
	c := b.deps.Clients
	if err := errors.Join(cfg.Validate(), needs("waitroom", need{"DynamoDB", c.DynamoDB != nil}, need{"SFN", c.SFN != nil},
		need{"S3", c.S3 != nil || cfg.BodyBucket == ""})); err != nil {
		return nil, fmt.Errorf("wire: waitroom: %w", err)
	}
	rm, l := b.room(cfg)
	h := &waitroom.Handler{Room: rm, Launcher: l, Logger: b.deps.Logger, Clock: b.deps.Clock}
	if s := b.bodies(cfg.BodyBucket); s != nil {
		h.Bodies = s.ForRoom()
	}
	return h, nil
}

// Release builds the controller's tick handler. It needs Clients.DynamoDB
// and Clients.SFN, and STATE_MACHINE_ARN (the attempt state machine it
// starts released messages' executions of).
func (b *Builder) Release(cfg RoomConfig, p breaker.Policy) (*release.Handler, error) {
	c := b.deps.Clients
	var errs []error
	if cfg.AttemptStateMachineARN == "" {
		errs = append(errs, &config.VarError{Name: EnvAttemptStateMachineARN, Problem: "required but not set (the attempt state machine the controller starts)"})
	}
	if err := errors.Join(append(errs, cfg.Validate(), needs("release", need{"DynamoDB", c.DynamoDB != nil}, need{"SFN", c.SFN != nil}))...); err != nil {
		return nil, fmt.Errorf("wire: release: %w", err)
	}
	br, err := b.breaker("release", dynamo.New(c.DynamoDB, cfg.Table), p, seedReleaseBreaker, 0)
	if err != nil {
		return nil, err
	}
	rm, l := b.room(cfg)
	held := b.rules(cfg.Table)
	rel := room.Releaser{SFN: c.SFN, StateMachineARN: cfg.AttemptStateMachineARN, Owner: "release",
		Prepare: execution, Lease: claimLease, Workers: cmp.Or(cfg.Workers, DefaultReleaseWorkers),
		// A FIFO group held behind a hold rule goes on once the rule is
		// removed or ends, within the rules' cache time.
		Lifted: func(ctx context.Context, id string) (bool, error) {
			set, err := held.Rules(ctx)
			return err == nil && !set.InForce(id, b.deps.Clock.Now()), err
		}}
	return &release.Handler{Breaker: br, Room: rm, Releaser: rel, Launcher: l, Metrics: b.metrics,
		Logger: b.deps.Logger, Clock: b.deps.Clock}, nil
}

// execution is a released entry's execution started at now: named after
// its document (message.Document.ExecutionName: the message and its run),
// its input the document with its start time and, for a FIFO message, the
// message of its group before it, as the room knows it. A document that
// does not decode goes as it is, for the Attempt to park it.
func execution(e room.Entry, now time.Time) (name, input string) {
	doc, err := message.ParseDocument(e.Document)
	if err != nil {
		return message.ExecutionName(e.MessageID, 1, 0), string(e.Document)
	}
	doc.Execution = &message.Execution{StartTime: now}
	if doc.FIFO != nil && e.Place != nil {
		doc.FIFO.Prev = e.Place.Prev
	}
	b, err := doc.Input()
	if err != nil {
		return doc.ExecutionName(), string(e.Document)
	}
	return doc.ExecutionName(), string(b)
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
