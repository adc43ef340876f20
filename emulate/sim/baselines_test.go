package sim_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/emulate/sim"
	"github.com/redrive/redrive/emulate/simtarget"
)

// ledger is a recorder that keeps every consumer call too.
type ledger struct {
	recorder
	calls []simtarget.Call
}

// Call keeps c.
func (l *ledger) Call(_ string, c simtarget.Call) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.calls = append(l.calls, c)
}

// run plays s with one strategy and measures it; calls are the consumer's
// calls, oldest first.
func run(t *testing.T, st sim.Strategy, s sim.Scenario) (o sim.Outcome, m sim.Metrics, calls []simtarget.Call) {
	t.Helper()
	require.NoError(t, s.Validate())
	msgs := s.Plan()
	l := &ledger{}
	o, err := st.Run(context.Background(), s, msgs, l)
	require.NoError(t, err)
	m = sim.Measure(s, msgs, o, sim.ListPrices)
	assert.Len(t, l.calls, m.Calls, "the observer sees every call the figures count")
	return o, m, l.calls
}

func TestBulkMoveSendsExhaustedMessagesBackToTheDLQ(t *testing.T) {
	s := sim.Default()
	s.Horizon = 25 * time.Minute
	s.Messages = sim.Messages{Count: 2, Tenants: 1}
	s.Target.Health = []sim.Phase{{At: time.Second, State: sim.StateDown}}
	s.Bulk = sim.Bulk{Rate: 10, Every: 10 * time.Minute, MaxReceiveCount: 3, VisibilityTimeout: 30 * time.Second, Concurrency: 2}

	o, m, calls := run(t, sim.BulkMove{}, s)
	// Moves at 10m and 20m; each message is received 3 times, 30s apart
	// (plus up to a second's poll delay each time), then moved back to the
	// DLQ on its 4th receive.
	require.Len(t, calls, 12)
	byMessage := map[string][]time.Duration{}
	for _, c := range calls {
		id := c.Records[0].OriginID
		byMessage[id] = append(byMessage[id], c.At.Sub(sim.Epoch))
	}
	require.Len(t, byMessage, 2)
	for id, calls := range byMessage {
		require.Len(t, calls, 6, id)
		for i, got := range calls {
			cycle, try := time.Duration(i/3), time.Duration(i%3)
			earliest := 10*time.Minute + cycle*10*time.Minute + try*30*time.Second
			assert.GreaterOrEqual(t, got, earliest, "%s call %d", id, i)
			assert.Less(t, got, earliest+(try+1)*time.Second+100*time.Millisecond, "%s call %d", id, i)
		}
		parked := o.Parked[id].Sub(sim.Epoch)
		assert.GreaterOrEqual(t, parked, 21*time.Minute+30*time.Second, id)
		assert.Less(t, parked, 21*time.Minute+34*time.Second, id)
	}
	assert.Equal(t, 2, m.Parked, "back in the DLQ")
	assert.Zero(t, m.Delivered+m.Pending+m.Lost)
}

func TestBulkMoveShowsDoubleDeliveryWhenCallsOutliveVisibility(t *testing.T) {
	s := sim.Default()
	s.Horizon = 10 * time.Minute
	s.Messages = sim.Messages{Count: 3, Tenants: 1}
	s.Target.Latency = 5 * time.Second
	s.Target.Health = nil
	s.Bulk = sim.Bulk{Rate: 10, Every: time.Minute, MaxReceiveCount: 3, VisibilityTimeout: 2 * time.Second, Concurrency: 10}

	_, m, _ := run(t, sim.BulkMove{}, s)
	// Every call succeeds, but each message is visible again (and received
	// again) before its call ends, so the delete uses a stale receipt.
	assert.Equal(t, 3, m.Twice)
	assert.Zero(t, m.Lost)
}

func TestNaiveBackoffParksPoisonAtOnce(t *testing.T) {
	s := sim.Default()
	s.Messages = sim.Messages{Count: 10, Poison: 0.2, Rate: 1, Tenants: 1}
	s.Target.Health = nil

	o, m, _ := run(t, sim.NaiveBackoff{}, s)
	assert.Equal(t, 8, m.Delivered)
	assert.Equal(t, 2, m.Parked)
	assert.Equal(t, 10, m.Calls, "one call each")
	assert.Zero(t, m.Lost+m.Twice+m.Pending)
	assert.Equal(t, int64(10+2), o.Usage.Transitions, "a Task state each, and the poison's Park state")
}

func TestNaiveBackoffSpacesTriesExponentially(t *testing.T) {
	s := sim.Default()
	s.Messages = sim.Messages{Count: 1, Start: time.Minute, Tenants: 1}
	s.Target.Health = []sim.Phase{{At: time.Second, State: sim.StateDown}}
	s.Retry = sim.Retry{MaxAttempts: 5, BackoffBase: 10 * time.Second, BackoffMax: 40 * time.Second}

	o, m, calls := run(t, sim.NaiveBackoff{}, s)
	require.Len(t, calls, 5)
	caps := []time.Duration{10 * time.Second, 20 * time.Second, 40 * time.Second, 40 * time.Second}
	for i, cp := range caps {
		gap := calls[i+1].At.Sub(calls[i].At)
		assert.LessOrEqual(t, gap, cp, "retry %d waits at most its (capped) interval: full jitter", i+1)
	}
	assert.Equal(t, 1, m.Parked)
	assert.Equal(t, int64(1+4+1), o.Usage.Transitions, "the Task, 4 retries, the Park state")
}
