package local

import (
	"context"
	"time"
)

// Options configures an Executor. Zero values mean the documented defaults.
type Options struct {
	// Invoker resolves Task resources to Lambda functions. Required to run
	// Task states.
	Invoker Invoker
	// RealTime runs on the wall clock (Waits sleep, scaled by TimeScale)
	// instead of the virtual clock. Default false: virtual time.
	RealTime bool
	// TimeScale divides wall-clock waits in RealTime mode (like Step
	// Functions Local's WAIT_TIME_SCALE). Default 1.
	TimeScale float64
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
}

// Executor runs state machines. It is safe for concurrent use; its methods
// may be called from inside the Lambda handlers it invokes.
type Executor struct{}

// New returns an executor with opts.
func New(opts Options) *Executor { panic("local: not implemented") }

// Now is the executor's clock: virtual time, or the wall clock in RealTime
// mode. Handlers read time from it.
func (e *Executor) Now() time.Time { panic("local: not implemented") }

// CreateStateMachine validates and stores a definition and returns its ARN.
func (e *Executor) CreateStateMachine(ctx context.Context, name, definition, roleARN string) (string, error) {
	panic("local: not implemented")
}

// StartExecution starts an execution (name "" means a generated UUID) with
// AWS's idempotency: the same name and input while running returns the
// running execution; otherwise a reused name is ErrExecutionAlreadyExists.
func (e *Executor) StartExecution(ctx context.Context, stateMachineARN, name, input string) (Execution, error) {
	panic("local: not implemented")
}

// DescribeExecution returns an execution by ARN.
func (e *Executor) DescribeExecution(ctx context.Context, arn string) (Execution, error) {
	panic("local: not implemented")
}

// History returns an execution's events, oldest first.
func (e *Executor) History(ctx context.Context, arn string) ([]Event, error) {
	panic("local: not implemented")
}

// ListExecutions lists a state machine's executions, newest first,
// optionally only those with status ("" means all).
func (e *Executor) ListExecutions(ctx context.Context, stateMachineARN string, status Status) ([]Execution, error) {
	panic("local: not implemented")
}

// StopExecution aborts a running execution with an optional error and cause.
func (e *Executor) StopExecution(ctx context.Context, arn, errName, cause string) (Execution, error) {
	panic("local: not implemented")
}

// At schedules fn on the executor's timeline at t (simulation inputs such as
// message arrivals or a target's health changes).
func (e *Executor) At(t time.Time, fn func(ctx context.Context)) { panic("local: not implemented") }

// Run processes events until no execution is running and nothing is
// scheduled, or ctx ends. In virtual mode time jumps from event to event.
func (e *Executor) Run(ctx context.Context) error { panic("local: not implemented") }

// RunUntil processes events due up to t and leaves the clock at t.
func (e *Executor) RunUntil(ctx context.Context, t time.Time) error { panic("local: not implemented") }
