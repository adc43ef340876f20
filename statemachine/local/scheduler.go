package local

import (
	"context"
	"errors"
	"math"
	"sync"
	"sync/atomic"
	"time"
)

// errRunInProgress is returned when Run or RunUntil is called while another
// call is processing events (for example from inside a handler).
var errRunInProgress = errors.New("local: Run or RunUntil is already in progress")

// scheduler is the executor's discrete-event loop state.
type scheduler struct {
	mu    sync.Mutex
	queue timeline
	seq   uint64
	clock atomic.Int64 // virtual now, Unix nanoseconds
	kick  chan struct{}
	// running is held by the one loop processing events (Run, RunUntil),
	// and by Close once that loop has returned.
	running sync.Mutex
	batch   []event // reused by the one running loop
	// compacted is the timeline's length after its last compaction.
	compacted int
}

// nowNanos returns the executor's clock in Unix nanoseconds.
func (e *Executor) nowNanos() int64 {
	if e.scaled != nil {
		return e.scaled.Now().UnixNano()
	}
	return e.sched.clock.Load()
}

// after returns the clock time d from now.
func (e *Executor) after(d time.Duration) int64 {
	return e.nowNanos() + int64(d)
}

// schedule puts fn on the timeline at at (Unix nanoseconds). It may be
// called from any goroutine, including from inside events and handlers.
func (e *Executor) schedule(at int64, fn func(ctx context.Context)) {
	e.scheduleIf(at, nil, 0, fn)
}

// scheduleIf schedules fn at at unless *gen has changed from want by then
// (a nil gen never goes stale).
func (e *Executor) scheduleIf(at int64, gen *atomic.Uint64, want uint64, fn func(ctx context.Context)) {
	s := &e.sched
	s.mu.Lock()
	s.seq++
	s.queue.push(event{at: at, seq: s.seq, fn: fn, gen: gen, want: want})
	s.mu.Unlock()
	select {
	case s.kick <- struct{}{}:
	default:
	}
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

// due pops the next events to run. In virtual mode that is the earliest
// event (with Workers > 1, every event due at that same instant) and the
// clock jumps to it. On a scaled clock it is every event already due. With
// nothing to run it returns how long (on the wall clock) to wait, or 0 to
// stop.
func (e *Executor) due(limit int64) ([]event, time.Duration) {
	s := &e.sched
	s.mu.Lock()
	defer s.mu.Unlock()
	batch := s.batch[:0]
	if e.scaled == nil {
		for len(s.queue) > 0 && s.queue[0].at <= limit {
			ev := s.queue.pop()
			if ev.stale() {
				continue
			}
			if ev.at > s.clock.Load() {
				s.clock.Store(ev.at)
			}
			batch = append(batch, ev)
			for e.opts.Workers > 1 && len(s.queue) > 0 && s.queue[0].at == ev.at {
				if next := s.queue.pop(); !next.stale() {
					batch = append(batch, next)
				}
			}
			break
		}
		s.batch = batch
		return batch, 0
	}
	now := e.nowNanos()
	for len(s.queue) > 0 && s.queue[0].at <= now && s.queue[0].at <= limit {
		if ev := s.queue.pop(); !ev.stale() {
			batch = append(batch, ev)
		}
	}
	s.batch = batch
	if len(batch) > 0 {
		return batch, 0
	}
	if now >= limit {
		return nil, 0
	}
	next := limit
	if len(s.queue) > 0 && s.queue[0].at < next {
		next = s.queue[0].at
	}
	if next == math.MaxInt64 {
		return nil, time.Duration(math.MaxInt64)
	}
	return nil, e.scaled.WallDuration(time.Duration(next - now))
}

// runBatch runs events, concurrently on up to Workers goroutines when
// there are several (virtual mode, same instant).
func (e *Executor) runBatch(ctx context.Context, batch []event) {
	workers := min(e.opts.Workers, len(batch))
	if workers <= 1 || e.scaled != nil {
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

// advanceClock moves the virtual clock forward to t (never backwards).
func (e *Executor) advanceClock(t int64) {
	s := &e.sched
	s.mu.Lock()
	if t > s.clock.Load() {
		s.clock.Store(t)
	}
	s.mu.Unlock()
}
