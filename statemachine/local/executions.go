package local

import (
	"context"
	"fmt"
	"hash/maphash"
	"math/rand/v2"

	"github.com/redrive/redrive/statemachine/asl"
)

// StartExecution starts an execution (name "" means a generated UUID) with
// AWS's idempotency: the same name and input while running returns the
// running execution; otherwise a reused name is ErrExecutionAlreadyExists.
// An empty input means "{}". The input must be JSON of at most 256 KiB.
// Once the executor is closed it fails with ErrClosed.
func (e *Executor) StartExecution(ctx context.Context, stateMachineARN, name, input string) (Execution, error) {
	if e.closed.Load() {
		return Execution{}, ErrClosed
	}
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
	if len(input) > asl.MaxPayloadBytes {
		return Execution{}, fmt.Errorf("%w: input is %d bytes, over the %d-byte limit (States.DataLimitExceeded)", ErrInvalidExecutionInput, len(input), asl.MaxPayloadBytes)
	}
	parsed, err := asl.DecodeJSON([]byte(input))
	if err != nil {
		return Execution{}, fmt.Errorf("%w: input is not valid JSON: %v", ErrInvalidExecutionInput, err)
	}
	arn := e.executionARN(sm.Name, name)

	e.mu.Lock()
	if old := e.executions[arn]; old != nil {
		e.mu.Unlock()
		old.mu.Lock()
		defer old.mu.Unlock()
		if old.status == Running && old.sameInput(input) {
			return old.describe(), nil
		}
		return Execution{}, fmt.Errorf("%w: %s", ErrExecutionAlreadyExists, arn)
	}
	start := e.Now()
	x := &execution{
		e: e, sm: sm, arn: arn, name: name, inputText: input, input: parsed, start: start,
		status: Running,
	}
	if sm.readsInput {
		x.ctxInput = parsed
	}
	if e.opts.Compact {
		x.inputText, x.inputHash = "", maphash.String(e.inputSeed, input)
	}
	x.rng = *rand.NewPCG(e.rng.Uint64(), e.rng.Uint64())
	x.env = asl.Env{UUID: x.uuid, Int64N: x.int64N}
	// Locked before it is published: nothing (a snapshot) sees it before
	// its first continuation is scheduled.
	x.mu.Lock()
	defer x.mu.Unlock()
	x.index = e.started
	e.started++
	if n := e.opts.RunningHistories; n > 0 {
		x.unrecorded = e.recording.Add(1) > int64(n)
		if x.unrecorded {
			e.recording.Add(-1)
		}
	}
	e.indexed[x.index] = x
	e.executions[arn] = x
	sm.add(x)
	e.mu.Unlock()

	x.appendEvent("ExecutionStarted", executionStartedDetails{Input: jsonDoc{parsed}, RoleArn: sm.RoleARN})
	x.suspend(e.clock.now(), resumption{kind: resumeStart})
	if sm.def.Timeout() > 0 {
		x.timeout = x.later(e.after(sm.def.Timeout()), x.timeOut)
	}
	return x.describe(), nil
}

// sameInput reports whether input is the execution's, as StartExecution
// compares them: by text, or with Options.Compact by hash. Call with x.mu
// held.
func (x *execution) sameInput(input string) bool {
	if x.e.opts.Compact {
		return x.inputHash == maphash.String(x.e.inputSeed, input)
	}
	return x.inputText == input
}

// timeOut ends the execution when the definition's TimeoutSeconds passes.
func (x *execution) timeOut(context.Context) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.status != Running {
		return
	}
	x.appendEvent("ExecutionTimedOut", errorDetails{Error: asl.StatesTimeout})
	x.close(TimedOut, asl.StatesTimeout, "")
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
	switch {
	case x.evicted:
		return nil, fmt.Errorf("execution %s: %w", arn, ErrHistoryEvicted)
	case x.unrecorded:
		return nil, fmt.Errorf("execution %s: %w", arn, ErrHistoryNotRecorded)
	}
	return append([]Event(nil), x.history...), nil
}

// ListExecutions lists a state machine's executions, newest first,
// optionally only those with status ("" means all).
func (e *Executor) ListExecutions(ctx context.Context, stateMachineARN string, status Status) ([]Execution, error) {
	sm, err := e.machine(stateMachineARN)
	if err != nil {
		return nil, err
	}
	e.mu.Lock()
	xs := sm.listed()
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
