package executor

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/redrive/redrive/emulate/asl"
)

// loadExecution rebuilds an execution and puts a running one back on the
// timeline.
func (e *Executor) loadExecution(sx snapshotExecution) (*execution, error) {
	sm := e.machines[e.stateMachineARN(sx.StateMachine)]
	if sm == nil {
		return nil, errors.New("its state machine is not in the snapshot")
	}
	if err := validateRecordName(sm, sx.Name); err != nil {
		return nil, err
	}
	x := &execution{
		e: e, sm: sm, inputText: sx.Input, start: sx.StartDate.UnixNano(),
		status: sx.Status, errName: sx.Error, cause: sx.Cause, stop: unixNano(sx.StopDate), transitions: sx.Transitions,
		evicted: sx.HistoryEvicted, issued: sx.TokensIssued,
		unrecorded: sm.Type == Express, // Express keeps no history, before a restart or after
	}
	x.rec = &record{name: sx.Name, index: sx.Index, x: x}
	if sx.Output != "" {
		x.output = json.RawMessage(sx.Output)
	}
	_, taken := e.byIndex(sx.Index)
	switch {
	case sm.names[sx.Name] != nil:
		return nil, errors.New("the snapshot holds it twice")
	case sx.Index >= e.started || taken:
		return nil, fmt.Errorf("index %d is taken, or not below the %d executions started", sx.Index, e.started)
	case x.unrecorded && len(sx.History) > 0:
		return nil, fmt.Errorf("an Express execution keeps no history, and this one has %d events", len(sx.History))
	case !x.unrecorded && sx.HistoryEvicted == (len(sx.History) > 0):
		return nil, fmt.Errorf("historyEvicted is %t with %d history events", sx.HistoryEvicted, len(sx.History))
	}
	var err error
	if x.history, err = loadHistory(sx.History); err != nil {
		return nil, err
	}
	x.events = len(x.history)
	switch sx.Status {
	case Running:
		if sx.Run == nil || sx.HistoryEvicted {
			return nil, errors.New("a running execution needs its run and its history")
		}
		err = x.load(sx.Run)
	case Succeeded, Failed, TimedOut, Aborted:
		if sx.Run != nil || sx.StopDate.IsZero() {
			return nil, fmt.Errorf("a %s execution has a stop date and no run", sx.Status)
		}
	default:
		err = fmt.Errorf("status %q is not an execution status", sx.Status)
	}
	if err != nil {
		return nil, err
	}
	sm.add(x.rec)
	return x, nil
}

// validateRecordName checks the name an execution of sm is recorded by: its
// name, and for an Express execution its name and the id StartExecution
// added, "<name>:<id>".
func validateRecordName(sm *stateMachine, name string) error {
	if sm.Type != Express {
		return validateName("execution", name)
	}
	name, id, ok := strings.Cut(name, ":")
	if !ok {
		return fmt.Errorf("%w: Express execution %q has no id (<name>:<id>)", ErrInvalidName, name)
	}
	if err := validateName("execution", name); err != nil {
		return err
	}
	return validateName("execution id", id)
}

// loadHistory rebuilds a history; restored details are their JSON.
func loadHistory(events []snapshotEvent) ([]Event, error) {
	h := make([]Event, len(events))
	for i, se := range events {
		if se.ID != int64(i+1) {
			return nil, fmt.Errorf("history event %d has id %d", i+1, se.ID)
		}
		h[i] = Event{ID: se.ID, PreviousEventID: se.PreviousEventID, Timestamp: se.Timestamp, Type: se.Type}
		if len(se.Details) > 0 {
			var b bytes.Buffer
			if err := json.Compact(&b, se.Details); err != nil {
				return nil, fmt.Errorf("history event %d: %w", se.ID, err)
			}
			h[i].Details = json.RawMessage(b.Bytes())
		}
	}
	return h, nil
}

// load puts a running execution back where run says it is, and its
// events on the timeline.
func (x *execution) load(run *snapshotRun) error {
	input, err := asl.DecodeJSON([]byte(x.inputText))
	if err != nil {
		return fmt.Errorf("input: %w", err)
	}
	if x.sm.readsInput {
		x.ctxInput = input
	}
	if err := x.rng.UnmarshalBinary(run.RNG); err != nil {
		return fmt.Errorf("rng: %w", err)
	}
	if x.sm.def.Timeout() > 0 {
		if x.timeout, err = x.e.timerOf(run.Timeout, "timeout"); err != nil {
			return err
		}
		x.e.reschedule(x.timeout, &x.epoch, 0, x.timeOut)
	}
	if run.State == "" {
		x.input = input
	} else if err := x.loadState(run); err != nil {
		return err
	}
	if run.Callback != nil {
		if err := x.loadCallback(run.Callback); err != nil {
			return fmt.Errorf("callback: %w", err)
		}
	}
	return x.loadResume(run.Resume)
}

// loadState puts the execution in its state.
func (x *execution) loadState(run *snapshotRun) error {
	st := x.sm.def.State(run.State)
	if st == nil {
		return fmt.Errorf("state %q is not in its definition", run.State)
	}
	if len(run.Retries) != st.NumRetriers() {
		return fmt.Errorf("state %q has %d retriers, the snapshot %d retry counters", st.Name(), st.NumRetriers(), len(run.Retries))
	}
	x.cur, x.rawInput = st, run.Input.v
	x.enteredAt, x.enteredID = unixNano(run.EnteredAt), run.EnteredEventID
	x.retryCount, x.retries = run.RetryCount, slices.Clone(run.Retries)
	return nil
}

// loadCallback restores the current callback task's attempt, and once
// its function has returned, its timeouts.
func (x *execution) loadCallback(sc *snapshotCallback) error {
	if x.cur == nil || x.cur.Task() == nil || !x.cur.Task().Callback {
		return errors.New("the execution is not in a .waitForTaskToken Task state")
	}
	index, attempt, err := x.e.parseToken(sc.Token)
	if err != nil || index != x.rec.index || attempt == 0 || attempt > x.issued {
		return errors.New("the task token is not one the execution issued")
	}
	cb := &callback{
		attempt: attempt, heartbeat: time.Duration(sc.HeartbeatSeconds) * time.Second, deadline: sc.Deadline.UnixNano(),
		timed: x.cur.Task().Timed, submitted: sc.Submitted, outcome: sc.Outcome.load(),
	}
	if cb.submitted && cb.timed {
		if cb.expiry, err = x.e.timerOf(sc.Timeout, "timeout"); err != nil {
			return err
		}
		x.e.reschedule(cb.expiry, &cb.open, 0, x.expirer(cb, asl.StatesTimeout))
	}
	if cb.submitted && cb.heartbeat > 0 {
		if cb.pulse, err = x.e.timerOf(sc.Heartbeat, "heartbeat"); err != nil {
			return err
		}
		x.e.reschedule(cb.pulse, &cb.beat, 0, x.expirer(cb, asl.StatesHeartbeatTimeout))
	}
	x.cb = cb
	return nil
}

// loadResume puts the execution's continuation back on the timeline: at
// its place, or for a call in flight, at once. Without one, it must be
// waiting for its task token.
func (x *execution) loadResume(sr *snapshotResume) error {
	waitsForToken := x.cb != nil && x.cb.submitted
	if sr == nil {
		if !waitsForToken {
			return errors.New("it waits for nothing: no continuation, no task token")
		}
		return nil
	}
	kind := resumeKind(slices.Index(resumeKinds[:], sr.Kind))
	if int(kind) >= len(resumeKinds) {
		return fmt.Errorf("continuation kind %q is not one of %q", sr.Kind, resumeKinds)
	}
	if !x.resumesWith(kind) {
		where := "before its start state"
		if x.cur != nil {
			where = fmt.Sprintf("in state %q", x.cur.Name())
		}
		return fmt.Errorf("a %q continuation does not apply %s", sr.Kind, where)
	}
	if kind == resumeCall {
		if sr.Call == nil {
			return errors.New("a call continuation without its call")
		}
		t := x.cur.Task()
		x.suspend(x.e.clock.now(), resumption{kind: resumeCall, call: callSpec{
			function: sr.Call.Function, payload: []byte(sr.Call.Payload), deadline: sr.Call.Deadline.UnixNano(), timed: t.Timed, bounded: !t.Callback,
		}})
		return nil
	}
	r := &resumption{kind: kind, outcome: sr.Outcome.load()}
	var err error
	if r.timer, err = x.e.timerOf(sr.Timer, sr.Kind); err != nil {
		return err
	}
	switch {
	case kind == resumeOutcome && r.outcome == nil:
		return errors.New("an outcome continuation without its outcome")
	case kind == resumeWait:
		if r.input, err = x.cur.InputPath(x.rawInput, x.contextObject()); err != nil {
			return fmt.Errorf("the Wait state's InputPath: %w", err)
		}
	}
	x.pending = r
	x.e.reschedule(r.timer, &x.epoch, 0, x.resumer(r))
	return nil
}

// resumesWith reports whether the execution, in its state and callback
// attempt, can continue with kind: starting before its first state,
// leaving a Wait state, a Task state's retry or call, and a callback
// task's retry or outcome once its attempt is closed, or its call while
// its function has not returned.
func (x *execution) resumesWith(kind resumeKind) bool {
	switch {
	case x.cur == nil:
		return kind == resumeStart
	case x.cur.Type() == asl.WaitState:
		return kind == resumeWait
	case x.cur.Type() != asl.TaskState:
		return false
	case x.cb != nil:
		return kind == resumeCall && !x.cb.submitted
	case x.cur.Task().Callback:
		return kind == resumeRetry || kind == resumeOutcome
	}
	return kind == resumeRetry || kind == resumeCall
}

// load is the outcome, if any.
func (so *snapshotOutcome) load() *outcome {
	if so == nil {
		return nil
	}
	return &outcome{output: so.Output.v, failed: so.Failed, errName: so.Error, cause: so.Cause}
}
