package attempt_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/delivery"
	"github.com/redrive/redrive/delivery/target"
	"github.com/redrive/redrive/lambda/telemetry"
	"github.com/redrive/redrive/message"
)

// A duplicate of this try (a second Express execution of the same
// document, or the retry of an invocation still running) finds the
// delivery record held: it delivers nothing and sends the document to the
// room until the holder's lease ends, when the record tells what became
// of the try.
func TestADuplicateWhileDeliveringWaitsInTheRoomUntilTheLeaseEnds(t *testing.T) {
	f := newFixture(t, options{policy: tripping, config: testConfig}, target.Delivered())
	in := newDocument("orders")
	var dup message.Document
	var dupErr error
	f.target.during = func() {
		f.target.during = nil
		dup, dupErr = f.run(t, in)
	}

	out, err := f.run(t, in)
	require.NoError(t, err)
	assert.Equal(t, message.NextDone, out.Next)

	require.NoError(t, dupErr, "no longer an error for the state machine to retry")
	assert.Equal(t, message.NextRoom, dup.Next)
	assert.Equal(t, t0.Add(testConfig.DeliveryLease), dup.NotBefore, "until the holder's lease ends")
	assert.Equal(t, "QUEUE", dup.Decision)
	assert.Zero(t, dup.Tries, "no try of its own")
	assert.Equal(t, 1, f.target.calls(), "only the lease holder delivers")

	// Released at the lease's end, it finds the try completed: delivered,
	// and not delivered again.
	again, err := f.run(t, f.passOn(t, dup))
	require.NoError(t, err)
	assert.Equal(t, message.NextDone, again.Next)
	assert.Equal(t, 1, f.target.calls(), "never twice")
}

// A lease that ends within MaxInlineWait is waited out inline, in the
// first cycle, like any short wait.
func TestADuplicateWaitsInlineForALeaseAboutToEnd(t *testing.T) {
	f := newFixture(t, options{policy: tripping, config: testConfig}, target.Delivered())
	_, began, err := f.ledger.Begin(t.Context(), delivery.ID{OriginID: "m-1", Attempt: 1, Try: 1}, breaker.Ticket{}, 4*time.Second)
	require.NoError(t, err)
	require.True(t, began)

	doc, err := f.run(t, newDocument("orders"))
	require.NoError(t, err)
	assert.Equal(t, message.NextWait, doc.Next)
	assert.Equal(t, 4, doc.WaitSeconds)
	assert.Zero(t, f.target.calls())
}

func TestExpiredLeaseIsTakenOver(t *testing.T) {
	f := newFixture(t, options{policy: tripping, config: testConfig}, target.Delivered())
	// An invocation took the record and died (a Lambda timeout).
	_, began, err := f.ledger.Begin(t.Context(), delivery.ID{OriginID: "m-1", Attempt: 1, Try: 1}, breaker.Ticket{}, time.Minute)
	require.NoError(t, err)
	require.True(t, began)

	doc, err := f.run(t, newDocument("orders"))
	require.NoError(t, err)
	assert.Equal(t, message.NextRoom, doc.Next, "the lease is live: the room, until it ends")
	assert.Equal(t, t0.Add(time.Minute), doc.NotBefore)
	assert.Zero(t, f.target.calls())

	out, err := f.run(t, f.passOn(t, doc))
	require.NoError(t, err)
	assert.Equal(t, t0.Add(time.Minute), f.clock.Now())
	assert.Equal(t, message.NextDone, out.Next)
	assert.Equal(t, 1, f.target.calls())
	assert.Equal(t, int64(1), f.counts(t)[telemetry.UnknownOutcomes], "taken over: its outcome was unknown")
}

// racingLedger hides records from Get, as if another invocation took the
// record between this one's Get and Begin.
type racingLedger struct{ *delivery.Ledger }

func (racingLedger) Get(context.Context, delivery.ID) (delivery.Record, bool, error) {
	return delivery.Record{}, false, nil
}

func TestRecordTakenBetweenLookupAndBegin(t *testing.T) {
	id := delivery.ID{OriginID: "m-1", Attempt: 1, Try: 1}
	t.Run("still in progress", func(t *testing.T) {
		f := newFixture(t, options{policy: tripping, config: testConfig}, target.Delivered())
		f.handler.Ledger = racingLedger{f.ledger}
		_, began, err := f.ledger.Begin(t.Context(), id, breaker.Ticket{}, time.Minute)
		require.NoError(t, err)
		require.True(t, began)

		doc, err := f.run(t, newDocument("orders"))
		require.NoError(t, err)
		assert.Equal(t, message.NextRoom, doc.Next)
		assert.Equal(t, t0.Add(time.Minute), doc.NotBefore)
		assert.Zero(t, f.target.calls())
	})
	t.Run("completed", func(t *testing.T) {
		f := newFixture(t, options{policy: tripping, config: testConfig}, target.Delivered())
		f.handler.Ledger = racingLedger{f.ledger}
		held, began, err := f.ledger.Begin(t.Context(), id, breaker.Ticket{}, time.Minute)
		require.NoError(t, err)
		require.True(t, began)
		_, err = f.ledger.Complete(t.Context(), held, breaker.Poison, "ValidationError", "no customer")
		require.NoError(t, err)

		out, err := f.run(t, newDocument("orders"))
		require.NoError(t, err)
		assert.Zero(t, f.target.calls(), "delivered already")
		assert.Equal(t, message.NextPark, out.Next)
		assert.Equal(t, "poison: ValidationError: no customer", out.ParkReason)
	})
}
