package executor

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"
)

// Snapshot writes the executor's state as JSON, for Restore: its state
// machines and the executions it holds, each with its history and, while
// running, where it is (see the package documentation). Take it while no
// Run or RunUntil is processing events (it fails otherwise): on a scaled
// clock once Run has returned, on the virtual clock between runs; and
// before Close, after which it fails with ErrClosed. Events scheduled with
// At are not in it.
func (e *Executor) Snapshot(w io.Writer) error {
	if e.opts.Quotas != nil {
		return errors.New("executor: snapshot: an executor under Options.Quotas has none (its waits for quota are not recorded)")
	}
	snap, err := e.snapshot()
	if err == nil {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		err = enc.Encode(snap)
	}
	if err != nil {
		return fmt.Errorf("executor: snapshot: %w", err)
	}
	return nil
}

// snapshot copies the executor's state, holding off the loop meanwhile.
func (e *Executor) snapshot() (*snapshot, error) {
	if e.closed.Load() {
		return nil, ErrClosed
	}
	if !e.sched.running.TryLock() {
		return nil, errRunInProgress
	}
	defer e.sched.running.Unlock()
	snap := &snapshot{
		Format: snapshotFormat, Region: e.opts.Region, Account: e.opts.Account, Seed: e.opts.Seed,
		StateMachines: []snapshotStateMachine{}, Executions: []snapshotExecution{},
	}
	e.mu.Lock()
	for _, sm := range e.created {
		snap.StateMachines = append(snap.StateMachines, snapshotStateMachine{
			Name: sm.Name, Type: omitStandard(sm.Type), Definition: sm.Definition, RoleARN: sm.RoleARN, CreationDate: sm.CreationDate,
		})
	}
	var err error
	snap.RNG, err = e.rng.MarshalBinary()
	snap.Started = e.started
	fs := e.held()
	e.mu.Unlock()
	if err != nil {
		return nil, err
	}
	for _, f := range fs {
		sx, err := f.snapshot()
		if err != nil {
			return nil, fmt.Errorf("execution %s: %w", f.sm.executionARN(f.r.name), err)
		}
		snap.Executions = append(snap.Executions, sx)
	}
	// Read last, the sequence is past every event the executions hold.
	e.sched.mu.Lock()
	snap.Sequence = e.sched.seq
	e.sched.mu.Unlock()
	snap.TakenAt = e.Now()
	return snap, nil
}

// held returns every execution the executor holds, by index. Call with
// e.mu held.
func (e *Executor) held() []found {
	var fs []found
	for _, sm := range e.created {
		fs = append(fs, sm.listed("")...)
	}
	slices.SortFunc(fs, func(a, b found) int { return cmp.Compare(a.r.index, b.r.index) })
	return fs
}

// snapshot copies the execution: whole, or from its summary.
func (f found) snapshot() (snapshotExecution, error) {
	if f.x == nil {
		return f.r.snapshot(f.sm), nil
	}
	f.x.mu.Lock()
	defer f.x.mu.Unlock()
	return f.x.snapshot()
}

// snapshot copies the execution of sm that r summarizes, which keeps no
// input, output or history.
func (r *record) snapshot(sm *stateMachine) snapshotExecution {
	return snapshotExecution{
		Index: r.index, StateMachine: sm.Name, Name: r.name, Status: statuses[r.status],
		Error: r.errName, Cause: r.cause, StartDate: clockTime(r.start), StopDate: r.stopDate(),
		Transitions: int(r.transitions), TokensIssued: r.issued, HistoryEvicted: true,
	}
}

// snapshot copies the execution. Call with x.mu held.
func (x *execution) snapshot() (snapshotExecution, error) {
	s := x.summary()
	sx := s.snapshot(x.sm)
	sx.Input, sx.Output, sx.HistoryEvicted = x.inputText, string(x.output), x.evicted
	for _, ev := range x.history {
		se := snapshotEvent{ID: ev.ID, PreviousEventID: ev.PreviousEventID, Timestamp: ev.Timestamp, Type: ev.Type}
		if ev.Details != nil {
			var err error
			if se.Details, err = json.Marshal(ev.Details); err != nil {
				return sx, fmt.Errorf("event %d: %w", ev.ID, err)
			}
		}
		sx.History = append(sx.History, se)
	}
	if x.status != Running {
		return sx, nil
	}
	x.thaw()
	run := &snapshotRun{Input: jsonValue{x.rawInput}}
	var err error
	if run.RNG, err = x.rng.MarshalBinary(); err != nil {
		return sx, err
	}
	if x.sm.def.Timeout() > 0 {
		run.Timeout = snapshotTimerOf(x.timeout)
	}
	if x.cur != nil {
		run.State, run.EnteredAt, run.EnteredEventID = x.cur.Name(), clockTime(x.enteredAt), x.enteredID
		run.RetryCount, run.Retries = x.retryCount, slices.Clone(x.retries)
	}
	switch {
	case x.call != nil:
		run.Resume = &snapshotResume{Kind: resumeKinds[resumeCall], Call: snapshotCallOf(x.call.callSpec)}
	case x.pending != nil:
		run.Resume = x.pending.snapshot()
	}
	if cb := x.cb; cb != nil {
		run.Callback = cb.snapshot(x.e.token(x.rec.index, cb.attempt))
	}
	sx.Run = run
	return sx, nil
}

// snapshot copies the continuation.
func (r *resumption) snapshot() *snapshotResume {
	sr := &snapshotResume{Kind: resumeKinds[r.kind]}
	switch r.kind {
	case resumeCall:
		sr.Call = snapshotCallOf(r.call)
	case resumeOutcome:
		sr.Outcome, sr.Timer = r.outcome.snapshot(), snapshotTimerOf(r.timer)
	default:
		sr.Timer = snapshotTimerOf(r.timer)
	}
	return sr
}

// snapshot copies the callback task's attempt, whose token is token.
func (cb *callback) snapshot(token string) *snapshotCallback {
	sc := &snapshotCallback{
		Token: token, HeartbeatSeconds: int64(cb.heartbeat / time.Second), Deadline: clockTime(cb.deadline),
		Submitted: cb.submitted, Outcome: cb.outcome.snapshot(),
	}
	if cb.submitted && cb.timed {
		sc.Timeout = snapshotTimerOf(cb.expiry)
	}
	if cb.submitted && cb.heartbeat > 0 {
		sc.Heartbeat = snapshotTimerOf(cb.pulse)
	}
	return sc
}

// snapshot copies the outcome, if any.
func (o *outcome) snapshot() *snapshotOutcome {
	if o == nil {
		return nil
	}
	return &snapshotOutcome{Output: jsonValue{o.output}, Failed: o.failed, Error: o.errName, Cause: o.cause}
}

// snapshotCallOf copies an invocation's spec.
func snapshotCallOf(spec callSpec) *snapshotCall {
	return &snapshotCall{Function: spec.function, Payload: string(spec.payload), Deadline: clockTime(spec.deadline)}
}

// snapshotTimerOf copies a timer.
func snapshotTimerOf(t timer) *snapshotTimer {
	return &snapshotTimer{At: clockTime(t.at), Seq: t.seq}
}

// clockTime is the time of at, in Unix nanoseconds on the clock.
func clockTime(at int64) time.Time { return time.Unix(0, at).UTC() }

// unixNano is t as a clock time, 0 for the zero time.
func unixNano(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

// omitStandard is t, but "" for Standard: snapshots written before
// Express machines existed have no type, and read as Standard.
func omitStandard(t Type) Type {
	if t == Standard {
		return ""
	}
	return t
}
