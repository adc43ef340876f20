package executor

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/redrive/redrive/emulate/asl"
)

// Counts are a state machine's running totals, kept as its executions
// start, move and end, so that reading them costs the same after a
// million executions as after one. They count what ran: an execution
// Options.Retention evicted still counts.
type Counts struct {
	// Started counts executions started (or restored); Running those that
	// have not ended.
	Started, Running int64
	// Succeeded, Failed, TimedOut and Aborted count the ended executions
	// by status.
	Succeeded, Failed, TimedOut, Aborted int64
	// Transitions counts state transitions as AWS bills them (see
	// Execution.Transitions); TransitionsByType splits them by the type
	// of the state entered ("Task", "Wait", ...; a Task's retries count
	// under "Task").
	Transitions       int64
	TransitionsByType map[string]int64
	// BilledDuration is the ended Express executions' durations as AWS
	// bills them, each rounded up to the next 100 ms; 0 for Standard.
	BilledDuration time.Duration
}

// billingStep is what AWS rounds an Express execution's duration up to.
const billingStep = 100 * time.Millisecond

// typeNames are the ASL names of the state types, by asl.Type.
var typeNames = [...]string{
	asl.TaskState: "Task", asl.PassState: "Pass", asl.ChoiceState: "Choice",
	asl.WaitState: "Wait", asl.SucceedState: "Succeed", asl.FailState: "Fail",
}

// counters are a state machine's Counts as they are kept: atomics, since
// they change with an execution's lock held and no other.
type counters struct {
	started, running                     atomic.Int64
	succeeded, failed, timedOut, aborted atomic.Int64
	byType                               [len(typeNames)]atomic.Int64
	billed                               atomic.Int64 // nanoseconds
}

// add counts x in, as running or as ended with its status (a restored
// execution), with the transitions it made.
func (c *counters) add(x *execution) {
	c.started.Add(1)
	c.status(x.status).Add(1)
	// A restored execution's transitions are not split by type.
	c.byType[asl.TaskState].Add(int64(x.transitions))
}

// status is the counter of executions with status s.
func (c *counters) status(s Status) *atomic.Int64 {
	switch s {
	case Succeeded:
		return &c.succeeded
	case Failed:
		return &c.failed
	case TimedOut:
		return &c.timedOut
	case Aborted:
		return &c.aborted
	}
	return &c.running
}

// transition counts one transition into a state of type t.
func (c *counters) transition(t asl.Type) { c.byType[t].Add(1) }

// ended moves an execution from running to status s; an Express one
// adds its duration, rounded up to the billing step, to what is billed.
func (c *counters) ended(s Status, typ Type, duration time.Duration) {
	c.running.Add(-1)
	c.status(s).Add(1)
	if typ == Express {
		steps := (max(duration, 0) + billingStep - 1) / billingStep
		c.billed.Add(int64(max(steps, 1) * billingStep))
	}
}

// Counts returns a state machine's running totals.
func (e *Executor) Counts(ctx context.Context, stateMachineARN string) (Counts, error) {
	sm, err := e.machine(stateMachineARN)
	if err != nil {
		return Counts{}, err
	}
	c := &sm.counts
	out := Counts{
		Started: c.started.Load(), Running: c.running.Load(),
		Succeeded: c.succeeded.Load(), Failed: c.failed.Load(), TimedOut: c.timedOut.Load(), Aborted: c.aborted.Load(),
		TransitionsByType: make(map[string]int64, len(typeNames)),
		BilledDuration:    time.Duration(c.billed.Load()),
	}
	for t, name := range typeNames {
		n := c.byType[t].Load()
		out.Transitions += n
		if n > 0 {
			out.TransitionsByType[name] = n
		}
	}
	return out, nil
}
