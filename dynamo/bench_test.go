package dynamo_test

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

// BenchmarkLoad measures strongly consistent reads of one row.
func BenchmarkLoad(b *testing.B) {
	e := newEnv(b)
	ctx := b.Context()
	require.NoError(b, e.store.Save(ctx, 0, fullRow("bench")))
	for b.Loop() {
		if _, err := e.store.Load(ctx, "bench"); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "loads/s")
}

// BenchmarkSave measures successful writes to one row by 1, 8 and 64
// concurrent writers. A write is what a breaker does to change a row: load,
// conditional save, and on conflict a fresh load and another try; one op is
// one successful write. conflicts/write is the lost conditional saves per
// successful one.
func BenchmarkSave(b *testing.B) {
	e := newEnv(b)
	b.Logf("backend %s", e.backend)
	var run atomic.Int64 // a fresh row for every run of a sub-benchmark
	for _, writers := range []int{1, 8, 64} {
		b.Run(fmt.Sprintf("writers=%d", writers), func(b *testing.B) {
			ctx := b.Context()
			key := fmt.Sprintf("bench-%d", run.Add(1))
			var (
				tickets, conflicts atomic.Int64
				mu                 sync.Mutex
				failed             error
				wg                 sync.WaitGroup
			)
			b.ResetTimer()
			for range writers {
				wg.Go(func() {
					for tickets.Add(1) <= int64(b.N) {
						_, c, err := increment(ctx, e.store, key)
						conflicts.Add(int64(c))
						if err != nil {
							mu.Lock()
							failed = errors.Join(failed, err)
							mu.Unlock()
							return
						}
					}
				})
			}
			wg.Wait()
			b.StopTimer()
			require.NoError(b, failed)
			row, err := e.store.Load(ctx, key)
			require.NoError(b, err)
			require.Equal(b, int64(b.N), row.Totals.Failures, "lost update")
			b.ReportMetric(float64(conflicts.Load())/float64(b.N), "conflicts/write")
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "writes/s")
		})
	}
}
