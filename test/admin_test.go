package test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/admin"
	"github.com/redrive/redrive/attempt"
	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/emulate/executor"
	"github.com/redrive/redrive/emulate/local"
	"github.com/redrive/redrive/emulate/simtarget"
)

// admin runs one admin execution and requires it to succeed.
func runAdmin(t *testing.T, s *local.Stack, req admin.Request) admin.Output {
	t.Helper()
	out, err := s.Admin(t.Context(), req)
	require.NoError(t, err, "admin %s", req.Command)
	return out
}

// callsBefore counts consumer calls before at.
func callsBefore(s *local.Stack, at time.Time) int {
	return s.Target.Ledger().CallsBetween(time.Time{}, at)
}

// An operator drives the breaker from the console: force-open holds
// messages back without a single call to the target, force-close lets them
// through, release returns to automatic, a forced mode with an end expires
// by itself, reset closes a tripped breaker with an empty window; and every
// invalid request fails the execution with InvalidCommand naming the
// problem.
func TestAdminCommands(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	outageAt := t0.Add(3 * time.Hour)
	s := start(t, local.Options{
		Start:   t0,
		Attempt: attempt.Config{MaxAttempts: 10}, // the reset lets the tripped messages fail again
		Target:  simtarget.Options{Schedule: simtarget.Outage(outageAt, 30*time.Minute)},
	})

	// No message has used the key yet: status says no breaker has it,
	// and is not retried.
	_, err := s.Admin(t.Context(), admin.Request{Command: "status", Breaker: "orders"})
	var unknown *local.ExecutionFailed
	require.ErrorAs(t, err, &unknown)
	assert.Equal(t, "UnknownBreaker", unknown.ErrorName)
	assert.Contains(t, unknown.Cause, `no breaker has the key \"orders\"`)
	assert.EqualValues(t, 1, s.Stats().Invocations[local.FunctionAdmin], "UnknownBreaker is not retried")

	// Force-open: messages wait, the target is not called.
	opened := runAdmin(t, s, admin.Request{Command: "open", Breaker: "orders", Reason: "downstream maintenance"})
	assert.True(t, opened.Changed)
	assert.Equal(t, "FORCED_OPEN", opened.After.State)
	assert.Equal(t, "downstream maintenance", opened.After.Reason)
	assert.Contains(t, opened.After.Actor, "execution:", "the execution is the default actor")
	held := send(t, s, bodies("held", 5)...)
	runUntil(t, s, t0.Add(10*time.Minute))
	assert.Zero(t, callsBefore(s, t0.Add(10*time.Minute)), "no call while forced open")
	assertWaiting(t, s, "orders", held)

	// Force-close: they go through.
	closedAt := s.Executor.Now()
	closed := runAdmin(t, s, admin.Request{Command: "close", Breaker: "orders", Reason: "downstream verified"})
	assert.Equal(t, "FORCED_OPEN", closed.Before.State)
	assert.Equal(t, "FORCED_CLOSED", closed.After.State)
	drain(t, s)
	ledger := s.Target.Ledger()
	for _, id := range held {
		assert.Equal(t, 1, ledger.Deliveries()[id], "held message %s delivered after the close", id)
	}
	assert.Zero(t, callsBefore(s, closedAt))

	released := runAdmin(t, s, admin.Request{Command: "release", Breaker: "orders", Reason: "back to automatic"})
	assert.Equal(t, "CLOSED", released.After.State)

	// A forced mode with an end expires by itself.
	until := s.Executor.Now().Add(5 * time.Minute).Truncate(time.Second) // RFC 3339 to the second
	timed := runAdmin(t, s, admin.Request{Command: "open", Breaker: "orders", Reason: "deploy window", Until: until.Format(time.RFC3339)})
	assert.Equal(t, until, timed.After.ForcedUntil)
	callsSoFar := len(s.Target.Ledger().Calls())
	later := send(t, s, bodies("timed", 3)...)
	drain(t, s)
	calls := s.Target.Ledger().Calls()[callsSoFar:]
	require.Len(t, calls, len(later))
	for _, c := range calls {
		assert.False(t, c.At.Before(until), "call at %s before the forced mode ended at %s", c.At, until)
		// The controller waits out the forced mode in its Wait state and
		// releases the room at its end: within seconds.
		assert.Less(t, c.At.Sub(until), 30*time.Second, "call at %s, the forced mode ended at %s", c.At, until)
	}
	changes := s.BreakerChanges()
	expired := changes[len(changes)-1]
	assert.Equal(t, breaker.ForcedOpen, expired.From)
	assert.Equal(t, breaker.Closed, expired.To)
	assert.Equal(t, breaker.CauseForcedExpired, expired.Cause)

	// Reset: a breaker the outage tripped closes with an empty window.
	runUntil(t, s, outageAt)
	send(t, s, bodies("tripped", 10)...)
	runUntil(t, s, outageAt.Add(time.Minute))
	row, err := s.BreakerRow(t.Context(), "orders")
	require.NoError(t, err)
	require.Equal(t, breaker.Open, row.State, "the outage tripped the breaker")
	reset := runAdmin(t, s, admin.Request{Command: "reset", Breaker: "orders", Reason: "false alarm"})
	assert.Equal(t, "OPEN", reset.Before.State)
	assert.Equal(t, "CLOSED", reset.After.State)
	assert.Zero(t, reset.After.WindowCount)
	assert.Zero(t, reset.After.ConsecutiveFailures)
	assert.Zero(t, reset.After.Trips)
	drain(t, s)

	out := accountFor(t, s)
	assert.Len(t, out.delivered, len(s.Sent()))
	assert.Empty(t, out.parked)
}

// Every invalid request fails the admin execution with InvalidCommand and
// a cause naming what is wrong; nothing changes.
func TestAdminRejectsInvalidCommands(t *testing.T) {
	s := start(t, local.Options{})
	tests := []struct {
		name    string
		request any
		want    []string
	}{
		{"unknown command", `{"command":"explode","breaker":"orders","reason":"x"}`, []string{"command: unknown command", "explode"}},
		{"no command", `{"breaker":"orders"}`, []string{"command: required"}},
		{"no breaker", `{"command":"status"}`, []string{"breaker: required"}},
		{"no reason", `{"command":"open","breaker":"orders"}`, []string{"reason: required for open"}},
		{"until in the past", `{"command":"open","breaker":"orders","reason":"x","until":"2020-01-01T00:00:00Z"}`, []string{"until:", "is not in the future"}},
		{"until not a time", `{"command":"close","breaker":"orders","reason":"x","until":"tomorrow"}`, []string{"until: want an RFC 3339 time"}},
		{"until on reset", `{"command":"reset","breaker":"orders","reason":"x","until":"2030-01-01T00:00:00Z"}`, []string{"until: only for open and close"}},
		{"unknown field", `{"command":"status","breaker":"orders","force":true}`, []string{"force: unknown field"}},
		{"not an object", `["reset","orders"]`, []string{"request: want a JSON object"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := s.Admin(t.Context(), tt.request)
			var failed *local.ExecutionFailed
			require.True(t, errors.As(err, &failed), "want an *ExecutionFailed, got %v", err)
			assert.Equal(t, executor.Failed, failed.Status)
			assert.Equal(t, "InvalidCommand", failed.ErrorName)
			for _, w := range tt.want {
				assert.Contains(t, failed.Cause, w)
			}
		})
	}
	assert.EqualValues(t, len(tests), s.Stats().Invocations[local.FunctionAdmin], "InvalidCommand is not retried")
	row, err := s.BreakerRow(t.Context(), "orders")
	require.NoError(t, err)
	assert.Zero(t, row.Version, "nothing was written")
}
