package sim_test

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/breaker/breakertest"
	"github.com/redrive/redrive/emulate/liveheap"
	"github.com/redrive/redrive/emulate/racecheck"
	"github.com/redrive/redrive/emulate/sim"
	"github.com/redrive/redrive/emulate/simtarget"
)

// TestCallTallyMemoryFollowsSecondsAndMessages feeds a consumer with a
// tally 100,000 and then 400,000 calls of the same messages over the same
// simulated seconds: what the consumer and its tally keep grows with
// neither, where a ledger would keep over 100 bytes a call (30 MB more
// for the larger).
func TestCallTallyMemoryFollowsSecondsAndMessages(t *testing.T) {
	if racecheck.Enabled {
		t.Skip("heap readings are noisy under the race detector")
	}
	s := small() // down from 1m to 11m, 5 calls per second: every outcome
	var records []events.SQSMessage
	for _, m := range s.Plan() {
		records = append(records, m.Event())
	}
	const seconds = 30 * time.Minute
	// feed makes n calls and returns the live heap while the consumer
	// and its tally are still reachable.
	feed := func(n int) int64 {
		clock := breakertest.NewClock(sim.Epoch)
		calls := sim.NewCallTally(s)
		opts := s.TargetOptions(clock, calls.Add)
		opts.Latency = 0 // outside an executor, latency would be wall time
		target, err := simtarget.New(opts)
		require.NoError(t, err)
		for i := range n {
			clock.Set(sim.Epoch.Add(seconds * time.Duration(i) / time.Duration(n)))
			_, _ = target.Handle(context.Background(), events.SQSEvent{Records: records[i%len(records) : i%len(records)+1]})
		}
		m := sim.Measure(s, s.Plan(), sim.Outcome{Calls: *calls}, sim.ListPrices)
		require.Equal(t, n, m.Calls)
		require.Positive(t, m.Throttled)
		live := liveheap.Bytes()
		runtime.KeepAlive(target)
		runtime.KeepAlive(calls)
		return live
	}
	// kept is what n calls leave in the consumer and its tally.
	kept := func(n int) int64 {
		live := feed(n)
		return live - liveheap.Bytes()
	}
	small, large := kept(100_000), kept(400_000)
	t.Logf("kept: %d bytes after 100,000 calls, %d after 400,000", small, large)
	assert.Less(t, large-small, int64(4<<20), "300,000 more calls keep less than 4 MiB more")
}
