package executor

import (
	"sync"
	"time"
)

// Bounds on the memory of long runs: Options.FinishedHistories drops the
// histories of all but the last executions to finish, Options.Retention
// evicts executions entirely some time after they stopped. Both queue the
// executions as they finish, which is in the order of their stop times,
// and the run loop evicts from the front between batches (housekeep).

// finishedQueue holds finished executions in the order they finished. Its
// lock is taken with an execution's held, never the other way round.
type finishedQueue struct {
	mu sync.Mutex
	xs []finished
}

// finished is a queued execution, by its state machine and record (not
// the execution, which compaction drops), and its stop time (Unix
// nanoseconds on the executor's clock).
type finished struct {
	sm   *stateMachine
	r    *record
	stop int64
}

// push queues x, which stopped at stop.
func (q *finishedQueue) push(x *execution, stop int64) {
	q.mu.Lock()
	q.xs = append(q.xs, finished{sm: x.sm, r: x.rec, stop: stop})
	q.mu.Unlock()
}

// popWhile removes the executions at the front of the queue for as long as
// more holds for the queue's length and the front one, and returns them.
func (q *finishedQueue) popWhile(more func(n int, f finished) bool) []finished {
	q.mu.Lock()
	defer q.mu.Unlock()
	var out []finished
	for len(q.xs) > 0 && more(len(q.xs), q.xs[0]) {
		out = append(out, q.xs[0])
		q.xs[0] = finished{}
		q.xs = q.xs[1:]
	}
	return out
}

// front returns the execution at the front of the queue, if any.
func (q *finishedQueue) front() (finished, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.xs) == 0 {
		return finished{}, false
	}
	return q.xs[0], true
}

// retire queues a finished execution for the evictions the options ask
// for. Call with x.mu held.
func (e *Executor) retire(x *execution) {
	if e.opts.FinishedHistories > 0 {
		e.histories.push(x, x.stop)
	}
	if e.opts.Retention > 0 {
		e.retained.push(x, x.stop)
	}
}

// housekeep makes the evictions due. The run loop calls it between
// batches, with no lock held. The timeline drops its stale events too
// when executions are evicted or compacted: those of a finished
// execution (its TimeoutSeconds, a task's timeouts) would hold it in
// memory until due.
func (e *Executor) housekeep() {
	e.evictHistories()
	if e.opts.Retention > 0 {
		e.evictExpired()
	}
	if e.opts.Retention > 0 || e.opts.Compact {
		e.sched.compact()
	}
}

// evictHistories drops the histories of the executions that finished
// before the last Options.FinishedHistories, and with Options.Compact
// compacts their records.
func (e *Executor) evictHistories() {
	if e.opts.FinishedHistories <= 0 {
		return
	}
	over := e.histories.popWhile(func(n int, _ finished) bool { return n > e.opts.FinishedHistories })
	for _, f := range over {
		e.mu.Lock()
		x := f.r.x
		e.mu.Unlock()
		if x != nil { // not evicted by Options.Retention meanwhile
			e.evictHistory(x)
		}
	}
}

// evictHistory drops a finished execution's history and what it kept to
// run; with Options.Compact, its record then keeps its summary in its
// place.
func (e *Executor) evictHistory(x *execution) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.history, x.evicted = nil, true
	x.rawInput, x.frozenInput, x.ctxObj, x.ctxInput, x.retries = nil, nil, nil, nil, nil
	if !e.opts.Compact {
		return
	}
	x.inputText, x.output = "", nil
	e.mu.Lock()
	x.rec.compact(x)
	e.mu.Unlock()
}

// evictExpired evicts the executions that stopped Options.Retention ago
// or earlier: nothing of them remains in the executor.
func (e *Executor) evictExpired() {
	cutoff := e.clock.now() - int64(e.opts.Retention)
	expired := e.retained.popWhile(func(_ int, f finished) bool { return f.stop <= cutoff })
	if len(expired) == 0 {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, f := range expired {
		f.sm.remove(f.r)
	}
}

// untilExpiry is how long, on the wall clock, until the next eviction
// Options.Retention makes is due; false when none is pending, or on the
// virtual clock, where time passes only with events.
func (e *Executor) untilExpiry() (time.Duration, bool) {
	if e.opts.Retention <= 0 {
		return 0, false
	}
	f, ok := e.retained.front()
	if !ok {
		return 0, false
	}
	return e.clock.wallWait(time.Duration(f.stop + int64(e.opts.Retention) - e.clock.now()))
}
