package executor

import (
	"context"
	"sync/atomic"
	"time"
)

// virtualTime is the virtual timebase: the clock jumps from one event to
// the next, and a handler never runs concurrently with the loop: the loop
// hands control to it and waits until it returns or suspends in Delay
// (handover.go), so handlers see a consistent, deterministic clock.
type virtualTime struct {
	at    atomic.Int64 // now
	batch int          // Options.Workers
}

func (v *virtualTime) now() int64 { return v.at.Load() }

// due pops the earliest event (with Workers > 1, every event due at that
// same instant) and jumps the clock to it. It never waits.
func (v *virtualTime) due(q *timeline, batch []event, limit int64) ([]event, time.Duration) {
	for len(*q) > 0 && (*q)[0].at <= limit {
		ev := q.pop()
		if ev.stale() {
			continue
		}
		v.reach(ev.at)
		batch = append(batch, ev)
		for v.batch > 1 && len(*q) > 0 && (*q)[0].at == ev.at {
			if next := q.pop(); !next.stale() {
				batch = append(batch, next)
			}
		}
		break
	}
	return batch, 0
}

func (v *virtualTime) workers() int { return v.batch }

// wallWait is false: the virtual clock moves only with events.
func (v *virtualTime) wallWait(time.Duration) (time.Duration, bool) { return 0, false }

// reach moves the clock forward to t, never backwards.
func (v *virtualTime) reach(t int64) {
	for {
		cur := v.at.Load()
		if t <= cur || v.at.CompareAndSwap(cur, t) {
			return
		}
	}
}

// invoke starts the handler and waits until it returns or suspends in
// Delay; x.mu is released meanwhile.
func (v *virtualTime) invoke(ctx context.Context, x *execution, c *call) {
	c.routine = x.e.routines.get()
	c.routine.fn = c.runHandler
	x.afterYield(ctx, c, x.handOver(c))
}

// sleep suspends the handler until the clock reaches now+d, or the
// earlier deadline set with WithDeadline, which it then ends.
func (v *virtualTime) sleep(ctx context.Context, c *call, d time.Duration) {
	now := v.now()
	dl, bounded := ctx.Value(deadlineKey{}).(*virtualDeadline)
	if bounded && now+int64(d) < dl.at {
		bounded = false
	}
	if bounded {
		d = time.Duration(dl.at - now)
	}
	if d > 0 {
		c.routine.yield(int64(d))
	}
	if bounded {
		dl.end(context.DeadlineExceeded)
	}
}

func (v *virtualTime) deadline(ctx context.Context) (time.Time, bool) {
	if d, ok := ctx.Value(deadlineKey{}).(*virtualDeadline); ok {
		return time.Unix(0, d.at).UTC(), true
	}
	return time.Time{}, false
}

func (v *virtualTime) withDeadline(ctx context.Context, t time.Time) (context.Context, context.CancelFunc) {
	at := t.UnixNano()
	if parent, ok := ctx.Value(deadlineKey{}).(*virtualDeadline); ok {
		at = min(at, parent.at)
	}
	d := newVirtualDeadline(ctx, at)
	if at <= v.now() {
		d.end(context.DeadlineExceeded)
	}
	return d, func() { d.end(context.Canceled) }
}

// withTaskDeadline only records at: the loop itself ends the call then.
func (v *virtualTime) withTaskDeadline(ctx context.Context, at int64) (context.Context, context.CancelFunc) {
	return context.WithValue(ctx, deadlineKey{}, &virtualDeadline{at: at}), func() {}
}
