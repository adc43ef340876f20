package quota

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A run touches a partition per item; the account keeps buckets only for
// the partitions still in use: an idle one is dropped (a new one would be
// the same), a busy one is kept with what it used, so that it still
// throttles.
func TestIdlePartitionsAreDroppedAndBusyOnesKept(t *testing.T) {
	a := NewAccount(Standard)
	t0 := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	touched := 0
	write := func(n int, at time.Time) {
		for range n {
			require.NoError(t, a.TakePartition(PartitionWrite, fmt.Sprintf("room#orders#m-%d", touched), 1, at))
			touched++
		}
	}
	write(3*minSweep, t0)
	later := t0.Add(10 * time.Second)
	for range int(Standard.Rates[PartitionRead].Burst) {
		require.NoError(t, a.TakePartition(PartitionRead, "breaker#orders", 1, later))
	}
	write(2*minSweep, later)

	assert.Less(t, len(a.partitions), touched/2, "the partitions idle since the first writes dropped")
	assert.ErrorIs(t, a.TakePartition(PartitionRead, "breaker#orders", 1, later), ErrThrottled,
		"the hot partition kept its empty bucket")
	assert.Equal(t, 1.0, a.Report().PeakUse[PartitionRead])
	assert.Equal(t, 0.001, a.Report().PeakUse[PartitionWrite], "one write in a second of a partition's 1,000")
}
