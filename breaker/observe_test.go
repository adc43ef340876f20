package breaker_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/breaker"
)

// observeAll feeds outcomes one by one to a row at now, as Decide-admitted
// calls of the row's current generation.
func observeAll(t *testing.T, p breaker.Policy, r breaker.Row, now time.Time, outcomes ...breaker.Outcome) breaker.Row {
	t.Helper()
	for _, o := range outcomes {
		r, _ = breaker.Observe(p, r, breaker.Ticket{Generation: r.Generation}, o, now, &fixedRandom{f: 0.5})
	}
	return r
}

func repeat(o breaker.Outcome, n int) []breaker.Outcome {
	out := make([]breaker.Outcome, n)
	for i := range out {
		out[i] = o
	}
	return out
}

func TestObserveClosedTrips(t *testing.T) {
	S, F, P := breaker.Success, breaker.Transient, breaker.Poison
	cases := []struct {
		name     string
		policy   func(*breaker.Policy)
		outcomes []breaker.Outcome
		state    breaker.State
		cause    string
	}{
		{name: "two failures in a row stay closed", outcomes: []breaker.Outcome{F, F}, state: breaker.Closed},
		{name: "three failures in a row trip", outcomes: []breaker.Outcome{F, F, F}, state: breaker.Open, cause: breaker.CauseConsecutiveFailures},
		{
			name:     "a success resets the run",
			policy:   func(p *breaker.Policy) { p.FailureRateThreshold = -1 },
			outcomes: []breaker.Outcome{F, F, S, F, F}, state: breaker.Closed,
		},
		{name: "poison is neutral", outcomes: []breaker.Outcome{F, F, P, P, P, P, P, P, P, P, P, P, P}, state: breaker.Closed},
		{name: "poison does not break a run either", outcomes: []breaker.Outcome{F, F, P, F}, state: breaker.Open, cause: breaker.CauseConsecutiveFailures},
		{
			name:     "rate below MinimumCalls does not trip",
			policy:   func(p *breaker.Policy) { p.ConsecutiveFailures = -1 },
			outcomes: []breaker.Outcome{F, F, S, F}, state: breaker.Closed,
		},
		{
			name:     "rate trips once MinimumCalls are in",
			policy:   func(p *breaker.Policy) { p.ConsecutiveFailures = -1 },
			outcomes: []breaker.Outcome{F, F, S, S, F}, state: breaker.Open, cause: breaker.CauseFailureRate,
		},
		{
			name:     "rate below the threshold stays closed",
			policy:   func(p *breaker.Policy) { p.ConsecutiveFailures = -1 },
			outcomes: []breaker.Outcome{F, S, S, F, S, S, F, S, S, F}, state: breaker.Closed,
		},
		{
			name:     "old failures slide out of the window",
			policy:   func(p *breaker.Policy) { p.ConsecutiveFailures = -1 },
			outcomes: append(append(repeat(F, 4), repeat(S, 10)...), F, S, F, S, S), state: breaker.Closed,
		},
		{
			name:     "rate disabled trips only on a run",
			policy:   func(p *breaker.Policy) { p.FailureRateThreshold = -1 },
			outcomes: []breaker.Outcome{F, F, S, F, F, S, F, F, S, F, F, S}, state: breaker.Closed,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := testPolicy
			if tc.policy != nil {
				tc.policy(&p)
			}
			start := breaker.Row{Key: "k", Generation: 1}
			r := observeAll(t, p, start, t0, tc.outcomes...)
			assert.Equal(t, tc.state, r.State)
			if tc.state != breaker.Open {
				assert.Equal(t, start.Generation, r.Generation)
				assert.Zero(t, r.Totals.Trips)
				return
			}
			assert.Equal(t, tc.cause, r.Cause)
			assert.Equal(t, start.Generation+1, r.Generation)
			assert.Equal(t, 1, r.Trips)
			assert.Equal(t, int64(1), r.Totals.Trips)
			assert.Equal(t, t0.Add(10*time.Second), r.OpenUntil, "first trip: CooldownBase")
			assert.Equal(t, t0, r.ChangedAt)
		})
	}
}

func TestObserveCounts(t *testing.T) {
	r := observeAll(t, testPolicy, breaker.Row{Key: "k"}, t0,
		breaker.Success, breaker.Transient, breaker.Poison, breaker.Success, breaker.Transient, breaker.Poison)
	assert.Equal(t, breaker.Totals{Successes: 2, Failures: 2, Poison: 2}, r.Totals)
	assert.Equal(t, breaker.Window{Failures: 0b0101, Count: 4}, r.Window, "newest outcome in bit 0, poison not in the window")
	assert.Equal(t, 1, r.ConsecutiveFailures)
}

func TestObserveHealthyBreakerWritesNothing(t *testing.T) {
	cases := []struct {
		name    string
		row     breaker.Row
		changed bool
	}{
		{"full window of successes", healthyRow(), false},
		{"forced closed and healthy", func() breaker.Row { r := healthyRow(); r.State = breaker.ForcedClosed; return r }(), false},
		{"window not full yet", func() breaker.Row { r := healthyRow(); r.Window.Count = 9; return r }(), true},
		{"a failure in the window", func() breaker.Row { r := healthyRow(); r.Window.Failures = 1 << 9; return r }(), true},
		{"a failure older than the window is forgotten", func() breaker.Row { r := healthyRow(); r.Window.Failures = 1 << 10; return r }(), false},
		{"a run of failures to reset", func() breaker.Row { r := healthyRow(); r.ConsecutiveFailures = 1; return r }(), true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			after, changed := breaker.Observe(testPolicy, tc.row, breaker.Ticket{Generation: tc.row.Generation}, breaker.Success, t0, &fixedRandom{})
			assert.Equal(t, tc.changed, changed)
			if !changed {
				assert.Equal(t, tc.row, after)
				return
			}
			assert.Equal(t, tc.row.Totals.Successes+1, after.Totals.Successes)
			assert.Zero(t, after.ConsecutiveFailures)
			assert.Zero(t, after.Window.Failures&1, "the success is the newest bit")
		})
	}
}

func TestObserveIgnores(t *testing.T) {
	now := t0.Add(time.Minute)
	live := breaker.Lease{ID: "live", Expires: now.Add(time.Second)}
	expired := breaker.Lease{ID: "old", Expires: now}
	cases := []struct {
		name    string
		row     breaker.Row
		ticket  breaker.Ticket
		outcome breaker.Outcome
	}{
		{"a late failure of an older generation", healthyRow(), breaker.Ticket{Generation: 1}, breaker.Transient},
		{"a late poison of an older generation", healthyRow(), breaker.Ticket{Generation: 1}, breaker.Poison},
		{"a late success after a re-open", openRow(2, now.Add(time.Minute)), breaker.Ticket{Generation: 3}, breaker.Success},
		{"an undefined outcome", healthyRow(), breaker.Ticket{Generation: 2}, breaker.Outcome(0)},
		{"an OPEN outcome without a lease", openRow(1, now.Add(time.Minute)), breaker.Ticket{Generation: 4}, breaker.Transient},
		{"a probe whose lease expired", probingRow(1, t0, expired), breaker.Ticket{Generation: 4, LeaseID: "old"}, breaker.Success},
		{"a probe with an unknown lease", probingRow(1, t0, live), breaker.Ticket{Generation: 4, LeaseID: "nope"}, breaker.Transient},
		{"a probe of an older generation", probingRow(1, t0, live), breaker.Ticket{Generation: 3, LeaseID: "live"}, breaker.Transient},
		{"anything in FORCED_OPEN", breaker.Row{State: breaker.ForcedOpen, Generation: 4}, breaker.Ticket{Generation: 4}, breaker.Transient},
		{"a canary without a lease", halfOpenRow(live), breaker.Ticket{Generation: 5}, breaker.Transient},
		{"a canary with an unknown lease", halfOpenRow(live), breaker.Ticket{Generation: 5, LeaseID: "nope"}, breaker.Transient},
		{"a canary whose lease expired", halfOpenRow(live, expired), breaker.Ticket{Generation: 5, LeaseID: "old"}, breaker.Success},
		{"a canary of an older half-open", halfOpenRow(live), breaker.Ticket{Generation: 3, LeaseID: "live"}, breaker.Success},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			after, changed := breaker.Observe(testPolicy, tc.row, tc.ticket, tc.outcome, now, &fixedRandom{})
			assert.False(t, changed)
			assert.Equal(t, tc.row, after)
		})
	}
}

func TestObserveCanaries(t *testing.T) {
	now := t0.Add(time.Minute)
	a := breaker.Lease{ID: "a", Expires: now.Add(time.Second)}
	b := breaker.Lease{ID: "b", Expires: now.Add(2 * time.Second)}
	ticket := func(id string) breaker.Ticket { return breaker.Ticket{Generation: 5, LeaseID: id} }
	rnd := &fixedRandom{f: 0.5}

	t.Run("a success frees the lease and counts", func(t *testing.T) {
		r := halfOpenRow(a, b)
		after, changed := breaker.Observe(testPolicy, r, ticket("a"), breaker.Success, now, rnd)
		require.True(t, changed)
		assert.Equal(t, breaker.HalfOpen, after.State)
		assert.Equal(t, []breaker.Lease{b}, after.Leases)
		assert.Equal(t, 1, after.CanarySuccesses)
		assert.Equal(t, r.Generation, after.Generation)
		assert.Equal(t, []breaker.Lease{a, b}, r.Leases, "the input row is not modified")
	})

	t.Run("SuccessesToClose successes close the breaker", func(t *testing.T) {
		r := halfOpenRow(a, b)
		r.Trips = 3
		r.Window = breaker.Window{Failures: 0b111, Count: 3}
		r.ConsecutiveFailures = 3
		r, _ = breaker.Observe(testPolicy, r, ticket("a"), breaker.Success, now, rnd)
		after, changed := breaker.Observe(testPolicy, r, ticket("b"), breaker.Success, now, rnd)
		require.True(t, changed)
		assert.Equal(t, breaker.Closed, after.State)
		assert.Equal(t, breaker.CauseCanarySuccesses, after.Cause)
		assert.Equal(t, int64(6), after.Generation)
		assert.Equal(t, now, after.ClosedAt, "traffic was held back")
		assert.Equal(t, now, after.ChangedAt)
		assert.Zero(t, after.Trips)
		assert.Zero(t, after.ConsecutiveFailures)
		assert.Zero(t, after.CanarySuccesses)
		assert.Equal(t, breaker.Window{}, after.Window)
		assert.Empty(t, after.Leases)
		assert.Equal(t, int64(1), after.Totals.Closes)
		assert.Equal(t, int64(2), after.Totals.Successes)
	})

	t.Run("a failure re-opens with the next cooldown", func(t *testing.T) {
		r := halfOpenRow(a, b)
		r.Trips = 2
		r.CanarySuccesses = 1
		after, changed := breaker.Observe(testPolicy, r, ticket("b"), breaker.Transient, now, rnd)
		require.True(t, changed)
		assert.Equal(t, breaker.Open, after.State)
		assert.Equal(t, breaker.CauseCanaryFailure, after.Cause)
		assert.Equal(t, 3, after.Trips)
		assert.Equal(t, now.Add(40*time.Second), after.OpenUntil, "third trip: 10s x 2^2")
		assert.Equal(t, int64(6), after.Generation)
		assert.Empty(t, after.Leases, "the other canary's lease goes with the generation")
		assert.Zero(t, after.CanarySuccesses)
		assert.Equal(t, int64(1), after.Totals.Trips)
		assert.Equal(t, int64(1), after.Totals.Failures)
	})

	t.Run("poison frees the permit without counting", func(t *testing.T) {
		r := halfOpenRow(a, b)
		after, changed := breaker.Observe(testPolicy, r, ticket("a"), breaker.Poison, now, rnd)
		require.True(t, changed)
		assert.Equal(t, breaker.HalfOpen, after.State)
		assert.Equal(t, []breaker.Lease{b}, after.Leases)
		assert.Zero(t, after.CanarySuccesses)
		assert.Equal(t, int64(1), after.Totals.Poison)
	})
}

// TestObserveProbe: the OPEN breaker's probe frees its lease; a success
// half-opens the breaker, a failure keeps it OPEN for a longer cooldown in
// the same generation, poison and throttling say nothing about health.
func TestObserveProbe(t *testing.T) {
	now := t0.Add(time.Hour)
	probe := lease("p", now.Add(10*time.Second))
	ticket := breaker.Ticket{Generation: 4, LeaseID: "p"}

	cases := []struct {
		name    string
		policy  func(*breaker.Policy)
		trips   int
		outcome breaker.Outcome
		check   func(t *testing.T, before, after breaker.Row)
	}{
		{
			name: "a success half-opens the breaker", trips: 2, outcome: breaker.Success,
			check: func(t *testing.T, before, after breaker.Row) {
				assert.Equal(t, breaker.HalfOpen, after.State)
				assert.Equal(t, breaker.CauseProbeSuccess, after.Cause)
				assert.Equal(t, before.Generation+1, after.Generation)
				assert.Equal(t, now, after.ChangedAt)
				assert.Equal(t, 1, after.CanarySuccesses, "the probe is the first canary success")
				assert.Equal(t, 2, after.Trips, "trips count until a close")
				assert.Equal(t, int64(1), after.Totals.Successes)
			},
		},
		{
			name: "a success closes at once when one is enough", trips: 2, outcome: breaker.Success,
			policy: func(p *breaker.Policy) { p.SuccessesToClose = 1 },
			check: func(t *testing.T, before, after breaker.Row) {
				assert.Equal(t, breaker.Closed, after.State)
				assert.Equal(t, breaker.CauseCanarySuccesses, after.Cause)
				assert.Equal(t, before.Generation+1, after.Generation, "one state change, one generation")
				assert.Equal(t, now, after.ClosedAt)
				assert.Zero(t, after.Trips)
				assert.Zero(t, after.CanarySuccesses)
				assert.Equal(t, int64(1), after.Totals.Closes)
			},
		},
		{
			name: "a failure keeps it open for the next cooldown", trips: 2, outcome: breaker.Transient,
			check: func(t *testing.T, before, after breaker.Row) {
				assert.Equal(t, breaker.Open, after.State)
				assert.Equal(t, before.Generation, after.Generation, "no state change: no new generation")
				assert.Equal(t, before.Cause, after.Cause)
				assert.Equal(t, before.ChangedAt, after.ChangedAt)
				assert.Equal(t, 3, after.Trips)
				assert.Equal(t, now.Add(40*time.Second), after.OpenUntil, "third trip: 10s x 2^2")
				d, _, changed := breaker.Decide(testPolicy, after, now, &fixedRandom{})
				assert.Equal(t, breaker.Queue, d.Verdict, "the next probe waits the new cooldown out in the room")
				assert.False(t, changed)
				assert.Equal(t, int64(1), after.Totals.Trips)
				assert.Equal(t, int64(1), after.Totals.Failures)
			},
		},
		{
			name: "a failure at the cap keeps the capped cooldown", trips: 7, outcome: breaker.Transient,
			check: func(t *testing.T, _, after breaker.Row) {
				assert.Equal(t, 8, after.Trips)
				assert.Equal(t, now.Add(60*time.Second), after.OpenUntil)
			},
		},
		{
			name: "poison frees the probe", trips: 2, outcome: breaker.Poison,
			check: func(t *testing.T, before, after breaker.Row) {
				assert.Equal(t, breaker.Open, after.State)
				assert.Equal(t, before.OpenUntil, after.OpenUntil)
				assert.Equal(t, before.Trips, after.Trips)
				assert.Equal(t, int64(1), after.Totals.Poison)
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := testPolicy
			if tc.policy != nil {
				tc.policy(&p)
			}
			before := probingRow(tc.trips, now.Add(-time.Second), probe)
			after, changed := breaker.Observe(p, before, ticket, tc.outcome, now, &fixedRandom{f: 0.5})
			require.True(t, changed)
			assert.Empty(t, after.Leases, "the probe's lease is freed")
			assert.Equal(t, []breaker.Lease{probe}, before.Leases, "the input row is not modified")
			tc.check(t, before, after)
		})
	}
}

// TestObserveThrottled: a throttled call is never a failure. In CLOSED and
// FORCED_CLOSED it pauses admission for ThrottlePause; a probe or canary
// frees its permit; each counts in Totals.Throttles.
func TestObserveThrottled(t *testing.T) {
	now := t0.Add(time.Hour)
	a, b := lease("a", now.Add(time.Second)), lease("b", now.Add(time.Second))
	failing := healthyRow()
	failing.Window = breaker.Window{Failures: 0b11, Count: 10}
	failing.ConsecutiveFailures = 2
	forcedClosed := healthyRow()
	forcedClosed.State = breaker.ForcedClosed
	halfOpen := halfOpenRow(a, b)
	halfOpen.CanarySuccesses = 1
	pauses := func(t *testing.T, before, after breaker.Row) {
		assert.Equal(t, now.Add(2*time.Second), after.ThrottledUntil)
		assert.Equal(t, before.Window, after.Window, "not in the window")
		assert.Equal(t, before.ConsecutiveFailures, after.ConsecutiveFailures, "neither a failure nor a success")
	}

	cases := []struct {
		name    string
		row     breaker.Row
		ticket  breaker.Ticket
		changed bool
		check   func(t *testing.T, before, after breaker.Row)
	}{
		{name: "closed pauses admission", row: healthyRow(), ticket: breaker.Ticket{Generation: 2}, changed: true, check: pauses},
		{name: "closed near its trip does not trip", row: failing, ticket: breaker.Ticket{Generation: 2}, changed: true, check: pauses},
		{name: "forced closed pauses admission", row: forcedClosed, ticket: breaker.Ticket{Generation: 2}, changed: true, check: pauses},
		{
			// The next probe waits out the pause (see Decide): probing
			// again at once would be throttled again.
			name: "a probe frees the probe after a pause", row: probingRow(1, now.Add(-time.Second), a),
			ticket: breaker.Ticket{Generation: 4, LeaseID: "a"}, changed: true,
			check: func(t *testing.T, before, after breaker.Row) {
				assert.Empty(t, after.Leases)
				assert.Equal(t, before.OpenUntil, after.OpenUntil)
				assert.Equal(t, before.Trips, after.Trips)
				assert.Equal(t, now.Add(2*time.Second), after.ThrottledUntil)
			},
		},
		{
			name: "a canary frees its permit after a pause", row: halfOpen,
			ticket: breaker.Ticket{Generation: 5, LeaseID: "a"}, changed: true,
			check: func(t *testing.T, _, after breaker.Row) {
				assert.Equal(t, []breaker.Lease{b}, after.Leases)
				assert.Equal(t, 1, after.CanarySuccesses, "not a canary success either")
				assert.Equal(t, now.Add(2*time.Second), after.ThrottledUntil)
			},
		},
		{name: "forced open ignores it", row: breaker.Row{Key: "k", State: breaker.ForcedOpen, Generation: 4}, ticket: breaker.Ticket{Generation: 4}},
		{name: "open without a lease ignores it", row: openRow(1, now.Add(time.Minute)), ticket: breaker.Ticket{Generation: 4}},
		{name: "an older generation is ignored", row: healthyRow(), ticket: breaker.Ticket{Generation: 1}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			after, changed := breaker.Observe(testPolicy, tc.row, tc.ticket, breaker.Throttled, now, &fixedRandom{})
			assert.Equal(t, tc.changed, changed)
			if !changed {
				assert.Equal(t, tc.row, after)
				return
			}
			assert.Equal(t, tc.row.State, after.State, "never a state change")
			assert.Equal(t, tc.row.Generation, after.Generation)
			assert.Equal(t, tc.row.Totals.Throttles+1, after.Totals.Throttles)
			assert.Equal(t, tc.row.Totals.Failures, after.Totals.Failures)
			assert.Zero(t, after.Totals.Trips)
			tc.check(t, tc.row, after)
		})
	}
}

func TestObserveForcedClosedRecordsButNeverTrips(t *testing.T) {
	r := breaker.Row{Key: "k", State: breaker.ForcedClosed, Generation: 9}
	r = observeAll(t, testPolicy, r, t0, repeat(breaker.Transient, 25)...)
	assert.Equal(t, breaker.ForcedClosed, r.State)
	assert.Equal(t, int64(9), r.Generation)
	assert.Equal(t, int64(25), r.Totals.Failures)
	assert.Equal(t, 25, r.ConsecutiveFailures)
	assert.Equal(t, breaker.Window{Failures: 1<<10 - 1, Count: 10}, r.Window)
	assert.Zero(t, r.Totals.Trips)
}

func TestObserveReleasesAnExpiredForcedMode(t *testing.T) {
	r := breaker.Row{Key: "k", State: breaker.ForcedClosed, Generation: 9, ForcedUntil: t0}
	after, changed := breaker.Observe(testPolicy, r, breaker.Ticket{Generation: 9}, breaker.Transient, t0, &fixedRandom{})
	require.True(t, changed, "the release is written")
	assert.Equal(t, breaker.Closed, after.State)
	assert.Equal(t, int64(10), after.Generation)
	assert.Zero(t, after.Totals.Failures, "the outcome was admitted under the forced generation")
}
