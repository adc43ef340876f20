package local

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/redrive/redrive/statemachine/asl"
)

// call is one Lambda invocation in flight. In virtual mode the handler
// runs on its own goroutine but never concurrently with the event loop:
// the loop hands control to it and waits until it either finishes or
// suspends in Delay, so handlers see a consistent, deterministic virtual
// clock. On a scaled clock the handler runs freely and its completion is
// posted to the timeline.
type call struct {
	x        *execution
	function string
	payload  []byte
	deadline int64 // clock time at which the task times out
	timed    bool  // the state sets TimeoutSeconds(Path)

	ctx    context.Context
	cancel context.CancelFunc
	// yield carries the handler's Delay durations (nanoseconds) to the
	// loop, and -1 when Invoke has returned; resume lets it continue.
	yield    chan int64
	resume   chan struct{}
	finished atomic.Bool
	// suspended is true while the handler waits in Delay (x.mu).
	suspended bool
	// done increases when the call completes (scaled clock), making its
	// timeout event stale.
	done atomic.Uint64

	inv Invocation
	err error
}

// callKey finds the call in a handler's context (for Delay).
type callKey struct{}

// newCall prepares an invocation; its context ends when the execution
// stops, the task times out or the executor closes. With bounded, the
// context carries the task's deadline, if timed, on the executor's clock
// (see Executor.Deadline), as Lambda's carries the function's timeout.
func newCall(parent context.Context, x *execution, function string, payload []byte, deadline int64, timed, bounded bool) *call {
	c := &call{x: x, function: function, payload: payload, deadline: deadline, timed: timed}
	ctx, cancel := context.WithCancel(parent)
	if x.e.closed.Load() {
		cancel() // the executor is closing: the handler starts cancelled
	}
	c.cancel = cancel
	if timed && bounded {
		var stop context.CancelFunc
		ctx, stop = x.e.withTaskDeadline(ctx, deadline)
		c.cancel = func() { stop(); cancel() }
	}
	c.ctx = context.WithValue(ctx, callKey{}, c)
	if x.e.scaled == nil {
		c.yield = make(chan int64)
		c.resume = make(chan struct{})
	}
	return c
}

// runHandler invokes the function. A panicking Invoker becomes the task
// error Lambda.ServiceException rather than a crash.
func (c *call) runHandler() {
	defer func() {
		if r := recover(); r != nil {
			c.err = fmt.Errorf("local: Invoker panicked: %v", r)
		}
		c.finished.Store(true)
		if c.yield != nil {
			c.yield <- -1
		}
	}()
	c.inv, c.err = c.x.e.opts.Invoker.Invoke(c.ctx, c.function, c.payload)
}

// invoke starts c for the current Task state. Call with x.mu held; in
// virtual mode it is released while the handler runs.
func (x *execution) invoke(ctx context.Context, c *call) {
	x.call = c
	if x.e.scaled != nil {
		x.invokeAsync(c)
		return
	}
	x.e.handlers.Go(c.runHandler)
	x.mu.Unlock()
	d := <-c.yield
	x.mu.Lock()
	x.afterYield(ctx, c, d)
}

// invokeAsync runs c's handler on its own goroutine (scaled clock) and
// posts its completion, or its timeout, to the timeline.
func (x *execution) invokeAsync(c *call) {
	x.e.handlers.Go(func() {
		c.runHandler()
		x.later(x.e.nowNanos(), func(ctx context.Context) {
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
		})
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
	wake, timeout := x.e.nowNanos()+d, false
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
