package breaker_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/breaker/breakertest"
)

// TestClosedRowMaxAgeBoundsReadsAndTheLateTrip: with ClosedRowMaxAge, a
// healthy breaker's Admit reads its row at most once per max age, however
// many deliveries it admits; a trip another function made is noticed at
// most the max age late, and the outcomes admitted on the older row cannot
// close the breaker that opened.
func TestClosedRowMaxAgeBoundsReadsAndTheLateTrip(t *testing.T) {
	ctx := context.Background()
	const maxAge = time.Second
	clock := breakertest.NewClock(t0)
	store := breaker.NewMemStore()
	hot, err := breaker.New(store, testPolicy, breaker.Options{Clock: clock, Random: &fixedRandom{}, ClosedRowMaxAge: maxAge})
	require.NoError(t, err)
	other, err := breaker.New(store, testPolicy, breaker.Options{Clock: clock, Random: &fixedRandom{}})
	require.NoError(t, err)

	// A thousand admissions within one max age: one read.
	var stale breaker.Decision
	for i := range 1000 {
		d, err := hot.Admit(ctx, "k")
		require.NoError(t, err)
		require.Equal(t, breaker.Proceed, d.Verdict, "admission %d", i)
		stale = d
		clock.Advance(maxAge / 2000)
	}
	assert.Equal(t, int64(1), hot.Stats().Loads, "one read of the row per max age")

	// Another function trips the breaker.
	for range testPolicy.ConsecutiveFailures {
		d, err := other.Admit(ctx, "k")
		require.NoError(t, err)
		_, err = other.Record(ctx, "k", d.Row, d.Ticket, breaker.Transient)
		require.NoError(t, err)
	}
	row, err := other.Status(ctx, "k")
	require.NoError(t, err)
	require.Equal(t, breaker.Open, row.State)
	tripped := clock.Now()

	// The hot breaker may admit on its older row until the max age has
	// passed since it read it, never later.
	for {
		d, err := hot.Admit(ctx, "k")
		require.NoError(t, err)
		if d.Verdict != breaker.Proceed {
			break // turned away: the open row was read
		}
		stale = d
		require.LessOrEqual(t, clock.Now().Sub(tripped), maxAge, "admitted on the older row past the max age")
		clock.Advance(10 * time.Millisecond)
	}
	assert.LessOrEqual(t, clock.Now().Sub(tripped), maxAge, "the trip is noticed at most the max age after it")

	// A success admitted on the older row does not close the open breaker.
	after, err := hot.Record(ctx, "k", stale.Row, stale.Ticket, breaker.Success)
	require.NoError(t, err)
	assert.Equal(t, breaker.Open, after.State, "an outcome of an older generation is ignored")
}

// TestClosedRowMaxAgeRejectsNegative: a negative max age fails New.
func TestClosedRowMaxAgeRejectsNegative(t *testing.T) {
	_, err := breaker.New(breaker.NewMemStore(), testPolicy, breaker.Options{ClosedRowMaxAge: -time.Second})
	assert.ErrorContains(t, err, "ClosedRowMaxAge")
}
