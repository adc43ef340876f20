package test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/emulate/executor"
	"github.com/redrive/redrive/emulate/local"
)

// A healthy target and messages arriving under the pace: every message is
// delivered once, on the CLOSED path of exactly three transitions (Attempt,
// Route, Delivered) of one Express execution and one Attempt invocation,
// and nobody waits in the room. (A burst beyond the pace waits in the room and is released at the
// target's pace: TestOutageTripsWaitsRecoversAndDrains.)
func TestHealthyTargetDeliversEachMessageOnce(t *testing.T) {
	const n = 200
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := start(t, local.Options{Start: t0})
	// Five a second, half the starting pace (RELEASE_START_RATE, 10/s).
	for i, m := range bodies("healthy", n) {
		s.SendToDLQAt(t0.Add(time.Duration(i)*200*time.Millisecond), m)
	}
	drain(t, s)

	out := accountFor(t, s)
	assert.Len(t, out.delivered, n)
	assert.Empty(t, out.parked)
	byOrigin := triesByOrigin(t, s)
	for _, m := range s.Sent() {
		tries := byOrigin[m.ID]
		require.Len(t, tries, 1, "one execution for %s", m.ID)
		tr := tries[0]
		assert.Equal(t, executor.Succeeded, tr.Status)
		assert.Equal(t, endDelivered, tr.End)
		assert.Zero(t, tr.Runs, "started by the starter, not released from the room")
		assert.Equal(t, 3, tr.Transitions, "CLOSED path transitions: Attempt, Route, Delivered")
	}
	st := s.Stats()
	assert.EqualValues(t, n, st.Invocations[local.FunctionAttempt], "one Attempt invocation per message")
	assert.EqualValues(t, n, st.Invocations[local.FunctionConsumer], "one consumer invocation per message")
	assert.Zero(t, st.Invocations[local.FunctionPark])
	assert.Zero(t, st.Invocations[local.FunctionWaitRoom], "nobody waits in the room")
	assert.Zero(t, st.Invocations[local.FunctionRelease], "no releaser runs")
	// The attempt function admits on a CLOSED row at most a second old
	// (wire.AttemptClosedRowMaxAge), and the starter reads the breaker's
	// state at most once a second (starter.States' cache): about two reads
	// a second while messages arrive (40 seconds of them), not one per
	// delivery.
	span := time.Duration(n-1) * 200 * time.Millisecond
	perSecond := int64(span/time.Second) + 1
	t.Logf("breaker-row reads: %d for %d deliveries over %v", st.BreakerRows.Reads, n, span)
	assert.Positive(t, st.BreakerRows.Reads)
	assert.LessOrEqual(t, st.BreakerRows.Reads, 2*perSecond+2, "the attempt's and the starter's reads, once a second each at most")
	assert.LessOrEqual(t, st.BreakerRows.Writes, int64(breaker.Policy{}.WithDefaults().WindowSize),
		"no breaker write once the window is full of successes")
	row, err := s.BreakerRow(t.Context(), "orders")
	require.NoError(t, err)
	assert.Equal(t, breaker.Closed, row.State)
	assert.Zero(t, row.Totals.Failures)
	logCosts(t, s, "healthy")
}
