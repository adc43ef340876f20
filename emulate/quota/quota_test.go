package quota_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/breaker/breakertest"
	"github.com/redrive/redrive/emulate/quota"
)

var t0 = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

// TestStartExecutionBurstThenRefill takes Standard StartExecution tokens
// as fast as they come: the burst of 800, then 150 a second, and every
// call past them is throttled and counted.
func TestStartExecutionBurstThenRefill(t *testing.T) {
	clk := breakertest.NewClock(t0)
	a := quota.NewAccount(quota.Standard)
	took := 0
	for a.Take(quota.StandardStart, clk.Now()) == nil {
		took++
	}
	assert.Equal(t, 800, took, "the burst")
	require.ErrorIs(t, a.Take(quota.StandardStart, clk.Now()), quota.ErrThrottled)

	clk.Advance(time.Second)
	took = 0
	for a.Take(quota.StandardStart, clk.Now()) == nil {
		took++
	}
	assert.Equal(t, 150, took, "one second's refill")

	r := a.Report()
	assert.Equal(t, int64(3), r.Throttles[quota.StandardStart], "the call ending each loop, and the one between")
	assert.InDelta(t, 800.0/150, r.PeakUse[quota.StandardStart], 1e-9, "the burst's second, over the refill rate")
	assert.Zero(t, r.Throttles[quota.ExpressStart], "Express has its own bucket")
}

// TestTransitionsBeyondTheBucketWait borrows state transitions past the
// bucket: each waits for its token, in order, at the refill rate, and the
// peak use counts them when they happen.
func TestTransitionsBeyondTheBucketWait(t *testing.T) {
	a := quota.NewAccount(quota.Standard) // 800 burst, 800 per second
	for range 800 {
		require.Zero(t, a.Wait(quota.Transitions, t0))
	}
	assert.Equal(t, time.Second/800, a.Wait(quota.Transitions, t0))
	assert.Equal(t, 2*time.Second/800, a.Wait(quota.Transitions, t0))
	for range 798 {
		a.Wait(quota.Transitions, t0)
	}
	assert.Equal(t, time.Second+time.Second/800, a.Wait(quota.Transitions, t0), "a second's refill later")
	r := a.Report()
	assert.Equal(t, int64(801), r.Throttles[quota.Transitions])
	assert.InDelta(t, 1599.0/800, r.PeakUse[quota.Transitions], 1e-9, "the first second: the burst, and 799 refilled in it")
}

// TestOpenStandardExecutionsLimit opens executions up to a lowered limit:
// the next is refused until one ends, and the peak is reported.
func TestOpenStandardExecutionsLimit(t *testing.T) {
	a := quota.NewAccount(quota.Standard.WithLimit(quota.OpenStandard, 3))
	for range 3 {
		require.NoError(t, a.Enter(quota.OpenStandard))
	}
	require.ErrorIs(t, a.Enter(quota.OpenStandard), quota.ErrLimitExceeded)
	a.Leave(quota.OpenStandard)
	require.NoError(t, a.Enter(quota.OpenStandard))
	r := a.Report()
	assert.Equal(t, 3, r.PeakOpenStandard)
	assert.Equal(t, 1.0, r.PeakUse[quota.OpenStandard])
	assert.Equal(t, int64(1), r.Throttles[quota.OpenStandard])
	assert.Equal(t, 1_000_000, quota.Standard.Limits[quota.OpenStandard], "WithLimit leaves the profile as it is")
}

// TestPartitionsAreApart reads one hot key past its partition's 3,000
// units a second while another key reads freely.
func TestPartitionsAreApart(t *testing.T) {
	a := quota.NewAccount(quota.Standard)
	for range 3000 {
		require.NoError(t, a.TakePartition(quota.PartitionRead, "breaker#orders", 1, t0))
	}
	require.ErrorIs(t, a.TakePartition(quota.PartitionRead, "breaker#orders", 1, t0), quota.ErrThrottled)
	require.NoError(t, a.TakePartition(quota.PartitionRead, "breaker#payments", 1, t0))
	require.NoError(t, a.TakePartition(quota.PartitionWrite, "breaker#orders", 1, t0), "writes have their own units")
	r := a.Report()
	assert.Equal(t, 1.0, r.PeakUse[quota.PartitionRead])
	assert.Equal(t, int64(1), r.Throttles[quota.PartitionRead])
}

// TestProfiles names the profiles a scenario may choose and refuses others.
func TestProfiles(t *testing.T) {
	large, err := quota.ByName("large")
	require.NoError(t, err)
	assert.Equal(t, quota.Rate{Burst: 5000, PerSecond: 5000}, large.Rates[quota.Transitions])
	_, err = quota.ByName("huge")
	assert.EqualError(t, err, `quota: no profile "huge" (want one of standard, large)`)
}
