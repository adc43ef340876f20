package executor

import (
	"context"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/emulate/asl/asltest"
)

// clockCase is a clock the Close tests run on: a scaled one, or the
// virtual one with one or two workers.
type clockCase struct {
	name    string
	scaled  bool
	workers int
}

var clockCases = []clockCase{{"scaled", true, 1}, {"virtual", false, 1}, {"virtual, two workers", false, 2}}

// options are the executor's options on tb.
func (tb clockCase) options(t *testing.T) Options {
	opts := Options{Workers: tb.workers}
	if tb.scaled {
		opts.Scaled = scaledClock(t, 1000)
	}
	return opts
}

// startN creates a state machine of one Task invoking fn and starts n
// executions of it.
func startN(t *testing.T, e *Executor, fn string, n int) []string {
	t.Helper()
	ctx := t.Context()
	arn, err := e.CreateStateMachine(ctx, "m", asltest.Wrap(invokeTask(fn, `,"End":true`)), "")
	require.NoError(t, err)
	var arns []string
	for range n {
		x, err := e.StartExecution(ctx, arn, "", `{}`)
		require.NoError(t, err)
		arns = append(arns, x.ARN)
	}
	return arns
}

// TestCloseResumesHandlersSuspendedInDelay leaves three handlers suspended
// in an hour's Delay on the virtual clock, where RunUntil stops: Close
// resumes them with their context cancelled and their goroutines end.
func TestCloseResumesHandlersSuspendedInDelay(t *testing.T) {
	goroutines := ownGoroutines(t)
	before := goroutines()
	ended := make(chan error, 3)
	var suspended atomic.Int32
	e := New(Options{Invoker: funcInvoker{"slow": func(ctx context.Context, p []byte) (Invocation, error) {
		suspended.Add(1)
		Delay(ctx, time.Hour)
		suspended.Add(-1)
		ended <- ctx.Err()
		return Invocation{Payload: p}, nil
	}}})
	ctx := t.Context()
	arns := startN(t, e, "slow", 3)
	require.NoError(t, e.RunUntil(ctx, e.Now().Add(time.Minute)))
	// Counted by the handlers themselves: the process's goroutine count
	// also moves with what other tests left winding down.
	assert.Equal(t, int32(3), suspended.Load(), "three handlers are suspended")

	e.Close()
	goroutinesBackTo(t, goroutines, before)
	for range 3 {
		assert.ErrorIs(t, <-ended, context.Canceled)
	}
	x, err := e.DescribeExecution(ctx, arns[0])
	require.NoError(t, err, "executions can still be described")
	assert.Equal(t, Running, x.Status)
	_, err = e.StartExecution(ctx, x.StateMachineARN, "", `{}`)
	assert.ErrorIs(t, err, ErrClosed)
	assert.ErrorIs(t, e.Run(ctx), ErrClosed)
	assert.ErrorIs(t, e.RunUntil(ctx, e.Now().Add(time.Hour)), ErrClosed)
	e.Close() // again: nothing left to do
}

// TestCloseEndsHandlersOfCompactedExecutions stops two executions whose
// handlers are suspended in Delay, and compacts the first before the
// handlers are resumed: Close ends both handlers all the same.
func TestCloseEndsHandlersOfCompactedExecutions(t *testing.T) {
	goroutines := ownGoroutines(t)
	before := goroutines()
	ended := make(chan error, 2)
	e := New(Options{FinishedHistories: 1, Compact: true, Invoker: funcInvoker{"slow": func(ctx context.Context, p []byte) (Invocation, error) {
		Delay(ctx, time.Hour)
		ended <- ctx.Err()
		return Invocation{Payload: p}, nil
	}}})
	ctx := t.Context()
	arns := startN(t, e, "slow", 2)
	require.NoError(t, e.RunUntil(ctx, e.Now().Add(time.Minute)))
	for _, arn := range arns {
		_, err := e.StopExecution(ctx, arn, "", "")
		require.NoError(t, err)
	}
	// An instant already passed: nothing runs, not even the handlers'
	// wake-ups, but the first execution is compacted.
	require.NoError(t, e.RunUntil(ctx, e.Now().Add(-time.Second)))
	_, err := e.History(ctx, arns[0])
	require.ErrorIs(t, err, ErrHistoryEvicted, "the first execution is compacted")

	e.Close()
	goroutinesBackTo(t, goroutines, before)
	for range 2 {
		assert.ErrorIs(t, <-ended, context.Canceled)
	}
}

// TestCloseUnblocksRun closes an executor whose Run, in another goroutine,
// waits for handlers that block until their context ends: on a scaled
// clock, and on the virtual one (where a handler should not block, but
// Close still ends it).
func TestCloseUnblocksRun(t *testing.T) {
	for _, tb := range clockCases {
		t.Run(tb.name, func(t *testing.T) {
			goroutines := ownGoroutines(t)
			before := goroutines()
			opts := tb.options(t)
			started := make(chan struct{}, 2)
			opts.Invoker = funcInvoker{"block": func(ctx context.Context, p []byte) (Invocation, error) {
				started <- struct{}{}
				<-ctx.Done()
				return Invocation{Payload: p}, nil
			}}
			e := New(opts)
			startN(t, e, "block", 2)
			done := make(chan error, 1)
			go func() { done <- e.Run(t.Context()) }()
			<-started
			if tb.scaled || tb.workers > 1 {
				<-started // both run at once
			}

			e.Close()
			assert.ErrorIs(t, <-done, ErrClosed)
			goroutinesBackTo(t, goroutines, before)
		})
	}
}

func TestCloseIdle(t *testing.T) {
	goroutines := ownGoroutines(t)
	before := goroutines()
	e := New(Options{Scaled: scaledClock(t, 1000)})
	arn, err := e.CreateStateMachine(t.Context(), "m", asltest.Wrap(`{"Type":"Pass","End":true}`), "")
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() { done <- e.Run(t.Context()) }()
	e.Close()
	assert.ErrorIs(t, <-done, ErrClosed)
	_, err = e.StartExecution(t.Context(), arn, "", `{}`)
	assert.ErrorIs(t, err, ErrClosed)
	goroutinesBackTo(t, goroutines, before)
}

// TestHandlerThatExitsFailsItsTask runs handlers that call runtime.Goexit,
// as t.FailNow or require do, before and after a Delay: each fails its
// task with Lambda.ServiceException, the run goes on, and no goroutine is
// left behind once the executor closes.
func TestHandlerThatExitsFailsItsTask(t *testing.T) {
	for _, tb := range clockCases {
		t.Run(tb.name, func(t *testing.T) {
			goroutines := ownGoroutines(t)
			before := goroutines()
			opts := tb.options(t)
			opts.Invoker = funcInvoker{"exit": func(ctx context.Context, p []byte) (Invocation, error) {
				if string(p) == `{"delay":true}` {
					Delay(ctx, time.Second)
				}
				runtime.Goexit()
				return Invocation{}, nil
			}}
			e := New(opts)
			ctx, cancel := context.WithCancel(t.Context())
			arn, err := e.CreateStateMachine(ctx, "m", asltest.Wrap(invokeTask("exit", `,"End":true`)), "")
			require.NoError(t, err)
			var arns []string
			for _, in := range []string{`{}`, `{"delay":true}`, `{}`, `{"delay":true}`} {
				x, err := e.StartExecution(ctx, arn, "", in)
				require.NoError(t, err)
				arns = append(arns, x.ARN)
			}
			done := make(chan error, 1)
			go func() { done <- e.Run(ctx) }()
			require.Eventually(t, func() bool {
				for _, arn := range arns {
					if x, err := e.DescribeExecution(ctx, arn); err != nil || x.Status == Running {
						return false
					}
				}
				return true
			}, 5*time.Second, time.Millisecond)
			for _, arn := range arns {
				x, err := e.DescribeExecution(ctx, arn)
				require.NoError(t, err)
				assert.Equal(t, Failed, x.Status)
				assert.Equal(t, "Lambda.ServiceException", x.Error)
				assert.Contains(t, x.Cause, "runtime.Goexit")
			}
			if tb.scaled {
				cancel() // Run waits for work on a scaled clock
				assert.ErrorIs(t, <-done, context.Canceled)
			} else {
				assert.NoError(t, <-done)
			}
			e.Close()
			cancel()
			goroutinesBackTo(t, goroutines, before)
		})
	}
}

// TestCloseWaitsForHandlersThatExit closes an executor whose handler,
// suspended in Delay, calls runtime.Goexit once Close resumes it: its
// goroutines have ended when Close returns.
func TestCloseWaitsForHandlersThatExit(t *testing.T) {
	goroutines := ownGoroutines(t)
	before := goroutines()
	e := New(Options{Invoker: funcInvoker{"exit": func(ctx context.Context, p []byte) (Invocation, error) {
		Delay(ctx, time.Hour)
		runtime.Goexit()
		return Invocation{}, nil
	}}})
	startN(t, e, "exit", 2)
	require.NoError(t, e.RunUntil(t.Context(), e.Now().Add(time.Minute)))
	e.Close()
	assert.LessOrEqual(t, goroutines(), before, "goroutines left when Close returned")
}
