package test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/internal/localrun"
	"github.com/redrive/redrive/internal/simtarget"
	"github.com/redrive/redrive/tasks/attempt"
)

// invariantStore checks every write the attempt tasks make to the breaker
// row: each saved version follows the one it was conditioned on, no
// version is written twice, and never more unexpired canary leases than
// permits.
type invariantStore struct {
	breaker.Store
	now     func() time.Time
	permits int

	mu         sync.Mutex
	versions   map[int64]int
	maxLive    int
	violations []string
}

func (c *invariantStore) Save(ctx context.Context, prevVersion int64, next breaker.Row) error {
	if err := c.Store.Save(ctx, prevVersion, next); err != nil {
		return err
	}
	now := c.now()
	live := 0
	for _, l := range next.Leases {
		if l.Expires.After(now) {
			live++
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.versions[next.Version]++
	c.maxLive = max(c.maxLive, live)
	if next.Version != prevVersion+1 {
		c.violations = append(c.violations, fmt.Sprintf("version %d saved over %d", next.Version, prevVersion))
	}
	if live > c.permits {
		c.violations = append(c.violations, fmt.Sprintf("version %d holds %d live leases, over %d permits", next.Version, live, c.permits))
	}
	return nil
}

// allowed are the breaker's automatic state changes.
var allowed = map[[2]breaker.State]bool{
	{breaker.Closed, breaker.Open}:     true,
	{breaker.Open, breaker.HalfOpen}:   true,
	{breaker.HalfOpen, breaker.Open}:   true,
	{breaker.HalfOpen, breaker.Closed}: true,
}

// A thousand executions on one breaker, with handlers running concurrently
// (Workers 8) through an outage and the recovery: no lost update (every
// version written once, the row's version equals the writes made, its
// trip and close totals equal the changes observed), never more live
// canary leases than permits, only defined transitions, and every
// message accounted for.
func TestThousandConcurrentExecutionsOnOneBreaker(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	const n, permits = 1000, 3
	// Three permits, so canaries race for leases. No ramp: its polls would
	// double the Attempt cycles without adding a kind of write to check
	// (the ramp writes nothing; the outage scenario covers it).
	policy := breaker.Policy{HalfOpenPermits: permits, RampDuration: -1}
	inv := &invariantStore{permits: permits, versions: map[int64]int{}}
	s := start(t, localrun.Options{
		Start:   t0,
		Workers: 8,
		Policy:  policy,
		Attempt: attempt.Config{MaxAttempts: 10}, // the outage fails no message that often
		Target:  simtarget.Options{Schedule: simtarget.Outage(t0, time.Minute)},
		WrapStore: func(st breaker.Store) breaker.Store {
			inv.Store = st
			return inv
		},
	})
	inv.now = s.Executor.Now
	send(t, s, bodies("load", n)...)
	drain(t, s)

	out := accountFor(t, s)
	assert.Len(t, out.delivered, n)
	for id, p := range out.parked {
		t.Errorf("message %s parked: %s", id, p.Record.Reason)
	}

	row, err := s.BreakerRow(t.Context(), "orders")
	require.NoError(t, err)
	st := s.Stats()
	inv.mu.Lock()
	defer inv.mu.Unlock()
	assert.Empty(t, inv.violations)
	assert.LessOrEqual(t, inv.maxLive, permits)
	for v := int64(1); v <= row.Version; v++ {
		assert.Equal(t, 1, inv.versions[v], "version %d written once", v)
	}
	assert.Len(t, inv.versions, int(row.Version), "no version beyond the row's")
	assert.Equal(t, st.Breaker.Saves, row.Version, "every successful write is in the row's version")

	var trips, closes int64
	for _, c := range s.BreakerChanges() {
		assert.True(t, allowed[[2]breaker.State{c.From, c.To}], "transition %s -> %s", c.From, c.To)
		if c.To == breaker.Open {
			trips++
		}
		if c.From == breaker.HalfOpen && c.To == breaker.Closed {
			closes++
		}
	}
	assert.Equal(t, trips, row.Totals.Trips, "trips on the row match the trips observed")
	assert.Equal(t, closes, row.Totals.Closes)
	assert.GreaterOrEqual(t, trips, int64(1))
	assert.Equal(t, breaker.Closed, row.State)
	t.Logf("breaker: version %d, %d trips, %d closes, max %d live leases; %d conflicts, peak %d calls/s",
		row.Version, trips, closes, inv.maxLive, st.Breaker.Conflicts, s.Target.Ledger().PeakRate())
	logCosts(t, s, "1000 concurrent")
}
