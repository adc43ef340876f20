package local

import (
	"context"
	"time"
)

// Delay makes an in-process Lambda handler take d of the executor's time,
// as a real call to a slow downstream would. In virtual mode the handler is
// suspended and resumes when the virtual clock reaches now+d, while other
// executions proceed; if the Task state's TimeoutSeconds runs out first the
// task fails with States.Timeout and Delay returns early with ctx
// cancelled. In RealTime mode it sleeps d (divided by TimeScale). Outside
// an executor-run handler it sleeps d of wall time. It returns early when
// ctx ends. Call it only from the handler's own goroutine.
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
	if c.x.e.opts.RealTime {
		sleep(ctx, time.Duration(float64(d)/c.x.e.opts.TimeScale))
		return
	}
	c.yield <- int64(d)
	<-c.resume
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
