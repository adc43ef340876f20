package sqstest

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// Clock is a manual clock for sqslocal.Options.Clock: time moves
// only when a test advances it, and After's channels fire then. It is safe
// for concurrent use.
type Clock struct {
	mu      sync.Mutex
	now     time.Time
	timers  []timer
	changed chan struct{} // closed and replaced when a timer is added
}

// timer is one pending After.
type timer struct {
	at time.Time
	c  chan time.Time
}

// NewClock returns a Clock reading start.
func NewClock(start time.Time) *Clock {
	return &Clock{now: start, changed: make(chan struct{})}
}

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// After returns a channel that receives the clock's time once it has
// advanced by d.
func (c *Clock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan time.Time, 1)
	if d <= 0 {
		ch <- c.now
		return ch
	}
	c.timers = append(c.timers, timer{at: c.now.Add(d), c: ch})
	close(c.changed)
	c.changed = make(chan struct{})
	return ch
}

// Advance moves the clock forward by d and fires the timers that are due.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	pending := c.timers[:0]
	for _, t := range c.timers {
		if t.at.After(c.now) {
			pending = append(pending, t)
			continue
		}
		t.c <- c.now
	}
	c.timers = pending
}

// Timers returns how many After channels have not fired yet.
func (c *Clock) Timers() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.timers)
}

// WaitForTimers blocks until at least n After channels are pending (a
// long poll is waiting, say), or fails when ctx ends first.
func (c *Clock) WaitForTimers(ctx context.Context, n int) error {
	for {
		c.mu.Lock()
		pending, changed := len(c.timers), c.changed
		c.mu.Unlock()
		if pending >= n {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return fmt.Errorf("wait for %d pending timers (have %d): %w", n, pending, ctx.Err())
		}
	}
}
