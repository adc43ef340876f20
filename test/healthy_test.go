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
// Route, Delivered) and one Attempt invocation, and nobody waits in the
// room. (A burst beyond the pace waits in the room and is released at the
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
	byOrigin := costsByOrigin(t, s)
	for _, m := range s.Sent() {
		costs := byOrigin[m.ID]
		require.Len(t, costs, 1, "one execution for %s", m.ID)
		c := costs[0]
		assert.Equal(t, executor.Succeeded, c.Execution.Status)
		assert.Equal(t, []string{"Attempt", "Route", "Delivered"}, c.States)
		assert.Equal(t, 3, c.Transitions, "CLOSED path transitions")
		assert.Equal(t, c.Execution.Transitions, c.Transitions, "history agrees with the executor's count")
	}
	st := s.Stats()
	assert.EqualValues(t, n, st.Invocations[local.FunctionAttempt], "one Attempt invocation per message")
	assert.EqualValues(t, n, st.Invocations[local.FunctionConsumer], "one consumer invocation per message")
	assert.Zero(t, st.Invocations[local.FunctionPark])
	assert.Zero(t, st.Invocations[local.FunctionWaitRoom], "nobody waits in the room")
	assert.Zero(t, st.Invocations[local.FunctionRelease], "no releaser runs")
	assert.EqualValues(t, n, st.BreakerRows.Reads, "one breaker-row read per delivery")
	assert.LessOrEqual(t, st.BreakerRows.Writes, int64(breaker.Policy{}.WithDefaults().WindowSize),
		"no breaker write once the window is full of successes")
	row, err := s.BreakerRow(t.Context(), "orders")
	require.NoError(t, err)
	assert.Equal(t, breaker.Closed, row.State)
	assert.Zero(t, row.Totals.Failures)
	logCosts(t, s, "healthy")
}
