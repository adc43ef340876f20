package executor

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/emulate/liveheap"
	"github.com/redrive/redrive/emulate/racecheck"
)

// maxBytesPerFinished bounds the heap a finished execution costs once
// Options.Compact has compacted it: its record (the summary), its name
// (11 characters here) and its places in its state machine's list and
// map of names. It measures 155-162 bytes (some 760 when a compacted
// execution kept its whole execution struct and an ARN, in two maps).
const maxBytesPerFinished = 200

// TestMemoryPerFinishedExecution runs executions to completion with
// Options.Compact, a hundred at a time as a simulation starts them, and
// measures the heap each one holds afterwards: a simulation of a million
// messages keeps a million of them.
func TestMemoryPerFinishedExecution(t *testing.T) {
	if racecheck.Enabled || testing.Short() {
		t.Skip("heap measurement: without -race and -short")
	}
	ctx := t.Context()
	e := New(Options{Compact: true, FinishedHistories: 10, RunningHistories: 10})
	arn, err := e.CreateStateMachine(ctx, "pass", `{"StartAt":"P","States":{"P":{"Type":"Pass","End":true}}}`, "")
	require.NoError(t, err)
	// run runs the executions numbered from to to-1, a hundred at a time.
	run := func(from, to int) int64 {
		for i := from; i < to; i++ {
			_, err := e.StartExecution(ctx, arn, fmt.Sprintf("msg-%07d", i), `{"id":1}`)
			require.NoError(t, err)
			if i%100 == 99 {
				require.NoError(t, e.Run(ctx))
			}
		}
		require.NoError(t, e.Run(ctx))
		return liveheap.Bytes()
	}
	const n = 20000
	before := run(0, 1000)
	after := run(1000, 1000+n)
	perExecution := (after - before) / n
	t.Logf("%d bytes of heap per finished execution", perExecution)
	assert.LessOrEqual(t, perExecution, int64(maxBytesPerFinished))
	c, err := e.Counts(ctx, arn)
	require.NoError(t, err)
	assert.EqualValues(t, 1000+n, c.Succeeded)
}
