package breaker_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/breaker"
)

func BenchmarkDecide(b *testing.B) {
	p := breaker.Policy{}.WithDefaults()
	now := t0.Add(time.Hour)
	cases := []struct {
		name string
		row  breaker.Row
	}{
		{"closed", breaker.Row{Key: "k", Generation: 3, Window: breaker.Window{Count: 20}}},
		{"closed-throttled", breaker.Row{Key: "k", Generation: 3, ThrottledUntil: now.Add(time.Second)}},
		{"open-queue", breaker.Row{Key: "k", State: breaker.Open, Generation: 3, OpenUntil: now.Add(time.Minute)}},
		{"open-probe", breaker.Row{Key: "k", State: breaker.Open, Generation: 3, OpenUntil: now}},
		{"half-open-grant", breaker.Row{Key: "k", State: breaker.HalfOpen, Generation: 3}},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			rnd := seeded(1)
			b.ReportAllocs()
			for b.Loop() {
				breaker.Decide(p, tc.row, now, rnd)
			}
		})
	}
}

func BenchmarkObserve(b *testing.B) {
	p := breaker.Policy{}.WithDefaults()
	healthy := breaker.Row{Key: "k", Generation: 3, Window: breaker.Window{Count: 20}}
	recovering := breaker.Row{Key: "k", Generation: 3, Window: breaker.Window{Failures: 1 << 19, Count: 20}}
	cases := []struct {
		name    string
		row     breaker.Row
		outcome breaker.Outcome
	}{
		{"closed-healthy-success", healthy, breaker.Success},
		{"closed-success", recovering, breaker.Success},
		{"closed-failure", healthy, breaker.Transient},
		{"closed-poison", healthy, breaker.Poison},
		{"closed-throttled", healthy, breaker.Throttled},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			rnd := seeded(1)
			ticket := breaker.Ticket{Generation: tc.row.Generation}
			b.ReportAllocs()
			for b.Loop() {
				breaker.Observe(p, tc.row, ticket, tc.outcome, t0, rnd)
			}
		})
	}
}

// BenchmarkBreaker measures one message's admit and record through a
// Breaker over the MemStore, with the row I/O per message.
func BenchmarkBreaker(b *testing.B) {
	cases := []struct {
		name     string
		setup    breaker.Command
		outcome  breaker.Outcome
		parallel bool
	}{
		{name: "healthy", setup: breaker.Command{Kind: breaker.Reset}, outcome: breaker.Success},
		{name: "healthy-parallel", setup: breaker.Command{Kind: breaker.Reset}, outcome: breaker.Success, parallel: true},
		{name: "failing-forced-closed", setup: breaker.Command{Kind: breaker.ForceClose}, outcome: breaker.Transient},
		{name: "failing-forced-closed-parallel", setup: breaker.Command{Kind: breaker.ForceClose}, outcome: breaker.Transient, parallel: true},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			ctx := context.Background()
			br, err := breaker.New(breaker.NewMemStore(), breaker.Policy{}, breaker.Options{Random: breaker.NewRandom(1)})
			require.NoError(b, err)
			_, _, err = br.Command(ctx, "k", tc.setup)
			require.NoError(b, err)
			var gaveUp atomic.Int64
			message := func() {
				d, err := br.Admit(ctx, "k")
				if err != nil || d.Verdict != breaker.Proceed {
					b.Errorf("admit: %v %v", d.Verdict, err)
					return
				}
				_, err = br.Record(ctx, "k", d.Row, d.Ticket, tc.outcome)
				switch {
				case errors.Is(err, breaker.ErrConflict):
					gaveUp.Add(1) // a hot loop on one key is far more contended than a real table
				case err != nil:
					b.Errorf("record: %v", err)
				}
			}
			for range 25 { // fill the window, so "healthy" measures the steady state
				message()
			}
			start := br.Stats()
			b.ReportAllocs()
			b.ResetTimer()
			n := 0
			if tc.parallel {
				n = b.N
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						message()
					}
				})
			} else {
				for b.Loop() {
					message()
					n++
				}
			}
			s := br.Stats()
			b.ReportMetric(float64(s.Loads-start.Loads)/float64(n), "reads/msg")
			b.ReportMetric(float64(s.Saves-start.Saves)/float64(n), "writes/msg")
			b.ReportMetric(float64(s.Conflicts-start.Conflicts)/float64(n), "conflicts/msg")
			b.ReportMetric(float64(gaveUp.Load())/float64(n), "gaveup/msg")
		})
	}
}
