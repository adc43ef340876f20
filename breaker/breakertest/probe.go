package breakertest

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/breaker"
)

// HammerProbe checks the OPEN breaker's probe under concurrency. It resets
// key and trips it with transient failures, then has goroutines admit at
// once while the cooldown lasts: every one queues and none writes the row
// (nobody waits out the cooldown in an execution: the breaker's controller
// does, and releases the probe). When the cooldown is over on clock (which
// must be b's clock), goroutines admitting at once get exactly one probe,
// and the breaker stays OPEN in the same generation. The probe is left to
// expire: then exactly one gets the next probe, and the first one's late
// outcome is ignored. The second probe is throttled: while the pause lasts
// everyone queues without a write, and after it exactly one gets the third
// probe. Its failure keeps the breaker OPEN, still in the same generation,
// for a longer cooldown, during which everyone queues again without a
// write, and after which exactly one gets the next probe. b must be the
// only writer of key meanwhile.
func HammerProbe(tb testing.TB, b *breaker.Breaker, clock *Clock, key string, goroutines int) {
	tb.Helper()
	ctx := context.Background()
	p := b.Policy()

	_, _, err := b.Command(ctx, key, breaker.Command{Kind: breaker.Reset, Actor: "breakertest", Reason: "probe"})
	require.NoError(tb, err)
	tripByFailures(tb, b, key)
	tripped, err := b.Status(ctx, key)
	require.NoError(tb, err)
	require.True(tb, tripped.OpenUntil.After(clock.Now()))

	allQueueUnwritten(tb, b, key, goroutines, "while the cooldown lasts")
	clock.Advance(tripped.OpenUntil.Sub(clock.Now()) - 1)
	allQueueUnwritten(tb, b, key, goroutines, "up to the cooldown's last instant")

	clock.Advance(1)
	first := theOne(tb, admitAll(tb, b, key, goroutines), breaker.Canary, "one probe when the cooldown is over")
	assertProbing(tb, b, key, tripped, first)
	allQueueUnwritten(tb, b, key, goroutines, "while the probe is out")

	clock.Advance(p.CanaryLease)
	second := theOne(tb, admitAll(tb, b, key, goroutines), breaker.Canary, "an expired probe frees the probe")
	assert.NotEqual(tb, first.Ticket.LeaseID, second.Ticket.LeaseID)
	assertProbing(tb, b, key, tripped, second)
	_, err = b.Record(ctx, key, breaker.Row{}, first.Ticket, breaker.Success)
	require.NoError(tb, err)
	assertProbing(tb, b, key, tripped, second)

	r, err := b.Record(ctx, key, second.Row, second.Ticket, breaker.Throttled)
	require.NoError(tb, err)
	assert.Equal(tb, breaker.Open, r.State, "a throttled probe says nothing of the target's health")
	assert.Empty(tb, r.Leases, "a throttled probe frees the probe")
	require.True(tb, r.ThrottledUntil.After(clock.Now()))
	allQueueUnwritten(tb, b, key, goroutines, "while the throttle pause lasts")
	clock.Advance(r.ThrottledUntil.Sub(clock.Now()))
	third := theOne(tb, admitAll(tb, b, key, goroutines), breaker.Canary, "one probe after the throttle pause")
	assertProbing(tb, b, key, tripped, third)

	r, err = b.Record(ctx, key, third.Row, third.Ticket, breaker.Transient)
	require.NoError(tb, err)
	assert.Equal(tb, breaker.Open, r.State, "a failed probe keeps the breaker open")
	assert.Equal(tb, tripped.Generation, r.Generation, "a failed probe is no state change")
	assert.Equal(tb, tripped.Trips+1, r.Trips)
	assert.True(tb, r.OpenUntil.After(clock.Now()), "for another cooldown")
	assert.Empty(tb, r.Leases)
	allQueueUnwritten(tb, b, key, goroutines, "while the next cooldown lasts")
	clock.Advance(r.OpenUntil.Sub(clock.Now()))
	next := theOne(tb, admitAll(tb, b, key, goroutines), breaker.Canary, "one probe when the next cooldown is over")
	assertProbing(tb, b, key, tripped, next)
}

// allQueueUnwritten has goroutines admit key at once and checks that every
// one queues and that none wrote the row.
func allQueueUnwritten(tb testing.TB, b *breaker.Breaker, key string, goroutines int, when string) {
	tb.Helper()
	before, err := b.Status(context.Background(), key)
	require.NoError(tb, err)
	saves := b.Stats().Saves
	decisions := admitAll(tb, b, key, goroutines)
	require.Len(tb, decisions, goroutines)
	for _, d := range decisions {
		assert.Equal(tb, breaker.Queue, d.Verdict, "everyone queues %s", when)
		assert.Zero(tb, d.Wait, "a queued caller has no time of its own")
	}
	assert.Equal(tb, saves, b.Stats().Saves, "no write %s", when)
	after, err := b.Status(context.Background(), key)
	require.NoError(tb, err)
	assert.Equal(tb, before.Version, after.Version, "no write %s", when)
}

// theOne checks that exactly one decision has verdict v and all others
// queue, and returns that one.
func theOne(tb testing.TB, decisions []breaker.Decision, v breaker.Verdict, msg string) breaker.Decision {
	tb.Helper()
	var found []breaker.Decision
	for _, d := range decisions {
		if d.Verdict == v {
			found = append(found, d)
		} else {
			assert.Equal(tb, breaker.Queue, d.Verdict, msg)
		}
	}
	require.Len(tb, found, 1, msg)
	return found[0]
}

// assertProbing checks that the tripped breaker is still OPEN in the same
// generation with exactly the probe's lease out.
func assertProbing(tb testing.TB, b *breaker.Breaker, key string, tripped breaker.Row, probe breaker.Decision) {
	tb.Helper()
	r, err := b.Status(context.Background(), key)
	require.NoError(tb, err)
	assert.Equal(tb, breaker.Open, r.State, "the probe leaves the breaker open")
	assert.Equal(tb, tripped.Generation, r.Generation, "the probe is no state change")
	assert.Equal(tb, tripped.Generation, probe.Ticket.Generation)
	if assert.Len(tb, r.Leases, 1, "one probe at a time") {
		assert.Equal(tb, probe.Ticket.LeaseID, r.Leases[0].ID)
	}
}
