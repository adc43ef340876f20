package executor

import (
	"context"
	"time"

	"github.com/redrive/redrive/clock"
)

// The Executor is its handlers' clock: the time they read, sleep on and
// set deadlines on is the time of its histories, virtual or scaled.
var _ clock.Clock = (*Executor)(nil)

// clockOf is the clock of a handler invoked with ctx: its executor's, or
// the wall clock outside an execution.
func clockOf(ctx context.Context) clock.Clock {
	if c, ok := ctx.Value(callKey{}).(*call); ok {
		return c.x.e
	}
	return clock.Wall
}

// Sleep waits d on the executor's clock (see Delay).
func (e *Executor) Sleep(ctx context.Context, d time.Duration) { Delay(ctx, d) }

// After returns a channel that receives the executor's time once d has
// passed on its clock: on the virtual clock, when the run reaches that
// time; on a scaled one, after d's wall-clock share.
func (e *Executor) After(d time.Duration) <-chan time.Time {
	if sc, ok := e.clock.(scaledTime); ok {
		return sc.c.After(d)
	}
	out := make(chan time.Time, 1)
	e.At(e.Now().Add(d), func(context.Context) { out <- e.Now() })
	return out
}

// Deadline is when ctx ends on the executor's clock: for a handler the
// executor invokes, the earliest of its Task state's timeout and the
// deadlines set on its context with WithDeadline.
func (e *Executor) Deadline(ctx context.Context) (time.Time, bool) { return e.clock.deadline(ctx) }

// WithDeadline returns a copy of ctx that ends at t on the executor's
// clock. On the virtual clock, time passes only while a handler is
// suspended in Delay, so that is where such a deadline is reached: Delay
// wakes at it, and returns with ctx ended by context.DeadlineExceeded.
func (e *Executor) WithDeadline(ctx context.Context, t time.Time) (context.Context, context.CancelFunc) {
	return e.clock.withDeadline(ctx, t)
}
