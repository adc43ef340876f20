package executor

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/emulate/asl/asltest"
)

// failsMachine waits $.s seconds, then fails if $.fail, else succeeds.
const failsMachine = `{"StartAt":"W","States":{
	"W":{"Type":"Wait","SecondsPath":"$.s","Next":"C"},
	"C":{"Type":"Choice","Choices":[{"Variable":"$.fail","BooleanEquals":true,"Next":"F"}],"Default":"P"},
	"F":{"Type":"Fail","Error":"Boom","Cause":"it failed"},
	"P":{"Type":"Pass","End":true}}}`

// compactionRun starts seven executions of failsMachine on e that end,
// one after the other, failed, succeeded or aborted, but for x5, and
// leaves e 100 seconds on: x6 ends last, at 60 seconds, and succeeds. It returns the
// state machine's ARN and the executions' ARNs.
func compactionRun(t *testing.T, e *Executor) (string, []string) {
	t.Helper()
	ctx := t.Context()
	start := e.Now()
	sm, err := e.CreateStateMachine(ctx, "fails", failsMachine, "")
	require.NoError(t, err)
	var arns []string
	for i, in := range []string{
		`{"s":50,"fail":true}`, `{"s":40,"fail":false}`, `{"s":30,"fail":true}`, `{"s":1000,"fail":false}`,
		`{"s":10,"fail":false}`, `{"s":5000,"fail":false}`, `{"s":60,"fail":false}`,
	} {
		x, err := e.StartExecution(ctx, sm, fmt.Sprintf("x%d", i), in)
		require.NoError(t, err)
		arns = append(arns, x.ARN)
	}
	require.NoError(t, e.RunUntil(ctx, start.Add(20*time.Second)))
	_, err = e.StopExecution(ctx, arns[3], "Operator", "stopped")
	require.NoError(t, err)
	require.NoError(t, e.RunUntil(ctx, start.Add(100*time.Second)))
	return sm, arns
}

// withoutData returns xs without their inputs and outputs.
func withoutData(xs ...Execution) []Execution {
	out := make([]Execution, len(xs))
	for i, x := range xs {
		x.Input, x.Output = nil, nil
		out[i] = x
	}
	return out
}

// TestCompactedExecutionsAnswerAsBefore runs the same executions on an
// executor that holds them whole and on one that compacts all but the
// last to finish: both describe and list them alike, in the same order,
// but for the data Options.Compact drops; their names stay taken, and
// stopping one changes nothing.
func TestCompactedExecutionsAnswerAsBefore(t *testing.T) {
	ctx := t.Context()
	whole := New(Options{})
	compact := New(Options{Compact: true, FinishedHistories: 1})
	sm, arns := compactionRun(t, whole)
	_, compactARNs := compactionRun(t, compact)
	require.Equal(t, arns, compactARNs)

	compacted := []int{0, 1, 2, 3, 4}
	records := compact.machines[sm].names
	for _, i := range compacted {
		assert.Nil(t, records[fmt.Sprintf("x%d", i)].x, "x%d is compacted", i)
	}
	assert.NotNil(t, records["x5"].x, "running")
	assert.NotNil(t, records["x6"].x, "the last to finish")

	for _, status := range []Status{"", Running, Succeeded, Failed, TimedOut, Aborted} {
		want, err := whole.ListExecutions(ctx, sm, status)
		require.NoError(t, err)
		got, err := compact.ListExecutions(ctx, sm, status)
		require.NoError(t, err)
		assert.Equal(t, withoutData(want...), withoutData(got...), "status %q", status)
	}
	for i, arn := range arns {
		want, err := whole.DescribeExecution(ctx, arn)
		require.NoError(t, err)
		got, err := compact.DescribeExecution(ctx, arn)
		require.NoError(t, err)
		assert.Equal(t, withoutData(want), withoutData(got), "x%d", i)
		assert.Nil(t, got.Input, "x%d", i)
		if i < 5 {
			assert.Nil(t, got.Output, "x%d is compacted", i)
		}
	}
	last, err := compact.DescribeExecution(ctx, arns[6])
	require.NoError(t, err)
	assert.JSONEq(t, `{"s":60,"fail":false}`, string(last.Output))
	failed, err := compact.DescribeExecution(ctx, arns[2])
	require.NoError(t, err)
	assert.Equal(t, Execution{
		ARN: arns[2], StateMachineARN: sm, Name: "x2", Status: Failed, Error: "Boom", Cause: "it failed",
		StartDate: compact.opts.Start, StopDate: compact.opts.Start.Add(30 * time.Second), Transitions: 3,
	}, failed)

	for _, i := range compacted {
		_, err := compact.History(ctx, arns[i])
		assert.ErrorIs(t, err, ErrHistoryEvicted, "x%d", i)
		_, err = compact.StartExecution(ctx, sm, fmt.Sprintf("x%d", i), `{"s":1}`)
		assert.ErrorIs(t, err, ErrExecutionAlreadyExists, "x%d's name is taken", i)
		described, err := compact.DescribeExecution(ctx, arns[i])
		require.NoError(t, err)
		stopped, err := compact.StopExecution(ctx, arns[i], "Operator", "again")
		require.NoError(t, err, "x%d", i)
		assert.Equal(t, described, stopped, "stopping x%d, which ended, changes nothing", i)
	}
	for _, i := range []int{5, 6} {
		_, err := compact.History(ctx, arns[i])
		assert.NoError(t, err, "x%d", i)
	}
	_, err = compact.DescribeExecution(ctx, compact.machines[sm].executionARN("x7"))
	assert.ErrorIs(t, err, ErrExecutionDoesNotExist)
	_, err = compact.DescribeExecution(ctx, "arn:aws:states:eu-west-1:123456789012:execution:fails:x0")
	assert.ErrorIs(t, err, ErrExecutionDoesNotExist, "another region")

	wantCounts, err := whole.Counts(ctx, sm)
	require.NoError(t, err)
	gotCounts, err := compact.Counts(ctx, sm)
	require.NoError(t, err)
	assert.Equal(t, wantCounts, gotCounts)
}

// TestCompactedExecutionTokens sends the task tokens of compacted
// executions: their tasks have closed, as they had before compaction.
func TestCompactedExecutionTokens(t *testing.T) {
	ctx := t.Context()
	tk := &tokens{}
	e := New(Options{Compact: true, FinishedHistories: 1, Invoker: funcInvoker{"wait": tk.invoke}})
	def := asltest.Wrap(callbackTask("wait", `,"End":true`))
	succeeded := startCallback(t, e, def, `{}`)
	first := tk.last(t)
	stopped := startCallback(t, e, def, `{}`)
	second := tk.last(t)
	require.NoError(t, e.SendTaskSuccess(ctx, first, `{}`))
	_, err := e.StopExecution(ctx, stopped, "", "")
	require.NoError(t, err)
	startCallback(t, e, def, `{}`)
	require.NoError(t, e.SendTaskSuccess(ctx, tk.last(t), `{}`))
	require.NoError(t, e.Run(ctx)) // the third ends last
	var sm *stateMachine
	for _, arn := range []string{succeeded, stopped} {
		f, err := e.lookup(arn)
		require.NoError(t, err)
		require.Nil(t, f.x, "%s is compacted", arn)
		sm = f.sm
	}

	for _, token := range []string{first, second} {
		assert.ErrorIs(t, e.SendTaskSuccess(ctx, token, `{}`), ErrTaskTimedOut)
		assert.ErrorIs(t, e.SendTaskFailure(ctx, token, "E", "C"), ErrTaskTimedOut)
		assert.ErrorIs(t, e.SendTaskHeartbeat(ctx, token), ErrTaskTimedOut)
		assert.ErrorIs(t, e.SendTaskSuccess(ctx, token, `{"a":`), ErrInvalidOutput, "the output is checked first, as before")
	}
	assert.ErrorIs(t, e.SendTaskSuccess(ctx, e.token(sm.executions[0].index, 2), `{}`), ErrTaskDoesNotExist, "an attempt it never made")
	assert.ErrorIs(t, e.SendTaskSuccess(ctx, e.token(99, 1), `{}`), ErrTaskDoesNotExist, "an execution never started")
	d, err := e.DescribeExecution(ctx, succeeded)
	require.NoError(t, err)
	assert.Equal(t, Succeeded, d.Status)
}

// TestRetentionEvictsCompactedExecutions evicts compacted executions an
// hour after they stopped: they are gone, names, tokens and all, while
// the tokens of the executions still held find them among the gaps.
func TestRetentionEvictsCompactedExecutions(t *testing.T) {
	ctx := t.Context()
	tk := &tokens{}
	e := New(Options{Compact: true, FinishedHistories: 1, Retention: time.Hour, Invoker: funcInvoker{"wait": tk.invoke}})
	start := e.Now()
	def := asltest.Wrap(callbackTask("wait", `,"End":true`))
	var arns, toks []string
	for range 4 {
		arns = append(arns, startCallback(t, e, def, `{}`))
		toks = append(toks, tk.last(t))
	}
	// x0, x1 and x2 end a minute apart; all but the last are compacted.
	for i := range 3 {
		require.NoError(t, e.SendTaskSuccess(ctx, toks[i], `{}`))
		require.NoError(t, e.RunUntil(ctx, start.Add(time.Duration(i+1)*time.Minute)))
	}
	var sm *stateMachine
	for _, arn := range arns[:2] {
		f, err := e.lookup(arn)
		require.NoError(t, err)
		require.Nil(t, f.x, "%s is compacted", arn)
		sm = f.sm
	}

	require.NoError(t, e.RunUntil(ctx, start.Add(time.Hour+30*time.Second)))
	_, err := e.DescribeExecution(ctx, arns[0])
	assert.ErrorIs(t, err, ErrExecutionDoesNotExist, "evicted")
	assert.ErrorIs(t, e.SendTaskSuccess(ctx, toks[0], `{}`), ErrTaskDoesNotExist, "evicted")
	assert.ErrorIs(t, e.SendTaskSuccess(ctx, toks[1], `{}`), ErrTaskTimedOut, "compacted, held")
	require.NoError(t, e.SendTaskSuccess(ctx, toks[3], `{}`), "running, past the gap x0 left")
	require.NoError(t, e.RunUntil(ctx, start.Add(time.Hour+31*time.Second))) // x3 ends
	list, err := e.ListExecutions(ctx, sm.ARN, "")
	require.NoError(t, err)
	var listed []string
	for _, x := range list {
		listed = append(listed, x.ARN)
	}
	assert.Equal(t, []string{arns[3], arns[2], arns[1]}, listed)

	require.NoError(t, e.RunUntil(ctx, start.Add(3*time.Hour)))
	assert.Empty(t, sm.names, "the records are freed")
	assert.Empty(t, sm.executions, "the list is compacted as it empties")
	again, err := e.StartExecution(ctx, sm.ARN, list[2].Name, `{}`)
	require.NoError(t, err, "an evicted compacted execution's name is free")
	assert.Equal(t, arns[1], again.ARN)
}
