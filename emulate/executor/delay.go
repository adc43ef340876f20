package executor

import (
	"context"
	"time"
)

// Delay makes an in-process Lambda handler take d of the executor's time,
// as a real call to a slow downstream would. In virtual mode the handler is
// suspended and resumes when the virtual clock reaches now+d, while other
// executions proceed; if the Task state's TimeoutSeconds runs out first the
// task fails with States.Timeout and Delay returns early with ctx
// cancelled, and if a deadline set with Executor.WithDeadline comes first,
// Delay returns at it with ctx ended by context.DeadlineExceeded. On a
// scaled clock it sleeps d divided by the scale. Outside an executor-run
// handler it sleeps d of wall time. It returns early when ctx ends. Call
// it only from the handler's own goroutine, the one Invoke runs on: in
// virtual mode that goroutine is a coroutine the run loop switches to, and
// Delay from another one panics or runs the loop on the wrong goroutine.
func Delay(ctx context.Context, d time.Duration) {
	if d <= 0 || ctx.Err() != nil {
		return
	}
	c, _ := ctx.Value(callKey{}).(*call)
	if c == nil || c.finished.Load() {
		sleep(ctx, d)
		return
	}
	if c.ctx.Err() != nil {
		return
	}
	c.x.e.clock.sleep(ctx, c, d)
}

// sleep waits d of wall time or until ctx ends.
func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
