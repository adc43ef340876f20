package breakertest

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/breaker"
)

// HammerConfig sizes a Hammer run.
type HammerConfig struct {
	// Goroutines is how many callers run at once. Default 64.
	Goroutines int
	// Calls is how many admit-and-record rounds each caller makes.
	// Default 20.
	Calls int
	// Seed makes the outcome mix reproducible.
	Seed uint64
}

// HammerResult counts the outcomes Record reported as written (no error)
// and the ones it gave up on after too many conflicts.
type HammerResult struct {
	// Written counts, per outcome, the Records that returned no error.
	Written map[breaker.Outcome]int64
	// GaveUp counts the Records that returned a *breaker.ConflictError.
	GaveUp int64
}

// Hammer force-closes key, then has many goroutines admit and record a mix
// of successes, transient failures and poison through b at once, and checks
// that the row accounts for every outcome Record reported as written: its
// Failures and Poison totals grew by exactly those counts, and its version
// by exactly the Breaker's successful saves. A Store that lost an update
// fails one of these. b must be the only writer of key meanwhile.
func Hammer(tb testing.TB, b *breaker.Breaker, key string, cfg HammerConfig) HammerResult {
	tb.Helper()
	cfg.Goroutines = orDefault(cfg.Goroutines, 64)
	cfg.Calls = orDefault(cfg.Calls, 20)
	ctx := context.Background()

	_, _, err := b.Command(ctx, key, breaker.Command{Kind: breaker.ForceClose, Actor: "breakertest", Reason: "hammer"})
	require.NoError(tb, err, "force close %q", key)
	before, err := b.Status(ctx, key)
	require.NoError(tb, err)
	statsBefore := b.Stats()

	var mu sync.Mutex
	res := HammerResult{Written: map[breaker.Outcome]int64{}}
	var wg sync.WaitGroup
	for g := range cfg.Goroutines {
		wg.Go(func() {
			rnd := rand.New(rand.NewPCG(cfg.Seed, uint64(g)))
			for range cfg.Calls {
				o := pickOutcome(rnd)
				d, err := b.Admit(ctx, key)
				if !assert.NoError(tb, err) || !assert.Equal(tb, breaker.Proceed, d.Verdict, "forced closed admits all") {
					return
				}
				_, err = b.Record(ctx, key, d.Row, d.Ticket, o)
				mu.Lock()
				switch {
				case err == nil:
					res.Written[o]++
				case errors.Is(err, breaker.ErrConflict):
					res.GaveUp++
				default:
					assert.NoError(tb, err, "record %s", o)
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()

	after, err := b.Status(ctx, key)
	require.NoError(tb, err)
	saves := b.Stats().Saves - statsBefore.Saves
	assert.Equal(tb, breaker.ForcedClosed, after.State)
	assert.Equal(tb, before.Generation, after.Generation, "nothing but outcomes was written")
	assert.Equal(tb, res.Written[breaker.Transient], after.Totals.Failures-before.Totals.Failures, "every written failure is counted")
	assert.Equal(tb, res.Written[breaker.Poison], after.Totals.Poison-before.Totals.Poison, "every written poison is counted")
	assert.LessOrEqual(tb, after.Totals.Successes-before.Totals.Successes, res.Written[breaker.Success],
		"a success is counted at most once (healthy ones are not written)")
	assert.Equal(tb, saves, after.Version-before.Version, "one version per successful save")
	assert.Positive(tb, res.Written[breaker.Transient], "some failures got through")
	return res
}

// pickOutcome draws 50% successes, 35% transient failures, 15% poison.
func pickOutcome(rnd *rand.Rand) breaker.Outcome {
	switch x := rnd.Float64(); {
	case x < 0.5:
		return breaker.Success
	case x < 0.85:
		return breaker.Transient
	default:
		return breaker.Poison
	}
}

func orDefault(n, def int) int {
	if n <= 0 {
		return def
	}
	return n
}
