package test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/attempt"
	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/emulate/executor"
	"github.com/redrive/redrive/emulate/local"
	"github.com/redrive/redrive/emulate/simtarget"
	"github.com/redrive/redrive/message"
)

// A message that fails transiently on its own backs off, each wait longer
// than the last, and is parked once MaxAttempts tries failed; the other
// messages are delivered and the breaker does not trip.
func TestPerMessageTransientFailuresBackOffThenPark(t *testing.T) {
	const maxAttempts, base = 4, 10 * time.Second
	s := start(t, local.Options{
		Attempt: attempt.Config{MaxAttempts: maxAttempts, BackoffBase: base},
		Target:  simtarget.Options{Reject: simtarget.BodyContains("FLAKY")},
	})
	msgs := bodies("transient", 10)
	msgs[3].Body = `{"order":"FLAKY"}`
	ids := send(t, s, msgs...)
	drain(t, s)

	out := accountFor(t, s)
	assert.Len(t, out.delivered, 9)
	require.Len(t, out.parked, 1)
	flaky := ids[3]
	rec := out.parked[flaky].Record
	assert.Equal(t, `{"order":"FLAKY"}`, out.parked[flaky].Message.Body)
	assert.True(t, strings.HasPrefix(rec.Reason, "exhausted: 4 attempts, last error Rejected"), rec.Reason)
	assert.Equal(t, maxAttempts, rec.Tries)
	require.Len(t, rec.History, maxAttempts)
	for i, f := range rec.History {
		assert.Equal(t, i+1, f.Try)
		assert.Equal(t, message.OutcomeTransient, f.Outcome)
		assert.Equal(t, "Rejected", f.ErrorType)
	}

	costs := costsByOrigin(t, s)[flaky]
	require.Len(t, costs, 1)
	c := costs[0]
	assert.Equal(t, executor.Succeeded, c.Execution.Status)
	assert.Equal(t, []string{
		"Attempt", "Route", "Cooldown", "Attempt", "Route", "Cooldown", "Attempt", "Route", "Cooldown",
		"Attempt", "Route", "Park", "Parked",
	}, c.States)
	require.Len(t, c.Waits, maxAttempts-1)
	t.Logf("backoff waits: %v", c.Waits)
	// The i-th wait is in [step/2, step] for step = base * 2^i (equal
	// jitter, rounded up to whole seconds): the ranges only touch, so the
	// waits grow.
	for i, w := range c.Waits {
		step := base << i
		assert.GreaterOrEqual(t, w, step/2, "wait %d", i)
		assert.LessOrEqual(t, w, step, "wait %d", i)
		if i > 0 {
			assert.GreaterOrEqual(t, w, c.Waits[i-1], "wait %d grows", i)
		}
	}
	assert.Greater(t, c.Waits[len(c.Waits)-1], c.Waits[0])

	row, err := s.BreakerRow(t.Context(), "orders")
	require.NoError(t, err)
	assert.Equal(t, breaker.Closed, row.State, "fewer failures than the trip threshold")
	assert.EqualValues(t, maxAttempts, row.Totals.Failures)
	assert.EqualValues(t, maxAttempts, s.Target.Ledger().Count(simtarget.OutcomeRejected))
}
