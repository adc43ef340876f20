package attempt_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/attempt"
	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/delivery"
	"github.com/redrive/redrive/delivery/target"
	"github.com/redrive/redrive/message"
)

func TestDuplicateInvocationWhileDeliveringIsDeliveryInProgress(t *testing.T) {
	f := newFixture(t, options{policy: tripping, config: testConfig}, target.Delivered())
	in := newDocument("orders")
	var dupErr error
	// The state machine retried the invocation while the first still runs.
	f.target.during = func() {
		f.target.during = nil
		_, dupErr = f.run(t, in)
	}

	out, err := f.run(t, in)
	require.NoError(t, err)
	assert.Equal(t, message.NextDone, out.Next)

	require.Error(t, dupErr)
	dup, ok := dupErr.(*attempt.DeliveryInProgress) // unwrapped: the ASL retries it by name
	require.True(t, ok, "error %T %v", dupErr, dupErr)
	assert.Equal(t, "m-1#1#1", dup.Delivery)
	assert.Equal(t, t0.Add(testConfig.DeliveryLease), dup.ExpiresAt)
	assert.Equal(t, `attempt: delivery m-1#1#1 is in progress in another invocation until 2026-05-04T10:01:00Z; retry`, dup.Error())
	assert.Equal(t, 1, f.target.calls(), "only the lease holder delivers")
}

func TestExpiredLeaseIsTakenOver(t *testing.T) {
	f := newFixture(t, options{policy: tripping, config: testConfig}, target.Delivered())
	// An invocation took the record and died (a Lambda timeout).
	_, began, err := f.ledger.Begin(t.Context(), delivery.ID{OriginID: "m-1", Attempt: 1, Try: 1}, breaker.Ticket{}, time.Minute)
	require.NoError(t, err)
	require.True(t, began)

	_, err = f.run(t, newDocument("orders"))
	assert.IsType(t, &attempt.DeliveryInProgress{}, err, "the lease is live")
	assert.Zero(t, f.target.calls())

	f.clock.Advance(time.Minute)
	out, err := f.run(t, newDocument("orders"))
	require.NoError(t, err)
	assert.Equal(t, message.NextDone, out.Next)
	assert.Equal(t, 1, f.target.calls())
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

		_, err = f.run(t, newDocument("orders"))
		dup, ok := err.(*attempt.DeliveryInProgress)
		require.True(t, ok, "error %T %v", err, err)
		assert.Equal(t, t0.Add(time.Minute), dup.ExpiresAt)
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
