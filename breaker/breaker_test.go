package breaker_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/breaker/breakertest"
)

// interferingStore is a hand-written Store that lets another writer win
// the first n conditional writes: before passing each Save on, it bumps the
// stored row itself, so the Save really loses the race.
type interferingStore struct {
	*breaker.MemStore
	mu sync.Mutex
	n  int
	// onInterfere, if set, runs after each Save the store made lose.
	onInterfere func()
}

func (s *interferingStore) Save(ctx context.Context, prev int64, next breaker.Row) error {
	s.mu.Lock()
	interfere := s.n > 0
	s.n--
	s.mu.Unlock()
	if interfere {
		cur, err := s.MemStore.Load(ctx, next.Key)
		if err != nil {
			return err
		}
		cur.Version++
		cur.Totals.Poison++ // another writer's outcome, which must survive
		if err := s.MemStore.Save(ctx, cur.Version-1, cur); err != nil {
			return err
		}
	}
	err := s.MemStore.Save(ctx, prev, next)
	if interfere && s.onInterfere != nil {
		s.onInterfere()
	}
	return err
}

// failingStore is a MemStore whose Load fails with loadErr and whose Save
// fails with saveErr, when set.
type failingStore struct {
	*breaker.MemStore
	loadErr, saveErr error
}

func (s *failingStore) Load(ctx context.Context, key string) (breaker.Row, error) {
	if s.loadErr != nil {
		return breaker.Row{}, s.loadErr
	}
	return s.MemStore.Load(ctx, key)
}

func (s *failingStore) Save(ctx context.Context, prev int64, next breaker.Row) error {
	if s.saveErr != nil {
		return s.saveErr
	}
	return s.MemStore.Save(ctx, prev, next)
}

func newBreaker(t *testing.T, store breaker.Store, clock *breakertest.Clock, opts ...breaker.Option) *breaker.Breaker {
	t.Helper()
	opts = append([]breaker.Option{breaker.WithClock(clock.Now), breaker.WithSeed(1), breaker.WithConflictBackoff(0)}, opts...)
	b, err := breaker.New(store, testPolicy, opts...)
	require.NoError(t, err)
	return b
}

func TestNewRejects(t *testing.T) {
	store := breaker.NewMemStore()
	cases := []struct {
		name  string
		store breaker.Store
		p     breaker.Policy
		opt   breaker.Option
		msg   string
	}{
		{"nil store", nil, breaker.Policy{}, nil, "breaker: nil store"},
		{"invalid policy", store, breaker.Policy{WindowSize: 65}, nil, "breaker: policy WindowSize 65: must be at most 64"},
		{"nil clock", store, breaker.Policy{}, breaker.WithClock(nil), "breaker: option WithClock: nil clock"},
		{"nil randomness", store, breaker.Policy{}, breaker.WithRandom(nil), "breaker: option WithRandom: nil randomness"},
		{"negative retries", store, breaker.Policy{}, breaker.WithMaxConflictRetries(-1), "breaker: option WithMaxConflictRetries -1: must not be negative"},
		{"negative backoff", store, breaker.Policy{}, breaker.WithConflictBackoff(-time.Second), "breaker: option WithConflictBackoff -1s: must not be negative"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var opts []breaker.Option
			if tc.opt != nil {
				opts = append(opts, tc.opt)
			}
			b, err := breaker.New(tc.store, tc.p, opts...)
			assert.Nil(t, b)
			assert.EqualError(t, err, tc.msg)
		})
	}

	b, err := breaker.New(store, breaker.Policy{})
	require.NoError(t, err)
	assert.Equal(t, breaker.Policy{}.WithDefaults(), b.Policy())
}

func TestBreakerLifecycle(t *testing.T) {
	ctx := context.Background()
	clock := breakertest.NewClock(t0)
	var transitions []breaker.Transition
	b := newBreaker(t, breaker.NewMemStore(), clock, breaker.WithObserver(func(tr breaker.Transition) {
		transitions = append(transitions, tr)
	}))

	admit := func(want breaker.Verdict) breaker.Decision {
		t.Helper()
		d, err := b.Admit(ctx, "orders")
		require.NoError(t, err)
		require.Equal(t, want, d.Verdict)
		return d
	}
	record := func(d breaker.Decision, o breaker.Outcome) breaker.Row {
		t.Helper()
		r, err := b.Record(ctx, "orders", d.Ticket, o)
		require.NoError(t, err)
		return r
	}

	// Three failures trip the breaker; a late success of the closed
	// generation is ignored.
	late := admit(breaker.Proceed)
	for range 3 {
		record(admit(breaker.Proceed), breaker.Transient)
	}
	r := record(late, breaker.Success)
	assert.Equal(t, breaker.Open, r.State)

	// OPEN waits out the cooldown, then grants two canaries and waits.
	assert.Equal(t, 10*time.Second, admit(breaker.Wait).Wait)
	clock.Advance(10 * time.Second)
	c1, c2 := admit(breaker.Canary), admit(breaker.Canary)
	admit(breaker.Wait)

	// One canary fails: OPEN again for 20s; the other's success is stale.
	r = record(c1, breaker.Transient)
	assert.Equal(t, breaker.Open, r.State)
	assert.Equal(t, clock.Now().Add(20*time.Second), r.OpenUntil)
	r = record(c2, breaker.Success)
	assert.Equal(t, breaker.Open, r.State)

	// Two canary successes close it.
	clock.Advance(20 * time.Second)
	c1, c2 = admit(breaker.Canary), admit(breaker.Canary)
	record(c1, breaker.Success)
	r = record(c2, breaker.Success)
	assert.Equal(t, breaker.Closed, r.State)
	admit(breaker.Proceed)

	// An operator forces it open, then releases it.
	before, after, err := b.Command(ctx, "orders", breaker.Command{Kind: breaker.ForceOpen, Actor: "bob", Reason: "maintenance"})
	require.NoError(t, err)
	assert.Equal(t, breaker.Closed, before.State)
	assert.Equal(t, breaker.ForcedOpen, after.State)
	assert.Equal(t, before.Version+1, after.Version)
	admit(breaker.Wait)
	_, after, err = b.Command(ctx, "orders", breaker.Command{Kind: breaker.Release, Actor: "bob"})
	require.NoError(t, err)
	assert.Equal(t, breaker.Closed, after.State)

	status, err := b.Status(ctx, "orders")
	require.NoError(t, err)
	assert.Equal(t, after, status)
	assert.Equal(t, breaker.Totals{Successes: 2, Failures: 4, Trips: 2, Closes: 1}, status.Totals)

	var got []step
	for i, tr := range transitions {
		got = append(got, step{tr.From, tr.To, tr.Cause})
		assert.Equal(t, "orders", tr.Key)
		assert.Equal(t, int64(i+1), tr.Generation, "one generation per change")
	}
	assert.Equal(t, []step{
		{breaker.Closed, breaker.Open, breaker.CauseConsecutiveFailures},
		{breaker.Open, breaker.HalfOpen, breaker.CauseCooldownElapsed},
		{breaker.HalfOpen, breaker.Open, breaker.CauseCanaryFailure},
		{breaker.Open, breaker.HalfOpen, breaker.CauseCooldownElapsed},
		{breaker.HalfOpen, breaker.Closed, breaker.CauseCanarySuccesses},
		{breaker.Closed, breaker.ForcedOpen, breaker.CauseForceOpen},
		{breaker.ForcedOpen, breaker.Closed, breaker.CauseRelease},
	}, got)
}

func TestBreakerRowIO(t *testing.T) {
	ctx := context.Background()
	clock := breakertest.NewClock(t0)
	b := newBreaker(t, breaker.NewMemStore(), clock)

	// Fill the window: every success writes until it is full.
	for range testPolicy.WindowSize {
		d, err := b.Admit(ctx, "k")
		require.NoError(t, err)
		_, err = b.Record(ctx, "k", d.Ticket, breaker.Success)
		require.NoError(t, err)
	}
	start := b.Stats()
	assert.Equal(t, breaker.Stats{Loads: 20, Saves: 10}, start)

	const n = 100
	for range n {
		d, err := b.Admit(ctx, "k")
		require.NoError(t, err)
		_, err = b.Record(ctx, "k", d.Ticket, breaker.Success)
		require.NoError(t, err)
	}
	s := b.Stats()
	assert.Equal(t, int64(2*n), s.Loads-start.Loads, "one read per call")
	assert.Zero(t, s.Saves-start.Saves, "a healthy breaker writes nothing")

	d, err := b.Admit(ctx, "k")
	require.NoError(t, err)
	_, err = b.Record(ctx, "k", d.Ticket, breaker.Transient)
	require.NoError(t, err)
	assert.Equal(t, breaker.Stats{Loads: s.Loads + 2, Saves: s.Saves + 1}, b.Stats(), "a failure: one read and one write")
}

func TestBreakerRetriesConflicts(t *testing.T) {
	ctx := context.Background()
	clock := breakertest.NewClock(t0)

	t.Run("a lost race is retried on a fresh row", func(t *testing.T) {
		store := &interferingStore{MemStore: breaker.NewMemStore(), n: 3}
		b := newBreaker(t, store, clock)
		r, err := b.Record(ctx, "k", breaker.Ticket{}, breaker.Transient)
		require.NoError(t, err)
		assert.Equal(t, int64(1), r.Totals.Failures)
		assert.Equal(t, int64(3), r.Totals.Poison, "the other writer's updates survive")
		assert.Equal(t, int64(4), r.Version)
		assert.Equal(t, breaker.Stats{Loads: 4, Saves: 1, Conflicts: 3}, b.Stats())
	})

	t.Run("too many lost races give a ConflictError", func(t *testing.T) {
		store := &interferingStore{MemStore: breaker.NewMemStore(), n: 100}
		b := newBreaker(t, store, clock, breaker.WithMaxConflictRetries(2))
		_, err := b.Record(ctx, "k", breaker.Ticket{}, breaker.Transient)
		require.Error(t, err)
		assert.ErrorIs(t, err, breaker.ErrConflict)
		var ce *breaker.ConflictError
		require.ErrorAs(t, err, &ce)
		assert.Equal(t, breaker.ConflictError{Key: "k", Attempts: 3}, *ce)
		assert.EqualError(t, err, `record TRANSIENT: breaker: conflicting writes on "k": gave up after 3 attempts`)
		r, err := store.Load(ctx, "k")
		require.NoError(t, err)
		assert.Zero(t, r.Totals.Failures, "nothing of ours was written")
	})

	t.Run("a cancelled context stops the retries", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		store := &interferingStore{MemStore: breaker.NewMemStore(), n: 100, onInterfere: cancel}
		b := newBreaker(t, store, clock, breaker.WithConflictBackoff(time.Hour))
		_, err := b.Record(cctx, "k", breaker.Ticket{}, breaker.Transient)
		assert.ErrorIs(t, err, context.Canceled)
		assert.EqualError(t, err, `record TRANSIENT: retry breaker "k" after conflict: context canceled`)
		assert.Equal(t, breaker.Stats{Loads: 1, Conflicts: 1}, b.Stats())
	})
}

func TestBreakerErrors(t *testing.T) {
	ctx := context.Background()
	clock := breakertest.NewClock(t0)
	down := errors.New("table unavailable")
	broken := newBreaker(t, &failingStore{MemStore: breaker.NewMemStore(), loadErr: down}, clock)
	ok := newBreaker(t, breaker.NewMemStore(), clock)

	cases := []struct {
		name string
		call func() error
		is   error
		msg  string
	}{
		{"admit on a failing store", func() error { _, err := broken.Admit(ctx, "k"); return err },
			down, `admit: load breaker "k": table unavailable`},
		{"status on a failing store", func() error { _, err := broken.Status(ctx, "k"); return err },
			down, `load breaker "k": table unavailable`},
		{"empty key", func() error { _, err := ok.Admit(ctx, ""); return err },
			breaker.ErrEmptyKey, "admit: breaker: empty key"},
		{"empty key status", func() error { _, err := ok.Status(ctx, ""); return err },
			breaker.ErrEmptyKey, "breaker: empty key"},
		{"undefined outcome", func() error { _, err := ok.Record(ctx, "k", breaker.Ticket{}, 0); return err },
			breaker.ErrInvalidOutcome, `record breaker "k": breaker: invalid outcome Outcome(0)`},
		{"invalid command", func() error {
			_, _, err := ok.Command(ctx, "k", breaker.Command{Kind: breaker.ForceOpen, Until: t0.Add(-time.Hour)})
			return err
		}, nil, `command open: breaker "k": breaker: command open: until`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			require.Error(t, err)
			if tc.is != nil {
				assert.ErrorIs(t, err, tc.is)
			}
			assert.Contains(t, err.Error(), tc.msg)
		})
	}

	t.Run("a save error is not retried", func(t *testing.T) {
		store := &failingStore{MemStore: breaker.NewMemStore(), saveErr: down}
		b := newBreaker(t, store, clock)
		_, err := b.Record(ctx, "k", breaker.Ticket{}, breaker.Transient)
		assert.ErrorIs(t, err, down)
		assert.EqualError(t, err, fmt.Sprintf(`record TRANSIENT: save breaker "k" version 1: %v`, down))
		assert.Equal(t, breaker.Stats{Loads: 1}, b.Stats())
	})
}
