package rules_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/breaker/breakertest"
	"github.com/redrive/redrive/dynamo"
	"github.com/redrive/redrive/emulate/ddbtest"
	"github.com/redrive/redrive/rules"
)

// newStore returns a Store on a fresh table of the test backend.
func newStore(t *testing.T) *rules.Store {
	t.Helper()
	client, backend := ddbtest.Client(t)
	table := ddbtest.CreateTable(t, client, func(ctx context.Context, name string) error {
		return dynamo.CreateTable(ctx, client, name)
	})
	t.Logf("backend %s, table %s", backend, table)
	return rules.NewStore(client, table)
}

var quarantineAcme = rules.Spec{On: "attribute:tenant", Equals: "acme", Action: rules.Quarantine}

func TestAddListRemoveIsAudited(t *testing.T) {
	s := newStore(t)
	ctx := t.Context()
	empty, err := s.Load(ctx)
	require.NoError(t, err)
	assert.Empty(t, empty.Rules)

	r1, err := s.Add(ctx, quarantineAcme, "alice", "broken client", time.Time{}, t0)
	require.NoError(t, err)
	r2, err := s.Add(ctx, rules.Spec{On: "breaker", Equals: "orders", Action: rules.Hold}, "bob", "maintenance", t0.Add(time.Hour), t0)
	require.NoError(t, err)
	assert.Equal(t, "r1", r1.ID)
	assert.Equal(t, "r2", r2.ID)

	b, err := s.Load(ctx)
	require.NoError(t, err)
	assert.Equal(t, []rules.Rule{r1, r2}, b.Rules)

	removed, err := s.Remove(ctx, "r1", "carol", "fixed", t0.Add(time.Minute))
	require.NoError(t, err)
	assert.Equal(t, r1, removed)
	_, err = s.Remove(ctx, "r1", "carol", "again", t0.Add(time.Minute))
	assert.ErrorIs(t, err, rules.ErrNoRule)

	b, err = s.Load(ctx)
	require.NoError(t, err)
	assert.Equal(t, []rules.Rule{r2}, b.Rules)
	require.Len(t, b.Audit, 3)
	assert.Equal(t, rules.Change{At: t0, Op: rules.OpAdd, Actor: "alice", Reason: "broken client", Rule: r1}, b.Audit[0])
	assert.Equal(t, rules.Change{At: t0.Add(time.Minute), Op: rules.OpRemove, Actor: "carol", Reason: "fixed", Rule: r1}, b.Audit[2])

	// The next change after r2's end drops it, audited.
	r3, err := s.Add(ctx, quarantineAcme, "alice", "again", time.Time{}, t0.Add(2*time.Hour))
	require.NoError(t, err)
	assert.Equal(t, "r3", r3.ID, "ids are never reused")
	b, err = s.Load(ctx)
	require.NoError(t, err)
	assert.Equal(t, []rules.Rule{r3}, b.Rules)
	require.Len(t, b.Audit, 5)
	assert.Equal(t, rules.OpExpire, b.Audit[3].Op)
	assert.Equal(t, "r2", b.Audit[3].Rule.ID)
}

func TestAddRefusesBeyondMaxRules(t *testing.T) {
	s := newStore(t)
	for i := range rules.MaxRules {
		_, err := s.Add(t.Context(), quarantineAcme, "alice", fmt.Sprint(i), time.Time{}, t0)
		require.NoError(t, err)
	}
	_, err := s.Add(t.Context(), quarantineAcme, "alice", "one too many", time.Time{}, t0)
	assert.ErrorIs(t, err, rules.ErrTooMany)
}

func TestTheAuditKeepsTheLastChanges(t *testing.T) {
	s := newStore(t)
	ctx := t.Context()
	for i := range rules.MaxAudit/2 + 1 {
		r, err := s.Add(ctx, quarantineAcme, "alice", fmt.Sprint(i), time.Time{}, t0)
		require.NoError(t, err)
		_, err = s.Remove(ctx, r.ID, "alice", "done", t0)
		require.NoError(t, err)
	}
	b, err := s.Load(ctx)
	require.NoError(t, err)
	require.Len(t, b.Audit, rules.MaxAudit)
	assert.Equal(t, "r2", b.Audit[0].Rule.ID, "the oldest two changes (r1's) are gone")
}

// Concurrent changes never lose one: each is one conditional write on the
// item's version.
func TestConcurrentAddsAreAllKept(t *testing.T) {
	s := newStore(t)
	const n = 12
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			for {
				_, err := s.Add(t.Context(), quarantineAcme, "alice", fmt.Sprint(i), time.Time{}, t0)
				if errors.Is(err, breaker.ErrConflict) {
					continue // the admin state machine retries contention
				}
				errs <- err
				return
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	b, err := s.Load(t.Context())
	require.NoError(t, err)
	assert.Len(t, b.Rules, n)
	assert.Len(t, b.Audit, n)
	ids := map[string]bool{}
	for _, r := range b.Rules {
		ids[r.ID] = true
	}
	assert.Len(t, ids, n, "every rule got its own id")
	assert.Equal(t, int64(n), b.Version)
}

// flaky fails Load when failing is set.
type flaky struct {
	rules.Loader
	failing bool
	loads   int
}

func (f *flaky) Load(ctx context.Context) (rules.Book, error) {
	f.loads++
	if f.failing {
		return rules.Book{}, errors.New("table unavailable")
	}
	return f.Loader.Load(ctx)
}

func TestTheCacheReadsAgainAfterItsTTLAndKeepsTheLastRulesOnAFailure(t *testing.T) {
	s := newStore(t)
	clock := breakertest.NewClock(t0)
	loader := &flaky{Loader: s, failing: true}
	c := rules.NewCache(loader, clock, slog.New(slog.NewTextHandler(io.Discard, nil)))

	_, err := c.Rules(t.Context())
	require.Error(t, err, "no rules read yet: the caller cannot know")

	loader.failing = false
	set, err := c.Rules(t.Context())
	require.NoError(t, err)
	assert.Zero(t, set.Len())
	_, err = s.Add(t.Context(), quarantineAcme, "alice", "broken client", time.Time{}, clock.Now())
	require.NoError(t, err)

	clock.Advance(rules.CacheTTL - time.Second)
	set, _ = c.Rules(t.Context())
	assert.Zero(t, set.Len(), "within the TTL the cached rules serve")
	clock.Advance(time.Second)
	set, _ = c.Rules(t.Context())
	assert.Equal(t, 1, set.Len(), "a change applies once the TTL has passed")

	loader.failing = true
	clock.Advance(rules.CacheTTL)
	set, err = c.Rules(t.Context())
	require.NoError(t, err)
	assert.Equal(t, 1, set.Len(), "a failed read keeps the last rules")
	assert.Equal(t, 4, loader.loads)
}

// The rules item stays within DynamoDB's item size: the audit trail gives
// up its oldest changes, and an add the rules alone cannot hold is
// refused.
func TestTheRulesItemStaysWithinTheItemLimit(t *testing.T) {
	s := newStore(t)
	big := func(i int) rules.Spec {
		in := make([]string, 60)
		for j := range in {
			in[j] = fmt.Sprintf("%d-%d-%s", i, j, strings.Repeat("v", 500))
		}
		return rules.Spec{On: "breaker", In: in, Action: rules.Hold}
	}
	var err error
	added := 0
	for i := range 20 {
		if _, err = s.Add(t.Context(), big(i), "alice", "big", time.Time{}, t0); err != nil {
			break
		}
		added++
	}
	require.ErrorIs(t, err, rules.ErrTooLarge)
	assert.Equal(t, 6, added, "about 31 KB a rule, 200 KB of rules")
	b, err := s.Load(t.Context())
	require.NoError(t, err)
	assert.Len(t, b.Rules, added)
	require.Len(t, b.Audit, 5, "the audit gave up its oldest change to make room")
	assert.Equal(t, "r6", b.Audit[4].Rule.ID, "and kept the newest")
}
