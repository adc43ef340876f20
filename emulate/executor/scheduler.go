package executor

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"
)

// errRunInProgress is returned when Run or RunUntil is called while another
// call is processing events (for example from inside a handler).
var errRunInProgress = errors.New("executor: Run or RunUntil is already in progress")

// scheduler is the executor's discrete-event loop state.
type scheduler struct {
	mu    sync.Mutex
	queue timeline
	seq   uint64
	kick  chan struct{}
	// running is held by the one loop processing events (Run, RunUntil),
	// and by Close once that loop has returned.
	running sync.Mutex
	batch   []event // reused by the one running loop
	// compacted is the timeline's length after its last compaction, and
	// ended counts the executions that ended since (most of their timers
	// went stale with them).
	compacted int
	ended     atomic.Int64
}

// after returns the clock time d from now.
func (e *Executor) after(d time.Duration) int64 {
	return e.clock.now() + int64(d)
}

// schedule puts fn on the timeline at at (Unix nanoseconds). It may be
// called from any goroutine, including from inside events and handlers.
func (e *Executor) schedule(at int64, fn func(ctx context.Context)) {
	e.scheduleIf(at, nil, 0, fn)
}

// scheduleIf schedules fn at at unless *gen has changed from want by then
// (a nil gen never goes stale), and returns its place on the timeline.
func (e *Executor) scheduleIf(at int64, gen *atomic.Uint64, want uint64, fn func(ctx context.Context)) timer {
	s := &e.sched
	s.mu.Lock()
	s.seq++
	t := timer{at: at, seq: s.seq}
	s.queue.push(event{at: at, seq: t.seq, fn: fn, gen: gen, want: want})
	s.mu.Unlock()
	select {
	case s.kick <- struct{}{}:
	default:
	}
	return t
}

// reschedule puts fn back on the timeline at its place t (Restore).
func (e *Executor) reschedule(t timer, gen *atomic.Uint64, want uint64, fn func(ctx context.Context)) {
	s := &e.sched
	s.mu.Lock()
	s.queue.push(event{at: t.at, seq: t.seq, fn: fn, gen: gen, want: want})
	s.mu.Unlock()
}

// loop processes events due up to limit. In virtual mode it returns when
// nothing is left at or before limit; on a scaled clock it waits for
// events (sleeping until the next one is due) until the clock passes
// limit, and with limit math.MaxInt64 until ctx ends. It returns
// ErrClosed once the executor is closed.
func (e *Executor) loop(ctx context.Context, limit int64) error {
	s := &e.sched
	if e.closed.Load() {
		return ErrClosed
	}
	if !s.running.TryLock() {
		return errRunInProgress
	}
	defer s.running.Unlock()
	for {
		if e.closed.Load() {
			return ErrClosed
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		batch, wait := e.due(limit)
		if len(batch) > 0 {
			e.runBatch(ctx, batch)
			e.housekeep()
			continue
		}
		if wait <= 0 {
			return nil
		}
		e.housekeep()
		if d, ok := e.untilExpiry(); ok {
			wait = min(wait, d)
		}
		if err := e.idle(ctx, wait); err != nil {
			return err
		}
	}
}

// idle waits d of wall time, or until an event is scheduled, ctx ends or
// the executor closes.
func (e *Executor) idle(ctx context.Context, d time.Duration) error {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-e.done:
		return ErrClosed
	case <-e.sched.kick:
	case <-timer.C:
	}
	return nil
}

// due pops the next events to run (see timebase.due).
func (e *Executor) due(limit int64) ([]event, time.Duration) {
	s := &e.sched
	s.mu.Lock()
	defer s.mu.Unlock()
	batch, wait := e.clock.due(&s.queue, s.batch[:0], limit)
	s.batch = batch
	return batch, wait
}

// runBatch runs events, concurrently on up to the timebase's workers
// goroutines when there are several.
func (e *Executor) runBatch(ctx context.Context, batch []event) {
	workers := min(e.clock.workers(), len(batch))
	if workers <= 1 {
		for i := range batch {
			batch[i].fn(ctx)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := next.Add(1) - 1; i < int64(len(batch)); i = next.Add(1) - 1 {
				batch[i].fn(ctx)
			}
		})
	}
	wg.Wait()
}
