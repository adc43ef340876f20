package test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/emulate/executor"
	"github.com/redrive/redrive/emulate/local"
	"github.com/redrive/redrive/emulate/simtarget"
	"github.com/redrive/redrive/room/pace"
)

// outageCallBound is the most calls that can reach a target that is down
// for outage, by the policy: ConsecutiveFailures to trip it, then one
// probe (the controller releases it) per cooldown that ends within the
// outage, counting each cooldown at its shortest (jitter drawn at its
// minimum). A failed probe keeps the breaker OPEN for the next, longer
// cooldown.
func outageCallBound(p breaker.Policy, outage time.Duration) int {
	p = p.WithDefaults()
	calls := p.ConsecutiveFailures
	var elapsed time.Duration
	for trips := 1; ; trips++ {
		elapsed += p.Cooldown(trips, 0)
		if elapsed >= outage {
			return calls
		}
		calls++
	}
}

// An outage: the breaker trips; while it is OPEN the turned-away messages
// wait in the room as documents, no execution of theirs running, and only
// the breaker's controller, in its Wait state, waits out each cooldown and
// releases one probe; the cooldown grows up to its cap; the first probe
// after the target is back moves it to HALF_OPEN, the canaries close it,
// and the room is released at the pace the target takes: no message is
// lost or delivered twice, the calls that reached the target while it was
// down stay within what the policy allows, and the drain stays within the
// target's capacity.
func TestOutageTripsWaitsRecoversAndDrains(t *testing.T) {
	const n, outage, capacity = 500, 20 * time.Minute, 50
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	policy := breaker.Policy{}
	p := policy.WithDefaults()
	tick := pace.Policy{}.WithDefaults().Tick
	s := start(t, local.Options{
		Start:  t0,
		Policy: policy,
		Target: simtarget.Options{Capacity: capacity, Schedule: simtarget.Outage(t0, outage)},
	})
	send(t, s, bodies("outage", n)...)

	// While it is down: every message waits in the room, and waiting
	// costs nothing: between two instants, the only executions are the
	// probes made in between (each one Express execution: Attempt, Route,
	// Queue, Queued), and the controller moves only to release them.
	t1, t2 := t0.Add(outage/4), t0.Add(3*outage/4)
	runUntil(t, s, t1)
	before := totalTransitions(t, s)
	startedBefore, _ := executionsOf(t, s, s.RedriveARN)
	_, controllerBefore := executionsOf(t, s, s.ReleaseARN)
	invocationsBefore := s.Stats().Invocations
	runUntil(t, s, t2)
	assert.Zero(t, s.Pending(t.Context()).Executions, "no execution waits out the outage")
	depth, _ := s.Room()
	assert.Equal(t, n, depth, "the room holds every message")
	assert.Len(t, inRoom(t, s, "orders"), n)
	assert.Equal(t, 1, runningControllers(t, s), "one controller, waiting out the cooldown")
	probes := s.Target.Ledger().CallsBetween(t1.Add(time.Nanosecond), t2.Add(time.Nanosecond))
	moved := totalTransitions(t, s) - before
	started, _ := executionsOf(t, s, s.RedriveARN)
	_, controllerNow := executionsOf(t, s, s.ReleaseARN)
	invocations := s.Stats().Invocations
	t.Logf("from %v to %v: %d probes, %d executions, %d transitions (the controller %d), %d Attempt, %d WaitingRoom and %d Release invocations",
		t1.Sub(t0), t2.Sub(t0), probes, started-startedBefore, moved, controllerNow-controllerBefore,
		invocations[local.FunctionAttempt]-invocationsBefore[local.FunctionAttempt],
		invocations[local.FunctionWaitRoom]-invocationsBefore[local.FunctionWaitRoom],
		invocations[local.FunctionRelease]-invocationsBefore[local.FunctionRelease])
	assert.Positive(t, probes, "the controller released probes")
	assert.Equal(t, probes, started-startedBefore, "an execution per probe, none for the waiting")
	assert.LessOrEqual(t, moved, 4*probes, "waiting costs no transitions")
	assert.LessOrEqual(t, controllerNow-controllerBefore, 8*probes, "the controller waits in its Wait state between probes")
	assert.LessOrEqual(t, invocations[local.FunctionAttempt]-invocationsBefore[local.FunctionAttempt], int64(probes),
		"no Attempt but the probes'")
	assert.LessOrEqual(t, invocations[local.FunctionWaitRoom]-invocationsBefore[local.FunctionWaitRoom], int64(probes))
	assert.LessOrEqual(t, invocations[local.FunctionRelease]-invocationsBefore[local.FunctionRelease], int64(2*probes))

	drain(t, s)
	out := accountFor(t, s)
	assert.Len(t, out.delivered, n, "every message delivered")
	for id, p := range out.parked {
		t.Errorf("message %s parked: %s", id, p.Record.Reason)
	}

	// The breaker: tripped by the first failures, kept OPEN by every
	// failed probe, moved to HALF_OPEN by the first probe after the
	// outage, closed by the canary after it; never re-opened by the drain.
	changes := s.BreakerChanges()
	var states []string
	for _, c := range changes {
		states = append(states, c.From.String()+"->"+c.To.String()+" ("+c.Cause+")")
	}
	t.Logf("breaker changes: %v", states)
	require.Len(t, changes, 3, "trip, probe success, close; nothing after")
	assert.Equal(t, breaker.Transition{Key: "orders", From: breaker.Closed, To: breaker.Open, Generation: changes[0].Generation,
		Cause: breaker.CauseConsecutiveFailures, At: t0}, changes[0], "trips on consecutive failures")
	assert.Equal(t, []breaker.State{breaker.Open, breaker.HalfOpen}, []breaker.State{changes[1].From, changes[1].To})
	assert.Equal(t, breaker.CauseProbeSuccess, changes[1].Cause)
	closed := changes[2]
	assert.Equal(t, []breaker.State{breaker.HalfOpen, breaker.Closed}, []breaker.State{closed.From, closed.To})
	assert.Equal(t, breaker.CauseCanarySuccesses, closed.Cause)
	assert.False(t, changes[1].At.Before(t0.Add(outage)), "the probe succeeds only once the target is back")
	recovered := closed.At
	assert.LessOrEqual(t, changes[1].At.Sub(t0.Add(outage)), p.CooldownMax+2*tick, "recovery is noticed within CooldownMax")

	// Amplification: the trip's failures, then one probe per cooldown, each
	// cooldown at least its shortest and at most the cap; they grow.
	ledger := s.Target.Ledger()
	bound := outageCallBound(policy, outage)
	down := ledger.CallsWhile(simtarget.Down)
	t.Logf("calls while down: %d (bound %d); throttled %d; peak %d calls/s", down, bound, ledger.Count(simtarget.OutcomeThrottled), ledger.PeakRate())
	assert.LessOrEqual(t, down, bound, "amplification within the policy's bound")
	require.Greater(t, down, p.ConsecutiveFailures, "at least one probe failed")
	calls := ledger.Calls()
	for _, c := range calls[:p.ConsecutiveFailures] {
		assert.Equal(t, t0, c.At, "the trip's calls")
	}
	// calls[ConsecutiveFailures:down] are the failed probes, calls[down]
	// the one that succeeded.
	var gaps []time.Duration
	prev := t0
	for i, c := range calls[p.ConsecutiveFailures : down+1] {
		gap := c.At.Sub(prev)
		gaps = append(gaps, gap)
		assert.GreaterOrEqual(t, gap, p.Cooldown(i+1, 0), "probe %d waits out cooldown %d", i+1, i+1)
		// The controller releases the probe when its Wait (whole seconds)
		// ends, at its next tick.
		assert.LessOrEqual(t, gap, p.CooldownMax+2*tick, "probe %d: the cooldown is capped", i+1)
		prev = c.At
	}
	t.Logf("probe gaps: %v", gaps)
	require.GreaterOrEqual(t, len(gaps), 3)
	assert.Greater(t, gaps[1], gaps[0], "the cooldown grows after a failed probe")
	row, err := s.BreakerRow(t.Context(), "orders")
	require.NoError(t, err)
	assert.EqualValues(t, 1+down-p.ConsecutiveFailures, row.Totals.Trips, "the trip and every failed probe")

	// The drain: paced to the target, whose capacity it finds without
	// running past it, and without a failure or a re-trip; near the
	// target's capacity, so the backlog does not wait for the room's
	// timeout or drain at the starting pace.
	var after []simtarget.Call
	var drained time.Time
	throttled := 0
	for _, c := range calls {
		if c.At.Before(recovered) {
			continue
		}
		after = append(after, c)
		assert.Equal(t, simtarget.Healthy, c.Health)
		if c.Records[0].Outcome == simtarget.OutcomeThrottled {
			throttled++
		} else {
			drained = c.At
		}
	}
	peak := ledger.PeakRate()
	physical := time.Duration(n/capacity) * time.Second
	t.Logf("recovery latency %v (target healthy -> CLOSED), drain %v after the close (physical limit %v at %d/s); %d calls after the close, %d throttled, peak %d calls/s",
		recovered.Sub(t0.Add(outage)), drained.Sub(recovered), physical, capacity, len(after), throttled, peak)
	assert.LessOrEqual(t, float64(peak), 1.05*capacity, "the release never runs past the target's capacity")
	assert.LessOrEqual(t, float64(throttled), 0.05*float64(len(after)), "finding the capacity costs few throttled calls")
	assert.Zero(t, ledger.Count(simtarget.OutcomeUnavailable)-down, "no failure after the outage")
	assert.LessOrEqual(t, drained.Sub(recovered), 2*physical, "the backlog drains near the target's capacity")

	logCosts(t, s, "outage")
	xs := releaseExecutions(t, s)
	require.NotEmpty(t, xs)
	for _, x := range xs {
		assert.Equal(t, executor.Succeeded, x.Status, "controller %s drained the room and ended", x.Name)
	}
	assert.Zero(t, runningControllers(t, s))
}
