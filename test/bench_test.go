package test

import (
	"context"
	"testing"
	"time"

	"github.com/redrive/redrive/emulate/ddbtest"
	"github.com/redrive/redrive/emulate/local"
	"github.com/redrive/redrive/emulate/simtarget"
)

// BenchmarkRedrive redrives messages through the whole local stack, one
// case per path a message can take, and reports per message the
// transitions, Lambda invocations and DynamoDB calls (breaker row,
// delivery records, the waiting room with the pace rows, and the parking
// lot's index), and how
// many seconds of executor time pass per second of wall time.
func BenchmarkRedrive(b *testing.B) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	cases := []struct {
		name     string
		messages int
		// every spaces the arrivals; 0 sends them in one burst.
		every  time.Duration
		target simtarget.Options
	}{
		// Under the pace (RELEASE_START_RATE, 10/s): straight through.
		{"healthy", 200, 200 * time.Millisecond, simtarget.Options{}},
		// A burst beyond the pace: the first second's share goes
		// straight, the rest through the room.
		{"burst", 200, 0, simtarget.Options{}},
		{"poison", 200, 200 * time.Millisecond, simtarget.Options{Poison: simtarget.BodyContains("bench")}},
		{"outage-20m", 100, 0, simtarget.Options{Capacity: 20, Schedule: simtarget.Outage(t0, 20*time.Minute)}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			var transitions, invocations int64
			var breakerIO, ledgerIO, roomIO, parkedIO local.RowIO
			var virtual time.Duration
			for b.Loop() {
				s, err := local.Start(context.Background(), local.Options{Start: t0, Target: c.target, DynamoDBEndpoint: ddbtest.Endpoint()})
				if err != nil {
					b.Fatal(err)
				}
				for i, m := range bodies("bench", c.messages) {
					s.SendToDLQAt(t0.Add(time.Duration(i)*c.every), m)
				}
				if err := s.RunUntilDrained(context.Background()); err != nil {
					b.Fatal(err)
				}
				// Express executions keep no history: the executor counts
				// their transitions all the same.
				xs, err := s.Executor.ListExecutions(context.Background(), s.RedriveARN, "")
				if err != nil {
					b.Fatal(err)
				}
				for _, x := range xs {
					transitions += int64(x.Transitions)
				}
				st := s.Stats()
				for name, n := range st.Invocations {
					if name != local.FunctionConsumer {
						invocations += n
					}
				}
				add(&breakerIO, st.BreakerRows)
				add(&ledgerIO, st.DeliveryRecords)
				add(&roomIO, st.RoomItems)
				add(&parkedIO, st.ParkedItems)
				virtual += s.Executor.Now().Sub(t0)
				if err := s.Close(); err != nil {
					b.Fatal(err)
				}
			}
			msgs := float64(b.N * c.messages)
			per := func(n int64, unit string) { b.ReportMetric(float64(n)/msgs, unit) }
			per(transitions, "transitions/msg")
			per(invocations, "invocations/msg")
			per(breakerIO.Reads, "row-reads/msg")
			per(breakerIO.Writes+breakerIO.Conflicts, "row-writes/msg")
			per(ledgerIO.Reads, "ledger-reads/msg")
			per(ledgerIO.Writes+ledgerIO.Conflicts, "ledger-writes/msg")
			per(roomIO.Reads, "room-reads/msg")
			per(roomIO.Writes+roomIO.Conflicts, "room-writes/msg")
			per(parkedIO.Writes, "index-writes/msg")
			b.ReportMetric(b.Elapsed().Seconds()*1000/msgs, "wall-ms/msg")
			if virtual > 0 {
				b.ReportMetric(virtual.Seconds()/b.Elapsed().Seconds(), "virtual-s/wall-s")
			}
		})
	}
}

// add adds n's counts to sum.
func add(sum *local.RowIO, n local.RowIO) {
	sum.Reads += n.Reads
	sum.Writes += n.Writes
	sum.Conflicts += n.Conflicts
}
