package test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/internal/localrun"
	"github.com/redrive/redrive/internal/simtarget"
)

// outageCallBound is the most calls that can reach a target that is down
// for outage, by the policy: ConsecutiveFailures to trip it, then at most
// HalfOpenPermits canaries per cooldown that can end within the outage,
// counting each cooldown at its shortest (jitter drawn at its minimum).
func outageCallBound(p breaker.Policy, outage time.Duration) int {
	p = p.WithDefaults()
	calls := p.ConsecutiveFailures
	var elapsed time.Duration
	for trips := 1; ; trips++ {
		elapsed += p.Cooldown(trips, 0)
		if elapsed >= outage {
			return calls
		}
		calls += p.HalfOpenPermits
	}
}

// An outage: the breaker trips, waits, a canary fails, a longer cooldown,
// a canary succeeds, it closes and ramps, and the backlog drains; no
// message is lost or delivered twice, and the calls that reached the
// target while it was down stay within what the policy allows.
func TestOutageTripsWaitsRecoversAndDrains(t *testing.T) {
	const n, outage, capacity = 100, 20 * time.Minute, 20
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	policy := breaker.Policy{}
	s := start(t, localrun.Options{
		Start:  t0,
		Policy: policy,
		Target: simtarget.Options{Capacity: capacity, Schedule: simtarget.Outage(t0, outage)},
	})
	send(t, s, bodies("outage", n)...)
	drain(t, s)

	out := accountFor(t, s)
	assert.Len(t, out.delivered, n, "every message delivered")
	for id, p := range out.parked {
		t.Errorf("message %s parked: %s", id, p.Record.Reason)
	}

	ledger := s.Target.Ledger()
	bound := outageCallBound(policy, outage)
	down := ledger.CallsWhile(simtarget.Down)
	t.Logf("calls while down: %d (bound %d); throttled %d; peak %d calls/s", down, bound, ledger.Count(simtarget.OutcomeThrottled), ledger.PeakRate())
	assert.LessOrEqual(t, down, bound, "amplification within the policy's bound")
	assert.Greater(t, down, policy.WithDefaults().ConsecutiveFailures, "at least one canary failed")

	changes := s.BreakerChanges()
	var states []string
	for _, c := range changes {
		states = append(states, c.From.String()+"->"+c.To.String())
	}
	t.Logf("breaker changes: %v", states)
	require.GreaterOrEqual(t, len(changes), 5)
	assert.Equal(t, breaker.Transition{Key: "orders", From: breaker.Closed, To: breaker.Open, Generation: changes[0].Generation,
		Cause: breaker.CauseConsecutiveFailures, At: changes[0].At}, changes[0], "trips on consecutive failures")
	last := changes[len(changes)-1]
	assert.Equal(t, breaker.HalfOpen, last.From)
	assert.Equal(t, breaker.Closed, last.To)
	assert.Equal(t, breaker.CauseCanarySuccesses, last.Cause)
	assert.False(t, last.At.Before(t0.Add(outage)), "closes only once the target is back")

	// Each OPEN period is longer than the one before, and every reopening
	// was a canary's failure.
	var opens []time.Duration
	for i, c := range changes[:len(changes)-1] {
		if c.To == breaker.Open {
			opens = append(opens, changes[i+1].At.Sub(c.At))
			if i > 0 {
				assert.Equal(t, breaker.CauseCanaryFailure, c.Cause)
			}
		}
	}
	t.Logf("open periods: %v", opens)
	require.GreaterOrEqual(t, len(opens), 2, "a canary failed and the breaker reopened")
	for i := 1; i < len(opens); i++ {
		assert.Greater(t, opens[i], opens[i-1], "cooldown %d grows", i)
	}

	// The backlog that waited out the outage does not hit the recovering
	// target at once: the ramp admits a rising share over RampDuration,
	// and the target's capacity is never exceeded.
	recovered := last.At
	ramp := policy.WithDefaults().RampDuration
	firstMinute := ledger.CallsBetween(recovered, recovered.Add(time.Minute))
	t.Logf("ramp: %d calls in the first minute after the close, %d over the ramp of %v", firstMinute,
		ledger.CallsBetween(recovered, recovered.Add(ramp)), ramp)
	assert.Less(t, firstMinute, n/2, "the ramp holds most of the backlog back in its first minute")
	assert.Zero(t, ledger.Count(simtarget.OutcomeThrottled), "never over the target's capacity")
	assert.LessOrEqual(t, ledger.PeakRate(), capacity)
	var drained time.Time
	for _, c := range ledger.Calls() {
		drained = c.At
	}
	t.Logf("recovery latency %v (target healthy -> CLOSED), drain time %v (healthy -> backlog empty; physical limit %v at %d/s)",
		recovered.Sub(t0.Add(outage)), drained.Sub(t0.Add(outage)), time.Duration(n/capacity)*time.Second, capacity)
	logCosts(t, s, "outage")
	costs, err := s.Costs(t.Context())
	require.NoError(t, err)
	var transitions int
	var waited time.Duration
	for _, c := range costs {
		transitions += c.Transitions - 3 // beyond the CLOSED path
		for _, w := range c.Waits {
			waited += w
		}
	}
	t.Logf("waiting cost: %.1f transitions per message-hour of waiting (%d transitions beyond the CLOSED path over %.1f message-hours)",
		float64(transitions)/waited.Hours(), transitions, waited.Hours())
}
