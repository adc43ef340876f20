package pace_test

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/room/pace"
)

// take has the controller of one key take from the target's budget at
// now, wanting want and reporting throttles.
func take(t *testing.T, s *pace.Store, p pace.Policy, now time.Time, want int, throttles int64) pace.Grant {
	t.Helper()
	g, err := s.Take(t.Context(), p, now, want, throttles)
	require.NoError(t, err)
	return g
}

// tick is the i-th tick after t0.
func tick(i int) time.Time { return t0.Add(time.Duration(i) * time.Second) }

// Three controllers that each want more than the target takes share each
// tick's budget: never more than the budget between them, and, once each
// took once, equal parts; the budget grows while it is given out in full,
// as one controller's rate would.
func TestControllersShareEachTicksBudget(t *testing.T) {
	s, _, _ := newStore(t)
	p := pace.Policy{}.WithDefaults()
	var budgets []int
	for i := range 4 {
		var got []int
		for range 3 {
			got = append(got, take(t, s, p, tick(i), 100, 0).N)
		}
		budgets = append(budgets, got[0]+got[1]+got[2])
		if i > 0 {
			assert.InDelta(t, got[0], got[2], 1, "tick %d: equal parts, %v", i, got)
		}
	}
	assert.Equal(t, []int{10, 20, 40, 80}, budgets, "slow start, as one controller's")
}

// A throttle that any controller reports backs the next tick's budget off;
// a budget not given out in full does not grow.
func TestTheBudgetBacksOffOnAReportedThrottleAndGrowsOnlyWhenUsed(t *testing.T) {
	s, _, _ := newStore(t)
	p := pace.Policy{}.WithDefaults()
	both := func(i, want int, throttles int64) int {
		return take(t, s, p, tick(i), want, 0).N + take(t, s, p, tick(i), want, throttles).N
	}
	assert.Equal(t, 10, take(t, s, p, tick(0), 100, 0).N)
	assert.Equal(t, 20, both(1, 100, 1), "a throttle reported by the second controller")
	assert.Equal(t, 10, both(2, 100, 0), "halves the next tick's budget")
	assert.Equal(t, 10, both(3, 5, 0), "the budget, 12, is not given out in full")
	assert.Equal(t, 12, both(4, 100, 0), "so it did not grow")
	assert.Equal(t, 14, both(5, 100, 0), "below the rate that was throttled, it grows by a quarter of the way")
}

// A budget smaller than the controllers serves each of them in turn: no
// controller is left out because its ticks come after the others'.
func TestABudgetSmallerThanTheControllersServesThemInTurn(t *testing.T) {
	s, _, _ := newStore(t)
	p := pace.Policy{Start: 2, Max: 2}.WithDefaults()
	got := make([]int, 5)
	for i := range 6 {
		for k := range got {
			if n := take(t, s, p, tick(i), 1, 0).N; i > 0 {
				got[k] += n
			}
		}
	}
	assert.Equal(t, []int{2, 2, 2, 2, 2}, got, "five ticks of two messages among five controllers")
}

// A throttle's pause, noted by the attempt that met it, holds every
// controller's take until it ends; a throttle reported during the pause
// still counts, and an earlier pause never replaces a later one.
func TestANotedPauseHoldsEveryTakeUntilItEnds(t *testing.T) {
	s, _, _ := newStore(t)
	p := pace.Policy{}.WithDefaults()
	assert.Equal(t, 10, take(t, s, p, tick(0), 10, 0).N)
	until := tick(1).Add(500 * time.Millisecond)
	require.NoError(t, s.NoteThrottle(t.Context(), until))
	require.NoError(t, s.NoteThrottle(t.Context(), tick(1)), "an earlier pause")
	paused, err := s.PausedUntil(t.Context())
	require.NoError(t, err)
	assert.Equal(t, until.UnixMilli(), paused.UnixMilli())

	g := take(t, s, p, tick(1), 10, 0)
	assert.Zero(t, g.N)
	assert.Equal(t, until.UnixMilli(), g.PausedUntil.UnixMilli())
	assert.Zero(t, take(t, s, p, tick(1), 10, 1).N, "reporting a throttle takes nothing either")
	assert.Equal(t, 5, take(t, s, p, tick(2), 100, 0).N, "after the pause: the throttle reported in it halved the budget")
}

// Many controllers taking at once, with the race detector on: the
// conditional writes give out at most the tick's budget between them.
func TestControllersRacingForATickNeverTakeMoreThanItsBudget(t *testing.T) {
	s, _, _ := newStore(t)
	p := pace.Policy{}.WithDefaults()
	const takers = 8
	var mu sync.Mutex
	total, failed := 0, 0
	var wg sync.WaitGroup
	for range takers {
		wg.Go(func() {
			g, err := s.Take(t.Context(), p, tick(0), 3, 0)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				assert.ErrorIs(t, err, pace.ErrConflict)
				failed++
				return
			}
			total += g.N
		})
	}
	wg.Wait()
	assert.LessOrEqual(t, total, 10, "the budget of the first tick")
	if failed == 0 {
		assert.Equal(t, 10, total, "every take served, the budget given out")
	}
}
