package sim_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/emulate/sim"
)

// small is a scenario that plays in seconds under the race detector:
// 80 messages of 2 tenants, 4 of them poison, a 10-minute outage.
func small() sim.Scenario {
	s := sim.Default()
	s.Name = "small"
	s.Description = "80 messages of 2 tenants dead-lettered while a 5 calls/s consumer is down for 10 minutes"
	s.Horizon = 2 * time.Hour
	s.Messages = sim.Messages{Count: 80, Start: time.Minute, Rate: 1, Poison: 0.05, Tenants: 2}
	s.Target.Capacity = 5
	s.Target.Health = []sim.Phase{{At: time.Minute, State: sim.StateDown}, {At: 11 * time.Minute, State: sim.StateHealthy}}
	s.Breaker.CooldownMax = 4 * time.Minute
	s.Bulk.Every = 5 * time.Minute
	s.Bulk.Rate = 10
	return s
}

// recorder is an Observer that keeps what it is told.
type recorder struct {
	mu          sync.Mutex
	progress    map[string]int // last settled count per strategy
	transitions map[string][]breaker.Transition
}

func (r *recorder) Progress(strategy string, _ time.Duration, settled, _ int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.progress == nil {
		r.progress = map[string]int{}
	}
	r.progress[strategy] = settled
}

func (r *recorder) Transition(strategy string, t breaker.Transition) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.transitions == nil {
		r.transitions = map[string][]breaker.Transition{}
	}
	r.transitions[strategy] = append(r.transitions[strategy], t)
}

// played is the small scenario played once by every strategy (Redrive's
// waiting room read as redrive run reads it), shared by the tests that
// only read it.
var played = sync.OnceValues(func() (sim.Result, error) {
	return sim.Play(context.Background(), small(), sim.Strategies(false, ""), &recorder{})
})

func playSmall(t *testing.T) sim.Result {
	t.Helper()
	r, err := played()
	require.NoError(t, err)
	require.Len(t, r.Metrics, 3)
	return r
}

func TestEveryStrategyAccountsForEveryMessage(t *testing.T) {
	r := playSmall(t)
	poison := map[string]bool{}
	for _, m := range r.Messages {
		poison[m.ID] = m.Poison
	}
	for i, o := range r.Outcomes {
		m := r.Metrics[i]
		t.Run(o.Strategy, func(t *testing.T) {
			assert.Equal(t, len(r.Messages), m.Delivered+m.Parked+m.Pending+m.Lost, "every message counted once")
			assert.Zero(t, m.Lost, "lost")
			assert.Zero(t, m.Twice, "delivered twice")

			// The consumer's own count, independently of Measure's.
			for _, msg := range r.Messages {
				_, delivered := o.Delivered[msg.ID]
				_, parked := o.Parked[msg.ID]
				deliveries := o.Calls.DeliveriesOf(msg.ID)
				assert.LessOrEqual(t, deliveries, 1, "%s processed at most once", msg.ID)
				assert.False(t, delivered && parked, "%s both delivered and parked", msg.ID)
				if delivered {
					assert.Equal(t, 1, deliveries, "%s acknowledged without a delivery", msg.ID)
				}
				if poison[msg.ID] {
					assert.False(t, delivered, "poison %s delivered", msg.ID)
					assert.Zero(t, deliveries)
				}
			}
		})
	}
}

func TestRedriveDeliversEverythingButPoisonAndParksPoison(t *testing.T) {
	r := playSmall(t)
	m := r.Metrics[0]
	require.Equal(t, "redrive", m.Strategy)
	assert.Equal(t, 76, m.Delivered)
	assert.Equal(t, 4, m.Parked)
	assert.Zero(t, m.Pending)
	assert.True(t, m.Drained)
	assert.True(t, m.BreakerClosed, "every breaker closed after the recovery")
	assert.Less(t, m.OutageCalls, r.Metrics[1].OutageCalls, "the breaker spares the down consumer")
	assert.Less(t, m.OutageCalls, r.Metrics[2].OutageCalls)
	assert.Positive(t, m.Usage.Transitions)
	assert.Positive(t, m.Usage.DynamoWrites)
	assert.Positive(t, m.CostPerMillion.StepFunctions)

	keys := map[string]bool{}
	for _, tr := range r.Outcomes[0].Transitions {
		keys[tr.Key] = true
	}
	assert.Equal(t, map[string]bool{"tenant-01": true, "tenant-02": true}, keys, "one breaker per tenant")
}

func TestBaselinesOnTheSmallScenario(t *testing.T) {
	r := playSmall(t)
	naive, bulk := r.Metrics[1], r.Metrics[2]
	require.Equal(t, "naive backoff", naive.Strategy)
	require.Equal(t, "bulk move", bulk.Strategy)

	// 5 tries spaced 30s, 1m, 2m, 4m (at most, full jitter) all fall in
	// the 10-minute outage: the naive redrive parks every message.
	assert.Equal(t, 80, naive.Parked)
	assert.Zero(t, naive.Delivered)
	assert.Equal(t, 80*5, naive.Calls, "5 tries each: a down consumer fails poison as unavailable too")
	assert.False(t, naive.HasBreaker)

	// The bulk move delivers what is not poison once the consumer is back;
	// poison goes round the DLQ until the horizon.
	assert.Equal(t, 76, bulk.Delivered)
	assert.Equal(t, 4, bulk.Parked+bulk.Pending)
	assert.Zero(t, bulk.Usage.Transitions)
	assert.Positive(t, bulk.Throttled, "moving 10/s into a 5/s consumer overloads it")
	assert.Greater(t, bulk.PeakRate, 5)
}

func TestObserverSeesProgressAndTransitions(t *testing.T) {
	rec := &recorder{}
	s := small()
	s.Messages.Count = 20
	r, err := sim.Play(context.Background(), s, sim.Strategies(false, ""), rec)
	require.NoError(t, err)
	assert.Equal(t, map[string]int{"redrive": 20, "naive backoff": 20, "bulk move": 19}, rec.progress,
		"settled at the last reading; the bulk move's poison message is never settled")
	assert.Equal(t, r.Outcomes[0].Transitions, rec.transitions["redrive"], "every transition, in order")
	assert.NotEmpty(t, rec.transitions["redrive"])
}

func TestPlayRejectsInvalidScenario(t *testing.T) {
	s := small()
	s.Target.Capacity = 0
	_, err := sim.Play(context.Background(), s, sim.Strategies(false, ""), &recorder{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "target.capacity")

	_, err = sim.Play(context.Background(), small(), nil, &recorder{})
	assert.ErrorContains(t, err, "no strategies")
}
