package executor

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/clock"
	"github.com/redrive/redrive/emulate/asl/asltest"
)

// scaledClock is a clock running scale times faster than the wall clock.
func scaledClock(t *testing.T, scale float64) *clock.Scaled {
	t.Helper()
	c, err := clock.NewScaled(scale, nil)
	require.NoError(t, err)
	return c
}

// deadlineProbe is what a handler saw of its deadlines.
type deadlineProbe struct {
	task, inner time.Time
	taskOK      bool
	slept       time.Duration
	err         error
}

// probeDeadlines is a handler that reads its Task state's deadline, sets
// one 10 s from now, and then takes a minute: Delay returns at the inner
// deadline, with its context ended by DeadlineExceeded.
func probeDeadlines(e *Executor, got *deadlineProbe) func(ctx context.Context, p []byte) (Invocation, error) {
	return func(ctx context.Context, p []byte) (Invocation, error) {
		got.task, got.taskOK = e.Deadline(ctx)
		start := e.Now()
		inner, cancel := e.WithDeadline(ctx, start.Add(10*time.Second))
		defer cancel()
		got.inner, _ = e.Deadline(inner)
		e.Sleep(inner, time.Minute)
		got.slept, got.err = e.Now().Sub(start), inner.Err()
		return Invocation{Payload: p}, nil
	}
}

func TestVirtualDeadlines(t *testing.T) {
	e := New(Options{})
	var got deadlineProbe
	e.opts.Invoker = funcInvoker{"probe": probeDeadlines(e, &got)}
	start := e.Now()
	arn := startCallback(t, e, asltest.Wrap(invokeTask("probe", `,"TimeoutSeconds":30,"End":true`)), `{}`)

	x, _ := describe(t, e, arn)
	assert.Equal(t, Succeeded, x.Status)
	require.True(t, got.taskOK, "a timed Task's handler has a deadline")
	assert.Equal(t, start.Add(30*time.Second), got.task, "the Task's TimeoutSeconds, on the virtual clock")
	assert.Equal(t, start.Add(10*time.Second), got.inner)
	assert.Equal(t, 10*time.Second, got.slept, "Delay wakes at the inner deadline")
	assert.ErrorIs(t, got.err, context.DeadlineExceeded)
}

func TestVirtualDeadlineNeverLaterThanItsParent(t *testing.T) {
	e := New(Options{})
	var got time.Time
	var err error
	e.opts.Invoker = funcInvoker{"f": func(ctx context.Context, p []byte) (Invocation, error) {
		inner, cancel := e.WithDeadline(ctx, e.Now().Add(time.Hour))
		defer cancel()
		got, _ = e.Deadline(inner)
		e.Sleep(inner, 2*time.Second)
		err = inner.Err()
		return Invocation{Payload: p}, nil
	}}
	start := e.Now()
	startCallback(t, e, asltest.Wrap(invokeTask("f", `,"TimeoutSeconds":5,"End":true`)), `{}`)
	assert.Equal(t, start.Add(5*time.Second), got)
	assert.NoError(t, err, "a sleep shorter than the deadline leaves the context running")
}

func TestVirtualDeadlineCancelAndPast(t *testing.T) {
	e := New(Options{})
	ctx, cancel := e.WithDeadline(context.Background(), e.Now().Add(time.Second))
	assert.NoError(t, ctx.Err())
	cancel()
	<-ctx.Done()
	assert.ErrorIs(t, ctx.Err(), context.Canceled)

	past, cancel := e.WithDeadline(context.Background(), e.Now().Add(-time.Second))
	defer cancel()
	assert.ErrorIs(t, past.Err(), context.DeadlineExceeded, "a deadline already passed has ended")

	parent, stop := context.WithCancel(context.Background())
	child, cancel := e.WithDeadline(parent, e.Now().Add(time.Hour))
	defer cancel()
	stop()
	<-child.Done()
	assert.ErrorIs(t, child.Err(), context.Canceled, "it ends with its parent")

	for range 100 { // the parent's end races with the making of the child
		child, cancel := e.WithDeadline(parent, e.Now().Add(time.Hour))
		<-child.Done()
		assert.ErrorIs(t, child.Err(), context.Canceled, "it ends with a parent that had ended")
		cancel()
	}
	_, ok := e.Deadline(context.Background())
	assert.False(t, ok)
}

func TestScaledClockHistoryAndHandlerTimeAgree(t *testing.T) {
	// At 100 times the wall clock, the 2 s allowed below are 20 ms of
	// wall time: a loaded machine's scheduling, not a wrong clock.
	e := New(Options{Scaled: scaledClock(t, 100)})
	var got deadlineProbe
	var at time.Time
	e.opts.Invoker = funcInvoker{"probe": func(ctx context.Context, p []byte) (Invocation, error) {
		at = e.Now()
		return probeDeadlines(e, &got)(ctx, p)
	}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = e.Run(ctx) }()
	arn, err := e.CreateStateMachine(ctx, "scaled", `{"StartAt":"W","States":{"W":{"Type":"Wait","Seconds":60,"Next":"T"},"T":`+
		invokeTask("probe", `,"TimeoutSeconds":30,"End":true`)+`}}`, "")
	require.NoError(t, err)
	x, err := e.StartExecution(ctx, arn, "", `{}`)
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		got, err := e.DescribeExecution(ctx, x.ARN)
		return err == nil && got.Status != Running
	}, 5*time.Second, time.Millisecond)

	events, err := e.History(ctx, x.ARN)
	require.NoError(t, err)
	var waited time.Time
	for _, ev := range events {
		if ev.Type == "TaskStateEntered" {
			waited = ev.Timestamp
		}
	}
	require.False(t, waited.IsZero())
	assert.WithinDuration(t, waited, at, 2*time.Second, "the handler's clock is the history's")
	assert.GreaterOrEqual(t, waited.Sub(x.StartDate), time.Minute, "the Wait took 60 s on the scaled clock")
	assert.WithinDuration(t, at.Add(30*time.Second), got.task, 2*time.Second)
	assert.InDelta(t, 10*time.Second, got.slept, float64(2*time.Second), "the inner deadline cut the sleep short")
	assert.ErrorIs(t, got.err, context.DeadlineExceeded)
}

func TestRegistryTimeoutOnTheExecutorsClock(t *testing.T) {
	reg := NewRegistry()
	e := New(Options{Invoker: reg})
	var deadline time.Time
	require.NoError(t, reg.RegisterFunction("slow", func(ctx context.Context, in map[string]any) (map[string]any, error) {
		deadline, _ = e.Deadline(ctx)
		e.Sleep(ctx, 2*time.Minute)
		return in, nil
	}, Function{Timeout: time.Minute}))
	start := e.Now()
	arn := startCallback(t, e, asltest.Wrap(invokeTask("slow", `,"End":true`)), `{}`)
	x, _ := describe(t, e, arn)
	assert.Equal(t, Failed, x.Status)
	assert.Equal(t, "Sandbox.Timedout", x.Error)
	assert.Contains(t, x.Cause, "Task timed out after 60.00 seconds")
	assert.Equal(t, start.Add(time.Minute), deadline, "the function's timeout, on the virtual clock")
	assert.Equal(t, time.Minute, x.StopDate.Sub(x.StartDate), "it ran until its timeout")
}

// TestVirtualDeadlineEndsContextsMadeFromIt derives contexts from one set
// with WithDeadline, as a handler does (context.WithCancel,
// context.AfterFunc), and ends it: each ends, or runs, with it; the ones
// stopped or cancelled first do not. Deriving starts no goroutine to wait
// for the deadline (AfterFunc): a simulation derives millions.
func TestVirtualDeadlineEndsContextsMadeFromIt(t *testing.T) {
	goroutines := ownGoroutines(t)
	e := New(Options{})
	dl, end := e.WithDeadline(context.Background(), e.Now().Add(time.Hour))
	before := goroutines()
	var children []context.Context
	for range 100 {
		child, cancel := context.WithCancel(dl)
		t.Cleanup(cancel)
		children = append(children, child)
	}
	assert.Equal(t, before, goroutines(), "no goroutine waits for the deadline")
	early, cancelEarly := context.WithCancel(dl)
	cancelEarly()
	ran := make(chan struct{})
	context.AfterFunc(dl, func() { close(ran) })
	stopped := context.AfterFunc(dl, func() { t.Error("a stopped AfterFunc ran") })
	assert.True(t, stopped(), "stopped before the deadline ends")
	assert.False(t, stopped(), "stopped once")

	end()
	for _, child := range children {
		<-child.Done()
		assert.ErrorIs(t, child.Err(), context.Canceled)
	}
	assert.ErrorIs(t, early.Err(), context.Canceled)
	<-ran
	late := make(chan struct{})
	context.AfterFunc(dl, func() { close(late) })
	<-late // runs at once: the deadline has ended
}
