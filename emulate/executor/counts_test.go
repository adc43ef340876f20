package executor

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCountsFinishedAndCompaction runs five executions that wait one to
// five seconds, with room for two histories at once and two finished
// ones, compacting the rest: the running totals count what ran, Finished
// sees each execution end in order with its output, the histories are a
// sample, and a compacted execution keeps its summary only, and no
// execution its input.
func TestCountsFinishedAndCompaction(t *testing.T) {
	ctx := t.Context()
	var ended []Execution
	e := New(Options{RunningHistories: 2, FinishedHistories: 2, Compact: true,
		Finished: func(x Execution) { ended = append(ended, x) }})
	arn, err := e.CreateStateMachine(ctx, "waits", waitsMachine, "")
	require.NoError(t, err)
	var arns []string
	for i := range 5 {
		x, err := e.StartExecution(ctx, arn, fmt.Sprintf("x%d", i), fmt.Sprintf(`{"s":%d}`, i+1))
		require.NoError(t, err)
		arns = append(arns, x.ARN)
	}
	c, err := e.Counts(ctx, arn)
	require.NoError(t, err)
	assert.Equal(t, Counts{Started: 5, Running: 5, TransitionsByType: map[string]int64{}}, c, "none has entered its first state yet")
	running, err := e.DescribeExecution(ctx, arns[0])
	require.NoError(t, err)
	assert.Nil(t, running.Input, "a running execution keeps a hash of its input, not the text")
	same, err := e.StartExecution(ctx, arn, "x0", `{"s":1}`)
	require.NoError(t, err, "the same name and input while running: idempotent, by hash")
	assert.Equal(t, arns[0], same.ARN)
	_, err = e.StartExecution(ctx, arn, "x0", `{"s":9}`)
	assert.ErrorIs(t, err, ErrExecutionAlreadyExists, "another input")

	_, err = e.History(ctx, arns[1])
	require.NoError(t, err, "the first two record their histories")
	_, err = e.History(ctx, arns[2])
	assert.ErrorIs(t, err, ErrHistoryNotRecorded, "the third started while two were recording")

	require.NoError(t, e.Run(ctx))
	c, err = e.Counts(ctx, arn)
	require.NoError(t, err)
	assert.Equal(t, Counts{Started: 5, Succeeded: 5, Transitions: 10, TransitionsByType: map[string]int64{"Wait": 5, "Pass": 5}}, c)

	require.Len(t, ended, 5)
	for i, x := range ended {
		assert.Equal(t, fmt.Sprintf("x%d", i), x.Name, "in the order they ended")
		assert.Equal(t, Succeeded, x.Status)
		assert.JSONEq(t, fmt.Sprintf(`{"s":%d}`, i+1), string(x.Output), "Finished sees the output")
		assert.Equal(t, 2, x.Transitions)
	}

	first, err := e.DescribeExecution(ctx, arns[0])
	require.NoError(t, err)
	assert.Nil(t, first.Input, "compacted")
	assert.Nil(t, first.Output, "compacted")
	assert.Equal(t, Succeeded, first.Status)
	assert.Equal(t, 2, first.Transitions)
	assert.False(t, first.StopDate.IsZero())
	last, err := e.DescribeExecution(ctx, arns[4])
	require.NoError(t, err)
	assert.JSONEq(t, `{"s":5}`, string(last.Output), "the last two finished keep their output")
	assert.Nil(t, last.Input, "no execution keeps its input")
	_, err = e.History(ctx, arns[3])
	assert.ErrorIs(t, err, ErrHistoryNotRecorded)

	again, err := e.StartExecution(ctx, arn, "x5", `{"s":1}`)
	require.NoError(t, err)
	require.NoError(t, e.Run(ctx))
	h, err := e.History(ctx, again.ARN)
	require.NoError(t, err, "the slots freed as the first two ended")
	assert.Len(t, h, 6)
}

func TestReadsExecutionInput(t *testing.T) {
	for def, want := range map[string]bool{
		`{"a.$":"$$.Execution.Id","t.$":"$$.Task.Token"}`:    false,
		`{"a.$":"$$.State.Name","m.$":"$$.StateMachine.Id"}`: false,
		`{"a.$":"$$.Execution.Input.x"}`:                     true,
		`{"a.$":"$$.Execution"}`:                             true,
		`{"a.$":"$$"}`:                                       true,
		`{"a.$":"States.JsonToString($$.Execution)"}`:        true,
		`{"a.$":"$.x"}`:                                      false,
	} {
		assert.Equal(t, want, readsExecutionInput(def), def)
	}
}
