package local

import (
	"context"
	"fmt"
	"sync/atomic"
)

// call is one Lambda invocation in flight. In virtual mode the handler
// runs on its own goroutine but never concurrently with the event loop:
// the loop hands control to it and waits until it either finishes or
// suspends in Delay, so handlers see a consistent, deterministic virtual
// clock. In RealTime mode the handler runs freely and its completion is
// posted to the timeline.
type call struct {
	x        *execution
	function string
	payload  []byte
	deadline int64 // clock time at which the task times out

	ctx    context.Context
	cancel context.CancelFunc
	// yield carries the handler's Delay durations (nanoseconds) to the
	// loop, and -1 when Invoke has returned.
	yield    chan int64
	resume   chan struct{}
	finished atomic.Bool

	inv Invocation
	err error
}

// callKey finds the call in a handler's context (for Delay).
type callKey struct{}

// newCall prepares an invocation; its context ends when the execution
// stops or the task times out.
func newCall(parent context.Context, x *execution, function string, payload []byte, deadline int64) *call {
	c := &call{x: x, function: function, payload: payload, deadline: deadline}
	ctx, cancel := context.WithCancel(parent)
	c.ctx, c.cancel = context.WithValue(ctx, callKey{}, c), cancel
	if !x.e.opts.RealTime {
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
	if x.e.opts.RealTime {
		go func() {
			c.runHandler()
			x.e.schedule(x.e.nowNanos(), func(ctx context.Context) {
				x.mu.Lock()
				defer x.mu.Unlock()
				if x.call != c || x.status != Running {
					return
				}
				x.call = nil
				c.cancel()
				x.taskDone(ctx, c)
				x.run(ctx)
			})
		}()
		x.e.schedule(c.deadline, func(ctx context.Context) {
			x.mu.Lock()
			defer x.mu.Unlock()
			if x.call != c || x.status != Running {
				return
			}
			x.call = nil
			c.cancel()
			x.taskTimedOut(ctx)
			x.run(ctx)
		})
		return
	}
	go c.runHandler()
	x.mu.Unlock()
	d := <-c.yield
	x.mu.Lock()
	x.afterYield(ctx, c, d)
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
	wake, timeout := x.e.nowNanos()+d, false
	if wake >= c.deadline {
		wake, timeout = c.deadline, true
	}
	x.e.schedule(wake, func(ctx context.Context) {
		x.mu.Lock()
		defer x.mu.Unlock()
		if timeout || x.call != c || x.status != Running {
			c.cancel() // Delay returns at once from now on
		}
		x.mu.Unlock()
		c.resume <- struct{}{}
		d := <-c.yield
		x.mu.Lock()
		if timeout {
			// Delay returns at once once the call is cancelled, so the
			// handler runs to its end now; its result is ignored.
			for d >= 0 {
				x.mu.Unlock()
				c.resume <- struct{}{}
				d = <-c.yield
				x.mu.Lock()
			}
			if x.call == c {
				x.call = nil
				x.taskTimedOut(ctx)
			}
		} else {
			x.afterYield(ctx, c, d)
		}
		x.run(ctx)
	})
}
