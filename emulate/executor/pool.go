package executor

// maxIdleHandlers bounds the goroutines kept waiting for the next Lambda
// invocation (see goHandler and routines).
const maxIdleHandlers = 64

// goHandler runs fn, a Lambda invocation on a scaled clock, on a
// goroutine of the executor's pool: a waiting one if there is one, else
// a new one. A goroutine that is done waits for the next invocation (up
// to maxIdleHandlers of them), so the stack a handler grew is used again
// instead of being grown anew for each invocation. Executor.handlers
// counts the invocations running; Close waits for them, then for the
// pool's goroutines to end.
func (e *Executor) goHandler(fn func()) {
	e.handlers.Add(1)
	select {
	case e.waiting <- fn:
	default:
		e.pool.Go(func() { e.handle(fn) })
	}
}

// handle runs fn and then the invocations handed to it while it is idle,
// until the executor closes or enough other goroutines are idle, or an
// invocation calls runtime.Goexit.
func (e *Executor) handle(fn func()) {
	for {
		e.runCounted(fn)
		if e.idlers.Add(1) > maxIdleHandlers {
			e.idlers.Add(-1)
			return
		}
		select {
		case fn = <-e.waiting:
			e.idlers.Add(-1)
		case <-e.done:
			e.idlers.Add(-1)
			return
		}
	}
}

// runCounted runs fn and marks it done in Executor.handlers, even if it
// calls runtime.Goexit.
func (e *Executor) runCounted(fn func()) {
	defer e.handlers.Done()
	fn()
}
