package executor

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

	"github.com/redrive/redrive/emulate/asl"
	"github.com/redrive/redrive/emulate/quota"
)

// execution is one running or finished execution. Its state is guarded by
// mu, which is released while a Lambda handler runs so that handlers may
// call back into the executor.
type execution struct {
	e  *Executor
	sm *stateMachine
	// rec is the execution's record: its name and index, and how its state
	// machine holds it.
	rec       *record
	inputText string // "" with Options.Compact
	inputHash uint64 // the input's hash with Options.Compact (sameInput)
	input     any    // the parsed input, until the start state has it
	// ctxInput is the parsed input as $$.Execution.Input reads it; nil
	// when the definition never does (readsExecutionInput).
	ctxInput any
	start    int64 // clock time (Unix nanoseconds), as stop and enteredAt

	mu          sync.Mutex
	rng         rand.PCG
	status      Status
	output      json.RawMessage
	errName     string
	cause       string
	stop        int64
	transitions int
	// open says the execution counts among Options.Quotas' open Standard
	// executions until it closes; transitionPaid that the transition to
	// next has its token (it waited for it).
	open, transitionPaid bool
	history              []Event
	// events counts the events so far, recorded or not.
	events int
	// epoch increases when the execution ends, making the continuations
	// it scheduled stale; it is written with mu held.
	epoch atomic.Uint64

	// next and nextInput are the state to enter next and its input: the
	// run loop enters states until none is left (suspended or finished).
	next      *asl.State
	nextInput any
	// pending is the continuation the execution waits for on the
	// timeline, if any; timeout is its TimeoutSeconds event, if any.
	pending *resumption
	timeout timer

	// The current state entry.
	cur      *asl.State
	rawInput any // the state's input, before InputPath
	// frozenInput is rawInput as JSON text while the execution waits for
	// a task token (see freeze), nil otherwise.
	frozenInput []byte
	enteredAt   int64
	enteredID   int64
	ctxObj      any       // the context object, built on first use per attempt
	retries     []int     // retries used per retrier
	retryCount  int       // $$.State.RetryCount
	call        *call     // the Lambda invocation in flight, if any
	cb          *callback // the callback task waiting for its token, if any

	// issued is the number of task tokens the execution has issued; its
	// tokens carry it, with its index (record.index).
	issued uint32
	// evicted says the history was dropped (Options.FinishedHistories);
	// unrecorded that it is not recorded (Options.RunningHistories).
	evicted, unrecorded bool
}

// arn is the execution's ARN.
func (x *execution) arn() string { return x.sm.executionARN(x.rec.name) }

// run enters states until the execution suspends (a Wait, a retry
// interval, a handler's Delay) or ends. Call with x.mu held.
func (x *execution) run(ctx context.Context) {
	for x.status == Running && x.next != nil {
		if x.waitForTransition() {
			return // it resumes once the account's bucket has its token
		}
		st, in := x.next, x.nextInput
		x.next, x.nextInput = nil, nil
		x.enter(ctx, st, in)
	}
}

// waitForTransition takes the transition to x.next from Options.Quotas'
// bucket; when that puts it in debt, it suspends the execution until the
// token is there and reports true. Call with x.mu held.
func (x *execution) waitForTransition() bool {
	if !x.e.ratesTransitions || x.sm.Type == Express || x.transitionPaid {
		x.transitionPaid = false
		return false
	}
	d := x.e.opts.Quotas.Wait(quota.Transitions, x.e.Now())
	if d <= 0 {
		return false
	}
	x.transitionPaid = true
	x.suspend(x.e.clock.now()+int64(d), resumption{kind: resumeTransition})
	return true
}

// later schedules fn at clock time at, unless the execution ends first.
func (x *execution) later(at int64, fn func(ctx context.Context)) timer {
	return x.e.scheduleIf(at, &x.epoch, x.epoch.Load(), fn)
}

// enter starts a state entry. Transitions are counted as AWS bills them
// (https://aws.amazon.com/step-functions/pricing/: "Step Functions counts a
// state transition each time a step of your workflow is executed ...
// including retries"): one per state entered here, and one per retry in
// handleError. Starting and ending the execution are not transitions.
func (x *execution) enter(ctx context.Context, st *asl.State, in any) {
	x.transitions++
	x.sm.counts.transition(st.Type())
	x.cur, x.rawInput = st, in
	x.enteredAt = x.e.clock.now()
	x.ctxObj = nil
	x.retryCount = 0
	x.retries = x.retries[:0]
	for range st.NumRetriers() {
		x.retries = append(x.retries, 0)
	}
	x.record(st.EnteredEvent(), stateEnteredDetails{Name: st.Name(), Input: jsonDoc{in}})
	x.enteredID = int64(x.events)
	if x.status != Running {
		return
	}
	switch st.Type() {
	case asl.PassState:
		x.pass(st)
	case asl.TaskState:
		x.startTask(ctx)
	case asl.ChoiceState:
		x.choose(st)
	case asl.WaitState:
		x.wait(st)
	case asl.SucceedState:
		x.succeedState(st)
	case asl.FailState:
		x.failWith(st)
	}
}

// exit records the state's exit with output and goes to next, or ends the
// execution successfully when next is nil.
func (x *execution) exit(st *asl.State, out any, next *asl.State) {
	x.record(st.ExitedEvent(), stateExitedDetails{Name: st.Name(), Output: jsonDoc{out}})
	if next == nil {
		x.succeed(out)
		return
	}
	x.next, x.nextInput = next, out
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
	x.stop = x.e.clock.now()
	x.epoch.Add(1)
	x.next, x.nextInput, x.pending = nil, nil, nil
	x.sm.counts.ended(status, x.sm.Type, time.Duration(x.stop-x.start))
	if x.open {
		x.open = false
		x.e.opts.Quotas.Leave(quota.OpenStandard)
	}
	if x.e.opts.RunningHistories > 0 && !x.unrecorded {
		x.e.recording.Add(-1)
	}
	if f := x.e.opts.Finished; f != nil {
		f(x.describe())
	}
	x.e.retire(x)
	x.e.sched.ended.Add(1)
	x.closeCallback()
	if c := x.call; c != nil {
		c.cancel()
		if c.suspended {
			// Let the handler return from Delay now rather than when
			// it was due.
			x.later(x.e.clock.now(), func(ctx context.Context) { x.resumeCall(ctx, c, false) })
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
	var se *asl.Error
	if !errors.As(err, &se) {
		se = &asl.Error{Name: asl.StatesRuntime, Cause: err.Error()}
	}
	return se.Name, fmt.Sprintf("An error occurred while executing the state '%s' (entered at the event id #%d). %s", x.cur.Name(), x.enteredID, se.Cause)
}

// random returns a float64 in [0, 1) from the execution's seeded source.
// Call with x.mu held.
func (x *execution) random() float64 {
	return float64(x.rng.Uint64()>>11) / (1 << 53)
}

// Int64N returns a number in [0, n) from the execution's seeded source
// (States.MathRandom; it implements asl.Env). Call with x.mu held.
func (x *execution) Int64N(n int64) int64 {
	if n <= 0 {
		return 0
	}
	return int64(x.rng.Uint64() % uint64(n))
}
