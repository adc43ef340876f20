package executor

import (
	"context"
	"fmt"
	"hash/maphash"
	"math/rand/v2"
	"strings"

	"github.com/redrive/redrive/emulate/asl"
	"github.com/redrive/redrive/emulate/quota"
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
	start := quota.StandardStart
	if sm.Type == Express {
		start = quota.ExpressStart
	}
	if err := e.takeQuota(start); err != nil {
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
	if sm.Type == Express {
		// Not deduplicated by name: each start is an execution of its
		// own, named by its name and an id.
		e.mu.Lock()
		name += ":" + formatUUID(e.rng.Uint64(), e.rng.Uint64())
		e.mu.Unlock()
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
	e.mu.Lock()
	if old := sm.names[name]; old != nil {
		x := old.x
		e.mu.Unlock()
		if x != nil { // a compacted one has finished
			x.mu.Lock()
			defer x.mu.Unlock()
			if x.status == Running && x.sameInput(input) {
				return x.describe(), nil
			}
		}
		return Execution{}, fmt.Errorf("%w: %s", ErrExecutionAlreadyExists, sm.executionARN(name))
	}
	if q := e.opts.Quotas; q != nil && sm.Type == Standard {
		if err := q.Enter(quota.OpenStandard); err != nil {
			e.mu.Unlock()
			return Execution{}, fmt.Errorf("%w: %v", ErrExecutionLimitExceeded, err)
		}
	}
	x := &execution{e: e, sm: sm, inputText: input, input: parsed, start: e.clock.now(), status: Running, open: e.opts.Quotas != nil && sm.Type == Standard}
	if sm.readsInput {
		x.ctxInput = parsed
	}
	if e.opts.Compact {
		x.inputText, x.inputHash = "", maphash.String(e.inputSeed, input)
	}
	x.rng = *rand.NewPCG(e.rng.Uint64(), e.rng.Uint64())
	// Locked before it is published: nothing (a snapshot) sees it before
	// its first continuation is scheduled.
	x.mu.Lock()
	defer x.mu.Unlock()
	x.rec = &record{name: name, index: e.started, x: x}
	e.started++
	if sm.Type == Express {
		x.unrecorded = true // Express keeps no history (AWS logs it instead)
	} else if n := e.opts.RunningHistories; n > 0 {
		x.unrecorded = e.recording.Add(1) > int64(n)
		if x.unrecorded {
			e.recording.Add(-1)
		}
	}
	sm.add(x.rec)
	e.mu.Unlock()

	x.appendEvent("ExecutionStarted", executionStartedDetails{Input: jsonDoc{parsed}, RoleArn: sm.RoleARN})
	x.suspend(e.clock.now(), resumption{kind: resumeStart})
	if limit := sm.timeout(); limit > 0 {
		x.timeout = x.later(e.after(limit), x.timeOut)
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

// lookup finds an execution by ARN.
func (e *Executor) lookup(arn string) (found, error) {
	kind := "execution"
	if strings.HasPrefix(arn, e.arnPrefix()+"express:") {
		kind = "express"
	}
	names, err := parseARN(arn, kind)
	if err != nil {
		return found{}, err
	}
	if kind == "express" {
		names = []string{names[0], names[1] + ":" + names[2]}
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	// The prefix holds the region and account, and all but the name.
	sm := e.machines[e.stateMachineARN(names[0])]
	if sm != nil && strings.HasPrefix(arn, sm.executionPrefix) {
		if r := sm.names[names[1]]; r != nil {
			return found{sm: sm, r: r, x: r.x}, nil
		}
	}
	return found{}, fmt.Errorf("%w: %s", ErrExecutionDoesNotExist, arn)
}

// byIndex finds an execution by index, as its task tokens name it. Call
// with e.mu held.
func (e *Executor) byIndex(index uint64) (found, bool) {
	for _, sm := range e.created {
		if r := sm.byIndex(index); r != nil {
			return found{sm: sm, r: r, x: r.x}, true
		}
	}
	return found{}, false
}

// DescribeExecution returns an execution by ARN.
func (e *Executor) DescribeExecution(ctx context.Context, arn string) (Execution, error) {
	f, err := e.lookup(arn)
	if err != nil {
		return Execution{}, err
	}
	return f.describe(), nil
}

// History returns an execution's events, oldest first.
func (e *Executor) History(ctx context.Context, arn string) ([]Event, error) {
	f, err := e.lookup(arn)
	if err != nil {
		return nil, err
	}
	h, err := f.history()
	if err != nil {
		return nil, fmt.Errorf("execution %s: %w", arn, err)
	}
	return h, nil
}

// history returns a copy of the execution's history: none once evicted
// (a compacted execution's was), nor when not recorded.
func (f found) history() ([]Event, error) {
	x := f.x
	if x == nil {
		return nil, ErrHistoryEvicted
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	switch {
	case x.evicted:
		return nil, ErrHistoryEvicted
	case x.unrecorded:
		return nil, ErrHistoryNotRecorded
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
	fs := sm.listed(status)
	e.mu.Unlock()
	out := make([]Execution, 0, len(fs))
	for i := len(fs) - 1; i >= 0; i-- {
		if d := fs[i].describe(); status == "" || d.Status == status {
			out = append(out, d)
		}
	}
	return out, nil
}

// StopExecution aborts a running execution with an optional error and
// cause; a Lambda handler in flight sees its context cancelled. Stopping an
// execution that already ended changes nothing.
func (e *Executor) StopExecution(ctx context.Context, arn, errName, cause string) (Execution, error) {
	f, err := e.lookup(arn)
	if err != nil {
		return Execution{}, err
	}
	x := f.x
	if x == nil { // compacted: it ended
		return f.describe(), nil
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.status == Running {
		x.appendEvent("ExecutionAborted", errorDetails{Error: errName, Cause: cause})
		x.close(Aborted, errName, cause)
	}
	return x.describe(), nil
}

// takeQuota takes a token of the rated call n from Options.Quotas:
// ErrThrottled when its bucket is empty.
func (e *Executor) takeQuota(n quota.Name) error {
	if q := e.opts.Quotas; q != nil {
		if err := q.Take(n, e.Now()); err != nil {
			return fmt.Errorf("%w: %v", ErrThrottled, err)
		}
	}
	return nil
}
