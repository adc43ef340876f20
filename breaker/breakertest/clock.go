package breakertest

import (
	"context"
	"sync"
	"time"
)

// Clock is a manual clock.Clock, for a breaker (breaker.Options.Clock) and for
// the handlers: time moves only when a test advances it or a handler
// sleeps. It is safe for concurrent use.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock returns a Clock reading start.
func NewClock(start time.Time) *Clock {
	return &Clock{now: start}
}

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// Set moves the clock to t, forward or back.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}

// Sleep advances the clock by d: a handler's wait passes at once.
func (c *Clock) Sleep(_ context.Context, d time.Duration) { c.Advance(max(d, 0)) }

// Deadline is ctx's wall-clock deadline read on c: as far from c's now
// as the deadline is from the wall clock's.
func (c *Clock) Deadline(ctx context.Context) (time.Time, bool) {
	d, ok := ctx.Deadline()
	if !ok {
		return time.Time{}, false
	}
	return c.Now().Add(time.Until(d)), true
}

// WithDeadline is ctx with a wall-clock deadline as far from now as t is
// from c's now, so a handler that waits on the wall clock (a hanging
// target) is cut off as the deadline means.
func (c *Clock) WithDeadline(ctx context.Context, t time.Time) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, t.Sub(c.Now()))
}
