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
	closedAt := func(at time.Time) breaker.Row { r := healthyRow(); r.ClosedAt = at; return r }
	throttledRow := func(s breaker.State, until time.Time) breaker.Row {
		r := healthyRow()
		r.State, r.ThrottledUntil = s, until
		return r
	}
	throttledProbe := func(until time.Time) breaker.Row {
		r := openRow(2, now.Add(-time.Minute))
		r.ThrottledUntil = until
		return r
	}

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
			name: "closed right after a close proceeds: pacing is the releaser's", row: closedAt(now.Add(-time.Second)),
			verdict: breaker.Proceed, state: breaker.Closed,
		},
		{
			name: "closed queues while a throttle pause lasts", row: throttledRow(breaker.Closed, now.Add(time.Second)),
			verdict: breaker.Queue, state: breaker.Closed,
			check: func(t *testing.T, _, _ breaker.Row, d breaker.Decision) {
				assert.Equal(t, breaker.Ticket{}, d.Ticket, "a queued call holds no ticket")
			},
		},
		{
			name: "closed proceeds when the throttle pause ends", row: throttledRow(breaker.Closed, now),
			verdict: breaker.Proceed, state: breaker.Closed,
		},
		{
			name:    "forced closed proceeds",
			row:     breaker.Row{Key: "k", State: breaker.ForcedClosed, Generation: 3, ForcedUntil: now.Add(time.Second)},
			verdict: breaker.Proceed, state: breaker.ForcedClosed,
		},
		{
			name: "forced closed queues while a throttle pause lasts", row: throttledRow(breaker.ForcedClosed, now.Add(time.Nanosecond)),
			verdict: breaker.Queue, state: breaker.ForcedClosed,
		},
		{
			name: "an open breaker queues its callers during the cooldown, without a write", row: openRow(1, now.Add(7*time.Second)),
			verdict: breaker.Queue, state: breaker.Open,
			check: func(t *testing.T, _, _ breaker.Row, d breaker.Decision) {
				assert.Equal(t, breaker.Ticket{}, d.Ticket, "a queued call holds no ticket")
			},
		},
		{
			name: "an open breaker queues up to the cooldown's last instant", row: openRow(3, now.Add(time.Nanosecond)),
			verdict: breaker.Queue, state: breaker.Open,
		},
		{
			name: "an open breaker queues for a long cooldown too: nobody waits it out in an execution", row: openRow(5, now.Add(time.Hour)),
			policy:  func(p *breaker.Policy) { p.Jitter = 0.2 },
			verdict: breaker.Queue, state: breaker.Open,
		},
		{
			name: "at the cooldown's end the probe goes and the breaker stays open", row: openRow(1, now),
			verdict: breaker.Canary, state: breaker.Open, changed: true,
			check: func(t *testing.T, before, after breaker.Row, d breaker.Decision) {
				assert.Equal(t, before.Generation, after.Generation, "the probe is not a state change")
				assert.Equal(t, before.Cause, after.Cause)
				assert.Equal(t, before.ChangedAt, after.ChangedAt)
				assert.Equal(t, before.OpenUntil, after.OpenUntil)
				assert.Equal(t, 1, after.Trips, "trips count until a close")
				require.Len(t, after.Leases, 1)
				assert.Equal(t, now.Add(30*time.Second), after.Leases[0].Expires)
				assert.Equal(t, breaker.Ticket{Generation: before.Generation, LeaseID: after.Leases[0].ID}, d.Ticket)
				assert.NotEmpty(t, d.Ticket.LeaseID)
			},
		},
		{
			name: "after the cooldown any caller takes the probe", row: openRow(2, now.Add(-time.Minute)),
			verdict: breaker.Canary, state: breaker.Open, changed: true,
		},
		{
			name: "after a throttled probe the next queues while the pause lasts", row: throttledProbe(now.Add(time.Second)),
			verdict: breaker.Queue, state: breaker.Open,
		},
		{
			name: "after a throttled probe the next goes when the pause ends", row: throttledProbe(now),
			verdict: breaker.Canary, state: breaker.Open, changed: true,
		},
		{
			name:    "one probe at a time, whatever the permits",
			row:     probingRow(2, now.Add(-time.Second), lease("p", now.Add(time.Second))),
			verdict: breaker.Queue, state: breaker.Open,
		},
		{
			name:    "an expired probe lease frees the probe",
			row:     probingRow(2, now.Add(-time.Minute), lease("p", now)),
			verdict: breaker.Canary, state: breaker.Open, changed: true,
			check: func(t *testing.T, _, after breaker.Row, d breaker.Decision) {
				require.Len(t, after.Leases, 1, "the expired lease is dropped")
				assert.Equal(t, d.Ticket.LeaseID, after.Leases[0].ID)
				assert.NotEqual(t, "p", d.Ticket.LeaseID)
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
			name:    "half-open without a free permit queues",
			row:     halfOpenRow(lease("a", now.Add(3*time.Second)), lease("b", now.Add(9*time.Second))),
			verdict: breaker.Queue, state: breaker.HalfOpen,
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
			name:    "forced open queues until released",
			row:     breaker.Row{Key: "k", State: breaker.ForcedOpen, Generation: 3},
			verdict: breaker.Queue, state: breaker.ForcedOpen,
		},
		{
			name:    "a timed hold queues until its end, without a write",
			row:     breaker.Row{Key: "k", State: breaker.ForcedOpen, Generation: 3, ForcedUntil: now.Add(20 * time.Second)},
			verdict: breaker.Queue, state: breaker.ForcedOpen,
			check: func(t *testing.T, _, _ breaker.Row, d breaker.Decision) {
				assert.False(t, d.Lifted)
			},
		},
		{
			name:    "a timed hold queues up to its last instant",
			row:     breaker.Row{Key: "k", State: breaker.ForcedOpen, Generation: 3, ForcedUntil: now.Add(time.Nanosecond)},
			verdict: breaker.Queue, state: breaker.ForcedOpen,
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
				assert.Equal(t, now, after.ClosedAt, "traffic was held back")
				assert.True(t, d.Lifted, "the hold's room is to be released")
			},
		},
		{
			name:    "forced closed past its end is released, keeping ClosedAt",
			row:     breaker.Row{Key: "k", State: breaker.ForcedClosed, Generation: 3, ForcedUntil: now.Add(-time.Second), ClosedAt: t0},
			verdict: breaker.Proceed, state: breaker.Closed, changed: true,
			check: func(t *testing.T, _, after breaker.Row, _ breaker.Decision) {
				assert.Equal(t, t0, after.ClosedAt, "traffic was flowing")
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
	assert.Equal(t, breaker.Queue, d.Verdict, "64 permits, 64 leases")
	assert.False(t, changed)
}

// TestDecideThrottlePause: a throttled call pauses admission for
// ThrottlePause without a write per decision, and a throttle during the
// pause extends it.
func TestDecideThrottlePause(t *testing.T) {
	throttled, changed := breaker.Observe(testPolicy, healthyRow(), breaker.Ticket{Generation: 2}, breaker.Throttled, t0, &fixedRandom{})
	require.True(t, changed)
	again, _ := breaker.Observe(testPolicy, throttled, breaker.Ticket{Generation: 2}, breaker.Throttled, t0.Add(time.Second), &fixedRandom{})

	cases := []struct {
		name    string
		row     breaker.Row
		elapsed time.Duration
		want    breaker.Verdict
	}{
		{"at once", throttled, 0, breaker.Queue},
		{"during the pause", throttled, 2*time.Second - time.Nanosecond, breaker.Queue},
		{"when the pause ends", throttled, 2 * time.Second, breaker.Proceed},
		{"long after", throttled, time.Hour, breaker.Proceed},
		{"a clock behind the writer's", throttled, -time.Minute, breaker.Queue},
		{"a second throttle extends the pause", again, 2 * time.Second, breaker.Queue},
		{"until its own pause ends", again, 3 * time.Second, breaker.Proceed},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d, after, changed := breaker.Decide(testPolicy, tc.row, t0.Add(tc.elapsed), &fixedRandom{})
			assert.Equal(t, tc.want, d.Verdict)
			assert.False(t, changed, "the pause needs no write per decision")
			assert.Equal(t, tc.row, after)
		})
	}
}

// A throttled probe or canary pauses the next one too: OPEN and HALF_OPEN
// queue (without a write) until the pause ends. Without it a throttled probe's next one went at once, and
// was throttled again, at the same instant, as long as the target
// throttled.
func TestAThrottledProbePausesTheNext(t *testing.T) {
	probe := breaker.Lease{ID: "a", Expires: t0.Add(time.Minute)}
	open, _ := breaker.Observe(testPolicy, probingRow(1, t0.Add(-time.Second), probe), breaker.Ticket{Generation: 4, LeaseID: "a"},
		breaker.Throttled, t0, &fixedRandom{})
	require.Equal(t, t0.Add(2*time.Second), open.ThrottledUntil)

	for _, at := range []time.Duration{0, time.Second, 2*time.Second - time.Nanosecond} {
		d, after, changed := breaker.Decide(testPolicy, open, t0.Add(at), &fixedRandom{})
		assert.Equal(t, breaker.Queue, d.Verdict, "the next probe waits out the pause in the room (%v)", at)
		assert.False(t, changed, "without a write")
		assert.Equal(t, open, after)
	}
	d, _, _ := breaker.Decide(testPolicy, open, t0.Add(2*time.Second), &fixedRandom{})
	assert.Equal(t, breaker.Canary, d.Verdict, "the pause over, the probe goes")

	b := breaker.Lease{ID: "b", Expires: t0.Add(time.Minute)}
	half, _ := breaker.Observe(testPolicy, halfOpenRow(breaker.Lease{ID: "a", Expires: t0.Add(time.Minute)}, b),
		breaker.Ticket{Generation: 5, LeaseID: "a"}, breaker.Throttled, t0, &fixedRandom{})
	d, _, _ = breaker.Decide(testPolicy, half, t0.Add(time.Second), &fixedRandom{})
	assert.Equal(t, breaker.Queue, d.Verdict, "a free permit waits out the pause")
	d, _, _ = breaker.Decide(testPolicy, half, t0.Add(2*time.Second), &fixedRandom{})
	assert.Equal(t, breaker.Canary, d.Verdict)
}
