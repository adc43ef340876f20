package executor

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/emulate/asl/asltest"
)

// TestRetentionEvictsExecutions runs executions that stop 1 minute, 30
// minutes and 2 hours after they start, with an hour's retention: each is
// evicted, description and history, an hour after it stopped, and its
// name may then be used again.
func TestRetentionEvictsExecutions(t *testing.T) {
	ctx := t.Context()
	e := New(Options{Retention: time.Hour})
	start := e.Now()
	arn, err := e.CreateStateMachine(ctx, "waits", waitsMachine, "")
	require.NoError(t, err)
	var arns []string
	for i, secs := range []int{60, 1800, 7200} {
		x, err := e.StartExecution(ctx, arn, fmt.Sprintf("x%d", i), fmt.Sprintf(`{"s":%d}`, secs))
		require.NoError(t, err)
		arns = append(arns, x.ARN)
	}
	listed := func() []string {
		t.Helper()
		list, err := e.ListExecutions(ctx, arn, "")
		require.NoError(t, err)
		var names []string
		for _, x := range list {
			names = append(names, x.Name)
		}
		return names
	}
	gone := func(i int) {
		t.Helper()
		_, err := e.DescribeExecution(ctx, arns[i])
		assert.ErrorIs(t, err, ErrExecutionDoesNotExist, "execution %d is described", i)
		_, err = e.History(ctx, arns[i])
		assert.ErrorIs(t, err, ErrExecutionDoesNotExist, "execution %d has a history", i)
	}
	kept := func(i int, status Status) {
		t.Helper()
		x, err := e.DescribeExecution(ctx, arns[i])
		require.NoError(t, err, "execution %d", i)
		assert.Equal(t, status, x.Status, "execution %d", i)
		_, err = e.History(ctx, arns[i])
		assert.NoError(t, err, "execution %d", i)
	}

	require.NoError(t, e.RunUntil(ctx, start.Add(time.Hour+time.Minute-time.Nanosecond)))
	kept(0, Succeeded)
	require.NoError(t, e.RunUntil(ctx, start.Add(time.Hour+time.Minute)))
	gone(0)
	kept(1, Succeeded)
	kept(2, Running)
	assert.Equal(t, []string{"x2", "x1"}, listed())

	require.NoError(t, e.RunUntil(ctx, start.Add(3*time.Hour)))
	gone(1)
	gone(2)
	assert.Empty(t, listed())

	again, err := e.StartExecution(ctx, arn, "x0", `{"s":1}`)
	require.NoError(t, err, "an evicted execution's name is free")
	assert.Equal(t, arns[0], again.ARN)
	assert.Equal(t, []string{"x0"}, listed())
}

func TestRetentionEvictsWhileRunning(t *testing.T) {
	ctx := t.Context()
	e := New(Options{Retention: time.Minute})
	arn, err := e.CreateStateMachine(ctx, "waits", waitsMachine, "")
	require.NoError(t, err)
	for i := range 10 {
		_, err := e.StartExecution(ctx, arn, "", fmt.Sprintf(`{"s":%d}`, 60*(i+1)))
		require.NoError(t, err)
	}
	require.NoError(t, e.Run(ctx))
	list, err := e.ListExecutions(ctx, arn, "")
	require.NoError(t, err)
	require.Len(t, list, 1, "those that stopped a minute or more before the last are evicted")
	assert.Equal(t, e.Now(), list[0].StopDate)
}

func TestRetentionEvictsTaskTokens(t *testing.T) {
	ctx := t.Context()
	tk := &tokens{}
	e := New(Options{Retention: time.Hour, Invoker: funcInvoker{"wait": tk.invoke}})
	startCallback(t, e, asltest.Wrap(callbackTask("wait", `,"TimeoutSeconds":60,"End":true`)), `{}`)
	token := tk.last(t)
	require.NoError(t, e.RunUntil(ctx, e.Now().Add(2*time.Minute)))
	assert.ErrorIs(t, e.SendTaskSuccess(ctx, token, `{}`), ErrTaskTimedOut, "the task timed out")
	require.NoError(t, e.RunUntil(ctx, e.Now().Add(time.Hour)))
	assert.ErrorIs(t, e.SendTaskSuccess(ctx, token, `{}`), ErrTaskDoesNotExist, "its execution is evicted")
}

// TestRetentionBoundsMemory starts an execution every second for an hour
// and a half, each with a TimeoutSeconds timer an hour ahead, with a
// minute's retention: the executor holds about a minute's worth of
// executions, and its timeline does not keep the stale timers of the
// evicted ones.
func TestRetentionBoundsMemory(t *testing.T) {
	ctx := t.Context()
	e := New(Options{Retention: time.Minute})
	arn, err := e.CreateStateMachine(ctx, "quick", `{"StartAt":"P","TimeoutSeconds":3600,"States":{"P":{"Type":"Pass","End":true}}}`, "")
	require.NoError(t, err)
	var started, executions, listed, timeline int
	var next func(context.Context)
	next = func(context.Context) {
		e.mu.Lock()
		sm := e.machines[arn]
		executions = max(executions, len(sm.names))
		listed = max(listed, len(sm.executions))
		e.mu.Unlock()
		e.sched.mu.Lock()
		timeline = max(timeline, len(e.sched.queue))
		e.sched.mu.Unlock()
		_, err := e.StartExecution(ctx, arn, "", `{}`)
		assert.NoError(t, err)
		if started++; started < 5400 {
			e.At(e.Now().Add(time.Second), next)
		}
	}
	e.At(e.Now(), next)
	require.NoError(t, e.Run(ctx))
	assert.Equal(t, 5400, started)
	assert.LessOrEqual(t, executions, 61, "executions held")
	assert.LessOrEqual(t, listed, 2*61+1, "the state machine's list of executions")
	assert.Less(t, timeline, 2*minCompaction, "events on the timeline")
}

func TestRetentionEvictsWhileIdleOnAScaledClock(t *testing.T) {
	e := New(Options{Scaled: scaledClock(t, 1000), Retention: time.Minute}) // 60 ms of wall time
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- e.Run(ctx) }()
	arn, err := e.CreateStateMachine(ctx, "pass", asltest.Wrap(`{"Type":"Pass","End":true}`), "")
	require.NoError(t, err)
	x, err := e.StartExecution(ctx, arn, "", `{}`)
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		got, err := e.DescribeExecution(ctx, x.ARN)
		return err == nil && got.Status == Succeeded
	}, 5*time.Second, time.Millisecond)
	require.Eventually(t, func() bool {
		_, err := e.DescribeExecution(ctx, x.ARN)
		return err != nil
	}, 5*time.Second, time.Millisecond, "evicted with nothing else to run")
	_, err = e.DescribeExecution(ctx, x.ARN)
	assert.ErrorIs(t, err, ErrExecutionDoesNotExist)
	cancel()
	assert.ErrorIs(t, <-done, context.Canceled)
}

// TestADrainDropsTheTimersOfTheEndedExecutions starts executions with an
// execution timeout hours ahead that all end a second later, and nothing
// after: the timeline does not grow again, yet it drops their stale timers
// (which would hold the ended executions in memory until due).
func TestADrainDropsTheTimersOfTheEndedExecutions(t *testing.T) {
	ctx := t.Context()
	e := New(Options{Compact: true, FinishedHistories: 10})
	arn, err := e.CreateStateMachine(ctx, "wait",
		`{"StartAt":"W","TimeoutSeconds":36000,"States":{"W":{"Type":"Wait","Seconds":1,"End":true}}}`, "")
	require.NoError(t, err)
	const n = 5000
	for range n {
		_, err := e.StartExecution(ctx, arn, "", `{}`)
		require.NoError(t, err)
	}
	timeline := func() int {
		e.sched.mu.Lock()
		defer e.sched.mu.Unlock()
		return len(e.sched.queue)
	}
	require.NoError(t, e.RunUntil(ctx, e.Now().Add(500*time.Millisecond)))
	require.Greater(t, timeline(), n, "precondition: every execution's timeout and wait")
	require.NoError(t, e.RunUntil(ctx, e.Now().Add(time.Second)))
	c, err := e.Counts(ctx, arn)
	require.NoError(t, err)
	require.EqualValues(t, n, c.Succeeded)
	assert.Less(t, timeline(), minCompaction, "the ended executions' timeouts are dropped")
}
