package executor

import (
	"context"
	"math"
	"time"

	"github.com/redrive/redrive/clock"
	"github.com/redrive/redrive/emulate/asl"
)

// scaledTime is the scaled wall clock timebase: events fire when the
// clock reaches them, and handlers run freely on their own goroutines,
// posting their completion to the timeline. Deadlines are wall-clock
// context deadlines, as Lambda's are.
type scaledTime struct{ c *clock.Scaled }

func (s scaledTime) now() int64 { return s.c.Now().UnixNano() }

// due pops every event already due.
func (s scaledTime) due(q *timeline, batch []event, limit int64) ([]event, time.Duration) {
	now := s.now()
	for len(*q) > 0 && (*q)[0].at <= now && (*q)[0].at <= limit {
		if ev := q.pop(); !ev.stale() {
			batch = append(batch, ev)
		}
	}
	if len(batch) > 0 || now >= limit {
		return batch, 0
	}
	next := limit
	if len(*q) > 0 && (*q)[0].at < next {
		next = (*q)[0].at
	}
	if next == math.MaxInt64 {
		return batch, time.Duration(math.MaxInt64)
	}
	return batch, s.c.WallDuration(time.Duration(next - now))
}

// workers is 1: handlers, not events, run concurrently.
func (s scaledTime) workers() int { return 1 }

func (s scaledTime) wallWait(d time.Duration) (time.Duration, bool) {
	return s.c.WallDuration(d), true
}

// reach does nothing: RunUntil returned once the clock passed t.
func (s scaledTime) reach(int64) {}

// invoke runs the handler on its own goroutine and posts its completion,
// or its timeout, to the timeline.
func (s scaledTime) invoke(_ context.Context, x *execution, c *call) {
	done := func(ctx context.Context) {
		x.mu.Lock()
		defer x.mu.Unlock()
		c.done.Add(1)
		c.cancel()
		if x.call != c || x.status != Running {
			return
		}
		x.call = nil
		x.taskDone(ctx, c)
		x.run(ctx)
	}
	x.e.goHandler(func() {
		defer func() { x.later(s.now(), done) }() // even if the handler exits
		c.runHandler()
	})
	if !c.timed {
		return // no TimeoutSeconds: nothing to schedule
	}
	x.e.scheduleIf(c.deadline, &c.done, 0, func(ctx context.Context) {
		x.mu.Lock()
		defer x.mu.Unlock()
		if x.call != c || x.status != Running {
			return
		}
		x.call = nil
		c.cancel()
		x.taskTimedOut(ctx, asl.StatesTimeout)
		x.run(ctx)
	})
}

// sleep sleeps d divided by the scale.
func (s scaledTime) sleep(ctx context.Context, _ *call, d time.Duration) { s.c.Sleep(ctx, d) }

func (s scaledTime) deadline(ctx context.Context) (time.Time, bool) { return s.c.Deadline(ctx) }

func (s scaledTime) withDeadline(ctx context.Context, t time.Time) (context.Context, context.CancelFunc) {
	return s.c.WithDeadline(ctx, t)
}

func (s scaledTime) withTaskDeadline(ctx context.Context, at int64) (context.Context, context.CancelFunc) {
	return s.c.WithDeadline(ctx, time.Unix(0, at))
}
