package delivery_test

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/delivery"
)

// TestConcurrentBeginOneWinner has 32 invocations race Begin on one try,
// for a new record and for the takeover of an expired one: exactly one
// takes it, and every other gets the winner's record back.
func TestConcurrentBeginOneWinner(t *testing.T) {
	const takers = 32
	tests := []struct {
		name    string
		prepare func(t *testing.T, e env)
		// tookOver: the winner replaced an expired record.
		tookOver bool
	}{
		{name: "new record", prepare: func(*testing.T, env) {}},
		{name: "expired lease", tookOver: true, prepare: func(t *testing.T, e env) {
			_, began, err := e.ledger.Begin(t.Context(), id1, ticket, lease)
			require.NoError(t, err)
			require.True(t, began)
			e.clock.Advance(lease + time.Second)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			tt.prepare(t, e)

			type result struct {
				rec   delivery.Record
				began bool
				err   error
			}
			results := make([]result, takers)
			var wg sync.WaitGroup
			for i := range takers {
				wg.Go(func() {
					rec, began, err := e.ledger.Begin(t.Context(), id1, breaker.Ticket{Generation: int64(100 + i)}, lease)
					results[i] = result{rec, began, err}
				})
			}
			wg.Wait()

			var winners []delivery.Record
			for _, r := range results {
				require.NoError(t, r.err)
				if r.began {
					winners = append(winners, r.rec)
				}
			}
			require.Len(t, winners, 1, "exactly one taker wins")
			winner := winners[0]
			for i, r := range results {
				if !r.began {
					assert.Equal(t, winner.Holder, r.rec.Holder, "taker %d sees the winner's record", i)
					assert.Equal(t, winner.Ticket, r.rec.Ticket)
				}
			}
			assert.Equal(t, tt.tookOver, winner.TookOver)
			stored, _, err := e.ledger.Get(t.Context(), id1)
			require.NoError(t, err)
			winner.TookOver = false // not stored
			assert.Equal(t, winner, stored)
		})
	}
}
