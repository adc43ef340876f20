package local

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sync"
	"time"

	"github.com/redrive/redrive/attempt"
	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/clock"
	"github.com/redrive/redrive/delivery/target"
	"github.com/redrive/redrive/emulate/executor"
	"github.com/redrive/redrive/emulate/quota"
	"github.com/redrive/redrive/emulate/simtarget"
	"github.com/redrive/redrive/lambda/wire"
	"github.com/redrive/redrive/room/pace"
)

// Options configures a Stack. The zero value of every field means its
// documented default.
type Options struct {
	// Seed seeds every source of randomness: the executor (retry jitter,
	// ids), the breaker (cooldown jitter, ramp), the simulated target and
	// SQS message ids. Default 1.
	Seed int64
	// Workers is how many goroutines run the events due at one virtual
	// instant, so handlers run concurrently. Default 1: fully
	// deterministic.
	Workers int
	// Start is when the virtual clock starts. Default the executor's
	// (2026-01-01T00:00:00Z).
	Start time.Time
	// FinishedHistories bounds the finished executions whose histories
	// are kept (executor.Options.FinishedHistories): Costs needs them all.
	// Default 0: all.
	FinishedHistories int
	// RunningHistories, Compact and Finished are the executor's
	// (executor.Options): a simulation records a sample of the histories,
	// reads each execution as it ends and keeps only a summary of it.
	RunningHistories int
	Compact          bool
	Finished         func(executor.Execution)

	// Scaled, if set, runs the stack as a service on that scaled wall
	// clock: the executor runs in the background from Start to Close, the
	// DLQ's event source long-polls, and every clock (handlers, SQS,
	// histories) is this one. Default nil: the executor's virtual clock,
	// driven by RunUntil and RunUntilDrained.
	Scaled *clock.Scaled
	// Quotas, if set, holds the stack to an AWS account's quotas (see
	// package quota; Stack.Quotas reports their use): the executor's Step
	// Functions calls and transitions, every Lambda invocation's
	// concurrency, and the tasks' DynamoDB throughput per partition. On
	// the virtual clock only (a service's executor snapshots). Default
	// nil: none.
	Quotas *quota.Profile
	// Serve, if set, serves the Lambda, Step Functions, DynamoDB and SQS
	// APIs on sockets at these addresses, for clients outside the process
	// (the AWS CLI, the SDKs, Step Functions Local). Default nil: every
	// client talks to its server in process, without sockets.
	Serve *Addresses
	// StepFunctionsEndpoint is a Step Functions endpoint (Step Functions
	// Local) to create the state machines on and start executions with,
	// instead of the executor. It invokes the functions on the Lambda
	// server's socket, so it needs Serve and Scaled.
	StepFunctionsEndpoint string
	// Retention evicts finished executions once stopped that long on the
	// stack's clock (executor.Options.Retention), so a long-running service's
	// memory holds what is in flight. Default 0: every execution is kept,
	// as Costs needs.
	Retention time.Duration
	// DynamoDBEndpoint is a DynamoDB-compatible endpoint (dynalite,
	// DynamoDB Local) to use instead of the embedded minidyn; the table
	// gets a unique name there and is deleted by Close.
	DynamoDBEndpoint string
	// InProcess has the tasks, the DLQ's event source and SendToDLQ call
	// the table, the queues and the executor in process: the table is
	// emulate/ddbmem, and SQS and Step Functions are called through
	// clients with the SDK's signatures, validation and errors but
	// without its wire format (sqslocal.Client, sfnapi.Client). Much
	// faster for a long simulation, with the same answers. The Stack then
	// has no DynamoDB client or endpoint (its SQS and SFN clients still
	// go through the APIs); it needs neither Serve nor State nor
	// DynamoDBEndpoint.
	InProcess bool
	// State, if set, is a directory that keeps a service's executions,
	// queues and table across a restart: Start restores them from it
	// (the clock continuing where the stopped stack's was), Close saves
	// them into it. It needs Scaled, the executor (no
	// StepFunctionsEndpoint) and the embedded DynamoDB.
	State string
	// NameSuffix is appended to the state machines' names, so runs sharing
	// one Step Functions Local do not meet; [A-Za-z0-9_-], at most 40.
	NameSuffix string

	// Env, if set, supplies the functions' settings as the Lambda
	// functions read their environment (the BREAKER_* policy,
	// MAX_ATTEMPTS, BACKOFF_*, DELIVERY_LEASE, ROOM_TTL, RELEASE_*,
	// POISON_ERROR_TYPES, START_CONCURRENCY, BREAKER_KEY...), each
	// checked by its function's own parser, instead of the typed
	// fields Policy, Attempt, Pace and the
	// BreakerKey ones. The variables that wire the functions to the stack
	// (TABLE_NAME, STATE_MACHINE_ARN, TARGET_*...) are the stack's. A
	// message without a key goes to DefaultBreakerKey unless
	// BREAKER_KEY_DEFAULT says otherwise.
	Env func(string) string

	// Policy is the breaker policy; zero fields mean the breaker's
	// defaults.
	Policy breaker.Policy
	// Attempt tunes the per-message retry; zero fields mean the attempt
	// task's defaults.
	Attempt attempt.Config
	// Target configures the simulated consumer; its Now is set to the
	// executor's clock and a zero Seed to this Seed.
	Target simtarget.Options
	// PoisonErrorTypes are the consumer error types that mean poison.
	// Default ["PoisonMessage"] (simtarget's).
	PoisonErrorTypes []string
	// ThrottleErrorTypes are the consumer error types that mean the
	// target is overloaded. Default ["Throttled"] (simtarget's).
	ThrottleErrorTypes []string
	// AttemptTimeout is the attempt function's Lambda timeout, its
	// deadline. Default attempt.DefaultFunctionTimeout, as deployed.
	AttemptTimeout time.Duration
	// DuplicateStarts, when above zero, starts every DuplicateStarts-th
	// execution of the attempt state machine twice (same name and input),
	// as AWS may run an asynchronous Express execution twice: a fault for
	// the tests and the simulation that show the delivery ledger makes it
	// harmless. Stats.DuplicatedStarts counts them.
	DuplicateStarts int
	// StandardAttempts deploys the attempt state machine as a Standard
	// workflow (each try's history in the console, billed per state
	// transition) instead of Express, as the stack's setting does.
	StandardAttempts bool
	// FIFO makes the DLQ, its source queue and the parking lot FIFO
	// queues (their names end in .fifo, QueueName): SendToDLQ sends each
	// message in the group its MessageGroupId system attribute names.
	FIFO bool
	// FIFOOnPark is FIFO_ON_PARK: what becomes of a FIFO group behind a
	// parked message ("continue", the default, or "hold").
	FIFOOnPark string
	// Pace is the waiting room's release pace; zero fields mean the
	// defaults (RELEASE_*).
	Pace pace.Policy
	// DirectInvoke has the attempt task invoke the consumer through the
	// Registry directly rather than through the Lambda Invoke API server
	// and the lambda client: faster, but skips the Invoke wire format.
	DirectInvoke bool

	// BreakerKey is the one breaker all messages go through, unless
	// BreakerKeyAttribute or BreakerKeyPointer picks a key per message.
	// Default "orders" when neither is set.
	BreakerKey string
	// BreakerKeyAttribute names the message attribute holding the key.
	BreakerKeyAttribute string
	// BreakerKeyPointer is a JSON pointer to the key in the body.
	BreakerKeyPointer string

	// BatchSize is the DLQ event source's batch size, 1 to 10. Default 10.
	BatchSize int
	// BatchWindow is the DLQ event source's batching window
	// (MaximumBatchingWindowInSeconds), up to 5 minutes: on the virtual
	// clock, a message sent to the DLQ is received that long after, with
	// the others sent meanwhile, in full batches. Default 0: at once, as
	// a mapping without a window polls.
	BatchWindow time.Duration
	// VisibilityTimeout is the DLQ's; a record the starter could not start
	// reappears after it. Default 30s.
	VisibilityTimeout time.Duration
	// StartConcurrency is how many records of a batch the starter starts at
	// once. Default Workers (1 keeps runs deterministic).
	StartConcurrency int

	// WrapStore, if set, wraps the breaker store of the attempt task, for
	// fault injection.
	WrapStore func(breaker.Store) breaker.Store
	// WrapTarget, if set, wraps the attempt task's target (the consumer's
	// client), for fault injection.
	WrapTarget func(target.Target) target.Target
	// WrapDynamoDB, if set, wraps the DynamoDB client of every task, for
	// fault injection at the table (the breaker rows, the delivery
	// records, the room and the pace rows); what it fails is not counted
	// in Stats.
	WrapDynamoDB func(wire.DynamoDB) wire.DynamoDB
	// Logs receives the handlers' JSON logs and metric lines, one whole
	// line a Write, one Write at a time, whatever the writer. Default
	// io.Discard.
	Logs io.Writer
}

// DefaultBreakerKey is the breaker every message goes through unless the
// options pick a key per message.
const DefaultBreakerKey = "orders"

// Addresses are where a stack serves its APIs, "host:port" each; an empty
// one, or port 0, picks a free loopback port. Step Functions Local in
// Docker reaches the Lambda server only on an address the container can
// route to, e.g. "0.0.0.0:9001".
type Addresses struct {
	Lambda, StepFunctions, DynamoDB, SQS, S3 string
}

// suffixPattern is what NameSuffix may hold.
var suffixPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{0,40}$`)

// withDefaults fills the zero fields and checks the ones Start uses
// itself; the handlers' settings are checked by the handlers' own
// configuration.
func (o Options) withDefaults() (Options, error) {
	o.Seed = cmp.Or(o.Seed, 1)
	o.Workers = cmp.Or(o.Workers, 1)
	o.AttemptTimeout = cmp.Or(o.AttemptTimeout, attempt.DefaultFunctionTimeout)
	if o.PoisonErrorTypes == nil {
		o.PoisonErrorTypes = []string{"PoisonMessage"}
	}
	if o.ThrottleErrorTypes == nil {
		o.ThrottleErrorTypes = []string{"Throttled"}
	}
	if o.Env == nil && o.BreakerKey == "" && o.BreakerKeyAttribute == "" && o.BreakerKeyPointer == "" {
		o.BreakerKey = DefaultBreakerKey
	}
	o.BatchSize = cmp.Or(o.BatchSize, 10)
	o.VisibilityTimeout = cmp.Or(o.VisibilityTimeout, 30*time.Second)
	o.StartConcurrency = cmp.Or(o.StartConcurrency, o.Workers)
	o.Target.Seed = cmp.Or(o.Target.Seed, uint64(o.Seed))
	if o.Logs == nil {
		o.Logs = io.Discard
	}
	if _, ok := o.Logs.(*lineWriter); !ok && o.Logs != io.Discard {
		o.Logs = &lineWriter{w: o.Logs}
	}
	return o, o.validate()
}

// lineWriter serializes the handlers' writes to a writer: every function's
// logger and metrics write lines to it at once.
type lineWriter struct {
	mu sync.Mutex
	w  io.Writer
}

// Write implements io.Writer.
func (l *lineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// validate checks the options Start uses itself, once defaults are set.
func (o Options) validate() error {
	switch {
	case o.Workers < 1:
		return fmt.Errorf("local: options: Workers %d: want at least 1", o.Workers)
	case o.BatchSize < 1 || o.BatchSize > 10:
		return fmt.Errorf("local: options: BatchSize %d: want 1 to 10, as an SQS event source allows", o.BatchSize)
	case o.BatchWindow < 0 || o.BatchWindow > 5*time.Minute || o.BatchWindow%time.Second != 0:
		return fmt.Errorf("local: options: BatchWindow %v: want whole seconds from 0 to 5m, as an SQS event source allows", o.BatchWindow)
	case o.VisibilityTimeout < time.Second || o.VisibilityTimeout > 12*time.Hour:
		return fmt.Errorf("local: options: VisibilityTimeout %v: want 1s to 12h, as SQS allows", o.VisibilityTimeout)
	case !suffixPattern.MatchString(o.NameSuffix):
		return fmt.Errorf("local: options: NameSuffix %q: want at most 40 of A-Z a-z 0-9 _ -", o.NameSuffix)
	}
	return o.validateBackends()
}

// validateBackends checks that the chosen backends go together.
func (o Options) validateBackends() error {
	switch {
	case o.State != "" && (o.Scaled == nil || o.DynamoDBEndpoint != "" || o.StepFunctionsEndpoint != ""):
		return errors.New("local: options: State needs Scaled, the executor and the embedded DynamoDB: it keeps a service's own executions, queues and table")
	case o.Quotas != nil && o.Scaled != nil:
		return errors.New("local: options: Quotas are for the virtual clock: a service's executor keeps snapshots, which do not record waits for quota")
	case o.InProcess && (o.Serve != nil || o.State != "" || o.DynamoDBEndpoint != "" || o.StepFunctionsEndpoint != ""):
		return errors.New("local: options: InProcess serves the table, queues and executor to the tasks alone: not with Serve, State, DynamoDBEndpoint or StepFunctionsEndpoint")
	case o.StepFunctionsEndpoint != "" && (o.Serve == nil || o.Scaled == nil):
		return errors.New("local: options: StepFunctionsEndpoint needs Serve and Scaled: it invokes the functions on the Lambda server's socket, on the wall clock")
	}
	return nil
}
