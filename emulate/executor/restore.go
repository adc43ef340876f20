package executor

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/redrive/redrive/emulate/versioned"
)

// Restore returns an executor with opts holding the state a Snapshot
// wrote; Run then continues its executions (see the package documentation
// for how each resumes). opts must name the Region, Account and Seed of
// the executor the snapshot is of (zero values meaning the defaults, as
// for New): its ARNs and task tokens hold them. A virtual clock continues
// from the snapshot's time (Options.Start is ignored). Restore fails,
// naming what is wrong, on a snapshot that is not JSON, of another format
// or version, with unknown fields, or inconsistent: a definition that no
// longer compiles, an execution of no state machine or in no state of
// its definition, a task token it did not issue, and the like.
func Restore(r io.Reader, opts Options) (*Executor, error) {
	snap, err := versioned.Read[snapshot](r, snapshotFormat, "this executor")
	var e *Executor
	if err == nil {
		opts.Start = snap.TakenAt
		e = New(opts)
		err = e.load(snap)
	}
	if err != nil {
		return nil, fmt.Errorf("executor: restore: %w", err)
	}
	return e, nil
}

// load puts snap's state machines and executions on e, a new executor.
func (e *Executor) load(snap *snapshot) error {
	switch {
	case snap.Region != e.opts.Region || snap.Account != e.opts.Account:
		return fmt.Errorf("snapshot is of account %q in region %q, the options name account %q in region %q", snap.Account, snap.Region, e.opts.Account, e.opts.Region)
	case snap.Seed != e.opts.Seed:
		return fmt.Errorf("snapshot is of seed %d, which keys its task tokens; the options' is %d", snap.Seed, e.opts.Seed)
	case snap.TakenAt.IsZero():
		return errors.New("snapshot has no takenAt time")
	}
	if err := e.rng.UnmarshalBinary(snap.RNG); err != nil {
		return fmt.Errorf("rng: %w", err)
	}
	e.started, e.sched.seq = snap.Started, snap.Sequence
	for _, ss := range snap.StateMachines {
		if err := e.loadStateMachine(ss); err != nil {
			return fmt.Errorf("state machine %q: %w", ss.Name, err)
		}
	}
	slices.SortFunc(snap.Executions, func(a, b snapshotExecution) int { return cmp.Compare(a.Index, b.Index) })
	var finished []*execution
	for _, sx := range snap.Executions {
		x, err := e.loadExecution(sx)
		if err != nil {
			return fmt.Errorf("execution %q of state machine %q: %w", sx.Name, sx.StateMachine, err)
		}
		if x.status != Running {
			finished = append(finished, x)
		}
	}
	// The evictions take them in the order they stopped.
	slices.SortStableFunc(finished, func(a, b *execution) int { return cmp.Compare(a.stop, b.stop) })
	for _, x := range finished {
		e.retire(x)
	}
	return nil
}

// loadStateMachine compiles and adds a state machine.
func (e *Executor) loadStateMachine(ss snapshotStateMachine) error {
	sm, err := e.newStateMachine(ss.Name, cmp.Or(ss.Type, Standard), ss.Definition, ss.RoleARN, ss.CreationDate)
	if err != nil {
		return err
	}
	if e.machines[sm.ARN] != nil {
		return errors.New("the snapshot holds it twice")
	}
	e.machines[sm.ARN] = sm
	e.created = append(e.created, sm)
	return nil
}

// timerOf is the timer t of the snapshot, which must have one there.
func (e *Executor) timerOf(t *snapshotTimer, what string) (timer, error) {
	switch {
	case t == nil:
		return timer{}, fmt.Errorf("no %s event", what)
	case t.Seq == 0 || t.Seq > e.sched.seq:
		return timer{}, fmt.Errorf("%s event: seq %d is not in the snapshot's sequence 1-%d", what, t.Seq, e.sched.seq)
	}
	return timer{at: t.At.UnixNano(), seq: t.Seq}, nil
}
