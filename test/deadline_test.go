package test

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/delivery/target"
	"github.com/redrive/redrive/emulate/local"
	"github.com/redrive/redrive/message"
)

// hangingConsumer is the attempt's target in front of a consumer that does
// not answer while hanging says so: the call waits on the executor's
// clock until its context ends, and then goes on with that context, which
// the real target reports as its error.
type hangingConsumer struct {
	target.Target
	s       **local.Stack
	hanging func(now time.Time) bool
	hung    atomic.Int64
}

func (h *hangingConsumer) Deliver(ctx context.Context, doc message.Document) target.Result {
	s := *h.s
	if h.hanging(s.Executor.Now()) {
		h.hung.Add(1)
		s.Executor.Sleep(ctx, 24*time.Hour)
	}
	return h.Target.Deliver(ctx, doc)
}

// hangFor starts a stack whose consumer hangs while hanging says so.
func hangFor(t *testing.T, opts local.Options, hanging func(s *local.Stack, now time.Time) bool) (*local.Stack, *hangingConsumer) {
	t.Helper()
	var s *local.Stack
	h := &hangingConsumer{s: &s, hanging: func(now time.Time) bool { return hanging(s, now) }}
	opts.WrapTarget = func(tg target.Target) target.Target {
		h.Target = tg
		return h
	}
	s = start(t, opts)
	return s, h
}

// failedTasks counts, by error name, the Task failures in every redrive
// execution's history: an Attempt that ran out of time fails as
// Sandbox.Timedout. The stack needs Options.StandardAttempts (an Express
// execution keeps no history).
func failedTasks(t *testing.T, s *local.Stack) map[string]int {
	t.Helper()
	costs, err := s.Costs(t.Context())
	require.NoError(t, err)
	failed := map[string]int{}
	for _, c := range costs {
		events, err := s.Executor.History(t.Context(), c.Execution.ARN)
		require.NoError(t, err)
		for _, ev := range events {
			if !strings.HasSuffix(ev.Type, "Failed") || ev.Type == "ExecutionFailed" {
				continue
			}
			b, err := json.Marshal(ev.Details)
			require.NoError(t, err)
			var d struct{ Error string }
			require.NoError(t, json.Unmarshal(b, &d))
			failed[d.Error]++
		}
	}
	return failed
}

// A consumer that hangs past the Attempt's own deadline (its function
// timeout) is cut off 5 s before it: the Attempt records a transient
// Timeout, which the breaker counts, instead of dying with the outcome
// unknown. The hang trips the breaker; when it ends, every message is
// delivered once and none is parked.
func TestAConsumerHangingPastTheAttemptsDeadlineIsATimeoutTheBreakerCounts(t *testing.T) {
	// Express attempts, as deployed, and Standard ones, whose histories
	// show that no Attempt died.
	for _, standard := range []bool{false, true} {
		t.Run(map[bool]string{false: "express", true: "standard"}[standard], func(t *testing.T) {
			var until time.Time
			s, consumer := hangFor(t, local.Options{AttemptTimeout: time.Minute, StandardAttempts: standard},
				func(_ *local.Stack, now time.Time) bool { return now.Before(until) })
			until = s.Executor.Now().Add(20 * time.Minute)
			trickle(s, "hanging", 30)
			drain(t, s)

			require.Positive(t, consumer.hung.Load(), "the fault fired")
			if standard {
				assert.Empty(t, failedTasks(t, s), "no Attempt died: none ran out of time (Sandbox.Timedout)")
			}
			for id, tries := range triesByOrigin(t, s) {
				for _, tr := range tries {
					assert.NotEqual(t, endFailed, tr.End, "message %s: execution %s failed (%s)", id, tr.Name, tr.Error)
				}
			}
			trips := 0
			for _, c := range s.BreakerChanges() {
				if c.To == breaker.Open {
					trips++
				}
			}
			assert.Positive(t, trips, "the timeouts were counted: they tripped the breaker")
			out := accountFor(t, s)
			assert.Len(t, out.delivered, 30, "every message delivered once the consumer answered")
			assert.Empty(t, out.parked)
		})
	}
}

// A canary against a downstream slower than the canary's lease is cut off
// before the lease ends, so its outcome counts: each failed probe re-trips
// the breaker and Trips grows (longer cooldowns), instead of the breaker
// staying HALF_OPEN with its outcomes dropped, one canary per lease.
func TestACanarySlowerThanItsLeaseIsCountedAndReTrips(t *testing.T) {
	policy := breaker.Policy{CanaryLease: 30 * time.Second}
	var until time.Time
	s, consumer := hangFor(t, local.Options{Policy: policy, AttemptTimeout: 2 * time.Minute, StandardAttempts: true},
		func(_ *local.Stack, now time.Time) bool { return now.Before(until) })
	until = s.Executor.Now().Add(45 * time.Minute)
	trickle(s, "slow", 30)
	runUntil(t, s, until)

	row, err := s.BreakerRow(t.Context(), "orders")
	require.NoError(t, err)
	assert.GreaterOrEqual(t, row.Trips, 3, "every probe that timed out re-tripped the breaker")
	assert.Equal(t, breaker.Open, row.State)
	for _, l := range row.Leases {
		// The probe the controller released last may be out (hanging,
		// until it is cut off before its lease ends); none ran out.
		assert.True(t, l.Expires.After(s.Executor.Now()), "no canary's lease left to run out: %+v", l)
	}
	require.Positive(t, consumer.hung.Load())

	drain(t, s)
	assert.Empty(t, failedTasks(t, s), "no Attempt died")
	out := accountFor(t, s)
	assert.Len(t, out.delivered, 30, "every message delivered once the consumer answered")
	assert.Empty(t, out.parked)
}
