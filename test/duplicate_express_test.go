package test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/emulate/local"
	"github.com/redrive/redrive/emulate/simtarget"
)

// AWS runs an asynchronous Express execution at least once: here every
// second execution of the attempt state machine is started twice, through
// an outage (so the duplicates meet the breaker, the room and the
// controller's releases too). The delivery ledger makes each duplicate
// harmless: every message reaches the consumer once, none is parked, none
// is lost.
func TestDuplicatedExpressStartsDeliverNothingTwice(t *testing.T) {
	const n = 60
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := start(t, local.Options{Start: t0, DuplicateStarts: 2,
		Target: simtarget.Options{Schedule: simtarget.Outage(t0.Add(5*time.Second), 3*time.Minute)}})
	ids := send(t, s, bodies("twice", n)...)
	drain(t, s)

	assert.Positive(t, s.Stats().DuplicatedStarts, "the fault fired")
	deliveries := s.Target.Ledger().Deliveries()
	for _, id := range ids {
		assert.Equal(t, 1, deliveries[id], "message %s reached the consumer once", id)
	}
	out := accountFor(t, s)
	assert.Len(t, out.delivered, n)
	assert.Empty(t, out.parked)
	depth, _ := s.Room()
	require.Zero(t, depth, "nothing left in the room")
}
