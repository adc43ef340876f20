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

// A long outage: no execution waits it out. Each message waits in the room
// as a document between its tries, each try an execution of its own (an
// Express one, far within its five minutes), named for the message's run;
// the one Standard execution open is the breaker's controller, whose
// history stays far below Step Functions' limit; and each message is
// delivered exactly once when the target is back.
func TestALongOutageHoldsTheMessagesAsDocuments(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	const n, outage = 3, 2 * time.Hour
	s := start(t, local.Options{
		Start:   t0,
		Policy:  breaker.Policy{ConsecutiveFailures: n},
		Attempt: attempt.Config{MaxAttempts: 50},
		Target:  simtarget.Options{Schedule: simtarget.Outage(t0, outage)},
	})
	ids := send(t, s, bodies("long", n)...)
	for at := t0.Add(10 * time.Minute); at.Before(t0.Add(outage)); at = at.Add(10 * time.Minute) {
		runUntil(t, s, at)
		assert.Zero(t, s.Pending(t.Context()).Executions, "at %v: no execution waits out the outage", at.Sub(t0))
		assert.LessOrEqual(t, runningControllers(t, s), 1, "at %v: one controller at most", at.Sub(t0))
		assert.Len(t, inRoom(t, s, "orders"), n, "at %v: every message waits in the room", at.Sub(t0))
	}
	drain(t, s)

	out := accountFor(t, s)
	assert.Len(t, out.delivered, n)
	byOrigin := triesByOrigin(t, s)
	for _, id := range ids {
		tries := byOrigin[id]
		require.NotEmpty(t, tries, id)
		for i, tr := range tries {
			name, _, _ := strings.Cut(tr.Name, ":") // an Express execution's name carries its id
			assert.Equal(t, message.ExecutionName(id, 1, i), name, "execution %d of %s", i, id)
			assert.Equal(t, i, tr.Runs)
			assert.LessOrEqual(t, tr.StopDate.Sub(tr.StartDate), executor.ExpressMaxDuration, "execution %s is short", tr.Name)
			if i < len(tries)-1 {
				assert.Equal(t, endQueued, tr.End, "%s waits in the room", tr.Name)
			} else {
				assert.Equal(t, endDelivered, tr.End, "the last execution of %s delivers", id)
			}
		}
		t.Logf("message %s: %d executions", id, len(tries))
	}
	for _, x := range releaseExecutions(t, s) {
		assert.Equal(t, executor.Succeeded, x.Status, "controller %s", x.Name)
		history, err := s.Executor.History(t.Context(), x.ARN)
		require.NoError(t, err)
		t.Logf("controller %s: %d events over %v", x.Name, len(history), x.StopDate.Sub(x.StartDate))
		// At most a loop a minute while it waits (a Wait state is at most
		// release's maxWait), about ten events each, plus its probes.
		assert.Less(t, len(history), 2000, "the controller's history stays far below the 25,000-event limit")
	}
	logCosts(t, s, "long outage")
}
