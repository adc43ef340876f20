package local

import (
	"context"

	"github.com/redrive/redrive/statemachine/asl"
)

// On the virtual clock (see virtualTime.invoke) the loop and a handler
// hand control to each other: the handler runs while the loop waits, and
// yields when it returns or suspends in Delay; its wake-up is an event.

// handOver lets c's suspended handler continue and waits until it yields
// again. Call with x.mu held; it is released meanwhile.
func (x *execution) handOver(c *call) int64 {
	x.mu.Unlock()
	c.resume <- struct{}{}
	d := <-c.yield
	x.mu.Lock()
	return d
}

// afterYield continues once the handler of c yielded d (virtual mode):
// -1 means it finished; otherwise it is suspended in Delay(d) and resumes
// d later, unless the task times out first. Call with x.mu held.
func (x *execution) afterYield(ctx context.Context, c *call, d int64) {
	if d < 0 {
		c.cancel()
		if x.call != c {
			return
		}
		x.call = nil
		if x.status == Running {
			x.taskDone(ctx, c)
		}
		return
	}
	c.suspended = true
	wake, timeout := x.e.clock.now()+d, false
	if wake >= c.deadline {
		wake, timeout = c.deadline, true
	}
	x.later(wake, func(ctx context.Context) { x.resumeCall(ctx, c, timeout) })
}

// resumeCall wakes c's handler from Delay (virtual mode). On a timeout, or
// when the execution has ended, the call is cancelled first: Delay then
// returns at once, the handler runs to its end, and its result is ignored.
func (x *execution) resumeCall(ctx context.Context, c *call, timeout bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if !c.suspended {
		return
	}
	c.suspended = false
	if !timeout && x.call == c && x.status == Running {
		x.afterYield(ctx, c, x.handOver(c))
		x.run(ctx)
		return
	}
	x.abandon(c)
	if x.call == c {
		x.call = nil
		if timeout && x.status == Running {
			x.taskTimedOut(ctx, asl.StatesTimeout)
			x.run(ctx)
		}
	}
}

// abandon ends c's handler, suspended in Delay: cancelled, it returns from
// Delay at once and runs to its end, and its result is ignored. Call with
// x.mu held; it is released meanwhile.
func (x *execution) abandon(c *call) {
	c.cancel()
	for x.handOver(c) >= 0 {
		// Delay does not suspend a cancelled call; be safe anyway.
	}
}
