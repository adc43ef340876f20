package attempt_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/delivery"
	"github.com/redrive/redrive/delivery/target"
	"github.com/redrive/redrive/lambda/telemetry"
	"github.com/redrive/redrive/message"
	"github.com/redrive/redrive/room/pace"
)

// throttled is the target's answer when it is overloaded.
func throttled() target.Result {
	return target.Result{Outcome: breaker.Throttled, ErrorType: "TooManyRequestsException", Message: "Rate Exceeded."}
}

// record admits one delivery on key and records outcome for it, as
// another message's Attempt would.
func (f fixture) record(t *testing.T, key string, outcome breaker.Outcome) {
	t.Helper()
	d, err := f.breaker.Admit(t.Context(), key)
	require.NoError(t, err)
	require.Equal(t, breaker.Proceed, d.Verdict)
	_, err = f.breaker.Record(t.Context(), key, d.Row, d.Ticket, outcome)
	require.NoError(t, err)
}

// After a trip every message waits in the room, not in its execution,
// without a time of its own: the breaker's controller waits the cooldown
// out and releases the probe, then the rest at its pace. Turning them
// away writes nothing to the breaker.
func TestBehindAnOpenBreakerEveryMessageWaitsInTheRoom(t *testing.T) {
	f := newFixture(t, options{policy: tripping, config: testConfig}, target.Delivered())
	f.trip(t, "orders")
	saves := f.breaker.Stats().Saves
	for i, id := range []string{"m-1", "m-2", "m-3"} {
		if i > 0 {
			f.clock.Advance(20 * time.Second) // still within the minute's cooldown
		}
		in := newDocument("orders")
		in.OriginID, in.Message.ID = id, id
		doc, err := f.run(t, in)
		require.NoError(t, err)
		assert.Equal(t, message.NextRoom, doc.Next, "%s: a cooldown is never waited in an Express execution", id)
		assert.Equal(t, "QUEUE", doc.Decision, id)
		assert.Equal(t, "OPEN", doc.BreakerState, id)
		assert.True(t, doc.NotBefore.IsZero(), "%s: the controller releases it", id)
		assert.Zero(t, doc.WaitSeconds, id)
		assert.Zero(t, doc.Tries, id)
	}
	assert.Zero(t, f.target.calls())
	assert.Equal(t, saves, f.breaker.Stats().Saves, "no write per cooldown: nobody scouts")
	assert.Empty(t, f.launcher.Keys(), "the Queue task starts the controller, not the Attempt")
	assert.Equal(t, map[telemetry.Name]int64{telemetry.Trips: 1, telemetry.Queued: 3}, f.counts(t))
}

func TestThrottledWaitsInTheRoomWithoutUsingAnAttempt(t *testing.T) {
	f := newFixture(t, options{policy: tripping, config: testConfig}, throttled(), target.Delivered())

	doc, err := f.run(t, newDocument("orders"))
	require.NoError(t, err)
	assert.Equal(t, message.NextRoom, doc.Next)
	assert.True(t, doc.NotBefore.IsZero(), "the controller paces it")
	assert.Equal(t, "THROTTLED", doc.Outcome)
	assert.Equal(t, "CLOSED", doc.BreakerState, "throttling never trips")
	assert.Zero(t, doc.Tries, "no attempt used")
	assert.Equal(t, 1, doc.Throttled)
	assert.Empty(t, doc.History, "not a failure")
	row := f.row(t, "orders")
	assert.Equal(t, int64(1), row.Totals.Throttles)
	assert.Zero(t, row.ConsecutiveFailures)
	assert.Equal(t, f.clock.Now().Add(breaker.Policy{}.WithDefaults().ThrottlePause), row.ThrottledUntil)
	paused, err := pace.NewStore(f.client, f.table).PausedUntil(t.Context())
	require.NoError(t, err)
	assert.Equal(t, row.ThrottledUntil.UnixMilli(), paused.UnixMilli(), "every key's releases pause with this one's")

	f.clock.Advance(time.Second)
	doc, err = f.run(t, f.passOn(t, doc))
	require.NoError(t, err)
	assert.Equal(t, message.NextDone, doc.Next)
	assert.Equal(t, 1, doc.Tries)
	assert.Equal(t, 1, doc.Throttled)
	assert.Equal(t, 1, doc.Runs, "released from the room as its second execution")
	for try, want := range map[int]breaker.Outcome{1: breaker.Throttled, 2: breaker.Success} {
		rec, found, err := f.ledger.Get(t.Context(), delivery.ID{OriginID: "m-1", Attempt: 1, Try: try})
		require.NoError(t, err)
		require.True(t, found, "try %d has its own delivery record", try)
		assert.Equal(t, want, rec.Outcome)
	}
	assert.Equal(t, map[telemetry.Name]int64{telemetry.Throttled: 1, telemetry.Queued: 1, telemetry.Delivered: 1}, f.counts(t))
}

// The failure that trips the breaker sends its message to the room: the
// controller releases the probe when the cooldown ends; no message waits
// the cooldown out in an execution.
func TestATransientThatTripsQueuesInTheRoom(t *testing.T) {
	f := newFixture(t, options{policy: tripping, config: testConfig}, transient("down"))
	for range tripping.ConsecutiveFailures - 1 {
		f.record(t, "orders", breaker.Transient)
	}

	doc, err := f.run(t, newDocument("orders"))
	require.NoError(t, err)
	assert.Equal(t, "OPEN", doc.BreakerState)
	assert.Equal(t, "TRANSIENT", doc.Outcome)
	assert.Equal(t, message.NextRoom, doc.Next, "it waits for the breaker's recovery in the room")
	assert.True(t, doc.NotBefore.IsZero())
	assert.Equal(t, 1, doc.Tries)
	require.Len(t, doc.History, 1)
	row := f.row(t, "orders")
	assert.Equal(t, breaker.Open, row.State)
	assert.Empty(t, row.Leases, "no probe out: the controller releases it at the cooldown's end")
	assert.Empty(t, f.launcher.Keys())
	assert.Equal(t, int64(1), f.counts(t)[telemetry.Queued])
}

func TestAMessageParkedAtItsLastTryParksWhenItTrips(t *testing.T) {
	f := newFixture(t, options{policy: tripping, config: testConfig}, transient("down"))
	for range tripping.ConsecutiveFailures - 1 {
		f.record(t, "orders", breaker.Transient)
	}
	last := newDocument("orders")
	last.Tries = testConfig.MaxAttempts - 1

	doc, err := f.run(t, last)
	require.NoError(t, err)
	assert.Equal(t, "OPEN", doc.BreakerState)
	assert.Equal(t, message.NextPark, doc.Next, "its tries are used up")
	assert.Empty(t, f.launcher.Keys())
}

func TestACanarySuccessStartsTheController(t *testing.T) {
	f := newFixture(t, options{policy: tripping, config: testConfig}, target.Delivered())
	f.trip(t, "orders")
	doc, err := f.run(t, newDocument("orders"))
	require.NoError(t, err)
	require.Equal(t, message.NextRoom, doc.Next)
	require.Equal(t, "QUEUE", doc.Decision)
	assert.Empty(t, f.launcher.Keys(), "nothing to release while OPEN")

	doc, err = f.run(t, f.releaseProbe(t, doc, "orders"))
	require.NoError(t, err)
	assert.Equal(t, "CANARY", doc.Decision)
	assert.Equal(t, "CLOSED", doc.BreakerState)
	assert.Equal(t, []string{"orders"}, f.launcher.Keys())
}

func TestAControllerThatFailsToStartDoesNotFailTheCanary(t *testing.T) {
	f := newFixture(t, options{policy: tripping, config: testConfig}, target.Delivered())
	f.launcher.Err = assert.AnError
	f.trip(t, "orders")
	doc, err := f.run(t, newDocument("orders"))
	require.NoError(t, err)
	require.Equal(t, "QUEUE", doc.Decision)
	doc, err = f.run(t, f.releaseProbe(t, doc, "orders"))
	require.NoError(t, err)
	assert.Equal(t, "CANARY", doc.Decision)
	assert.Equal(t, message.NextDone, doc.Next)
	assert.Contains(t, f.log.String(), "could not start the controller")
	assert.EqualValues(t, 1, f.counts(t)[telemetry.ReleaserNotStarted], "counted for its alarm")
}

func TestTheHealthyPathReadsTheBreakerRowOnceAndWritesNothing(t *testing.T) {
	f := newFixture(t, options{policy: tripping, config: testConfig}, target.Delivered())
	window := tripping.WithDefaults().WindowSize
	for range window {
		f.record(t, "orders", breaker.Success)
	}
	before := f.breaker.Stats()

	doc, err := f.run(t, newDocument("orders"))
	require.NoError(t, err)
	require.Equal(t, message.NextDone, doc.Next)
	after := f.breaker.Stats()
	assert.Equal(t, before.Loads+1, after.Loads, "one read: Admit's, which Record starts from")
	assert.Equal(t, before.Saves, after.Saves, "no write")
	assert.Empty(t, f.launcher.Keys())
}

func TestTheEndOfATimedHoldStartsTheController(t *testing.T) {
	f := newFixture(t, options{policy: tripping, config: testConfig}, target.Delivered())
	_, _, err := f.breaker.Command(t.Context(), "orders", breaker.Command{Kind: breaker.ForceOpen,
		Until: t0.Add(10 * time.Minute), Actor: "ops", Reason: "maintenance"})
	require.NoError(t, err)

	saves := f.breaker.Stats().Saves
	first, err := f.run(t, newDocument("orders"))
	require.NoError(t, err)
	assert.Equal(t, message.NextRoom, first.Next, "the hold's messages wait for its end in the room")
	assert.Equal(t, "QUEUE", first.Decision)
	assert.Equal(t, "FORCED_OPEN", first.BreakerState)
	assert.True(t, first.NotBefore.IsZero(), "the controller waits the hold out and releases it")
	other := newDocument("orders")
	other.OriginID, other.Message.ID = "m-2", "m-2"
	held, err := f.run(t, other)
	require.NoError(t, err)
	assert.Equal(t, message.NextRoom, held.Next, "the rest wait in the room")
	assert.Equal(t, "QUEUE", held.Decision)
	assert.True(t, held.NotBefore.IsZero())
	assert.Equal(t, saves, f.breaker.Stats().Saves, "the hold writes nothing per message")
	assert.Empty(t, f.launcher.Keys(), "nothing to release during the hold")

	// The controller releases the first at the hold's end: its Admit
	// ends the hold and starts the release of the messages it kept.
	released := f.passOn(t, first)
	f.clock.Advance(t0.Add(10 * time.Minute).Sub(f.clock.Now()))
	first, err = f.run(t, released)
	require.NoError(t, err)
	assert.Equal(t, "PROCEED", first.Decision)
	assert.Equal(t, message.NextDone, first.Next, "it goes when the hold ends")
	assert.Equal(t, []string{"orders"}, f.launcher.Keys(), "and starts the release of the messages the hold kept")
	assert.Equal(t, 1, f.target.calls())
}
