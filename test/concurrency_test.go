package test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/attempt"
	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/emulate/local"
	"github.com/redrive/redrive/emulate/simtarget"
)

// invariantStore checks every write the attempt tasks make to the breaker
// row: each saved version follows the one it was conditioned on, no
// version is written twice, never more unexpired canary leases than
// permits, and every trip it counts is a change to OPEN or a failed probe.
type invariantStore struct {
	breaker.Store
	now     func() time.Time
	permits int

	mu       sync.Mutex
	versions map[int64]int
	maxLive  int
	saves    []save // every successful save, in the order they returned
}

// save is one successful Save: the version it was conditioned on and the
// row it wrote.
type save struct {
	prevVersion int64
	next        breaker.Row
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
	c.saves = append(c.saves, save{prevVersion, next})
	return nil
}

// check goes over every save once the run is over (a save may return
// before the one it was conditioned on is recorded, so not before): each
// follows a version some save wrote, by one; never more unexpired canary
// leases than permits at a save; and every trip it adds is a change to
// OPEN (tripsByChange) or a failed probe that kept it OPEN (tripsByProbe).
func (c *invariantStore) check() (violations []string, tripsByChange, tripsByProbe int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	rows := map[int64]breaker.Row{}
	for _, sv := range c.saves {
		rows[sv.next.Version] = sv.next
	}
	for _, sv := range c.saves {
		next, prevVersion := sv.next, sv.prevVersion
		prev, known := rows[prevVersion] // the zero Row for version 0, a new breaker
		if !known && prevVersion != 0 {
			violations = append(violations, fmt.Sprintf("version %d saved over version %d, which no save wrote", next.Version, prevVersion))
		}
		switch added := next.Totals.Trips - prev.Totals.Trips; {
		case added == 0:
		case added != 1:
			violations = append(violations, fmt.Sprintf("version %d adds %d trips to version %d's", next.Version, added, prevVersion))
		case prev.State != breaker.Open && next.State == breaker.Open:
			tripsByChange++
		case prev.State == breaker.Open && next.State == breaker.Open:
			tripsByProbe++
		default:
			violations = append(violations, fmt.Sprintf("version %d adds a trip going from %s to %s", next.Version, prev.State, next.State))
		}
		if next.Version != prevVersion+1 {
			violations = append(violations, fmt.Sprintf("version %d saved over %d", next.Version, prevVersion))
		}
	}
	return violations, tripsByChange, tripsByProbe
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
// trip total equals the changes to OPEN and the failed probes saved, its
// close total the closes observed), never more live
// canary leases than permits, only defined transitions, and every
// message accounted for.
func TestThousandConcurrentExecutionsOnOneBreaker(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	const n, permits = 1000, 3
	// Three permits and four successes to close, and a target that takes a
	// second per call, so canaries are out together and race for leases.
	policy := breaker.Policy{HalfOpenPermits: permits, SuccessesToClose: permits + 1}
	inv := &invariantStore{permits: permits, versions: map[int64]int{}}
	s := start(t, local.Options{
		Start:   t0,
		Workers: 8,
		Policy:  policy,
		Attempt: attempt.Config{MaxAttempts: 10}, // the outage fails no message that often
		Target:  simtarget.Options{Schedule: simtarget.Outage(t0, time.Minute), Latency: time.Second},
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
	violations, tripsByChange, tripsByProbe := inv.check()
	inv.mu.Lock()
	defer inv.mu.Unlock()
	assert.Empty(t, violations)
	assert.LessOrEqual(t, inv.maxLive, permits)
	assert.Greater(t, inv.maxLive, 1, "canaries were out together")
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
	// Totals.Trips counts the changes to OPEN and the failed probes that
	// kept it OPEN: no lost update drops one.
	assert.Equal(t, trips, tripsByChange, "every change to OPEN observed was saved once")
	assert.Equal(t, trips+tripsByProbe, row.Totals.Trips, "trips on the row match the trips and failed probes saved")
	assert.Equal(t, closes, row.Totals.Closes)
	assert.GreaterOrEqual(t, trips, int64(1))
	assert.Equal(t, breaker.Closed, row.State)
	t.Logf("breaker: version %d, %d trips, %d failed probes, %d closes, max %d live leases; %d conflicts, peak %d calls/s",
		row.Version, trips, tripsByProbe, closes, inv.maxLive, st.Breaker.Conflicts, s.Target.Ledger().PeakRate())
	logCosts(t, s, "1000 concurrent")
}
