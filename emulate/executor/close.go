package executor

// Close stops the executor for good and ends every goroutine it started.
// Run and RunUntil return ErrClosed, at the end of the event they are
// running. Every Lambda handler in flight sees its context cancelled: one
// suspended in Delay on the virtual clock returns from it at once, and one
// that the executor invokes while closing starts cancelled. Close returns
// once all of them have returned, so a handler that ignores its context
// delays it. Executions are left where the timeline stopped, and can still
// be described; those running never finish. StartExecution then fails
// with ErrClosed. Close may be called more than once, but not from a
// handler or an event the executor runs.
func (e *Executor) Close() {
	e.closeOnce.Do(func() {
		e.closed.Store(true)
		close(e.done)
		// Cancel first, so that a handler the loop waits for returns and
		// the loop can stop.
		e.eachCall(func(_ *execution, c *call) { c.cancel() })
		e.sched.running.Lock() // Run and RunUntil have returned
		defer e.sched.running.Unlock()
		for _, c := range e.suspended.all() {
			x := c.x
			x.mu.Lock()
			if c.suspended {
				c.suspended = false
				e.suspended.remove(c)
				x.abandon(c)
			}
			x.mu.Unlock()
		}
		e.handlers.Wait()
		e.pool.Wait()
		e.routines.close()
	})
}

// eachCall calls fn with x.mu held on each execution x that has a Lambda
// invocation c in flight, but for those compacted since they ended.
func (e *Executor) eachCall(fn func(x *execution, c *call)) {
	var xs []*execution // those held whole: a compacted one has ended
	e.mu.Lock()
	for _, sm := range e.created {
		for _, r := range sm.executions {
			if r.x != nil {
				xs = append(xs, r.x)
			}
		}
	}
	e.mu.Unlock()
	for _, x := range xs {
		x.mu.Lock()
		if c := x.call; c != nil {
			fn(x, c)
		}
		x.mu.Unlock()
	}
}
