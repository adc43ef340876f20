package executor

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/redrive/redrive/emulate/asl"
)

// call is one Lambda invocation in flight. The timebase runs its handler
// (see timebase.invoke): handed over to and from the loop on the virtual
// clock, freely on a scaled one.
type call struct {
	callSpec
	x *execution

	ctx    context.Context
	cancel context.CancelFunc
	// routine runs the handler on the virtual clock, from its start until
	// it returns (see handover.go).
	routine  *routine
	finished atomic.Bool
	// suspended is true while the handler waits in Delay (x.mu).
	suspended bool
	// done increases when the call completes (scaled clock), making its
	// timeout event stale.
	done atomic.Uint64

	inv Invocation
	err error
}

// callSpec is what an invocation calls, and all a snapshot keeps of one
// in flight: Restore invokes it again.
type callSpec struct {
	function string
	payload  []byte
	deadline int64 // clock time at which the task times out
	timed    bool  // the state sets TimeoutSeconds(Path)
	// bounded is set when the handler's context carries the deadline: not
	// for a .waitForTaskToken task's, which runs under its function's own
	// timeout.
	bounded bool
}

// callKey finds the call in a handler's context (for Delay).
type callKey struct{}

// newCall prepares an invocation; its context ends when the execution
// stops, the task times out or the executor closes. With bounded and
// timed, the context carries the task's deadline on the executor's clock
// (see Executor.Deadline), as Lambda's carries the function's timeout.
func newCall(parent context.Context, x *execution, spec callSpec) *call {
	c := &call{callSpec: spec, x: x}
	ctx, cancel := context.WithCancel(parent)
	if x.e.closed.Load() {
		cancel() // the executor is closing: the handler starts cancelled
	}
	c.cancel = cancel
	if spec.timed && spec.bounded {
		var stop context.CancelFunc
		ctx, stop = x.e.clock.withTaskDeadline(ctx, spec.deadline)
		c.cancel = func() { stop(); cancel() }
	}
	c.ctx = context.WithValue(ctx, callKey{}, c)
	return c
}

// runHandler invokes the function. An Invoker that panics, or calls
// runtime.Goexit (as t.FailNow in a test's handler does), fails the task
// with Lambda.ServiceException rather than crashing or stalling the run;
// the timebase lets the goroutine of one that exits end (see routine and
// scaledTime.invoke).
func (c *call) runHandler() {
	returned := false
	defer func() {
		if r := recover(); r != nil {
			c.err = fmt.Errorf("executor: Invoker panicked: %v", r)
		} else if !returned {
			c.err = errors.New("executor: Invoker called runtime.Goexit instead of returning")
		}
		c.finished.Store(true)
	}()
	c.inv, c.err = c.x.e.opts.Invoker.Invoke(c.ctx, c.function, c.payload)
	returned = true
}

// invoke calls spec for the current Task state, which fails without an
// Invoker. Call with x.mu held; the timebase may release it while the
// handler runs.
func (x *execution) invoke(ctx context.Context, spec callSpec) {
	if x.e.opts.Invoker == nil {
		x.closeCallback()
		x.taskError(ctx, asl.RuntimeErrorf("no Invoker is configured in executor.Options to run %s", spec.function))
		return
	}
	c := newCall(ctx, x, spec)
	x.call = c
	x.e.clock.invoke(ctx, x, c)
}
