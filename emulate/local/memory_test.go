package local_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/emulate/liveheap"
	"github.com/redrive/redrive/emulate/local"
	"github.com/redrive/redrive/emulate/racecheck"
	"github.com/redrive/redrive/emulate/simtarget"
)

// maxBytesPerWaitingMessage bounds the memory of a message waiting in the
// room during an outage on a simulation's stack (InProcess, Compact): its
// room item (the document) and queue traces; no execution waits for it.
// A million such messages is what scenarios/xl.yaml holds at the end of
// its outage.
const maxBytesPerWaitingMessage = 2560

// A simulation's memory follows what is in flight: each message waiting
// in the room costs a few KB, whatever happened before.
func TestMemoryPerWaitingMessage(t *testing.T) {
	if racecheck.Enabled || testing.Short() {
		t.Skip("heap measurement: without -race and -short")
	}
	s := start(t, local.Options{InProcess: true, Compact: true, RunningHistories: 10, FinishedHistories: 10,
		Target: simtarget.Options{Schedule: simtarget.Outage(t0, 24*time.Hour)}})
	waiting := func(at time.Time) (int64, int64) {
		require.NoError(t, s.RunUntil(t.Context(), at))
		depth, _ := s.Room()
		return int64(depth), liveheap.Bytes()
	}
	_, err := s.SendToDLQ(t.Context(), messages(500)...)
	require.NoError(t, err)
	before, heapBefore := waiting(t0.Add(10 * time.Minute))
	require.EqualValues(t, 500, before, "the first messages wait in the room")

	const n = 10000
	s.SendToDLQAt(t0.Add(10*time.Minute), messages(n)...)
	after, heapAfter := waiting(t0.Add(20 * time.Minute))
	require.EqualValues(t, 500+n, after, "every message waits in the room")
	perMessage := (heapAfter - heapBefore) / n
	t.Logf("%d bytes of heap per waiting message", perMessage)
	assert.LessOrEqual(t, perMessage, int64(maxBytesPerWaitingMessage))
}
