package breaker_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/breaker"
)

func TestDecide(t *testing.T) {
	now := t0.Add(time.Hour)
	lease := func(id string, expires time.Time) breaker.Lease { return breaker.Lease{ID: id, Expires: expires} }

	cases := []struct {
		name    string
		policy  func(*breaker.Policy)
		row     breaker.Row
		verdict breaker.Verdict
		wait    time.Duration
		state   breaker.State
		changed bool
		check   func(t *testing.T, before, after breaker.Row, d breaker.Decision)
	}{
		{
			name: "closed proceeds without a write", row: healthyRow(),
			verdict: breaker.Proceed, state: breaker.Closed,
			check: func(t *testing.T, before, _ breaker.Row, d breaker.Decision) {
				assert.Equal(t, breaker.Ticket{Generation: before.Generation}, d.Ticket)
			},
		},
		{
			name: "new breaker proceeds", row: breaker.Row{Key: "k"},
			verdict: breaker.Proceed, state: breaker.Closed,
		},
		{
			name: "open waits until its cooldown ends", row: openRow(1, now.Add(7*time.Second)),
			verdict: breaker.Wait, wait: 7 * time.Second, state: breaker.Open,
		},
		{
			name: "open wait is spread later, never earlier", row: openRow(1, now.Add(10*time.Second)),
			policy:  func(p *breaker.Policy) { p.Jitter = 0.2 },
			verdict: breaker.Wait, wait: 11 * time.Second, state: breaker.Open,
		},
		{
			name: "open at cooldown end moves to half-open with a canary", row: openRow(2, now),
			verdict: breaker.Canary, state: breaker.HalfOpen, changed: true,
			check: func(t *testing.T, before, after breaker.Row, d breaker.Decision) {
				assert.Equal(t, before.Generation+1, after.Generation)
				assert.Equal(t, breaker.CauseCooldownElapsed, after.Cause)
				assert.Equal(t, now, after.ChangedAt)
				assert.Equal(t, 2, after.Trips, "trips count until a close")
				require.Len(t, after.Leases, 1)
				assert.Equal(t, now.Add(30*time.Second), after.Leases[0].Expires)
				assert.Equal(t, breaker.Ticket{Generation: after.Generation, LeaseID: after.Leases[0].ID}, d.Ticket)
				assert.NotEmpty(t, d.Ticket.LeaseID)
			},
		},
		{
			name: "half-open grants a canary while permits are free", row: halfOpenRow(lease("a", now.Add(time.Second))),
			verdict: breaker.Canary, state: breaker.HalfOpen, changed: true,
			check: func(t *testing.T, before, after breaker.Row, d breaker.Decision) {
				assert.Equal(t, before.Generation, after.Generation, "a grant is not a state change")
				require.Len(t, after.Leases, 2)
				assert.Equal(t, "a", after.Leases[0].ID)
				assert.Equal(t, d.Ticket.LeaseID, after.Leases[1].ID)
				assert.NotEqual(t, "a", d.Ticket.LeaseID)
			},
		},
		{
			name:    "half-open with permits taken waits for the earliest expiry",
			row:     halfOpenRow(lease("a", now.Add(3*time.Second)), lease("b", now.Add(9*time.Second))),
			verdict: breaker.Wait, wait: 3 * time.Second, state: breaker.HalfOpen,
		},
		{
			name:    "half-open with permits taken polls when expiry is far",
			row:     halfOpenRow(lease("a", now.Add(25*time.Second)), lease("b", now.Add(20*time.Second))),
			verdict: breaker.Wait, wait: 5 * time.Second, state: breaker.HalfOpen,
		},
		{
			name:    "an expired lease frees its permit",
			row:     halfOpenRow(lease("a", now), lease("b", now.Add(20*time.Second))),
			verdict: breaker.Canary, state: breaker.HalfOpen, changed: true,
			check: func(t *testing.T, _, after breaker.Row, d breaker.Decision) {
				require.Len(t, after.Leases, 2)
				assert.Equal(t, "b", after.Leases[0].ID)
				assert.Equal(t, d.Ticket.LeaseID, after.Leases[1].ID)
			},
		},
		{
			name:    "forced open waits CooldownMax when held until released",
			row:     breaker.Row{Key: "k", State: breaker.ForcedOpen, Generation: 3},
			verdict: breaker.Wait, wait: 60 * time.Second, state: breaker.ForcedOpen,
		},
		{
			name:    "forced open waits until its end",
			row:     breaker.Row{Key: "k", State: breaker.ForcedOpen, Generation: 3, ForcedUntil: now.Add(20 * time.Second)},
			verdict: breaker.Wait, wait: 20 * time.Second, state: breaker.ForcedOpen,
		},
		{
			name:    "forced open wait is capped at CooldownMax",
			row:     breaker.Row{Key: "k", State: breaker.ForcedOpen, Generation: 3, ForcedUntil: now.Add(2 * time.Hour)},
			verdict: breaker.Wait, wait: 60 * time.Second, state: breaker.ForcedOpen,
		},
		{
			name: "forced open past its end is released to a fresh closed breaker",
			row: breaker.Row{Key: "k", State: breaker.ForcedOpen, Generation: 3, ForcedUntil: now,
				Window: breaker.Window{Failures: 0b111, Count: 3}, ConsecutiveFailures: 3, Trips: 2},
			verdict: breaker.Proceed, state: breaker.Closed, changed: true,
			check: func(t *testing.T, before, after breaker.Row, d breaker.Decision) {
				assert.Equal(t, before.Generation+1, after.Generation)
				assert.Equal(t, after.Generation, d.Ticket.Generation)
				assert.Equal(t, breaker.CauseForcedExpired, after.Cause)
				assert.Equal(t, breaker.Window{}, after.Window)
				assert.Zero(t, after.ConsecutiveFailures)
				assert.Zero(t, after.Trips)
				assert.True(t, after.ForcedUntil.IsZero())
				assert.Equal(t, now, after.ClosedAt, "traffic held back resumes through the ramp")
			},
		},
		{
			name:    "forced closed proceeds",
			row:     breaker.Row{Key: "k", State: breaker.ForcedClosed, Generation: 3, ForcedUntil: now.Add(time.Second)},
			verdict: breaker.Proceed, state: breaker.ForcedClosed,
		},
		{
			name:    "forced closed past its end is released without a ramp",
			row:     breaker.Row{Key: "k", State: breaker.ForcedClosed, Generation: 3, ForcedUntil: now.Add(-time.Second), ClosedAt: t0},
			verdict: breaker.Proceed, state: breaker.Closed, changed: true,
			check: func(t *testing.T, _, after breaker.Row, _ breaker.Decision) {
				assert.Equal(t, t0, after.ClosedAt, "traffic was flowing: no ramp")
				assert.Equal(t, breaker.CauseForcedExpired, after.Cause)
			},
		},
		{
			name:    "an unknown state admits nothing",
			row:     breaker.Row{Key: "k", State: breaker.State(42)},
			verdict: breaker.Wait, wait: 5 * time.Second, state: breaker.State(42),
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := testPolicy
			if tc.policy != nil {
				tc.policy(&p)
			}
			before := tc.row
			d, after, changed := breaker.Decide(p, tc.row, now, &fixedRandom{f: 0.5})
			assert.Equal(t, tc.verdict, d.Verdict)
			assert.Equal(t, tc.wait, d.Wait)
			assert.Equal(t, tc.state, d.State)
			assert.Equal(t, tc.state, after.State)
			assert.Equal(t, tc.changed, changed)
			assert.Equal(t, before.Version, after.Version, "the Breaker sets versions, not Decide")
			if !changed {
				assert.Equal(t, before, after)
			}
			if tc.check != nil {
				tc.check(t, before, after, d)
			}
		})
	}
}

func TestDecideDoesNotAliasTheInputLeases(t *testing.T) {
	now := t0.Add(time.Hour)
	leases := make([]breaker.Lease, 1, 4)
	leases[0] = breaker.Lease{ID: "a", Expires: now.Add(time.Minute)}
	row := halfOpenRow(leases...)
	row.Leases = leases

	_, after, changed := breaker.Decide(testPolicy, row, now, &fixedRandom{})
	require.True(t, changed)
	require.Len(t, after.Leases, 2)
	assert.Len(t, row.Leases, 1)
	assert.Equal(t, breaker.Lease{}, leases[:2][1], "the caller's backing array is untouched")
}

func TestDecideLeaseIDsAreUnique(t *testing.T) {
	p := testPolicy
	p.HalfOpenPermits = 64
	row := halfOpenRow()
	rnd := seeded(3)
	seen := map[string]bool{}
	for range 64 {
		d, next, changed := breaker.Decide(p, row, t0, rnd)
		require.True(t, changed)
		require.Equal(t, breaker.Canary, d.Verdict)
		assert.False(t, seen[d.Ticket.LeaseID], "lease %s granted twice", d.Ticket.LeaseID)
		seen[d.Ticket.LeaseID] = true
		row = next
	}
	d, _, changed := breaker.Decide(p, row, t0, rnd)
	assert.Equal(t, breaker.Wait, d.Verdict, "64 permits, 64 leases")
	assert.False(t, changed)
}

func TestDecideRamp(t *testing.T) {
	p := testPolicy
	p.RampDuration = 100 * time.Second
	p.RampStart = 0.2
	row := breaker.Row{Key: "k", State: breaker.Closed, Generation: 7, ClosedAt: t0}

	cases := []struct {
		elapsed time.Duration
		want    float64
	}{
		{0, 0.2},
		{25 * time.Second, 0.4},
		{50 * time.Second, 0.6},
		{75 * time.Second, 0.8},
		{100 * time.Second, 1},
		{time.Hour, 1},
		{-time.Minute, 0.2}, // a clock behind the closer's
	}
	for _, tc := range cases {
		t.Run(tc.elapsed.String(), func(t *testing.T) {
			const n = 20000
			rnd := seeded(uint64(tc.elapsed))
			admitted := 0
			for range n {
				d, after, changed := breaker.Decide(p, row, t0.Add(tc.elapsed), rnd)
				require.False(t, changed, "the ramp needs no write")
				require.Equal(t, row, after)
				switch d.Verdict {
				case breaker.Proceed:
					admitted++
				case breaker.Wait:
					require.Positive(t, d.Wait)
					require.LessOrEqual(t, d.Wait, p.RampDuration/10, "a turned-away call asks again within a tenth of the ramp")
				default:
					require.Failf(t, "unexpected verdict", "%s", d.Verdict)
				}
			}
			// Binomial standard deviation at n=20000 is at most 0.0036:
			// 0.015 is over four of them.
			assert.InDelta(t, tc.want, float64(admitted)/n, 0.015)
		})
	}

	t.Run("disabled ramp admits everything", func(t *testing.T) {
		q := p
		q.RampDuration = -1
		d, _, _ := breaker.Decide(q, row, t0, &fixedRandom{f: 0.99})
		assert.Equal(t, breaker.Proceed, d.Verdict)
	})
	t.Run("turned-away wait ends with the ramp", func(t *testing.T) {
		d, _, _ := breaker.Decide(p, row, t0.Add(97*time.Second), &fixedRandom{f: 0.999})
		require.Equal(t, breaker.Wait, d.Verdict)
		assert.Equal(t, 3*time.Second, d.Wait)
	})
}
