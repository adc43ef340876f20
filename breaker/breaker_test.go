package breaker_test

import (
	"cmp"
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

// newBreaker is a Breaker on clock with testPolicy, seeded, retrying
// conflicts at once unless o says otherwise.
func newBreaker(t *testing.T, store breaker.Store, clock *breakertest.Clock, o breaker.Options) *breaker.Breaker {
	t.Helper()
	o.Clock, o.Random = clock, breaker.NewRandom(1)
	o.ConflictBackoff = cmp.Or(o.ConflictBackoff, -1)
	b, err := breaker.New(store, testPolicy, o)
	require.NoError(t, err)
	return b
}

func TestNewRejects(t *testing.T) {
	store := breaker.NewMemStore()
	cases := []struct {
		name  string
		store breaker.Store
		p     breaker.Policy
		o     breaker.Options
		msg   string
	}{
		{"nil store", nil, breaker.Policy{}, breaker.Options{}, "breaker: nil store"},
		{"invalid policy", store, breaker.Policy{WindowSize: 65}, breaker.Options{}, "breaker: policy WindowSize 65: must be at most 64"},
		{"negative retries", store, breaker.Policy{}, breaker.Options{MaxConflictRetries: -1}, "breaker: options: MaxConflictRetries -1: must not be negative"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b, err := breaker.New(tc.store, tc.p, tc.o)
			assert.Nil(t, b)
			assert.EqualError(t, err, tc.msg)
		})
	}

	b, err := breaker.New(store, breaker.Policy{}, breaker.Options{})
	require.NoError(t, err)
	assert.Equal(t, breaker.Policy{}.WithDefaults(), b.Policy())
}

func TestBreakerLifecycle(t *testing.T) {
	ctx := context.Background()
	clock := breakertest.NewClock(t0)
	var transitions []breaker.Transition
	b := newBreaker(t, breaker.NewMemStore(), clock, breaker.Options{Observer: func(tr breaker.Transition) {
		transitions = append(transitions, tr)
	}})

	admit := func(want breaker.Verdict) breaker.Decision {
		t.Helper()
		d, err := b.Admit(ctx, "orders")
		require.NoError(t, err)
		require.Equal(t, want, d.Verdict)
		return d
	}
	record := func(d breaker.Decision, o breaker.Outcome) breaker.Row {
		t.Helper()
		r, err := b.Record(ctx, "orders", d.Row, d.Ticket, o)
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

	// OPEN: every caller queues until the cooldown ends, and none writes.
	tripped, err := b.Status(ctx, "orders")
	require.NoError(t, err)
	assert.Equal(t, clock.Now().Add(10*time.Second), tripped.OpenUntil)
	queued := admit(breaker.Queue)
	assert.Zero(t, queued.Wait, "a queued caller has no time of its own")
	assert.Equal(t, tripped, queued.Row, "the decision carries the row it read")
	saves := b.Stats().Saves
	admit(breaker.Queue)
	clock.Advance(10*time.Second - time.Nanosecond)
	admit(breaker.Queue)
	assert.Equal(t, saves, b.Stats().Saves, "queueing writes nothing")

	// The cooldown over, one probe goes and the breaker stays OPEN; its
	// failure keeps it OPEN for 20s more, in the same generation.
	clock.Advance(time.Nanosecond)
	probe := admit(breaker.Canary)
	assert.Equal(t, breaker.Open, probe.State)
	status, err := b.Status(ctx, "orders")
	require.NoError(t, err)
	assert.Equal(t, status, probe.Row, "the decision carries the row it saved")
	admit(breaker.Queue)
	r = record(probe, breaker.Transient)
	assert.Equal(t, breaker.Open, r.State)
	assert.Equal(t, probe.Ticket.Generation, r.Generation)
	assert.Equal(t, clock.Now().Add(20*time.Second), r.OpenUntil)

	// Queued again until then; the next probe succeeds: HALF_OPEN with two
	// permits.
	admit(breaker.Queue)
	clock.Advance(20 * time.Second)
	r = record(admit(breaker.Canary), breaker.Success)
	assert.Equal(t, breaker.HalfOpen, r.State)
	assert.Equal(t, 1, r.CanarySuccesses, "the probe's success counts toward the close")
	c1, c2 := admit(breaker.Canary), admit(breaker.Canary)
	admit(breaker.Queue)

	// One canary fails: OPEN again for 40s; the other's success is stale.
	r = record(c1, breaker.Transient)
	assert.Equal(t, breaker.Open, r.State)
	assert.Equal(t, clock.Now().Add(40*time.Second), r.OpenUntil)
	r = record(c2, breaker.Success)
	assert.Equal(t, breaker.Open, r.State)

	// After the cooldown any caller takes the probe; its success and a
	// canary's close the breaker.
	clock.Advance(40 * time.Second)
	record(admit(breaker.Canary), breaker.Success)
	r = record(admit(breaker.Canary), breaker.Success)
	assert.Equal(t, breaker.Closed, r.State)

	// A throttled call pauses admission for ThrottlePause.
	r = record(admit(breaker.Proceed), breaker.Throttled)
	assert.Equal(t, clock.Now().Add(2*time.Second), r.ThrottledUntil)
	admit(breaker.Queue)
	clock.Advance(2 * time.Second)
	admit(breaker.Proceed)

	// An operator forces it open, then releases it.
	before, after, err := b.Command(ctx, "orders", breaker.Command{Kind: breaker.ForceOpen, Actor: "bob", Reason: "maintenance"})
	require.NoError(t, err)
	assert.Equal(t, breaker.Closed, before.State)
	assert.Equal(t, breaker.ForcedOpen, after.State)
	assert.Equal(t, before.Version+1, after.Version)
	admit(breaker.Queue)
	_, after, err = b.Command(ctx, "orders", breaker.Command{Kind: breaker.Release, Actor: "bob"})
	require.NoError(t, err)
	assert.Equal(t, breaker.Closed, after.State)

	status, err = b.Status(ctx, "orders")
	require.NoError(t, err)
	assert.Equal(t, after, status)
	assert.Equal(t, breaker.Totals{Successes: 3, Failures: 5, Trips: 3, Closes: 1, Throttles: 1}, status.Totals)

	var got []step
	for i, tr := range transitions {
		got = append(got, step{tr.From, tr.To, tr.Cause})
		assert.Equal(t, "orders", tr.Key)
		assert.Equal(t, int64(i+1), tr.Generation, "one generation per change")
	}
	assert.Equal(t, []step{
		{breaker.Closed, breaker.Open, breaker.CauseConsecutiveFailures},
		{breaker.Open, breaker.HalfOpen, breaker.CauseProbeSuccess},
		{breaker.HalfOpen, breaker.Open, breaker.CauseCanaryFailure},
		{breaker.Open, breaker.HalfOpen, breaker.CauseProbeSuccess},
		{breaker.HalfOpen, breaker.Closed, breaker.CauseCanarySuccesses},
		{breaker.Closed, breaker.ForcedOpen, breaker.CauseForceOpen},
		{breaker.ForcedOpen, breaker.Closed, breaker.CauseRelease},
	}, got)
}

// TestBreakerProbeAloneCloses: with SuccessesToClose 1 the probe's
// success closes the breaker in one state change and one generation.
func TestBreakerProbeAloneCloses(t *testing.T) {
	ctx := context.Background()
	clock := breakertest.NewClock(t0)
	var transitions []breaker.Transition
	p := testPolicy
	p.SuccessesToClose = 1
	b, err := breaker.New(breaker.NewMemStore(), p, breaker.Options{Clock: clock, Random: breaker.NewRandom(1), Observer: func(tr breaker.Transition) { transitions = append(transitions, tr) }})
	require.NoError(t, err)

	for range 3 {
		d, err := b.Admit(ctx, "k")
		require.NoError(t, err)
		_, err = b.Record(ctx, "k", d.Row, d.Ticket, breaker.Transient)
		require.NoError(t, err)
	}
	clock.Advance(p.CooldownBase)
	d, err := b.Admit(ctx, "k")
	require.NoError(t, err)
	require.Equal(t, breaker.Canary, d.Verdict)
	r, err := b.Record(ctx, "k", d.Row, d.Ticket, breaker.Success)
	require.NoError(t, err)
	assert.Equal(t, breaker.Closed, r.State)
	assert.Equal(t, int64(2), r.Generation)
	assert.Equal(t, int64(1), r.Totals.Closes)
	require.Len(t, transitions, 2)
	assert.Equal(t, breaker.Transition{Key: "k", From: breaker.Open, To: breaker.Closed, Generation: 2,
		Cause: breaker.CauseCanarySuccesses, At: clock.Now()}, transitions[1])
}

func TestBreakerRowIO(t *testing.T) {
	ctx := context.Background()
	clock := breakertest.NewClock(t0)
	b := newBreaker(t, breaker.NewMemStore(), clock, breaker.Options{})
	try := func(o breaker.Outcome) {
		t.Helper()
		d, err := b.Admit(ctx, "k")
		require.NoError(t, err)
		_, err = b.Record(ctx, "k", d.Row, d.Ticket, o)
		require.NoError(t, err)
	}

	// Fill the window: every success writes until it is full.
	for range testPolicy.WindowSize {
		try(breaker.Success)
	}
	start := b.Stats()
	assert.Equal(t, breaker.Stats{Loads: 10, Saves: 10}, start, "one read per delivery try")

	const n = 100
	for range n {
		try(breaker.Success)
	}
	s := b.Stats()
	assert.Equal(t, int64(n), s.Loads-start.Loads, "one read per delivery try")
	assert.Zero(t, s.Saves-start.Saves, "a healthy breaker writes nothing")

	try(breaker.Transient)
	assert.Equal(t, breaker.Stats{Loads: s.Loads + 1, Saves: s.Saves + 1}, b.Stats(), "a failure: one read and one write")
}

// TestBreakerRecordFromSeenRow counts the row I/O of one delivery try,
// Admit then Record: Record starts from the row Admit left and reads again
// only when that row is not the key's or another writer changed it since.
func TestBreakerRecordFromSeenRow(t *testing.T) {
	ctx := context.Background()
	healthy := healthyRow()
	healthy.Version = 1
	halfOpen := halfOpenRow()
	halfOpen.Version = 1
	fromAdmit := func(d breaker.Decision) breaker.Row { return d.Row }

	cases := []struct {
		name      string
		start     breaker.Row
		seen      func(breaker.Decision) breaker.Row
		interfere bool // another Breaker records a failure between Admit and Record
		outcome   breaker.Outcome
		want      breaker.Stats
	}{
		{name: "a healthy success: one read, no write", start: healthy, seen: fromAdmit, outcome: breaker.Success,
			want: breaker.Stats{Loads: 1}},
		{name: "a failure: one read, one write", start: healthy, seen: fromAdmit, outcome: breaker.Transient,
			want: breaker.Stats{Loads: 1, Saves: 1}},
		{name: "a throttle: one read, one write", start: healthy, seen: fromAdmit, outcome: breaker.Throttled,
			want: breaker.Stats{Loads: 1, Saves: 1}},
		{name: "a canary: one read, two writes", start: halfOpen, seen: fromAdmit, outcome: breaker.Success,
			want: breaker.Stats{Loads: 1, Saves: 2}},
		{name: "a zero seen row is read first", start: healthy, seen: func(breaker.Decision) breaker.Row { return breaker.Row{} },
			outcome: breaker.Transient, want: breaker.Stats{Loads: 2, Saves: 1}},
		{name: "another key's row is read first", start: healthy,
			seen:    func(d breaker.Decision) breaker.Row { r := d.Row; r.Key = "other"; return r },
			outcome: breaker.Transient, want: breaker.Stats{Loads: 2, Saves: 1}},
		{name: "a conflicting write costs exactly one reload", start: healthy, seen: fromAdmit, interfere: true,
			outcome: breaker.Transient, want: breaker.Stats{Loads: 2, Saves: 1, Conflicts: 1}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			clock := breakertest.NewClock(t0)
			store := breaker.NewMemStore()
			require.NoError(t, store.Save(ctx, 0, tc.start))
			b := newBreaker(t, store, clock, breaker.Options{})

			d, err := b.Admit(ctx, "k")
			require.NoError(t, err)
			if tc.interfere {
				other := newBreaker(t, store, clock, breaker.Options{})
				od, err := other.Admit(ctx, "k")
				require.NoError(t, err)
				_, err = other.Record(ctx, "k", od.Row, od.Ticket, breaker.Transient)
				require.NoError(t, err)
			}
			after, err := b.Record(ctx, "k", tc.seen(d), d.Ticket, tc.outcome)
			require.NoError(t, err)
			assert.Equal(t, tc.want, b.Stats())

			stored, err := store.Load(ctx, "k")
			require.NoError(t, err)
			assert.Equal(t, stored, after, "Record returns the stored row")
			if tc.interfere {
				assert.Equal(t, int64(2), stored.Totals.Failures, "both failures are counted")
				assert.Equal(t, 2, stored.ConsecutiveFailures)
			}
		})
	}
}

func TestBreakerRetriesConflicts(t *testing.T) {
	ctx := context.Background()
	clock := breakertest.NewClock(t0)

	t.Run("a lost race is retried on a fresh row", func(t *testing.T) {
		store := &interferingStore{MemStore: breaker.NewMemStore(), n: 3}
		b := newBreaker(t, store, clock, breaker.Options{})
		r, err := b.Record(ctx, "k", breaker.Row{}, breaker.Ticket{}, breaker.Transient)
		require.NoError(t, err)
		assert.Equal(t, int64(1), r.Totals.Failures)
		assert.Equal(t, int64(3), r.Totals.Poison, "the other writer's updates survive")
		assert.Equal(t, int64(4), r.Version)
		assert.Equal(t, breaker.Stats{Loads: 4, Saves: 1, Conflicts: 3}, b.Stats())
	})

	t.Run("too many lost races give a ConflictError", func(t *testing.T) {
		store := &interferingStore{MemStore: breaker.NewMemStore(), n: 100}
		b := newBreaker(t, store, clock, breaker.Options{MaxConflictRetries: 2})
		_, err := b.Record(ctx, "k", breaker.Row{}, breaker.Ticket{}, breaker.Transient)
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
		b := newBreaker(t, store, clock, breaker.Options{ConflictBackoff: time.Hour})
		_, err := b.Record(cctx, "k", breaker.Row{}, breaker.Ticket{}, breaker.Transient)
		assert.ErrorIs(t, err, context.Canceled)
		assert.EqualError(t, err, `record TRANSIENT: retry breaker "k" after conflict: context canceled`)
		assert.Equal(t, breaker.Stats{Loads: 1, Conflicts: 1}, b.Stats())
	})
}

func TestBreakerErrors(t *testing.T) {
	ctx := context.Background()
	clock := breakertest.NewClock(t0)
	down := errors.New("table unavailable")
	broken := newBreaker(t, &failingStore{MemStore: breaker.NewMemStore(), loadErr: down}, clock, breaker.Options{})
	ok := newBreaker(t, breaker.NewMemStore(), clock, breaker.Options{})

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
		{"undefined outcome", func() error { _, err := ok.Record(ctx, "k", breaker.Row{}, breaker.Ticket{}, 0); return err },
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
		b := newBreaker(t, store, clock, breaker.Options{})
		_, err := b.Record(ctx, "k", breaker.Row{}, breaker.Ticket{}, breaker.Transient)
		assert.ErrorIs(t, err, down)
		assert.EqualError(t, err, fmt.Sprintf(`record TRANSIENT: save breaker "k" version 1: %v`, down))
		assert.Equal(t, breaker.Stats{Loads: 1}, b.Stats())
	})
}

func TestRecordOnceCountsADeliveryOnce(t *testing.T) {
	store := breaker.NewMemStore()
	b := newBreaker(t, store, breakertest.NewClock(t0), breaker.Options{})
	ctx := t.Context()
	d, err := b.Admit(ctx, "k")
	require.NoError(t, err)
	row, err := b.RecordOnce(ctx, "k", d.Row, d.Ticket, breaker.Transient, "o-1#1#1")
	require.NoError(t, err)
	require.Equal(t, 1, row.ConsecutiveFailures)
	assert.Equal(t, []string{"o-1#1#1"}, row.Recorded)

	// The same delivery again, as a retried Attempt records it.
	again, err := b.RecordOnce(ctx, "k", breaker.Row{}, d.Ticket, breaker.Transient, "o-1#1#1")
	require.NoError(t, err)
	assert.Equal(t, row, again, "not counted, not written")

	// Recorded keeps the newest MaxRecorded deliveries (forced closed, so
	// every failure is written and none trips).
	_, _, err = b.Command(ctx, "k", breaker.Command{Kind: breaker.ForceClose, Actor: "test", Reason: "count"})
	require.NoError(t, err)
	for i := range breaker.MaxRecorded + 5 {
		d, err := b.Admit(ctx, "k")
		require.NoError(t, err)
		require.Equal(t, breaker.Proceed, d.Verdict)
		_, err = b.RecordOnce(ctx, "k", d.Row, d.Ticket, breaker.Transient, fmt.Sprintf("o-%d#1#1", i+2))
		require.NoError(t, err)
	}
	row, err = b.Status(ctx, "k")
	require.NoError(t, err)
	assert.Len(t, row.Recorded, breaker.MaxRecorded)
	assert.Equal(t, fmt.Sprintf("o-%d#1#1", breaker.MaxRecorded+6), row.Recorded[breaker.MaxRecorded-1], "newest last")
	assert.NotContains(t, row.Recorded, "o-1#1#1", "the oldest dropped")
}
