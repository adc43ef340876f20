package dynamo_test

import (
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestConcurrentIncrementsLoseNothing has 64 writers race load, change,
// conditional save on one row: every increment must land exactly once and
// every successful save must have written the next version.
func TestConcurrentIncrementsLoseNothing(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	const writers, perWriter, key = 64, 4, "hot"

	var (
		mu        sync.Mutex
		written   []int64 // versions written by successful saves
		conflicts int
		failures  []error
		wg        sync.WaitGroup
	)
	for w := range writers {
		wg.Go(func() {
			var last int64
			for range perWriter {
				version, c, err := increment(ctx, e.store, key)
				mu.Lock()
				conflicts += c
				switch {
				case err != nil:
					failures = append(failures, fmt.Errorf("writer %d: %w", w, err))
				case version <= last:
					failures = append(failures, fmt.Errorf("writer %d: wrote version %d after %d", w, version, last))
				default:
					written = append(written, version)
				}
				mu.Unlock()
				if err != nil {
					return
				}
				last = version
			}
		})
	}
	wg.Wait()
	require.Empty(t, failures)

	const total = writers * perWriter
	row, err := e.store.Load(ctx, key)
	require.NoError(t, err)
	assert.Equal(t, int64(total), row.Totals.Failures, "every increment counted once")
	assert.Equal(t, int64(total), row.Version)
	slices.Sort(written)
	want := make([]int64, total)
	for i := range want {
		want[i] = int64(i + 1)
	}
	assert.Equal(t, want, written, "each version written by exactly one save")
	t.Logf("%s: %d writers, %d writes, %d conflicts, %.2f conflicts/write",
		e.backend, writers, total, conflicts, float64(conflicts)/total)
}
