package emulator

import (
	"context"
	"fmt"
	"math"
	"time"
)

// Clock is the handlers' clock: it starts at the wall time it was made and
// runs Scale times faster than the wall clock, so it keeps pace with Waits
// divided by Scale. It is safe for concurrent use.
type Clock struct {
	origin time.Time
	scale  float64
	wall   func() time.Time
}

// NewClock returns a Clock starting now on wall and running scale times
// faster; scale must be a finite number > 0.
func NewClock(scale float64, wall func() time.Time) (*Clock, error) {
	if !(scale > 0) || math.IsInf(scale, 0) {
		return nil, fmt.Errorf("emulator: time scale %v: want a finite number > 0", scale)
	}
	return &Clock{origin: wall(), scale: scale, wall: wall}, nil
}

// Now is origin + Scale × (wall time since origin).
func (c *Clock) Now() time.Time {
	elapsed := c.wall().Sub(c.origin)
	return c.origin.Add(time.Duration(float64(elapsed) * c.scale)).UTC()
}

// Scale is how many times faster than the wall clock c runs.
func (c *Clock) Scale() float64 { return c.scale }

// Sleep waits until the clock has advanced d (d divided by Scale of wall
// time), or until ctx ends.
func (c *Clock) Sleep(ctx context.Context, d time.Duration) {
	if d <= 0 {
		return
	}
	t := time.NewTimer(time.Duration(math.Ceil(float64(d) / c.scale)))
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
