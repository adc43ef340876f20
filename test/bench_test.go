package test

import (
	"context"
	"testing"
	"time"

	"github.com/redrive/redrive/internal/localrun"
	"github.com/redrive/redrive/internal/simtarget"
)

// BenchmarkRedrive redrives a backlog through the whole local stack and
// reports, per message, the transitions, Lambda invocations and row I/O,
// and how many seconds of executor time pass per second of wall time.
func BenchmarkRedrive(b *testing.B) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	cases := []struct {
		name     string
		messages int
		target   simtarget.Options
	}{
		{"healthy", 200, simtarget.Options{}},
		{"outage-20m", 100, simtarget.Options{Capacity: 20, Schedule: simtarget.Outage(t0, 20*time.Minute)}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			var transitions, invocations, breakerReads, breakerWrites, ledgerWrites int64
			var virtual time.Duration
			for b.Loop() {
				s, err := localrun.Start(context.Background(), localrun.Options{Start: t0, Target: c.target})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := s.SendToDLQ(context.Background(), bodies("bench", c.messages)...); err != nil {
					b.Fatal(err)
				}
				if err := s.RunUntilDrained(context.Background()); err != nil {
					b.Fatal(err)
				}
				costs, err := s.Costs(context.Background())
				if err != nil {
					b.Fatal(err)
				}
				for _, cost := range costs {
					transitions += int64(cost.Transitions)
				}
				st := s.Stats()
				for _, n := range st.Invocations {
					invocations += n
				}
				breakerReads += st.BreakerRows.Reads
				breakerWrites += st.BreakerRows.Writes
				ledgerWrites += st.DeliveryRecords.Writes
				virtual += s.Executor.Now().Sub(t0)
				if err := s.Close(); err != nil {
					b.Fatal(err)
				}
			}
			msgs := float64(b.N * c.messages)
			b.ReportMetric(float64(transitions)/msgs, "transitions/msg")
			b.ReportMetric(float64(invocations)/msgs, "invocations/msg")
			b.ReportMetric(float64(breakerReads)/msgs, "row-reads/msg")
			b.ReportMetric(float64(breakerWrites)/msgs, "row-writes/msg")
			b.ReportMetric(float64(ledgerWrites)/msgs, "ledger-writes/msg")
			b.ReportMetric(b.Elapsed().Seconds()*1000/msgs, "wall-ms/msg")
			if virtual > 0 {
				b.ReportMetric(virtual.Seconds()/b.Elapsed().Seconds(), "virtual-s/wall-s")
			}
		})
	}
}
