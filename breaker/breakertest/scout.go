package breakertest

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/breaker"
)

// HammerScout checks the OPEN breaker's scout and probe under concurrency.
// It resets key and trips it with transient failures, then has goroutines
// admit at once while the cooldown lasts: exactly one becomes the scout
// (told to wait exactly until the cooldown ends), the others queue, and so
// do all of a second round. When the scout's wait is over on clock (which
// must be b's clock), goroutines admitting at once get exactly one probe,
// and the breaker stays OPEN in the same generation. The probe is left to
// expire: then exactly one gets the next probe, and the first one's late
// outcome is ignored. The second probe's failure keeps the breaker OPEN,
// still in the same generation, for a longer cooldown, and the next round
// elects exactly one new scout. b must be the only writer of key meanwhile.
func HammerScout(tb testing.TB, b *breaker.Breaker, clock *Clock, key string, goroutines int) {
	tb.Helper()
	ctx := context.Background()

	_, _, err := b.Command(ctx, key, breaker.Command{Kind: breaker.Reset, Actor: "breakertest", Reason: "scout"})
	require.NoError(tb, err)
	tripByFailures(tb, b, key)
	tripped, err := b.Status(ctx, key)
	require.NoError(tb, err)

	scout := theOne(tb, admitAll(tb, b, key, goroutines), breaker.Wait, "one scout while the cooldown lasts")
	assert.Equal(tb, tripped.OpenUntil.Sub(clock.Now()), scout.Wait, "the scout waits until the cooldown ends")
	for _, d := range admitAll(tb, b, key, goroutines) {
		assert.Equal(tb, breaker.Queue, d.Verdict, "no second scout while the first is out")
	}

	clock.Advance(scout.Wait)
	first := theOne(tb, admitAll(tb, b, key, goroutines), breaker.Canary, "one probe when the cooldown is over")
	assertProbing(tb, b, key, tripped, first)

	clock.Advance(b.Policy().CanaryLease)
	second := theOne(tb, admitAll(tb, b, key, goroutines), breaker.Canary, "an expired probe frees the probe")
	assert.NotEqual(tb, first.Ticket.LeaseID, second.Ticket.LeaseID)
	assertProbing(tb, b, key, tripped, second)
	_, err = b.Record(ctx, key, breaker.Row{}, first.Ticket, breaker.Success)
	require.NoError(tb, err)
	assertProbing(tb, b, key, tripped, second)

	r, err := b.Record(ctx, key, second.Row, second.Ticket, breaker.Transient)
	require.NoError(tb, err)
	assert.Equal(tb, breaker.Open, r.State, "a failed probe keeps the breaker open")
	assert.Equal(tb, tripped.Generation, r.Generation, "a failed probe is no state change")
	assert.Equal(tb, tripped.Trips+1, r.Trips)
	assert.True(tb, r.OpenUntil.After(clock.Now()), "for another cooldown")
	assert.Empty(tb, r.Leases)
	next := theOne(tb, admitAll(tb, b, key, goroutines), breaker.Wait, "one new scout after a failed probe")
	assert.Equal(tb, r.OpenUntil.Sub(clock.Now()), next.Wait)
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
