package executor

import (
	"context"
	"time"
)

// timebase is the executor's clock, and everything that differs between
// its two kinds: the virtual clock (virtual.go), on which time jumps from
// event to event and handlers run one at a time, passing time only through
// Delay, and a scaled wall clock (scaled.go), on which events fire when the
// clock reaches them and handlers run concurrently. Times are Unix
// nanoseconds on the clock.
type timebase interface {
	// now is the clock's time.
	now() int64
	// due pops from q, into batch, the events to run next, none later than
	// limit. With none to run it returns how long to wait on the wall clock
	// for one to be due, or 0 to stop.
	due(q *timeline, batch []event, limit int64) ([]event, time.Duration)
	// workers is how many goroutines run a batch of events.
	workers() int
	// wallWait is how long the idle loop waits on the wall clock for d to
	// pass on the clock; false when time passes only with events.
	wallWait(d time.Duration) (time.Duration, bool)
	// reach moves the clock to t, where RunUntil leaves it.
	reach(t int64)
	// invoke runs c's handler for the current Task state of x. Call with
	// x.mu held; it may be released meanwhile.
	invoke(ctx context.Context, x *execution, c *call)
	// sleep is Delay(ctx, d) in c's handler.
	sleep(ctx context.Context, c *call, d time.Duration)
	// deadline and withDeadline are Executor.Deadline and
	// Executor.WithDeadline.
	deadline(ctx context.Context) (time.Time, bool)
	withDeadline(ctx context.Context, t time.Time) (context.Context, context.CancelFunc)
	// withTaskDeadline is ctx carrying the deadline at of the Task state
	// invoking a handler. The executor itself ends the call at it; on a
	// scaled clock it is a wall-clock deadline too, as Lambda's is.
	withTaskDeadline(ctx context.Context, at int64) (context.Context, context.CancelFunc)
}

// newTimebase is the clock opts ask for: Options.Scaled, or a virtual
// clock starting at Options.Start.
func newTimebase(opts Options) timebase {
	if opts.Scaled != nil {
		return scaledTime{opts.Scaled}
	}
	v := &virtualTime{batch: opts.Workers}
	v.at.Store(opts.Start.UnixNano())
	return v
}
