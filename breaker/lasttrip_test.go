package breaker_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/breaker/breakertest"
)

// savingStore is a MemStore that keeps every row it saved, in order.
type savingStore struct {
	*breaker.MemStore
	mu    sync.Mutex
	saved []breaker.Row
}

func (s *savingStore) Save(ctx context.Context, prev int64, next breaker.Row) error {
	err := s.MemStore.Save(ctx, prev, next)
	if err == nil {
		s.mu.Lock()
		s.saved = append(s.saved, next)
		s.mu.Unlock()
	}
	return err
}

// The row keeps when and why the breaker last tripped, and how often it
// tripped since it was made, each written by the write that trips it (no
// write of its own), and a close clears none of them: after an outage the
// row still shows what happened.
func TestTheRowKeepsTheLastTripAndCountsEveryTrip(t *testing.T) {
	ctx := context.Background()
	clock := breakertest.NewClock(t0)
	store := &savingStore{MemStore: breaker.NewMemStore()}
	b := newBreaker(t, store, clock, breaker.Options{})
	// try admits one delivery, expecting want, and records o: one write,
	// the row it wrote.
	try := func(want breaker.Verdict, o breaker.Outcome) breaker.Row {
		t.Helper()
		d, err := b.Admit(ctx, "orders")
		require.NoError(t, err)
		require.Equal(t, want, d.Verdict)
		writes := len(store.saved)
		r, err := b.Record(ctx, "orders", d.Row, d.Ticket, o)
		require.NoError(t, err)
		require.Len(t, store.saved, writes+1, "one write for the outcome")
		assert.Equal(t, r, store.saved[writes], "the row returned is the row written")
		return r
	}
	// closeIt waits the cooldown out and closes the breaker with the
	// probe's and a canary's success.
	closeIt := func(r breaker.Row) breaker.Row {
		t.Helper()
		clock.Set(r.OpenUntil)
		try(breaker.Canary, breaker.Success)
		r = try(breaker.Canary, breaker.Success)
		require.Equal(t, breaker.Closed, r.State)
		return r
	}

	try(breaker.Proceed, breaker.Transient)
	try(breaker.Proceed, breaker.Transient)
	first := clock.Now()
	r := try(breaker.Proceed, breaker.Transient)
	require.Equal(t, breaker.Open, r.State)
	assert.Equal(t, first, r.LastTripAt)
	assert.Equal(t, "3 consecutive failures", r.LastTripCause)
	assert.Equal(t, int64(1), r.Totals.Trips)

	r = closeIt(r)
	assert.Zero(t, r.Trips, "the cooldown's count starts over")
	assert.Equal(t, first, r.LastTripAt, "a close keeps the last trip")
	assert.Equal(t, "3 consecutive failures", r.LastTripCause)
	assert.Equal(t, int64(1), r.Totals.Trips, "a close keeps the count of trips")

	// Three failures among five outcomes trip on the failure rate.
	clock.Advance(time.Minute)
	for _, o := range []breaker.Outcome{breaker.Success, breaker.Transient, breaker.Success, breaker.Transient} {
		try(breaker.Proceed, o)
	}
	second := clock.Now()
	r = try(breaker.Proceed, breaker.Transient)
	require.Equal(t, breaker.Open, r.State)
	require.Equal(t, breaker.CauseFailureRate, r.Cause)
	assert.Equal(t, second, r.LastTripAt)
	assert.Equal(t, "3 failures of the last 5 outcomes", r.LastTripCause)
	assert.Equal(t, int64(2), r.Totals.Trips)

	// A failed probe is a trip (it counts toward the cooldown), and so is
	// a canary's failure.
	clock.Set(r.OpenUntil)
	r = try(breaker.Canary, breaker.Transient)
	assert.Equal(t, clock.Now(), r.LastTripAt)
	assert.Equal(t, "the probe failed; opened by failure-rate", r.LastTripCause)
	assert.Equal(t, int64(3), r.Totals.Trips)
	clock.Set(r.OpenUntil)
	try(breaker.Canary, breaker.Success)
	r = try(breaker.Canary, breaker.Transient)
	require.Equal(t, breaker.Open, r.State)
	assert.Equal(t, "a canary failed", r.LastTripCause)
	assert.Equal(t, int64(4), r.Totals.Trips)

	tripped := r.LastTripAt
	_, r, err := b.Command(ctx, "orders", breaker.Command{Kind: breaker.Reset, Actor: "alice", Reason: "fixed"})
	require.NoError(t, err)
	assert.Equal(t, tripped, r.LastTripAt, "a reset keeps the last trip")
	assert.Equal(t, int64(4), r.Totals.Trips, "and the count")
}
