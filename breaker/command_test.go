package breaker_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/breaker"
)

func TestParseCommandKind(t *testing.T) {
	for _, k := range []breaker.CommandKind{breaker.Reset, breaker.ForceOpen, breaker.ForceClose, breaker.Release} {
		t.Run(k.String(), func(t *testing.T) {
			got, err := breaker.ParseCommandKind(k.String())
			require.NoError(t, err)
			assert.Equal(t, k, got)
		})
	}
	for _, name := range []string{"x", "", "RESET", "force-open"} {
		t.Run("unknown "+name, func(t *testing.T) {
			_, err := breaker.ParseCommandKind(name)
			require.Error(t, err)
			assert.Contains(t, err.Error(), `breaker: unknown command "`+name+`"`)
		})
	}
}

func TestParseOutcome(t *testing.T) {
	for _, o := range []breaker.Outcome{breaker.Success, breaker.Transient, breaker.Poison, breaker.Throttled} {
		got, err := breaker.ParseOutcome(o.String())
		require.NoError(t, err)
		assert.Equal(t, o, got)
	}
	got, err := breaker.ParseOutcome("transient")
	require.NoError(t, err)
	assert.Equal(t, breaker.Transient, got)
	got, err = breaker.ParseOutcome("throttled")
	require.NoError(t, err)
	assert.Equal(t, breaker.Throttled, got)
	_, err = breaker.ParseOutcome("failure")
	assert.EqualError(t, err, `breaker: unknown outcome "failure" (want success, transient, poison or throttled)`)
	assert.Equal(t, "Outcome(0)", breaker.Outcome(0).String())
	assert.Equal(t, "Verdict(9)", breaker.Verdict(9).String())
}

func TestApplyCommand(t *testing.T) {
	now := t0.Add(time.Hour)
	later := now.Add(10 * time.Minute)
	who := func(k breaker.CommandKind) breaker.Command {
		return breaker.Command{Kind: k, Actor: "alice", Reason: "incident 42"}
	}
	until := func(k breaker.CommandKind, at time.Time) breaker.Command {
		c := who(k)
		c.Until = at
		return c
	}
	tripped := openRow(3, now.Add(time.Minute))
	tripped.Window = breaker.Window{Failures: 0b111, Count: 3}
	tripped.ConsecutiveFailures = 3
	halfOpen := halfOpenRow(breaker.Lease{ID: "a", Expires: now.Add(time.Second)})
	probing := probingRow(2, now, lease("p", now.Add(time.Second)))
	forcedOpen := breaker.Row{Key: "k", State: breaker.ForcedOpen, Generation: 8, ForcedUntil: later, Trips: 1}
	forcedClosed := breaker.Row{Key: "k", State: breaker.ForcedClosed, Generation: 8, ClosedAt: t0}

	cases := []struct {
		name    string
		row     breaker.Row
		cmd     breaker.Command
		state   breaker.State
		cause   string
		changed bool
		check   func(t *testing.T, before, after breaker.Row)
	}{
		{
			name: "reset an open breaker", row: tripped, cmd: who(breaker.Reset),
			state: breaker.Closed, cause: breaker.CauseReset, changed: true,
			check: func(t *testing.T, _, after breaker.Row) {
				assert.Equal(t, breaker.Window{}, after.Window)
				assert.Zero(t, after.Trips)
				assert.Zero(t, after.ConsecutiveFailures)
				assert.True(t, after.OpenUntil.IsZero())
				assert.Equal(t, now, after.ClosedAt, "traffic was held back")
			},
		},
		{
			name: "reset a closed breaker", row: healthyRow(), cmd: who(breaker.Reset),
			state: breaker.Closed, cause: breaker.CauseReset, changed: true,
			check: func(t *testing.T, _, after breaker.Row) {
				assert.True(t, after.ClosedAt.IsZero(), "traffic was flowing")
				assert.Equal(t, breaker.Window{}, after.Window)
			},
		},
		{
			name: "reset a half-open breaker drops its leases", row: halfOpen, cmd: who(breaker.Reset),
			state: breaker.Closed, cause: breaker.CauseReset, changed: true,
			check: func(t *testing.T, _, after breaker.Row) { assert.Empty(t, after.Leases) },
		},
		{
			name: "reset an open breaker drops its probe", row: probing, cmd: who(breaker.Reset),
			state: breaker.Closed, cause: breaker.CauseReset, changed: true,
			check: func(t *testing.T, _, after breaker.Row) { assert.Empty(t, after.Leases) },
		},
		{
			name: "force open drops the probe", row: probing, cmd: who(breaker.ForceOpen),
			state: breaker.ForcedOpen, cause: breaker.CauseForceOpen, changed: true,
			check: func(t *testing.T, _, after breaker.Row) { assert.Empty(t, after.Leases) },
		},
		{
			name: "reset a forced breaker", row: forcedOpen, cmd: who(breaker.Reset),
			state: breaker.Closed, cause: breaker.CauseReset, changed: true,
			check: func(t *testing.T, _, after breaker.Row) { assert.True(t, after.ForcedUntil.IsZero()) },
		},
		{
			name: "force open until released", row: healthyRow(), cmd: who(breaker.ForceOpen),
			state: breaker.ForcedOpen, cause: breaker.CauseForceOpen, changed: true,
			check: func(t *testing.T, _, after breaker.Row) { assert.True(t, after.ForcedUntil.IsZero()) },
		},
		{
			name: "force open until a time", row: halfOpen, cmd: until(breaker.ForceOpen, later),
			state: breaker.ForcedOpen, cause: breaker.CauseForceOpen, changed: true,
			check: func(t *testing.T, _, after breaker.Row) {
				assert.Equal(t, later, after.ForcedUntil)
				assert.Empty(t, after.Leases)
			},
		},
		{
			name: "force close until released", row: tripped, cmd: who(breaker.ForceClose),
			state: breaker.ForcedClosed, cause: breaker.CauseForceClose, changed: true,
		},
		{
			name: "force close replaces a forced open", row: forcedOpen, cmd: until(breaker.ForceClose, later.Add(time.Hour)),
			state: breaker.ForcedClosed, cause: breaker.CauseForceClose, changed: true,
			check: func(t *testing.T, _, after breaker.Row) { assert.Equal(t, later.Add(time.Hour), after.ForcedUntil) },
		},
		{
			name: "release a forced open", row: forcedOpen, cmd: who(breaker.Release),
			state: breaker.Closed, cause: breaker.CauseRelease, changed: true,
			check: func(t *testing.T, _, after breaker.Row) {
				assert.Zero(t, after.Trips)
				assert.True(t, after.ForcedUntil.IsZero())
				assert.Equal(t, now, after.ClosedAt)
			},
		},
		{
			name: "release a forced closed", row: forcedClosed, cmd: who(breaker.Release),
			state: breaker.Closed, cause: breaker.CauseRelease, changed: true,
			check: func(t *testing.T, _, after breaker.Row) { assert.Equal(t, t0, after.ClosedAt, "traffic was flowing") },
		},
		{name: "release a breaker that is not forced is a no-op", row: tripped, cmd: who(breaker.Release), state: breaker.Open},
		{name: "release a closed breaker is a no-op", row: healthyRow(), cmd: who(breaker.Release), state: breaker.Closed},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			after, changed, err := breaker.ApplyCommand(tc.row, tc.cmd, now)
			require.NoError(t, err)
			assert.Equal(t, tc.changed, changed)
			assert.Equal(t, tc.state, after.State)
			if !tc.changed {
				assert.Equal(t, tc.row, after)
				return
			}
			assert.Equal(t, tc.row.Generation+1, after.Generation)
			assert.Equal(t, tc.cause, after.Cause)
			assert.Equal(t, now, after.ChangedAt)
			assert.Equal(t, "alice", after.Actor)
			assert.Equal(t, "incident 42", after.Reason)
			assert.Equal(t, tc.row.Version, after.Version)
			if tc.check != nil {
				tc.check(t, tc.row, after)
			}
		})
	}
}

func TestApplyCommandRejects(t *testing.T) {
	now := t0
	cases := []struct {
		name string
		cmd  breaker.Command
		msg  string
	}{
		{"unknown kind", breaker.Command{Kind: 0}, "breaker: unknown command CommandKind(0)"},
		{"until in the past", breaker.Command{Kind: breaker.ForceOpen, Until: now.Add(-time.Second)},
			"breaker: command open: until 2026-03-01T11:59:59Z is not after now (2026-03-01T12:00:00Z)"},
		{"until now", breaker.Command{Kind: breaker.ForceClose, Until: now}, "breaker: command close: until"},
		{"until on reset", breaker.Command{Kind: breaker.Reset, Until: now.Add(time.Hour)},
			"breaker: command reset: until is only for open and close"},
		{"until on release", breaker.Command{Kind: breaker.Release, Until: now.Add(time.Hour)},
			"breaker: command release: until is only for open and close"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			row := healthyRow()
			after, changed, err := breaker.ApplyCommand(row, tc.cmd, now)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.msg)
			assert.False(t, changed)
			assert.Equal(t, row, after)
		})
	}
}

func TestForcedModesExpire(t *testing.T) {
	start := t0
	end := start.Add(10 * time.Minute)
	for _, kind := range []breaker.CommandKind{breaker.ForceOpen, breaker.ForceClose} {
		t.Run(kind.String(), func(t *testing.T) {
			r, _, err := breaker.ApplyCommand(healthyRow(), breaker.Command{Kind: kind, Until: end}, start)
			require.NoError(t, err)
			forced := r.State

			d, same, changed := breaker.Decide(testPolicy, r, end.Add(-time.Nanosecond), &fixedRandom{})
			assert.False(t, changed, "a forced mode before its end writes nothing")
			assert.Equal(t, r, same)
			if kind == breaker.ForceOpen {
				assert.Equal(t, breaker.Queue, d.Verdict, "a timed hold queues until its end")
			} else {
				assert.Equal(t, breaker.Proceed, d.Verdict)
			}
			assert.Equal(t, forced, same.State, "still forced just before its end")
			assert.Equal(t, forced, d.State)

			d, after, changed := breaker.Decide(testPolicy, r, end, &fixedRandom{})
			assert.True(t, changed)
			assert.Equal(t, breaker.Closed, after.State)
			assert.Equal(t, breaker.Proceed, d.Verdict)
			assert.Equal(t, kind == breaker.ForceOpen, d.Lifted, "the end of a hold lifts it")
			assert.Equal(t, breaker.CauseForcedExpired, after.Cause)
			assert.Equal(t, r.Generation+1, after.Generation)

			released, changed, err := breaker.ApplyCommand(r, breaker.Command{Kind: breaker.Release}, end.Add(time.Minute))
			require.NoError(t, err)
			assert.True(t, changed, "an expired mode not yet written as released is released")
			assert.Equal(t, breaker.CauseRelease, released.Cause)
			assert.Equal(t, r.Generation+1, released.Generation, "one change, one generation")

			reset, _, err := breaker.ApplyCommand(r, breaker.Command{Kind: breaker.Reset}, end.Add(time.Minute))
			require.NoError(t, err)
			assert.Equal(t, r.Generation+1, reset.Generation, "one change, one generation")
		})
	}
	t.Run("without until, a forced mode lasts", func(t *testing.T) {
		r, _, err := breaker.ApplyCommand(healthyRow(), breaker.Command{Kind: breaker.ForceOpen}, start)
		require.NoError(t, err)
		d, after, changed := breaker.Decide(testPolicy, r, start.Add(1000*time.Hour), &fixedRandom{})
		assert.False(t, changed)
		assert.Equal(t, breaker.ForcedOpen, after.State)
		assert.Equal(t, breaker.Queue, d.Verdict)
	})
}
