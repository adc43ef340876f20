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
	"github.com/redrive/redrive/room/pace"
)

// A message that fails transiently on its own backs off, each wait longer
// than the last (a short one in its execution, a longer one in the room),
// and is parked once MaxAttempts tries failed; the other messages are
// delivered and the breaker does not trip.
func TestPerMessageTransientFailuresBackOffThenPark(t *testing.T) {
	const maxAttempts, base = 4, 4 * time.Second
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

	// The tries: a short backoff waits in the execution (a Backoff Wait,
	// in its first cycle only), a longer one in the room, released by the
	// controller when it is due as the message's next execution.
	tries := triesByOrigin(t, s)[flaky]
	require.NotEmpty(t, tries)
	for i, tr := range tries {
		assert.Equal(t, executor.Succeeded, tr.Status)
		assert.Equal(t, i, tr.Runs, "execution %d is the message's run %d", i, i)
		if i < len(tries)-1 {
			assert.Equal(t, endQueued, tr.End, "execution %d waits in the room", i)
		}
	}
	assert.Equal(t, endParked, tries[len(tries)-1].End)
	assert.GreaterOrEqual(t, len(tries), 2, "a backoff past the first cycle waits in the room")
	assert.LessOrEqual(t, len(tries), maxAttempts-1, "a short backoff waits in the execution")
	var at []time.Time
	for _, c := range s.Target.Ledger().Calls() {
		if c.Records[0].OriginID == flaky {
			at = append(at, c.At)
		}
	}
	require.Len(t, at, maxAttempts)
	var waits []time.Duration
	for i := 1; i < len(at); i++ {
		waits = append(waits, at[i].Sub(at[i-1]))
	}
	t.Logf("backoff waits: %v; executions %v", waits, ends(tries))
	// The i-th wait is in [step/2, step] for step = base * 2^i (equal
	// jitter, rounded up to whole seconds), and a wait in the room up to a
	// controller's tick (and its wait rounded up to a second) longer: the
	// ranges hardly overlap, so the waits grow.
	tick := pace.Policy{}.WithDefaults().Tick
	for i, w := range waits {
		step := base << i
		assert.GreaterOrEqual(t, w, step/2, "wait %d", i)
		assert.LessOrEqual(t, w, step+2*tick, "wait %d", i)
	}
	assert.Greater(t, waits[len(waits)-1], waits[0])

	row, err := s.BreakerRow(t.Context(), "orders")
	require.NoError(t, err)
	assert.Equal(t, breaker.Closed, row.State, "fewer failures than the trip threshold")
	assert.EqualValues(t, maxAttempts, row.Totals.Failures)
	assert.EqualValues(t, maxAttempts, s.Target.Ledger().Count(simtarget.OutcomeRejected))
}
