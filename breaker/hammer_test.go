package breaker_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/breaker/breakertest"
)

// yieldingStore yields the processor after each Load, widening the window
// between a load and its conditional save so that writers really collide.
type yieldingStore struct{ *breaker.MemStore }

func (s yieldingStore) Load(ctx context.Context, key string) (breaker.Row, error) {
	defer runtime.Gosched()
	return s.MemStore.Load(ctx, key)
}

func TestHammerMemStore(t *testing.T) {
	b, err := breaker.New(yieldingStore{breaker.NewMemStore()}, testPolicy, breaker.Options{Random: breaker.NewRandom(2)})
	require.NoError(t, err)
	res := breakertest.Hammer(t, b, "hammer", breakertest.HammerConfig{Goroutines: 64, Calls: 20, Seed: 2})
	stats := b.Stats()
	assert.Positive(t, stats.Conflicts, "the callers collided")
	t.Logf("written %v, gave up %d, %+v", res.Written, res.GaveUp, stats)
}

func TestHammerCanariesMemStore(t *testing.T) {
	for _, permits := range []int{1, 3} {
		t.Run(fmt.Sprintf("permits=%d", permits), func(t *testing.T) {
			p := testPolicy
			p.HalfOpenPermits = permits
			p.Jitter = 0.2
			clock := breakertest.NewClock(t0)
			b, err := breaker.New(yieldingStore{breaker.NewMemStore()}, p, breaker.Options{Clock: clock, Random: breaker.NewRandom(3)})
			require.NoError(t, err)
			breakertest.HammerCanaries(t, b, clock, "canaries", 64)
		})
	}
}

func TestHammerProbeMemStore(t *testing.T) {
	p := testPolicy
	p.Jitter = 0.2
	clock := breakertest.NewClock(t0)
	b, err := breaker.New(yieldingStore{breaker.NewMemStore()}, p, breaker.Options{Clock: clock, Random: breaker.NewRandom(6)})
	require.NoError(t, err)
	breakertest.HammerProbe(t, b, clock, "probe", 64)
}

// lossyStore writes without the version condition, like a plain PutItem:
// the last writer wins and concurrent updates are lost.
type lossyStore struct{ yieldingStore }

func (s lossyStore) Save(ctx context.Context, _ int64, next breaker.Row) error {
	cur, err := s.MemStore.Load(ctx, next.Key)
	if err != nil {
		return err
	}
	next.Version = cur.Version + 1
	return s.MemStore.Save(ctx, cur.Version, next)
}

// recordingTB records failures instead of failing the test, so a test can
// check that Hammer fails on a broken store.
type recordingTB struct {
	testing.TB
	mu     sync.Mutex
	errors []string
}

func (r *recordingTB) Helper() {}

func (r *recordingTB) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

func (r *recordingTB) FailNow() { runtime.Goexit() }

// TestHammersCatchLostUpdates: each hammer fails on a store that loses
// updates.
func TestHammersCatchLostUpdates(t *testing.T) {
	cases := []struct {
		name   string
		hammer func(tb testing.TB, b *breaker.Breaker, clock *breakertest.Clock)
		want   []string // one of these fails
	}{
		{"outcomes", func(tb testing.TB, b *breaker.Breaker, _ *breakertest.Clock) {
			breakertest.Hammer(tb, b, "lossy", breakertest.HammerConfig{Goroutines: 64, Calls: 20, Seed: 4})
		}, []string{"every written failure is counted"}},
		{"probe", func(tb testing.TB, b *breaker.Breaker, clock *breakertest.Clock) {
			breakertest.HammerProbe(tb, b, clock, "lossy", 64)
		}, []string{"one probe when the cooldown is over", "an expired probe frees the probe"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			clock := breakertest.NewClock(t0)
			b, err := breaker.New(lossyStore{yieldingStore{breaker.NewMemStore()}}, testPolicy, breaker.Options{Clock: clock, Random: breaker.NewRandom(4)})
			require.NoError(t, err)
			rec := &recordingTB{TB: t}
			done := make(chan struct{})
			go func() {
				defer close(done)
				tc.hammer(rec, b, clock)
			}()
			<-done
			require.NotEmpty(t, rec.errors, "the hammer must fail on a store that loses updates")
			got := fmt.Sprint(rec.errors)
			assert.True(t, slices.ContainsFunc(tc.want, func(w string) bool { return strings.Contains(got, w) }),
				"failed for another reason: %s", got)
		})
	}
}

// historyStore is a yieldingStore that keeps every row it saved, so a
// test can replay a row's whole history, one version at a time.
type historyStore struct {
	yieldingStore
	mu   sync.Mutex
	rows []breaker.Row
}

func (s *historyStore) Save(ctx context.Context, prev int64, next breaker.Row) error {
	if err := s.MemStore.Save(ctx, prev, next); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rows = append(s.rows, next)
	return nil
}

// history returns the saved rows in version order.
func (s *historyStore) history() []breaker.Row {
	s.mu.Lock()
	defer s.mu.Unlock()
	rows := slices.Clone(s.rows)
	slices.SortFunc(rows, func(a, b breaker.Row) int { return int(a.Version - b.Version) })
	return rows
}

// TestConcurrentTransitionsFormAChain runs callers with a mix of outcomes
// while time moves, in normal mode, and checks that the reported state
// changes form one unbroken chain of allowed steps, one generation each,
// and that the saved rows form one history in which a failed probe is the
// only trip without a state change.
func TestConcurrentTransitionsFormAChain(t *testing.T) {
	p := testPolicy
	p.Jitter = 0.2
	clock := breakertest.NewClock(t0)
	var (
		mu          sync.Mutex
		transitions []breaker.Transition
	)
	store := &historyStore{yieldingStore: yieldingStore{breaker.NewMemStore()}}
	b, err := breaker.New(store, p, breaker.Options{Clock: clock, Random: breaker.NewRandom(5), Observer: func(tr breaker.Transition) {
		mu.Lock()
		defer mu.Unlock()
		transitions = append(transitions, tr)
	}})
	require.NoError(t, err)

	ctx := context.Background()
	// A flaky phase trips the breaker again and again; a healthy one lets
	// it recover.
	for phase, failureRate := range []float64{0.45, 0} {
		var wg sync.WaitGroup
		for g := range 64 {
			wg.Go(func() {
				rnd := rand.New(rand.NewPCG(uint64(phase), uint64(g)))
				for range 30 {
					if rnd.IntN(4) == 0 {
						clock.Advance(time.Duration(rnd.IntN(3000)) * time.Millisecond)
					}
					d, err := b.Admit(ctx, "chain")
					if !assert.NoError(t, err) || (d.Verdict != breaker.Proceed && d.Verdict != breaker.Canary) {
						continue
					}
					o := breaker.Success
					switch x := rnd.Float64(); {
					case x < failureRate:
						o = breaker.Transient
					case x < failureRate+0.05:
						o = breaker.Throttled
					}
					_, err = b.Record(ctx, "chain", d.Row, d.Ticket, o)
					if err != nil {
						assert.ErrorIs(t, err, breaker.ErrConflict)
					}
				}
			})
		}
		wg.Wait()
	}

	row, err := b.Status(ctx, "chain")
	require.NoError(t, err)
	assert.Equal(t, b.Stats().Saves, row.Version, "one version per save")
	require.NotEmpty(t, transitions)
	slices.SortFunc(transitions, func(a, b breaker.Transition) int { return int(a.Generation - b.Generation) })

	var trips, closes int64
	state := breaker.Closed
	for i, tr := range transitions {
		assert.Equal(t, int64(i+1), tr.Generation, "generations are contiguous: no change lost")
		assert.Equal(t, state, tr.From, "generation %d starts where the previous ended", tr.Generation)
		assert.True(t, allowedSteps[step{tr.From, tr.To, tr.Cause}], "step %s -> %s (%s) is allowed", tr.From, tr.To, tr.Cause)
		state = tr.To
		if tr.To == breaker.Open {
			trips++
		}
		if tr.To == breaker.Closed && tr.Cause == breaker.CauseCanarySuccesses {
			closes++
		}
	}

	var reopens int64
	prev := breaker.Row{Key: "chain"}
	for _, r := range store.history() {
		require.Equal(t, prev.Version+1, r.Version, "versions increase by one per save")
		if r.Generation == prev.Generation {
			assert.Equal(t, prev.State, r.State, "no state change without a generation")
		}
		if r.State == breaker.Open && prev.State == breaker.Open && r.Generation == prev.Generation && r.Trips > prev.Trips {
			reopens++
			assert.Equal(t, prev.Trips+1, r.Trips, "a failed probe is one more trip")
			assert.True(t, r.OpenUntil.After(prev.OpenUntil), "a failed probe sets a later cooldown end")
		}
		prev = r
	}

	assert.Equal(t, state, row.State)
	assert.Equal(t, int64(len(transitions)), row.Generation)
	assert.Equal(t, trips+reopens, row.Totals.Trips, "a trip is a change to OPEN or a failed probe")
	assert.Equal(t, closes, row.Totals.Closes)
	assert.Positive(t, trips, "the flaky phase trips the breaker")
	assert.Positive(t, closes, "the healthy phase lets it recover")
	assert.Positive(t, row.Totals.Throttles, "throttles are recorded")
	assert.Equal(t, breaker.Closed, row.State, "and it ends closed")
	t.Logf("%d transitions, %d trips, %d failed probes, %d closes, %+v", len(transitions), trips, reopens, closes, b.Stats())
}
