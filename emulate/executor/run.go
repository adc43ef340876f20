package executor

import (
	"context"
	"math"
	"time"
)

// At schedules fn on the executor's timeline at t (simulation inputs such as
// message arrivals or a target's health changes). A time in the past runs
// at the next step.
func (e *Executor) At(t time.Time, fn func(ctx context.Context)) {
	e.schedule(max(t.UnixNano(), e.clock.now()), fn)
}

// Run processes events until no execution is running and nothing is
// scheduled, or ctx ends. In virtual mode time jumps from event to event.
// On a scaled clock Run does not return when idle: it waits for new work
// (executions started from other goroutines, e.g. behind the HTTP facade)
// until ctx ends, and then returns ctx's error. Only one Run or RunUntil
// may process events at a time. Once the executor is closed, Run returns
// ErrClosed.
func (e *Executor) Run(ctx context.Context) error {
	return e.loop(ctx, math.MaxInt64)
}

// RunUntil processes events due up to t and leaves the clock at t (on a
// scaled clock: until the clock reaches t).
func (e *Executor) RunUntil(ctx context.Context, t time.Time) error {
	limit := t.UnixNano()
	if err := e.loop(ctx, limit); err != nil {
		return err
	}
	e.clock.reach(limit)
	e.housekeep()
	return nil
}
