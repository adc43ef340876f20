package local

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ohler55/ojg/oj"
)

// execution is one running or finished execution. Its state is guarded by
// mu, which is released while a Lambda handler runs so that handlers may
// call back into the executor.
type execution struct {
	e         *Executor
	sm        *stateMachine
	arn, name string
	inputText string
	input     any
	start     time.Time
	ctxExec   map[string]any // the context object's "Execution" member
	env       evalEnv

	mu          sync.Mutex
	rng         rand.PCG
	status      Status
	output      json.RawMessage
	errName     string
	cause       string
	stop        time.Time
	transitions int
	history     []Event
	evicted     bool // history dropped (Options.FinishedHistories)
	// epoch increases when the execution ends, making the continuations
	// it scheduled stale; it is written with mu held.
	epoch atomic.Uint64

	// next and nextInput are the state to enter next and its input: the
	// run loop enters states until none is left (suspended or finished).
	next      *state
	nextInput any

	// The current state entry.
	cur        *state
	rawInput   any // the state's input, before InputPath
	enteredAt  time.Time
	enteredID  int64
	ctxObj     any       // the context object, built on first use per attempt
	retries    []int     // retries used per retrier
	retryCount int       // $$.State.RetryCount
	call       *call     // the Lambda invocation in flight, if any
	cb         *callback // the callback task waiting for its token, if any

	// index is the execution's place in Executor.ordered and issued the
	// number of task tokens it has issued; both are encoded in its tokens.
	index  uint64
	issued uint32
}

// describe snapshots the execution. Call with x.mu held.
func (x *execution) describe() Execution {
	return Execution{
		ARN:             x.arn,
		StateMachineARN: x.sm.ARN,
		Name:            x.name,
		Status:          x.status,
		Input:           json.RawMessage(x.inputText),
		Output:          x.output,
		Error:           x.errName,
		Cause:           x.cause,
		StartDate:       x.start,
		StopDate:        x.stop,
		Transitions:     x.transitions,
	}
}

// begin enters the start state; it is the execution's first event.
func (x *execution) begin(ctx context.Context) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.status != Running {
		return
	}
	x.next, x.nextInput = x.sm.def.startAt, x.input
	x.input = nil // the start state has it; inputText keeps the text
	x.run(ctx)
}

// run enters states until the execution suspends (a Wait, a retry
// interval, a handler's Delay) or ends. Call with x.mu held.
func (x *execution) run(ctx context.Context) {
	for x.status == Running && x.next != nil {
		st, in := x.next, x.nextInput
		x.next, x.nextInput = nil, nil
		x.enter(ctx, st, in)
	}
}

// later schedules fn at clock time at, unless the execution ends first.
func (x *execution) later(at int64, fn func(ctx context.Context)) {
	x.e.scheduleIf(at, &x.epoch, x.epoch.Load(), fn)
}

// suspend continues the execution with fn at clock time at, unless it has
// ended by then. Call with x.mu held.
func (x *execution) suspend(at int64, fn func(ctx context.Context)) {
	epoch := x.epoch.Load()
	x.later(at, func(ctx context.Context) {
		x.mu.Lock()
		defer x.mu.Unlock()
		if x.epoch.Load() != epoch || x.status != Running {
			return
		}
		fn(ctx)
		x.run(ctx)
	})
}

// enter starts a state entry. Transitions are counted as AWS bills them
// (https://aws.amazon.com/step-functions/pricing/: "Step Functions counts a
// state transition each time a step of your workflow is executed ...
// including retries"): one per state entered here, and one per retry in
// handleError. Starting and ending the execution are not transitions.
func (x *execution) enter(ctx context.Context, st *state, in any) {
	x.transitions++
	x.cur, x.rawInput = st, in
	x.enteredAt = x.e.Now()
	x.ctxObj = nil
	x.retryCount = 0
	x.retries = x.retries[:0]
	for range st.retriers {
		x.retries = append(x.retries, 0)
	}
	x.record(st.entered, stateEnteredDetails{Name: st.name, Input: jsonDoc{in}})
	x.enteredID = int64(len(x.history))
	if x.status != Running {
		return
	}
	switch st.typ {
	case typePass:
		x.pass(st)
	case typeTask:
		x.startTask(ctx)
	case typeChoice:
		x.choose(st)
	case typeWait:
		x.wait(st)
	case typeSucceed:
		eff, err := x.inputPath(st, in)
		if err == nil {
			eff, err = x.outputPath(st, eff)
		}
		if err != nil {
			x.failState(err)
			return
		}
		x.exit(st, eff, nil)
	case typeFail:
		x.failWith(st)
	}
}

// pass runs a Pass state: InputPath, Parameters, Result, ResultPath,
// OutputPath.
func (x *execution) pass(st *state) {
	eff, err := x.effectiveInput(st, x.rawInput)
	if err != nil {
		x.failState(err)
		return
	}
	result := eff
	if st.hasResult {
		result = st.result
	}
	out, err := x.stateOutput(st, result)
	if err != nil {
		x.failState(err)
		return
	}
	x.exit(st, out, st.next)
}

// wait runs a Wait state: the execution resumes when the wait is over.
func (x *execution) wait(st *state) {
	eff, err := x.inputPath(st, x.rawInput)
	if err != nil {
		x.failState(err)
		return
	}
	until, err := x.waitUntil(st, eff)
	if err != nil {
		x.failState(err)
		return
	}
	finish := func() {
		out, err := x.outputPath(st, eff)
		if err != nil {
			x.failState(err)
			return
		}
		x.exit(st, out, st.next)
	}
	if until <= x.e.nowNanos() {
		finish()
		return
	}
	x.suspend(until, func(context.Context) { finish() })
}

// waitUntil returns the clock time a Wait state's input makes it wait for.
func (x *execution) waitUntil(st *state, eff any) (int64, error) {
	w := st.wait
	switch {
	case w.hasSeconds:
		return x.e.after(time.Duration(w.seconds) * time.Second), nil
	case w.hasTimestamp:
		return w.timestamp.UnixNano(), nil
	case w.secondsPath != nil:
		v, err := w.secondsPath.get(eff, x.contextObject())
		if err != nil {
			return 0, err
		}
		secs, ok := integerValue(v)
		if !ok || secs < 0 || secs > maxTimeoutSeconds {
			return 0, runtimeErrorf("The SecondsPath parameter does not reference a valid non-negative integer: %s", jsonText(v))
		}
		return x.e.after(time.Duration(secs) * time.Second), nil
	default:
		v, err := w.timestampPath.get(eff, x.contextObject())
		if err != nil {
			return 0, err
		}
		s, _ := v.(string)
		t, perr := parseTimestamp(s)
		if perr != nil {
			return 0, runtimeErrorf("The TimestampPath parameter does not reference a valid ISO-8601 extended offset date-time format string: %s", jsonText(v))
		}
		return t.UnixNano(), nil
	}
}

// failWith runs a Fail state.
func (x *execution) failWith(st *state) {
	name, cause := st.errorName, st.cause
	for _, p := range []struct {
		path  *path
		field string
		out   *string
	}{{st.errorPath, "ErrorPath", &name}, {st.causePath, "CausePath", &cause}} {
		if p.path == nil {
			continue
		}
		v, err := p.path.get(x.rawInput, x.contextObject())
		if err != nil {
			x.failState(err)
			return
		}
		s, ok := v.(string)
		if !ok {
			x.failState(runtimeErrorf("The %s field does not reference a string: %s", p.field, jsonText(v)))
			return
		}
		*p.out = s
	}
	x.fail(name, cause)
}

// exit records the state's exit with output and goes to next, or ends the
// execution successfully when next is nil.
func (x *execution) exit(st *state, out any, next *state) {
	x.record(st.exited, stateExitedDetails{Name: st.name, Output: jsonDoc{out}})
	if next == nil {
		x.succeed(out)
		return
	}
	x.next, x.nextInput = next, out
}

// inputPath applies InputPath to the state's raw input.
func (x *execution) inputPath(st *state, in any) (any, error) {
	return x.selectPath(st.inputPath, st.inputNull, in)
}

// outputPath applies OutputPath to a state's output.
func (x *execution) outputPath(st *state, out any) (any, error) {
	return x.selectPath(st.outputPath, st.outputNull, out)
}

// selectPath applies an InputPath or OutputPath p to v: null (the path
// given as JSON null) yields {}, and no path passes v through.
func (x *execution) selectPath(p *path, null bool, v any) (any, error) {
	switch {
	case null:
		return map[string]any{}, nil
	case p == nil:
		return v, nil
	}
	return p.get(v, x.contextObject())
}

// effectiveInput applies InputPath then Parameters; the result must fit
// the payload quota.
func (x *execution) effectiveInput(st *state, in any) (any, error) {
	eff, err := x.inputPath(st, in)
	if err != nil {
		return nil, err
	}
	return x.parameters(st, eff, x.contextObject())
}

// parameters applies Parameters, with the context object ctxObj, to the
// input InputPath selected; the result must fit the payload quota.
func (x *execution) parameters(st *state, eff, ctxObj any) (any, error) {
	if st.parameters == nil {
		return eff, nil
	}
	eff, err := st.parameters.eval(eff, ctxObj, &x.env)
	if err != nil {
		return nil, err
	}
	if overLimit(eff) {
		return nil, dataLimitError("state", st.name, "received an input after Parameters")
	}
	return eff, nil
}

// stateOutput applies ResultPath (over the state's raw input) and
// OutputPath to a result; the output must fit the payload quota.
func (x *execution) stateOutput(st *state, result any) (any, error) {
	out, err := applyResultPath(st.resultPath, st.resultNull, x.rawInput, result)
	if err != nil {
		return nil, err
	}
	if out, err = x.outputPath(st, out); err != nil {
		return nil, err
	}
	if overLimit(out) {
		return nil, dataLimitError("state", st.name, "returned an output")
	}
	return out, nil
}

// applyResultPath combines a state's raw input and its result: "$" (the
// default) keeps the result, null keeps the input, a deeper path puts the
// result into a copy of the input.
func applyResultPath(p *refPath, null bool, in, result any) (any, error) {
	switch {
	case null:
		return in, nil
	case p == nil:
		return result, nil
	}
	return p.set(in, result)
}

// succeed ends the execution with output. Call with x.mu held.
func (x *execution) succeed(out any) {
	if x.status != Running {
		return
	}
	x.appendEvent("ExecutionSucceeded", outputDetails{Output: jsonDoc{out}})
	x.output = json.RawMessage(oj.JSON(out, &oj.Options{Sort: true}))
	x.close(Succeeded, "", "")
}

// fail ends the execution with an error. Call with x.mu held.
func (x *execution) fail(name, cause string) {
	if x.status != Running {
		return
	}
	x.appendEvent("ExecutionFailed", errorDetails{Error: name, Cause: cause})
	x.close(Failed, name, cause)
}

// close moves the execution to a final status and abandons whatever it was
// waiting for. Call with x.mu held.
func (x *execution) close(status Status, name, cause string) {
	x.status, x.errName, x.cause = status, name, cause
	x.stop = x.e.Now()
	x.epoch.Add(1)
	x.next, x.nextInput = nil, nil
	x.e.retire(x)
	x.closeCallback()
	if c := x.call; c != nil {
		c.cancel()
		if c.suspended {
			// Let the handler return from Delay now rather than when
			// it was due.
			x.later(x.e.nowNanos(), func(ctx context.Context) { x.resumeCall(ctx, c, false) })
		}
	}
}

// failState fails the execution with an error raised while processing the
// current state, prefixed as AWS does with the state and its entry event.
func (x *execution) failState(err error) {
	name, cause := x.stateErrorOf(err)
	x.fail(name, cause)
}

// stateErrorOf returns the error name and the cause an error raised while
// processing the current state's data reports.
func (x *execution) stateErrorOf(err error) (name, cause string) {
	var se *stateError
	if !errors.As(err, &se) {
		se = &stateError{Name: errNameRuntime, Cause: err.Error()}
	}
	return se.Name, fmt.Sprintf("An error occurred while executing the state '%s' (entered at the event id #%d). %s", x.cur.name, x.enteredID, se.Cause)
}

// random returns a float64 in [0, 1) from the execution's seeded source.
// Call with x.mu held.
func (x *execution) random() float64 {
	return float64(x.rng.Uint64()>>11) / (1 << 53)
}

// integerValue returns v as an integer if it is one (an integral float
// included).
func integerValue(v any) (int64, bool) {
	switch n := v.(type) {
	case int64:
		return n, true
	case float64:
		if n == float64(int64(n)) {
			return int64(n), true
		}
	}
	return 0, false
}
