// Package clock is the time the task handlers run on: the wall clock in a
// Lambda function, a scaled wall clock or the local executor's virtual
// clock in a local stack. Behind one interface, a handler's reading of the
// time, its sleeps and its deadlines pass exactly as the executions' Waits
// and timeouts do, whichever clock runs them.
package clock

import (
	"context"
	"fmt"
	"math"
	"time"
)

// Clock tells the time, waits, and sets deadlines, all on one clock.
type Clock interface {
	// Now is the current time.
	Now() time.Time
	// Sleep waits d, or until ctx ends.
	Sleep(ctx context.Context, d time.Duration)
	// Deadline is when ctx ends on this clock, if it has a deadline.
	Deadline(ctx context.Context) (time.Time, bool)
	// WithDeadline returns a copy of ctx that ends at t on this clock, with
	// context.DeadlineExceeded as its Err.
	WithDeadline(ctx context.Context, t time.Time) (context.Context, context.CancelFunc)
}

// Scaled is the wall clock running Scale times faster from the instant it
// was made: the clock of a local stack whose Waits are divided by Scale,
// as Step Functions Local's WAIT_TIME_SCALE divides them. Its deadlines
// are real context deadlines, on the wall clock, so any library honours
// them. It is safe for concurrent use.
type Scaled struct {
	origin  time.Time // the wall-clock instant it was made
	reading time.Time // what it read then
	scale   float64
	wall    func() time.Time
}

// Wall is the wall clock itself: time.Now, timers and context deadlines.
var Wall = &Scaled{scale: 1, wall: time.Now}

// NewScaled returns a clock starting now on wall (time.Now if nil) and
// running scale times faster; scale must be a finite number > 0.
func NewScaled(scale float64, wall func() time.Time) (*Scaled, error) {
	return NewScaledFrom(scale, time.Time{}, wall)
}

// NewScaledFrom is NewScaled for a clock that reads from now on, instead
// of the wall clock's time: a restarted stack's clock continuing where the
// stopped one was. A zero from is the wall clock's time.
func NewScaledFrom(scale float64, from time.Time, wall func() time.Time) (*Scaled, error) {
	if !(scale > 0) || math.IsInf(scale, 0) {
		return nil, fmt.Errorf("clock: time scale %v: want a finite number > 0", scale)
	}
	if wall == nil {
		wall = time.Now
	}
	origin := wall()
	if from.IsZero() {
		from = origin
	}
	return &Scaled{origin: origin, reading: from, scale: scale, wall: wall}, nil
}

// Scale is how many times faster than the wall clock c runs.
func (c *Scaled) Scale() float64 { return c.scale }

// Now is the time on c: its reading at the start + Scale × (wall time
// since).
func (c *Scaled) Now() time.Time { return c.FromWall(c.wall()) }

// FromWall is the time on c at the wall-clock instant w.
func (c *Scaled) FromWall(w time.Time) time.Time {
	if c.scale == 1 && c.reading.Equal(c.origin) {
		return w
	}
	return c.reading.Add(time.Duration(float64(w.Sub(c.origin)) * c.scale)).UTC()
}

// ToWall is the wall-clock instant at which c shows t.
func (c *Scaled) ToWall(t time.Time) time.Time {
	if c.scale == 1 && c.reading.Equal(c.origin) {
		return t
	}
	return c.origin.Add(time.Duration(math.Ceil(float64(t.Sub(c.reading)) / c.scale)))
}

// After returns a channel that receives c's time once d has passed on c.
func (c *Scaled) After(d time.Duration) <-chan time.Time {
	out := make(chan time.Time, 1)
	time.AfterFunc(c.WallDuration(d), func() { out <- c.Now() })
	return out
}

// WallDuration is how long d on c takes on the wall clock.
func (c *Scaled) WallDuration(d time.Duration) time.Duration {
	return time.Duration(math.Ceil(float64(d) / c.scale))
}

// Sleep waits until c has advanced d, or until ctx ends.
func (c *Scaled) Sleep(ctx context.Context, d time.Duration) {
	if d <= 0 {
		return
	}
	t := time.NewTimer(c.WallDuration(d))
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// Deadline is ctx's wall-clock deadline, read on c.
func (c *Scaled) Deadline(ctx context.Context) (time.Time, bool) {
	d, ok := ctx.Deadline()
	if !ok {
		return time.Time{}, false
	}
	return c.FromWall(d), true
}

// WithDeadline is context.WithDeadline at the wall-clock instant c shows t.
func (c *Scaled) WithDeadline(ctx context.Context, t time.Time) (context.Context, context.CancelFunc) {
	return context.WithDeadline(ctx, c.ToWall(t))
}
