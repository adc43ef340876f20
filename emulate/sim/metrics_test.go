package sim_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/emulate/local"
	"github.com/redrive/redrive/emulate/sim"
	"github.com/redrive/redrive/emulate/simtarget"
)

// at is the virtual time d after the epoch.
func at(d time.Duration) time.Time { return sim.Epoch.Add(d) }

// call is one single-record consumer call.
func call(d time.Duration, id string, h simtarget.Health, o simtarget.Outcome) simtarget.Call {
	return simtarget.Call{At: at(d), Health: h, Records: []simtarget.Record{{MessageID: id, OriginID: id, Outcome: o}}}
}

// tiny is a 4-message scenario with an outage from 1m to 10m and a
// capacity of 2 calls per second.
func tiny() (sim.Scenario, []sim.Message) {
	s := sim.Default()
	s.Messages = sim.Messages{Count: 4, Rate: 0, Tenants: 1}
	s.Target.Capacity = 2
	s.Target.Health = []sim.Phase{{At: time.Minute, State: sim.StateDown}, {At: 10 * time.Minute, State: sim.StateHealthy}}
	return s, s.Plan()
}

func TestMeasureAccountsAgainstTheConsumer(t *testing.T) {
	s, msgs := tiny()
	ids := []string{msgs[0].ID, msgs[1].ID, msgs[2].ID, msgs[3].ID}
	calls := sim.NewCallTally(s)
	for _, c := range []simtarget.Call{
		call(2*time.Minute, ids[0], simtarget.Down, simtarget.OutcomeUnavailable),
		call(2*time.Minute, ids[1], simtarget.Down, simtarget.OutcomeUnavailable),
		call(2*time.Minute+time.Second/2, ids[2], simtarget.Down, simtarget.OutcomeThrottled),
		call(10*time.Minute, ids[0], simtarget.Healthy, simtarget.OutcomeDelivered),
		call(11*time.Minute, ids[0], simtarget.Healthy, simtarget.OutcomeDelivered), // a second delivery
		call(12*time.Minute, ids[3], simtarget.Healthy, simtarget.OutcomeDelivered),
	} {
		calls.Add(c)
	}
	o := sim.Outcome{
		Strategy: "hand-made",
		Calls:    *calls,
		Delivered: map[string]time.Time{
			ids[0]: at(11 * time.Minute),
			ids[1]: at(12 * time.Minute), // acknowledged, but the consumer never had it
		},
		Parked:  map[string]time.Time{ids[3]: at(13 * time.Minute)}, // delivered and parked
		Pending: map[string]bool{ids[2]: true},
		Usage:   sim.Usage{Transitions: 40},
		End:     at(20 * time.Minute),
	}
	m := sim.Measure(s, msgs, o, sim.ListPrices)
	assert.Equal(t, 1, m.Delivered)
	assert.Equal(t, 1, m.Parked)
	assert.Equal(t, 1, m.Pending)
	assert.Equal(t, 1, m.Lost, "acknowledged without a delivery")
	assert.Equal(t, 2, m.Twice, "delivered twice, and delivered then parked")
	assert.Equal(t, 3, m.OutageCalls)
	assert.Equal(t, 6, m.Calls)
	assert.Equal(t, 1, m.Throttled)
	assert.Equal(t, 3, m.PeakRate, "three calls in the second 0:02:00")
	assert.True(t, m.Recovered)
	assert.True(t, m.HasFirstDelivery)
	assert.Equal(t, time.Duration(0), m.FirstDelivery)
	assert.Equal(t, 3, m.DrainedCount)
	assert.Equal(t, 2*time.Minute, m.DrainTime)
	assert.Equal(t, 1500*time.Millisecond, m.PhysicalDrain, "3 deliveries at 2 per second")
	assert.False(t, m.Drained, "message 2 was never delivered")
	assert.Equal(t, 10.0, m.TransitionsPer)
	assert.Equal(t, int64(6), m.Usage.TargetCalls)
	assert.InDelta(t, 40*0.025/1000*1e6/4, m.CostPerMillion.StepFunctions, 1e-9)
	assert.Equal(t, 20*time.Minute, m.End)
}

func TestMeasureBreakerRecovery(t *testing.T) {
	s, msgs := tiny()
	tr := func(d time.Duration, key string, from, to breaker.State) breaker.Transition {
		return breaker.Transition{Key: key, From: from, To: to, At: at(d)}
	}
	tests := []struct {
		name    string
		ts      []breaker.Transition
		closed  bool
		latency time.Duration
	}{
		{"never tripped", nil, true, 0},
		{"closed after the recovery", []breaker.Transition{
			tr(2*time.Minute, "a", breaker.Closed, breaker.Open),
			tr(12*time.Minute, "a", breaker.Open, breaker.HalfOpen),
			tr(12*time.Minute, "a", breaker.HalfOpen, breaker.Closed),
		}, true, 2 * time.Minute},
		{"the slowest key counts", []breaker.Transition{
			tr(2*time.Minute, "a", breaker.Closed, breaker.Open),
			tr(3*time.Minute, "b", breaker.Closed, breaker.Open),
			tr(11*time.Minute, "a", breaker.HalfOpen, breaker.Closed),
			tr(15*time.Minute, "b", breaker.HalfOpen, breaker.Closed),
		}, true, 5 * time.Minute},
		{"still open", []breaker.Transition{
			tr(2*time.Minute, "a", breaker.Closed, breaker.Open),
			tr(12*time.Minute, "a", breaker.Open, breaker.HalfOpen),
			tr(12*time.Minute, "a", breaker.HalfOpen, breaker.Open),
		}, false, 0},
		{"closed before the recovery", []breaker.Transition{
			tr(2*time.Minute, "a", breaker.Closed, breaker.Open),
			tr(5*time.Minute, "a", breaker.HalfOpen, breaker.Closed),
		}, true, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := sim.Measure(s, msgs, sim.Outcome{HasBreaker: true, Transitions: tt.ts, End: at(time.Hour)}, sim.ListPrices)
			assert.True(t, m.HasBreaker)
			assert.Equal(t, tt.closed, m.BreakerClosed)
			assert.Equal(t, tt.latency, m.RecoveryLatency)
			assert.Equal(t, len(tt.ts), m.BreakerChanges)
		})
	}
}

func TestEstimate(t *testing.T) {
	a := sim.Assumptions{
		MemoryMB:             map[string]int{local.FunctionAttempt: 1024, local.FunctionRelease: 2048, local.FunctionConsumer: 512},
		OrchestratorDuration: time.Second, ConsumerLatency: 2 * time.Second,
	}
	c := sim.ListPrices.Estimate(sim.Usage{
		Transitions: 1000, Invocations: map[string]int64{local.FunctionAttempt: 1_000_000, local.FunctionRelease: 1000},
		ReleaseTime: 9000 * time.Second, TargetCalls: 1_000_000, WaitedCalls: 0, DynamoReads: 2_000_000, DynamoWrites: 1_000_000,
	}, a)
	assert.InDelta(t, 0.025, c.StepFunctions, 1e-12)
	// 2,001,000 requests; 1M attempts x 1 s x 1 GB, 1,000 releases x 1 s
	// x 2 GB and 9,000 s of their pacing x 2 GB, 1M consumer calls x 2 s
	// x 0.5 GB.
	assert.InDelta(t, 2.001*0.20+(1_000_000+20_000+1_000_000)*0.0000133334, c.Lambda, 1e-9)
	assert.InDelta(t, 0.625+0.25, c.DynamoDB, 1e-12)
	assert.InDelta(t, c.StepFunctions+c.Lambda+c.DynamoDB, c.Total(), 1e-12)
	require.InDelta(t, 2*c.Total(), c.Scale(2).Total(), 1e-9)

	waited := sim.ListPrices.Estimate(sim.Usage{WaitedCalls: 1_000_000}, a)
	assert.InDelta(t, 1_000_000*2*1*0.0000133334, waited.Lambda, 1e-9, "a waited call bills the attempt's duration at its memory, no request")
}

func TestAssumptionsCoverEveryFunction(t *testing.T) {
	a := sim.AssumptionsFor(sim.Scenario{})
	for name := range (local.Handlers{}).ByName() {
		assert.Contains(t, a.MemoryMB, name)
	}
	assert.Contains(t, a.MemoryMB, local.FunctionConsumer)
	assert.Len(t, a.MemoryMB, 7, "the six functions and the consumer")
}
