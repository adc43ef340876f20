package test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/internal/localrun"
	"github.com/redrive/redrive/statemachine/local"
)

// A healthy target: every message is delivered once, on the CLOSED path
// of exactly three transitions (Attempt, Route, Delivered) and one Attempt
// invocation.
func TestHealthyTargetDeliversEachMessageOnce(t *testing.T) {
	const n = 200
	s := start(t, localrun.Options{})
	send(t, s, bodies("healthy", n)...)
	drain(t, s)

	out := accountFor(t, s)
	assert.Len(t, out.delivered, n)
	assert.Empty(t, out.parked)
	byOrigin := costsByOrigin(t, s)
	for _, m := range s.Sent() {
		costs := byOrigin[m.ID]
		require.Len(t, costs, 1, "one execution for %s", m.ID)
		c := costs[0]
		assert.Equal(t, local.Succeeded, c.Execution.Status)
		assert.Equal(t, []string{"Attempt", "Route", "Delivered"}, c.States)
		assert.Equal(t, 3, c.Transitions, "CLOSED path transitions")
		assert.Equal(t, c.Execution.Transitions, c.Transitions, "history agrees with the executor's count")
	}
	st := s.Stats()
	assert.EqualValues(t, n, st.Invocations[localrun.FunctionAttempt], "one Attempt invocation per message")
	assert.EqualValues(t, n, st.Invocations[localrun.FunctionConsumer], "one consumer invocation per message")
	assert.Zero(t, st.Invocations[localrun.FunctionPark])
	row, err := s.BreakerRow(t.Context(), "orders")
	require.NoError(t, err)
	assert.Equal(t, breaker.Closed, row.State)
	assert.Zero(t, row.Totals.Failures)
	logCosts(t, s, "healthy")
}
