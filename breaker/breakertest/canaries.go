package breakertest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/breaker"
)

// HammerCanaries checks the probe and the HALF_OPEN permit bound under
// concurrency. It resets key, trips it with transient failures, lets the
// cooldown pass on clock (which must be b's clock), then has goroutines
// admit at once: exactly one gets the probe. Its success moves the breaker
// to HALF_OPEN, where goroutines admitting at once get exactly
// min(HalfOpenPermits, goroutines) canaries. It lets those leases expire
// unanswered and does it again (an expired lease frees its permit), then
// records the second round's canaries as successes at once and checks the
// breaker closed if there were enough. b must be the only writer of key
// meanwhile.
func HammerCanaries(tb testing.TB, b *breaker.Breaker, clock *Clock, key string, goroutines int) {
	tb.Helper()
	ctx := context.Background()
	p := b.Policy()

	_, _, err := b.Command(ctx, key, breaker.Command{Kind: breaker.Reset, Actor: "breakertest", Reason: "canaries"})
	require.NoError(tb, err)
	tripByFailures(tb, b, key)
	clock.Advance(maxCooldown(p))

	probe := admitAtOnce(tb, b, key, goroutines)
	require.Len(tb, probe, 1, "one probe when the cooldown is over")
	r, err := b.Record(ctx, key, breaker.Row{}, probe[0], breaker.Success)
	require.NoError(tb, err)
	if p.SuccessesToClose == 1 {
		assert.Equal(tb, breaker.Closed, r.State, "the probe's success closes the breaker")
		return
	}
	require.Equal(tb, breaker.HalfOpen, r.State, "the probe's success half-opens the breaker")

	want := min(p.HalfOpenPermits, goroutines)
	first := admitAtOnce(tb, b, key, goroutines)
	require.Len(tb, first, want, "canaries granted at once")
	assertLeases(tb, b, key, clock.Now(), first)

	clock.Advance(p.CanaryLease)
	second := admitAtOnce(tb, b, key, goroutines)
	require.Len(tb, second, want, "expired leases free their permits")
	assertLeases(tb, b, key, clock.Now(), second)

	var wg sync.WaitGroup
	for _, t := range append(first, second...) {
		wg.Go(func() {
			_, err := b.Record(ctx, key, breaker.Row{}, t, breaker.Success)
			assert.NoError(tb, err)
		})
	}
	wg.Wait()
	r, err = b.Status(ctx, key)
	require.NoError(tb, err)
	if 1+want >= p.SuccessesToClose {
		assert.Equal(tb, breaker.Closed, r.State, "enough canary successes close the breaker")
		assert.Equal(tb, breaker.CauseCanarySuccesses, r.Cause)
	} else {
		assert.Equal(tb, breaker.HalfOpen, r.State)
		assert.Equal(tb, 1+want, r.CanarySuccesses, "the probe's and the live leases' successes count")
		assert.Empty(tb, r.Leases)
	}
}

// tripByFailures records transient failures on key until it opens.
func tripByFailures(tb testing.TB, b *breaker.Breaker, key string) {
	tb.Helper()
	ctx := context.Background()
	p := b.Policy()
	for range max(p.ConsecutiveFailures, 0) + p.WindowSize {
		d, err := b.Admit(ctx, key)
		require.NoError(tb, err)
		require.Equal(tb, breaker.Proceed, d.Verdict, "a reset breaker admits")
		r, err := b.Record(ctx, key, d.Row, d.Ticket, breaker.Transient)
		require.NoError(tb, err)
		if r.State == breaker.Open {
			return
		}
	}
	require.FailNow(tb, "the breaker did not trip on a run of failures")
}

// maxCooldown is longer than any cooldown the policy can draw (the cap
// bounds the jittered cooldown).
func maxCooldown(p breaker.Policy) time.Duration {
	return p.CooldownMax + time.Second
}

// admitAtOnce has goroutines admit key at the same time and returns the
// canary tickets granted; everyone else must queue.
func admitAtOnce(tb testing.TB, b *breaker.Breaker, key string, goroutines int) []breaker.Ticket {
	tb.Helper()
	var tickets []breaker.Ticket
	for _, d := range admitAll(tb, b, key, goroutines) {
		switch d.Verdict {
		case breaker.Canary:
			tickets = append(tickets, d.Ticket)
		case breaker.Queue:
		default:
			assert.Fail(tb, "a probing or half-open breaker admits only canaries", "got %s", d.Verdict)
		}
	}
	return tickets
}

// admitAll has goroutines admit key at the same time and returns their
// decisions, in no particular order.
func admitAll(tb testing.TB, b *breaker.Breaker, key string, goroutines int) []breaker.Decision {
	tb.Helper()
	var (
		mu        sync.Mutex
		decisions []breaker.Decision
		wg        sync.WaitGroup
		start     = make(chan struct{})
	)
	for range goroutines {
		wg.Go(func() {
			<-start
			d, err := b.Admit(context.Background(), key)
			if !assert.NoError(tb, err) {
				return
			}
			mu.Lock()
			decisions = append(decisions, d)
			mu.Unlock()
		})
	}
	close(start)
	wg.Wait()
	return decisions
}

// assertLeases checks that the row holds exactly the granted leases, all
// unexpired and distinct.
func assertLeases(tb testing.TB, b *breaker.Breaker, key string, now time.Time, granted []breaker.Ticket) {
	tb.Helper()
	r, err := b.Status(context.Background(), key)
	require.NoError(tb, err)
	require.Equal(tb, breaker.HalfOpen, r.State)
	ids := map[string]bool{}
	for _, l := range r.Leases {
		assert.True(tb, l.Expires.After(now), "lease %s is live", l.ID)
		ids[l.ID] = true
	}
	assert.Len(tb, ids, len(r.Leases), "lease IDs are distinct")
	assert.LessOrEqual(tb, len(r.Leases), b.Policy().HalfOpenPermits)
	for _, t := range granted {
		assert.True(tb, ids[t.LeaseID], "granted lease %s is on the row", t.LeaseID)
		assert.Equal(tb, r.Generation, t.Generation)
	}
}
