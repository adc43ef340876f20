package attempt_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/attempt"
	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/delivery"
	"github.com/redrive/redrive/delivery/target"
	"github.com/redrive/redrive/dynamo"
	"github.com/redrive/redrive/lambda/telemetry"
	"github.com/redrive/redrive/message"
	"github.com/redrive/redrive/room"
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

// wait puts another message in key's room, entered before t0.
func (f fixture) wait(t *testing.T, key, id string) room.Entry {
	t.Helper()
	e := room.Entry{Key: key, MessageID: id, Token: "token-" + id, EnteredAt: t0.Add(-time.Minute)}
	require.NoError(t, f.room.Enter(t.Context(), e))
	return e
}

func TestTurnedAwayByTheScoutWaitsInTheRoom(t *testing.T) {
	f := newFixture(t, options{policy: tripping, config: testConfig}, target.Delivered())
	f.trip(t, "orders")
	scout, err := f.run(t, newDocument("orders"))
	require.NoError(t, err)
	require.Equal(t, message.NextWait, scout.Next, "the first message after the trip scouts")

	other := newDocument("orders")
	other.OriginID, other.Message.ID = "m-2", "m-2"
	doc, err := f.run(t, other)
	require.NoError(t, err)
	assert.Equal(t, message.NextRoom, doc.Next)
	assert.Equal(t, "QUEUE", doc.Decision)
	assert.Equal(t, "OPEN", doc.BreakerState)
	assert.Equal(t, int(attempt.DefaultRoomTimeout/time.Second), doc.RoomTimeoutSeconds)
	assert.Zero(t, doc.WaitSeconds)
	assert.Zero(t, doc.Tries)
	assert.Zero(t, f.target.calls())
	assert.Equal(t, map[telemetry.Name]int64{telemetry.Trips: 1, telemetry.Waits: 1, telemetry.Queued: 1}, f.counts(t))
}

func TestARoomTimeoutOfTheConfigIsTheStatesTimeout(t *testing.T) {
	cfg := testConfig
	cfg.RoomTimeout = 10 * time.Minute
	f := newFixture(t, options{policy: tripping, config: cfg}, throttled())
	doc, err := f.run(t, newDocument("orders"))
	require.NoError(t, err)
	assert.Equal(t, message.NextRoom, doc.Next)
	assert.Equal(t, 600, doc.RoomTimeoutSeconds)
}

func TestThrottledWaitsInTheRoomWithoutUsingAnAttempt(t *testing.T) {
	f := newFixture(t, options{policy: tripping, config: testConfig}, throttled(), target.Delivered())

	doc, err := f.run(t, newDocument("orders"))
	require.NoError(t, err)
	assert.Equal(t, message.NextRoom, doc.Next)
	assert.Equal(t, "THROTTLED", doc.Outcome)
	assert.Equal(t, "CLOSED", doc.BreakerState, "throttling never trips")
	assert.Zero(t, doc.Tries, "no attempt used")
	assert.Equal(t, 1, doc.Throttled)
	assert.Empty(t, doc.History, "not a failure")
	row := f.row(t, "orders")
	assert.Equal(t, int64(1), row.Totals.Throttles)
	assert.Zero(t, row.ConsecutiveFailures)
	assert.Equal(t, f.clock.Now().Add(breaker.Policy{}.WithDefaults().ThrottlePause), row.ThrottledUntil)

	f.clock.Advance(time.Second)
	doc, err = f.run(t, doc)
	require.NoError(t, err)
	assert.Equal(t, message.NextDone, doc.Next)
	assert.Equal(t, 1, doc.Tries)
	assert.Equal(t, 1, doc.Throttled)
	for try, want := range map[int]breaker.Outcome{1: breaker.Throttled, 2: breaker.Success} {
		rec, found, err := f.ledger.Get(t.Context(), delivery.ID{OriginID: "m-1", Attempt: 1, Try: try})
		require.NoError(t, err)
		require.True(t, found, "try %d has its own delivery record", try)
		assert.Equal(t, want, rec.Outcome)
	}
	assert.Equal(t, map[telemetry.Name]int64{telemetry.Throttled: 1, telemetry.Queued: 1, telemetry.Delivered: 1}, f.counts(t))
}

func TestATransientThatTripsReleasesTheOldestWaitingMessageToScout(t *testing.T) {
	f := newFixture(t, options{policy: tripping, config: testConfig}, transient("down"))
	for range tripping.ConsecutiveFailures - 1 {
		f.record(t, "orders", breaker.Transient)
	}
	oldest := f.wait(t, "orders", "m-0#1")

	doc, err := f.run(t, newDocument("orders"))
	require.NoError(t, err)
	assert.Equal(t, "OPEN", doc.BreakerState)
	assert.Equal(t, message.NextRoom, doc.Next, "it waits in the room behind the scout")
	assert.Equal(t, 1, doc.Tries)
	assert.Equal(t, []string{oldest.Token}, f.sfn.Resumed(), "the oldest waiting message goes to scout")
	left, err := f.room.Depth(t.Context(), "orders")
	require.NoError(t, err)
	assert.Zero(t, left)
	assert.Equal(t, int64(1), f.counts(t)[telemetry.Released])
}

func TestATransientThatTripsScoutsItselfWhenNobodyWaits(t *testing.T) {
	f := newFixture(t, options{policy: tripping, config: testConfig}, transient("down"))
	for range tripping.ConsecutiveFailures - 1 {
		f.record(t, "orders", breaker.Transient)
	}

	doc, err := f.run(t, newDocument("orders"))
	require.NoError(t, err)
	assert.Equal(t, "OPEN", doc.BreakerState)
	assert.Equal(t, message.NextWait, doc.Next)
	assert.Equal(t, "WAIT", doc.Decision)
	assert.Equal(t, 60, doc.WaitSeconds, "until the cooldown ends")
	assert.Empty(t, f.sfn.Resumed())
	assert.True(t, f.row(t, "orders").ScoutUntil.After(f.clock.Now()), "elected scout")
}

func TestAMessageParkedAtItsLastTryStillReleasesTheNextScout(t *testing.T) {
	f := newFixture(t, options{policy: tripping, config: testConfig}, transient("down"))
	for range tripping.ConsecutiveFailures - 1 {
		f.record(t, "orders", breaker.Transient)
	}
	oldest := f.wait(t, "orders", "m-0#1")
	last := newDocument("orders")
	last.Tries = testConfig.MaxAttempts - 1

	doc, err := f.run(t, last)
	require.NoError(t, err)
	assert.Equal(t, "OPEN", doc.BreakerState)
	assert.Equal(t, message.NextPark, doc.Next, "its tries are used up")
	assert.Equal(t, []string{oldest.Token}, f.sfn.Resumed(), "without a scout the breaker would not probe again before the room's timeout")
}

func TestAMessageParkedAtItsLastTryDoesNotScoutWhenNobodyWaits(t *testing.T) {
	f := newFixture(t, options{policy: tripping, config: testConfig}, transient("down"))
	for range tripping.ConsecutiveFailures - 1 {
		f.record(t, "orders", breaker.Transient)
	}
	last := newDocument("orders")
	last.Tries = testConfig.MaxAttempts - 1

	doc, err := f.run(t, last)
	require.NoError(t, err)
	assert.Equal(t, message.NextPark, doc.Next)
	assert.Empty(t, f.sfn.Resumed())
	assert.False(t, f.row(t, "orders").ScoutUntil.After(f.clock.Now()), "the next arrival scouts")
}

func TestACanarySuccessStartsTheReleaser(t *testing.T) {
	f := newFixture(t, options{policy: tripping, config: testConfig}, target.Delivered())
	f.trip(t, "orders")
	doc, err := f.run(t, newDocument("orders"))
	require.NoError(t, err)
	require.Equal(t, message.NextWait, doc.Next)
	assert.Empty(t, f.launcher.Keys(), "nothing to release while OPEN")

	f.clock.Advance(time.Duration(doc.WaitSeconds) * time.Second)
	doc, err = f.run(t, doc)
	require.NoError(t, err)
	assert.Equal(t, "CANARY", doc.Decision)
	assert.Equal(t, "CLOSED", doc.BreakerState)
	assert.Equal(t, []string{"orders"}, f.launcher.Keys())
}

func TestAReleaserThatFailsToStartDoesNotFailTheCanary(t *testing.T) {
	f := newFixture(t, options{policy: tripping, config: testConfig}, target.Delivered())
	f.launcher.Err = assert.AnError
	f.trip(t, "orders")
	doc, err := f.run(t, newDocument("orders"))
	require.NoError(t, err)
	f.clock.Advance(time.Duration(doc.WaitSeconds) * time.Second)
	doc, err = f.run(t, doc)
	require.NoError(t, err)
	assert.Equal(t, message.NextDone, doc.Next)
	assert.Contains(t, f.log.String(), "could not start the releaser")
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

func TestTheEndOfATimedHoldStartsTheReleaser(t *testing.T) {
	f := newFixture(t, options{policy: tripping, config: testConfig}, target.Delivered())
	_, _, err := f.breaker.Command(t.Context(), "orders", breaker.Command{Kind: breaker.ForceOpen,
		Until: t0.Add(10 * time.Minute), Actor: "ops", Reason: "maintenance"})
	require.NoError(t, err)

	scout, err := f.run(t, newDocument("orders"))
	require.NoError(t, err)
	assert.Equal(t, message.NextWait, scout.Next, "the hold's first message scouts until it ends")
	assert.Equal(t, 600, scout.WaitSeconds)
	other := newDocument("orders")
	other.OriginID, other.Message.ID = "m-2", "m-2"
	held, err := f.run(t, other)
	require.NoError(t, err)
	assert.Equal(t, message.NextRoom, held.Next, "the rest wait in the room")
	assert.Empty(t, f.launcher.Keys(), "nothing to release during the hold")

	f.clock.Advance(10 * time.Minute)
	scout, err = f.run(t, scout)
	require.NoError(t, err)
	assert.Equal(t, message.NextDone, scout.Next, "the scout goes first when the hold ends")
	assert.Equal(t, []string{"orders"}, f.launcher.Keys(), "and starts the release of the messages the hold kept")
	assert.Equal(t, 1, f.target.calls())
}

// queued runs a fresh message m-<n> on key, which the breaker turns away
// to the room, and returns its room timeout.
func (f fixture) queued(t *testing.T, key string, n int) time.Duration {
	t.Helper()
	doc := newDocument(key)
	doc.OriginID = fmt.Sprintf("m-%d", n)
	doc.Message.ID = doc.OriginID
	out, err := f.run(t, doc)
	require.NoError(t, err)
	require.Equal(t, message.NextRoom, out.Next)
	return time.Duration(out.RoomTimeoutSeconds) * time.Second
}

// One message at a time watches its room: it waits ROOM_TIMEOUT at most,
// the others ROOM_MAX_WAIT; the watcher back in the room watches on; once
// the watch ends, the next message to queue watches.
func TestOneMessageAtATimeWatchesTheRoom(t *testing.T) {
	cfg := testConfig
	cfg.RoomTimeout, cfg.RoomMaxWait = 10*time.Minute, 5*time.Hour
	policy := tripping
	policy.CooldownBase, policy.CooldownMax = time.Hour, time.Hour // no probe while the test runs
	f := newFixture(t, options{policy: policy, config: cfg}, target.Delivered())
	f.trip(t, "orders")
	scout, err := f.run(t, newDocument("orders"))
	require.NoError(t, err)
	require.Equal(t, message.NextWait, scout.Next, "the first message after the trip scouts")

	assert.Equal(t, 10*time.Minute, f.queued(t, "orders", 2), "the first in the room watches it")
	assert.Equal(t, 5*time.Hour, f.queued(t, "orders", 3))
	f.clock.Advance(time.Minute)
	assert.Equal(t, 10*time.Minute, f.queued(t, "orders", 2), "the watcher, back in the room, watches on")
	f.clock.Advance(9 * time.Minute)
	assert.Equal(t, 5*time.Hour, f.queued(t, "orders", 4), "watched until 10 minutes after the watcher queued again")
	f.clock.Advance(time.Minute)
	assert.Equal(t, 10*time.Minute, f.queued(t, "orders", 5), "the watch ended: this one takes it")
}

// watchFailing is a room API whose writes of the room's watch fail.
type watchFailing struct{ room.API }

func (w watchFailing) PutItem(ctx context.Context, in *dynamodb.PutItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	if pk, ok := in.Item["pk"].(*types.AttributeValueMemberS); ok && strings.HasPrefix(pk.Value, dynamo.RoomWatchPrefix) {
		return nil, errors.New("injected: table unavailable")
	}
	return w.API.PutItem(ctx, in, opts...)
}

// When the watch cannot be checked, the message watches: a room is never
// left without a message that comes back.
func TestAMessageWatchesTheRoomWhenTheWatchCannotBeChecked(t *testing.T) {
	cfg := testConfig
	cfg.RoomTimeout, cfg.RoomMaxWait = 10*time.Minute, 5*time.Hour
	f := newFixture(t, options{policy: tripping, config: cfg}, target.Delivered())
	f.handler.Room = room.New(watchFailing{f.client}, f.table, time.Hour)
	f.trip(t, "orders")
	_, err := f.run(t, newDocument("orders"))
	require.NoError(t, err)

	assert.Equal(t, 10*time.Minute, f.queued(t, "orders", 2))
	assert.Equal(t, 10*time.Minute, f.queued(t, "orders", 3))
	assert.Contains(t, f.log.String(), "could not check the room's watch")
}
