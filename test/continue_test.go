package test

import (
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

// A long outage: each execution continues as a new one after MaxCycles
// Attempt cycles, so no history grows past a small bound, and the message
// is still delivered exactly once when the target is back.
func TestLongOutageContinuesAsNewExecutions(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	const n, maxCycles, outage = 3, 5, 2 * time.Hour
	s := start(t, local.Options{
		Start:   t0,
		Policy:  breaker.Policy{ConsecutiveFailures: n},
		Attempt: attempt.Config{MaxCycles: maxCycles, MaxAttempts: 50},
		Target:  simtarget.Options{Schedule: simtarget.Outage(t0, outage)},
	})
	ids := send(t, s, bodies("long", n)...)
	drain(t, s)

	out := accountFor(t, s)
	assert.Len(t, out.delivered, n)

	// Per cycle at most 13 events: the Attempt Task (5), Route (2), and the
	// WaitingRoom Task (6: its callback adds TaskSubmitted) or the scout's
	// Cooldown (2). The last execution's cycle ends in Delivered, a
	// continued one's in the Continue Task (5) and Continued (2); plus the
	// execution's start and end.
	maxEvents := 13*(maxCycles+1) + 5 + 2 + 2
	byOrigin := costsByOrigin(t, s)
	for _, id := range ids {
		costs := byOrigin[id]
		require.GreaterOrEqual(t, len(costs), 2, "message %s continued at least once", id)
		for i, c := range costs {
			want := message.ExecutionName(id, 1, i)
			assert.Equal(t, want, c.Execution.Name, "execution %d of %s", i, id)
			assert.Equal(t, executor.Succeeded, c.Execution.Status)
			assert.LessOrEqual(t, c.Events, maxEvents, "history of %s stays bounded", c.Execution.Name)
			last := c.States[len(c.States)-1]
			if i < len(costs)-1 {
				assert.Equal(t, "Continued", last, "%s continues", c.Execution.Name)
			} else {
				assert.Equal(t, "Delivered", last, "the last execution of %s delivers", id)
			}
		}
		t.Logf("message %s: %d executions, %v events", id, len(costs), eventsOf(costs))
	}
	logCosts(t, s, "long outage")
}

// eventsOf lists the history length of each execution.
func eventsOf(costs []local.Cost) []int {
	out := make([]int, len(costs))
	for i, c := range costs {
		out[i] = c.Events
	}
	return out
}
