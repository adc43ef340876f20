package executor

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/emulate/asl/asltest"
	"github.com/redrive/redrive/emulate/quota"
)

// createExpress creates definition as an Express state machine on e.
func createExpress(t *testing.T, e *Executor, definition string) string {
	t.Helper()
	arn, err := e.CreateStateMachineOfType(context.Background(), "fast", Express, definition, "")
	require.NoError(t, err)
	return arn
}

// TestExpressRefusesCallbackTasks: an Express definition whose Task waits
// for a task token is refused at creation, as AWS refuses it; the same
// definition is a Standard state machine.
func TestExpressRefusesCallbackTasks(t *testing.T) {
	e := New(Options{})
	def := asltest.Wrap(callbackTask("cb", `,"End":true`))
	_, err := e.CreateStateMachineOfType(context.Background(), "fast", Express, def, "")
	require.ErrorIs(t, err, ErrInvalidDefinition)
	assert.ErrorContains(t, err, "Express state machines do not support the '.waitForTaskToken' service integration pattern")
	_, err = e.CreateStateMachine(context.Background(), "slow", def, "")
	assert.NoError(t, err)
}

// TestExpressExecutionsAreNotDeduplicated starts one name twice: two
// executions, each with its own ARN under "express:", both named so in
// the context object, neither with a history.
func TestExpressExecutionsAreNotDeduplicated(t *testing.T) {
	var names []string
	e := New(Options{Invoker: funcInvoker{"name": func(ctx context.Context, p []byte) (Invocation, error) {
		names = append(names, string(p))
		return Invocation{Payload: p}, nil
	}}})
	ctx := context.Background()
	arn := createExpress(t, e, `{"StartAt":"T","States":{"T":{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke",
		"Parameters":{"FunctionName":"name","Payload.$":"$$.Execution.Name"},"End":true}}}`)
	first, err := e.StartExecution(ctx, arn, "m-1-1", `{}`)
	require.NoError(t, err)
	second, err := e.StartExecution(ctx, arn, "m-1-1", `{}`)
	require.NoError(t, err)
	assert.NotEqual(t, first.ARN, second.ARN)
	assert.Contains(t, first.ARN, ":express:fast:m-1-1:")
	require.NoError(t, e.Run(ctx))
	assert.Equal(t, []string{`"m-1-1"`, `"m-1-1"`}, names)
	for _, x := range []Execution{first, second} {
		got, err := e.DescribeExecution(ctx, x.ARN)
		require.NoError(t, err)
		assert.Equal(t, Succeeded, got.Status)
		_, err = e.History(ctx, x.ARN)
		assert.ErrorIs(t, err, ErrHistoryNotRecorded, "Express keeps no history")
	}
}

// TestExpressTimesOutAfterFiveMinutes waits ten minutes in an Express
// execution: it times out at five, and its billed duration is five
// minutes; one that ends in 250 ms is billed 300 ms.
func TestExpressTimesOutAfterFiveMinutes(t *testing.T) {
	e := New(Options{Invoker: funcInvoker{"quick": func(ctx context.Context, p []byte) (Invocation, error) {
		Delay(ctx, 250*time.Millisecond)
		return Invocation{Payload: p}, nil
	}}})
	ctx := context.Background()
	slow := createExpress(t, e, `{"StartAt":"W","States":{"W":{"Type":"Wait","Seconds":600,"End":true}}}`)
	x, err := e.StartExecution(ctx, slow, "", `{}`)
	require.NoError(t, err)
	quick, err := e.CreateStateMachineOfType(ctx, "quick", Express, asltest.Wrap(invokeTask("quick", `,"End":true`)), "")
	require.NoError(t, err)
	_, err = e.StartExecution(ctx, quick, "", `{}`)
	require.NoError(t, err)
	require.NoError(t, e.Run(ctx))

	got, err := e.DescribeExecution(ctx, x.ARN)
	require.NoError(t, err)
	assert.Equal(t, TimedOut, got.Status)
	assert.Equal(t, ExpressMaxDuration, got.StopDate.Sub(got.StartDate))
	c, err := e.Counts(ctx, slow)
	require.NoError(t, err)
	assert.Equal(t, ExpressMaxDuration, c.BilledDuration)
	c, err = e.Counts(ctx, quick)
	require.NoError(t, err)
	assert.Equal(t, 300*time.Millisecond, c.BilledDuration, "rounded up to 100 ms")
}

// TestExpressQuotas: Express starts come from their own bucket, do not
// count among the open Standard executions, and their transitions do not
// wait for the account's transition bucket.
func TestExpressQuotas(t *testing.T) {
	e := newQuotaExecutor(nil, map[quota.Name]quota.Rate{
		quota.StandardStart: {Burst: 1, PerSecond: 1}, quota.ExpressStart: {Burst: 3, PerSecond: 1},
		quota.Transitions: {Burst: 1, PerSecond: 1}}, map[quota.Name]int{quota.OpenStandard: 1})
	ctx := context.Background()
	arn := createExpress(t, e, passChain)
	for range 3 {
		_, err := e.StartExecution(ctx, arn, "", `{}`)
		require.NoError(t, err, "the Express bucket, and no open-execution limit")
	}
	_, err := e.StartExecution(ctx, arn, "", `{}`)
	require.ErrorIs(t, err, ErrThrottled)
	start := e.Now()
	require.NoError(t, e.Run(ctx))
	assert.Equal(t, start, e.Now(), "no transition waited")
	r := e.opts.Quotas.Report()
	assert.Zero(t, r.PeakOpenStandard)
	assert.Zero(t, r.Throttles[quota.Transitions])
	assert.Equal(t, int64(1), r.Throttles[quota.ExpressStart])
}

// TestExpressExecutionsSurviveARestart snapshots an Express execution in
// its Wait and a finished one: both are restored under their ARNs (a name
// and an id), the running one ends its Wait at its time, and neither has
// a history after the restart either.
func TestExpressExecutionsSurviveARestart(t *testing.T) {
	ctx := context.Background()
	e := New(Options{})
	start := e.Now()
	arn := createExpress(t, e, `{"StartAt":"W","States":{"W":{"Type":"Wait","Seconds":60,"End":true}}}`)
	done, err := e.StartExecution(ctx, arn, "m-1-1", `{}`)
	require.NoError(t, err)
	require.NoError(t, e.RunUntil(ctx, start.Add(30*time.Second)))
	waiting, err := e.StartExecution(ctx, arn, "m-1-1", `{}`)
	require.NoError(t, err)
	require.NoError(t, e.RunUntil(ctx, start.Add(70*time.Second)))

	var buf bytes.Buffer
	require.NoError(t, e.Snapshot(&buf))
	e.Close()
	e, err = Restore(&buf, Options{})
	require.NoError(t, err, "an Express execution's recorded name holds its id")
	defer e.Close()
	got, err := e.DescribeExecution(ctx, done.ARN)
	require.NoError(t, err)
	assert.Equal(t, Succeeded, got.Status)
	got, err = e.DescribeExecution(ctx, waiting.ARN)
	require.NoError(t, err)
	assert.Equal(t, Running, got.Status)
	require.NoError(t, e.Run(ctx))
	got, err = e.DescribeExecution(ctx, waiting.ARN)
	require.NoError(t, err)
	assert.Equal(t, Succeeded, got.Status)
	assert.Equal(t, start.Add(90*time.Second), got.StopDate, "its Wait ended at its time")
	for _, x := range []Execution{done, waiting} {
		_, err = e.History(ctx, x.ARN)
		assert.ErrorIs(t, err, ErrHistoryNotRecorded, "Express keeps no history after a restart either")
	}
}
