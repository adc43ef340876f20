package dynamo_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/breaker/breakertest"
)

// TestBreakerOverStore holds the Breaker on the DynamoDB store to the same
// concurrency invariants as on the in-memory store: every recorded outcome
// accounted for, one version per save, one probe per cooldown of an OPEN
// breaker, never more canaries than permits.
func TestBreakerOverStore(t *testing.T) {
	e := newEnv(t)
	clock := breakertest.NewClock(time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC))
	b, err := breaker.New(e.store, breaker.Policy{HalfOpenPermits: 3}, breaker.Options{Clock: clock, Random: breaker.NewRandom(7)})
	require.NoError(t, err)

	t.Run("mixed outcomes from 64 goroutines", func(t *testing.T) {
		before := b.Stats()
		res := breakertest.Hammer(t, b, "hammer", breakertest.HammerConfig{Goroutines: 64, Calls: 5, Seed: 7})
		s := b.Stats()
		saves, conflicts := s.Saves-before.Saves, s.Conflicts-before.Conflicts
		t.Logf("%s: written %v, gave up %d, %d saves, %d conflicts (%.2f per save)",
			e.backend, res.Written, res.GaveUp, saves, conflicts, float64(conflicts)/float64(max(saves, 1)))
	})
	t.Run("canary permits under 64 goroutines", func(t *testing.T) {
		breakertest.HammerCanaries(t, b, clock, "canaries", 64)
	})
	t.Run("one probe per cooldown under 64 goroutines", func(t *testing.T) {
		breakertest.HammerProbe(t, b, clock, "probe", 64)
	})
}
