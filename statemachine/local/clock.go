package local

import (
	"context"
	"sync"
	"time"

	"github.com/redrive/redrive/internal/clock"
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

// Deadline is when ctx ends on the executor's clock: for a handler the
// executor invokes, the earliest of its Task state's timeout and the
// deadlines set on its context with WithDeadline.
func (e *Executor) Deadline(ctx context.Context) (time.Time, bool) {
	if e.scaled != nil {
		return e.scaled.Deadline(ctx)
	}
	if d, ok := ctx.Value(deadlineKey{}).(*virtualDeadline); ok {
		return time.Unix(0, d.at).UTC(), true
	}
	return time.Time{}, false
}

// WithDeadline returns a copy of ctx that ends at t on the executor's
// clock. On the virtual clock, time passes only while a handler is
// suspended in Delay, so that is where such a deadline is reached: Delay
// wakes at it, and returns with ctx ended by context.DeadlineExceeded.
func (e *Executor) WithDeadline(ctx context.Context, t time.Time) (context.Context, context.CancelFunc) {
	if e.scaled != nil {
		return e.scaled.WithDeadline(ctx, t)
	}
	at := t.UnixNano()
	if parent, ok := ctx.Value(deadlineKey{}).(*virtualDeadline); ok {
		at = min(at, parent.at)
	}
	d := newVirtualDeadline(ctx, at)
	if at <= e.nowNanos() {
		d.end(context.DeadlineExceeded)
	}
	return d, func() { d.end(context.Canceled) }
}

// withTaskDeadline is ctx carrying the deadline at (Unix nanoseconds on
// the executor's clock) of the Task state invoking a handler. The executor
// itself ends the call at it (see afterYield and invokeAsync); on a scaled
// clock it is a wall-clock deadline too, as Lambda's is.
func (e *Executor) withTaskDeadline(ctx context.Context, at int64) (context.Context, context.CancelFunc) {
	if e.scaled != nil {
		return e.scaled.WithDeadline(ctx, time.Unix(0, at))
	}
	return context.WithValue(ctx, deadlineKey{}, &virtualDeadline{at: at}), func() {}
}

// deadlineKey finds a handler's deadline on the virtual clock in its
// context: a *virtualDeadline.
type deadlineKey struct{}

// virtualDeadline is a deadline on the virtual clock, at (Unix
// nanoseconds). One set with WithDeadline is also the context that ends
// at it, or when its parent ends: its Done, Err and Value are its own,
// and Deadline is its parent's, since the wall-clock deadline that the
// context interface means is not this one. A Task state's deadline is a
// bare value (no context, done nil): its call's context ends at it.
type virtualDeadline struct {
	context.Context // the parent
	at              int64

	once sync.Once
	done chan struct{}
	mu   sync.Mutex
	err  error
	stop func() bool // unregisters from the parent
}

// newVirtualDeadline returns a context ending at at or when parent ends.
func newVirtualDeadline(parent context.Context, at int64) *virtualDeadline {
	d := &virtualDeadline{Context: parent, at: at, done: make(chan struct{})}
	d.stop = context.AfterFunc(parent, func() { d.end(parent.Err()) })
	return d
}

// end ends d with err, once; a Task state's deadline is left to its call.
func (d *virtualDeadline) end(err error) {
	if d.done == nil {
		return
	}
	d.once.Do(func() {
		d.mu.Lock()
		d.err = err
		d.mu.Unlock()
		close(d.done)
		d.stop()
	})
}

// Done is closed when d ends.
func (d *virtualDeadline) Done() <-chan struct{} { return d.done }

// Err is why d ended, or nil.
func (d *virtualDeadline) Err() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.err
}

// Value finds d under deadlineKey, and the rest in its parent.
func (d *virtualDeadline) Value(key any) any {
	if key == (deadlineKey{}) {
		return d
	}
	return d.Context.Value(key)
}
