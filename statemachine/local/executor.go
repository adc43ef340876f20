package local

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/redrive/redrive/internal/clock"
)

// Options configures an Executor. Zero values mean the documented defaults.
type Options struct {
	// Invoker resolves Task resources to Lambda functions. Required to run
	// Task states.
	Invoker Invoker
	// Scaled, if set, runs the executor on that scaled wall clock: Waits,
	// timeouts and Delay take their time divided by its scale (like Step
	// Functions Local's WAIT_TIME_SCALE), and handlers run concurrently.
	// Default nil: a virtual clock starting at Start.
	Scaled *clock.Scaled
	// Start is the virtual clock's start. Default 2026-01-01T00:00:00Z.
	Start time.Time
	// Seed seeds the executor's randomness (retry jitter, UUIDs). Default 1.
	Seed int64
	// Workers is how many goroutines run events due at the same virtual
	// instant. Default 1 (fully deterministic).
	Workers int
	// Region and Account are used in ARNs. Defaults "us-east-1" and
	// "123456789012".
	Region  string
	Account string
	// FinishedHistories bounds the memory of long runs: only the histories
	// of the FinishedHistories executions that finished last are kept
	// (History of an earlier one fails with ErrHistoryEvicted); every
	// execution's description (status, output, transitions) is kept.
	// Default 0: every history is kept.
	FinishedHistories int
}

// StateMachine describes a state machine, as DescribeStateMachine does.
type StateMachine struct {
	ARN          string
	Name         string
	Definition   string
	RoleARN      string
	CreationDate time.Time
}

// stateMachine is a created state machine and its executions.
type stateMachine struct {
	StateMachine
	def        *definition
	ctxObj     map[string]any // the context object's "StateMachine" member
	executions []*execution   // oldest first
}

// Executor runs state machines. It is safe for concurrent use; its methods
// may be called from inside the Lambda handlers it invokes.
//
// Executions advance only while Run or RunUntil processes the timeline. In
// virtual mode (the default) a handler runs while the clock stands still:
// it consumes time only through Delay, so a handler must not block on wall
// time (an Invoker calling a Lambda endpoint over HTTP should have a client
// timeout). With Workers 1, a given Seed replays identically: scheduling,
// generated names, retry jitter, States.UUID and request ids.
type Executor struct {
	opts   Options
	scaled *clock.Scaled // Options.Scaled; nil on a virtual clock
	sched  scheduler
	// tokenKey authenticates the task tokens the executor issues; it
	// derives from the Seed, so tokens replay too.
	tokenKey []byte

	mu         sync.Mutex
	rng        *rand.Rand
	machines   map[string]*stateMachine
	executions map[string]*execution
	ordered    []*execution // every execution, in start order (see execution.index)

	// finished holds the executions whose histories are kept, in the order
	// they finished, when Options.FinishedHistories bounds them. Its lock
	// is taken with an execution's held, never the other way round.
	finished struct {
		sync.Mutex
		queue []*execution
	}
}

// New returns an executor with opts.
func New(opts Options) *Executor {
	if opts.Start.IsZero() {
		opts.Start = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	if opts.Seed == 0 {
		opts.Seed = 1
	}
	if opts.Workers < 1 {
		opts.Workers = 1
	}
	if opts.Region == "" {
		opts.Region = "us-east-1"
	}
	if opts.Account == "" {
		opts.Account = "123456789012"
	}
	key := sha256.Sum256(binary.BigEndian.AppendUint64([]byte("redrive statemachine/local task token "+opts.Region+" "+opts.Account+" "), uint64(opts.Seed)))
	e := &Executor{
		opts:       opts,
		scaled:     opts.Scaled,
		tokenKey:   key[:],
		rng:        rand.New(rand.NewPCG(uint64(opts.Seed), 0x5eed)),
		machines:   map[string]*stateMachine{},
		executions: map[string]*execution{},
	}
	e.sched.kick = make(chan struct{}, 1)
	e.sched.clock.Store(opts.Start.UnixNano())
	return e
}

// Now is the executor's clock, virtual or scaled: the time of its
// histories, and the time its handlers read (see Clock).
func (e *Executor) Now() time.Time { return time.Unix(0, e.nowNanos()).UTC() }

// CreateStateMachine validates and stores a definition and returns its ARN.
// Creating the same name again with the same definition and role returns
// the existing ARN, as AWS does; anything else is ErrStateMachineExists.
func (e *Executor) CreateStateMachine(ctx context.Context, name, definition, roleARN string) (string, error) {
	if err := validateName("state machine", name); err != nil {
		return "", err
	}
	def, err := loadDefinition(definition)
	if err != nil {
		return "", err
	}
	arn := e.stateMachineARN(name)
	e.mu.Lock()
	defer e.mu.Unlock()
	if old := e.machines[arn]; old != nil {
		if old.Definition == definition && old.RoleARN == roleARN {
			return arn, nil
		}
		return "", fmt.Errorf("%w: %s", ErrStateMachineExists, arn)
	}
	e.machines[arn] = &stateMachine{
		StateMachine: StateMachine{ARN: arn, Name: name, Definition: definition, RoleARN: roleARN, CreationDate: e.Now()},
		def:          def,
		ctxObj:       map[string]any{"Id": arn, "Name": name},
	}
	return arn, nil
}

// DescribeStateMachine returns a state machine by ARN.
func (e *Executor) DescribeStateMachine(ctx context.Context, arn string) (StateMachine, error) {
	sm, err := e.machine(arn)
	if err != nil {
		return StateMachine{}, err
	}
	return sm.StateMachine, nil
}

// machine looks a state machine up by ARN.
func (e *Executor) machine(arn string) (*stateMachine, error) {
	if _, err := parseARN(arn, "stateMachine"); err != nil {
		return nil, err
	}
	e.mu.Lock()
	sm := e.machines[arn]
	e.mu.Unlock()
	if sm == nil {
		return nil, fmt.Errorf("%w: %s", ErrStateMachineDoesNotExist, arn)
	}
	return sm, nil
}

// StartExecution starts an execution (name "" means a generated UUID) with
// AWS's idempotency: the same name and input while running returns the
// running execution; otherwise a reused name is ErrExecutionAlreadyExists.
// An empty input means "{}". The input must be JSON of at most 256 KiB.
func (e *Executor) StartExecution(ctx context.Context, stateMachineARN, name, input string) (Execution, error) {
	sm, err := e.machine(stateMachineARN)
	if err != nil {
		return Execution{}, err
	}
	if name == "" {
		e.mu.Lock()
		name = formatUUID(e.rng.Uint64(), e.rng.Uint64())
		e.mu.Unlock()
	}
	if err := validateName("execution", name); err != nil {
		return Execution{}, err
	}
	if input == "" {
		input = "{}"
	}
	if len(input) > maxPayloadBytes {
		return Execution{}, fmt.Errorf("%w: input is %d bytes, over the %d-byte limit (States.DataLimitExceeded)", ErrInvalidExecutionInput, len(input), maxPayloadBytes)
	}
	parsed, err := decodeJSON([]byte(input))
	if err != nil {
		return Execution{}, fmt.Errorf("%w: input is not valid JSON: %v", ErrInvalidExecutionInput, err)
	}
	arn := e.executionARN(sm.Name, name)

	e.mu.Lock()
	if old := e.executions[arn]; old != nil {
		e.mu.Unlock()
		old.mu.Lock()
		defer old.mu.Unlock()
		if old.status == Running && old.inputText == input {
			return old.describe(), nil
		}
		return Execution{}, fmt.Errorf("%w: %s", ErrExecutionAlreadyExists, arn)
	}
	start := e.Now()
	x := &execution{
		e: e, sm: sm, arn: arn, name: name, inputText: input, input: parsed, start: start,
		ctxExec: newExecutionContext(arn, name, sm.RoleARN, parsed, start),
		status:  Running,
	}
	x.rng = *rand.NewPCG(e.rng.Uint64(), e.rng.Uint64())
	x.env = evalEnv{uuid: x.uuid, int64N: x.int64N}
	x.index = uint64(len(e.ordered))
	e.ordered = append(e.ordered, x)
	e.executions[arn] = x
	sm.executions = append(sm.executions, x)
	e.mu.Unlock()

	x.mu.Lock()
	defer x.mu.Unlock()
	x.appendEvent("ExecutionStarted", executionStartedDetails{Input: jsonDoc{parsed}, RoleArn: sm.RoleARN})
	e.schedule(e.nowNanos(), x.begin)
	if sm.def.timeout > 0 {
		x.later(e.after(sm.def.timeout), x.timeOut)
	}
	return x.describe(), nil
}

// timeOut ends the execution when the definition's TimeoutSeconds passes.
func (x *execution) timeOut(context.Context) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.status != Running {
		return
	}
	x.appendEvent("ExecutionTimedOut", errorDetails{Error: errTimeout})
	x.close(TimedOut, errTimeout, "")
}

// int64N returns a number in [0, n) from the execution's seeded source
// (States.MathRandom). Call with x.mu held.
func (x *execution) int64N(n int64) int64 {
	if n <= 0 {
		return 0
	}
	return int64(x.rng.Uint64() % uint64(n))
}

// execution looks an execution up by ARN.
func (e *Executor) execution(arn string) (*execution, error) {
	if _, err := parseARN(arn, "execution"); err != nil {
		return nil, err
	}
	e.mu.Lock()
	x := e.executions[arn]
	e.mu.Unlock()
	if x == nil {
		return nil, fmt.Errorf("%w: %s", ErrExecutionDoesNotExist, arn)
	}
	return x, nil
}

// DescribeExecution returns an execution by ARN.
func (e *Executor) DescribeExecution(ctx context.Context, arn string) (Execution, error) {
	x, err := e.execution(arn)
	if err != nil {
		return Execution{}, err
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.describe(), nil
}

// History returns an execution's events, oldest first.
func (e *Executor) History(ctx context.Context, arn string) ([]Event, error) {
	x, err := e.execution(arn)
	if err != nil {
		return nil, err
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.evicted {
		return nil, fmt.Errorf("execution %s: %w", arn, ErrHistoryEvicted)
	}
	return append([]Event(nil), x.history...), nil
}

// retire queues a finished execution's history for eviction, when
// Options.FinishedHistories bounds them. Call with x.mu held.
func (e *Executor) retire(x *execution) {
	if e.opts.FinishedHistories <= 0 {
		return
	}
	e.finished.Lock()
	e.finished.queue = append(e.finished.queue, x)
	e.finished.Unlock()
}

// evictHistories drops the histories of the executions that finished
// before the last Options.FinishedHistories. The run loop calls it between
// batches, with no lock held.
func (e *Executor) evictHistories() {
	e.finished.Lock()
	over := len(e.finished.queue) - e.opts.FinishedHistories
	if e.opts.FinishedHistories <= 0 || over <= 0 {
		e.finished.Unlock()
		return
	}
	evicted := slices.Clone(e.finished.queue[:over])
	e.finished.queue = slices.Delete(e.finished.queue, 0, over)
	e.finished.Unlock()
	for _, x := range evicted {
		x.mu.Lock()
		x.history, x.evicted = nil, true
		x.rawInput, x.ctxObj = nil, nil
		x.mu.Unlock()
	}
}

// ListExecutions lists a state machine's executions, newest first,
// optionally only those with status ("" means all).
func (e *Executor) ListExecutions(ctx context.Context, stateMachineARN string, status Status) ([]Execution, error) {
	sm, err := e.machine(stateMachineARN)
	if err != nil {
		return nil, err
	}
	e.mu.Lock()
	xs := append([]*execution(nil), sm.executions...)
	e.mu.Unlock()
	out := make([]Execution, 0, len(xs))
	for i := len(xs) - 1; i >= 0; i-- {
		xs[i].mu.Lock()
		d := xs[i].describe()
		xs[i].mu.Unlock()
		if status == "" || d.Status == status {
			out = append(out, d)
		}
	}
	return out, nil
}

// StopExecution aborts a running execution with an optional error and
// cause; a Lambda handler in flight sees its context cancelled. Stopping an
// execution that already ended changes nothing.
func (e *Executor) StopExecution(ctx context.Context, arn, errName, cause string) (Execution, error) {
	x, err := e.execution(arn)
	if err != nil {
		return Execution{}, err
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.status == Running {
		x.appendEvent("ExecutionAborted", errorDetails{Error: errName, Cause: cause})
		x.close(Aborted, errName, cause)
	}
	return x.describe(), nil
}

// At schedules fn on the executor's timeline at t (simulation inputs such as
// message arrivals or a target's health changes). A time in the past runs
// at the next step.
func (e *Executor) At(t time.Time, fn func(ctx context.Context)) {
	e.schedule(max(t.UnixNano(), e.nowNanos()), fn)
}

// Run processes events until no execution is running and nothing is
// scheduled, or ctx ends. In virtual mode time jumps from event to event.
// On a scaled clock Run does not return when idle: it waits for new work
// (executions started from other goroutines, e.g. behind the HTTP facade)
// until ctx ends, and then returns ctx's error. Only one Run or RunUntil
// may process events at a time.
func (e *Executor) Run(ctx context.Context) error {
	return e.loop(ctx, math.MaxInt64)
}

// RunUntil processes events due up to t and leaves the clock at t (on a
// scaled clock: until the clock reaches t).
func (e *Executor) RunUntil(ctx context.Context, t time.Time) error {
	limit := t.UnixNano()
	if err := e.loop(ctx, limit); err != nil {
		return err
	}
	if e.scaled == nil {
		e.advanceClock(limit)
	}
	return nil
}
