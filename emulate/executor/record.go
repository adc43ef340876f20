package executor

import (
	"encoding/json"
	"slices"
	"time"
)

// record is an execution as its state machine holds it, from its start
// until Options.Retention evicts it: the whole execution, x, until
// Options.Compact compacts it once its history is evicted (see
// evictHistories); x is then nil and the record keeps a summary of it,
// which is all that the finished executions of a long simulation cost
// (about 150 bytes and the name, lookups included). A state machine
// lists its records by index and finds them by name; a task token names
// the index. The name and index never change; the other fields are
// guarded by Executor.mu, and a compacted record's summary does not
// change either.
type record struct {
	name  string
	index uint64 // the execution's place in the order they started
	x     *execution
	// The summary of a compacted execution: its start and stop times
	// (Unix nanoseconds), error, cause, transitions, the number of task
	// tokens it issued (which its tokens' errors tell apart) and its
	// status, by its code in statuses.
	start, stop    int64
	errName, cause string
	transitions    int32
	issued         uint32
	status         uint8
	// gone says Options.Retention evicted it: its state machine holds it
	// no more, but for a place in its list until the list is compacted.
	gone bool
}

// statuses are the execution statuses, by their code in a record.
var statuses = [...]Status{Running, Succeeded, Failed, TimedOut, Aborted}

// summarize sets r's summary from x. Call with x.mu held, and with
// Executor.mu unless r is a copy of its own.
func (r *record) summarize(x *execution) {
	r.start, r.stop = x.start, x.stop
	r.errName, r.cause = x.errName, x.cause
	r.transitions, r.issued = int32(x.transitions), x.issued
	r.status = uint8(slices.Index(statuses[:], x.status))
}

// compact replaces the execution r holds, x, finished, by its summary,
// unless Options.Retention evicted it meanwhile. Call with x.mu and
// Executor.mu held.
func (r *record) compact(x *execution) {
	if r.x != x {
		return
	}
	r.summarize(x)
	r.x = nil
}

// summary returns a record of x as compaction would leave it. Call with
// x.mu held.
func (x *execution) summary() record {
	r := record{name: x.rec.name, index: x.rec.index}
	r.summarize(x)
	return r
}

// describe describes the execution of sm that r summarizes, without its
// input and output (a compacted execution keeps neither).
func (r *record) describe(sm *stateMachine) Execution {
	return Execution{
		ARN:             sm.executionARN(r.name),
		StateMachineARN: sm.ARN,
		Name:            r.name,
		Status:          statuses[r.status],
		Error:           r.errName,
		Cause:           r.cause,
		StartDate:       clockTime(r.start),
		StopDate:        r.stopDate(),
		Transitions:     int(r.transitions),
	}
}

// stopDate is the summarized execution's stop time: zero while it runs.
func (r *record) stopDate() time.Time {
	if statuses[r.status] == Running {
		return time.Time{}
	}
	return clockTime(r.stop)
}

// describe snapshots the execution. Call with x.mu held.
func (x *execution) describe() Execution {
	s := x.summary()
	d := s.describe(x.sm)
	if x.inputText != "" { // Options.Compact drops it
		d.Input = json.RawMessage(x.inputText)
	}
	d.Output = x.output
	return d
}

// found is an execution as a lookup found it, under Executor.mu: its
// state machine, its record and, unless the record was compacted by
// then, the whole execution.
type found struct {
	sm *stateMachine
	r  *record
	x  *execution // r.x as found: nil for a compacted record
}

// describe describes the execution: whole, or from its summary.
func (f found) describe() Execution {
	if f.x == nil {
		return f.r.describe(f.sm)
	}
	f.x.mu.Lock()
	defer f.x.mu.Unlock()
	return f.x.describe()
}
