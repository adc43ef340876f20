package starter_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/breaker/breakertest"
	"github.com/redrive/redrive/claimcheck"
	"github.com/redrive/redrive/dynamo"
	"github.com/redrive/redrive/emulate/ddbtest"
	"github.com/redrive/redrive/emulate/s3local/s3test"
	"github.com/redrive/redrive/lambda/telemetry"
	"github.com/redrive/redrive/message"
	"github.com/redrive/redrive/room"
	"github.com/redrive/redrive/starter"
	"github.com/redrive/redrive/test/roomtest"
)

// roomEnv is an env whose starter reads the breakers' states and sends
// the messages that would only wait to the room, as the Builder wires it
// with TABLE_NAME: a real breaker and room on one table (minidyn, or
// DDB_ENDPOINT) and a hand-written controller launcher.
type roomEnv struct {
	*env
	breaker  *breaker.Breaker
	room     *room.Room
	launcher *roomtest.Launcher
	client   *dynamodb.Client // the room's table, to read its items
	table    string
}

func newRoomEnv(t *testing.T) roomEnv {
	t.Helper()
	e := newEnv(t, map[string]string{"BREAKER_KEY": "orders"})
	client, backend := ddbtest.Client(t)
	table := ddbtest.CreateTable(t, client, func(ctx context.Context, name string) error {
		return dynamo.CreateTable(ctx, client, name)
	})
	t.Logf("breaker table %s on %s", table, backend)
	clock := breakertest.NewClock(t0)
	b, err := breaker.New(dynamo.New(client, table),
		breaker.Policy{ConsecutiveFailures: 2, FailureRateThreshold: -1, Jitter: -1, CooldownBase: time.Minute},
		breaker.Options{Clock: clock, Random: breaker.NewRandom(1)})
	require.NoError(t, err)
	r := roomEnv{env: e, breaker: b, room: room.New(client, table, 14*24*time.Hour), launcher: &roomtest.Launcher{},
		client: client, table: table}
	e.h.Config.Table, e.h.Config.ControllerStateMachineARN = table, controllerARN
	e.h.Clock = clock
	e.h.Breaker, e.h.States = b, starter.NewStates(b, clock)
	e.h.Room, e.h.Launcher = r.room, r.launcher
	return r
}

// trip opens the breaker "orders" as failed deliveries would.
func (r roomEnv) trip(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	for {
		row, err := r.breaker.Status(ctx, "orders")
		require.NoError(t, err)
		if row.State == breaker.Open {
			return
		}
		d, err := r.breaker.Admit(ctx, "orders")
		require.NoError(t, err)
		_, err = r.breaker.Record(ctx, "orders", d.Row, d.Ticket, breaker.Transient)
		require.NoError(t, err)
	}
}

// waiting returns the documents in the room of "orders", in line, read
// from the items (the room's index lists entries without them).
func (r roomEnv) waiting(t *testing.T) []message.Document {
	t.Helper()
	var docs []message.Document
	for _, e := range roomtest.Waiting(t, r.client, r.table, r.room, "orders", 100) {
		doc, err := message.ParseDocument(e.Document)
		require.NoError(t, err)
		docs = append(docs, doc)
	}
	return docs
}

// While the breaker is OPEN, a batch's messages would only wait: none is
// started, all go to the room as the input of their next execution, and
// the breaker's controller is started once for them.
func TestAnOpenBreakersMessagesGoStraightToTheRoom(t *testing.T) {
	r := newRoomEnv(t)
	r.trip(t)

	resp := r.handle(t, events.SQSEvent{Records: records(3)})
	assert.Empty(t, failures(resp))
	assert.Empty(t, r.sfn.Executions(t), "no StartExecution while OPEN")
	docs := r.waiting(t)
	require.Len(t, docs, 3, "every message of the batch waits in the room")
	var ids []string
	for _, doc := range docs {
		ids = append(ids, doc.OriginID)
		assert.Equal(t, "orders", doc.BreakerKey)
		assert.Equal(t, 1, doc.Runs, "its release starts its next run")
		assert.Zero(t, doc.Cycles)
		assert.Empty(t, doc.Next)
		assert.Equal(t, t0, doc.ReceivedAt)
	}
	assert.ElementsMatch(t, []string{"m-00", "m-01", "m-02"}, ids)
	assert.Equal(t, []string{"orders"}, r.launcher.Keys(), "its controller is started, once per key")
	assert.Equal(t, int64(3), r.metrics.Get("orders", telemetry.Queued))
	assert.Empty(t, r.parked(t))
}

// While the breaker is CLOSED, a batch's messages are started as usual,
// and the room and its controller are left alone.
func TestAClosedBreakersMessagesAreStarted(t *testing.T) {
	r := newRoomEnv(t)

	resp := r.handle(t, events.SQSEvent{Records: records(3)})
	assert.Empty(t, failures(resp))
	assert.ElementsMatch(t, []string{"m-00-a1", "m-01-a1", "m-02-a1"}, r.sfn.Executions(t))
	assert.Empty(t, r.waiting(t))
	assert.Empty(t, r.launcher.Keys())
	assert.Zero(t, r.metrics.Get("orders", telemetry.Queued))
}

// A trip is noticed by the starter within StatesMaxAge: until then it
// acts on the row it read, and the messages meet the breaker at their
// Attempt.
func TestTheStarterNoticesATripWithinStatesMaxAge(t *testing.T) {
	r := newRoomEnv(t)
	clock := breakertest.NewClock(t0)
	r.h.Clock, r.h.States = clock, starter.NewStates(r.breaker, clock)
	require.Empty(t, failures(r.handle(t, events.SQSEvent{Records: records(1)})))
	r.trip(t)

	clock.Advance(starter.StatesMaxAge / 2)
	recs := records(3)
	require.Empty(t, failures(r.handle(t, events.SQSEvent{Records: recs[1:2]})))
	assert.Len(t, r.sfn.Executions(t), 2, "the cached CLOSED row still starts it")

	clock.Advance(starter.StatesMaxAge)
	require.Empty(t, failures(r.handle(t, events.SQSEvent{Records: recs[2:]})))
	assert.Len(t, r.sfn.Executions(t), 2)
	require.Len(t, r.waiting(t), 1, "the OPEN row, read again, sends it to the room")
}

// When the controller cannot be started, the records that entered the
// room are failed, so the DLQ delivers them again (their entries are
// replaced, and the next try starts the controller): a message is never
// left in a room nobody releases without the DLQ keeping it too.
func TestRecordsFailWhenTheControllerCannotBeStarted(t *testing.T) {
	r := newRoomEnv(t)
	r.trip(t)
	r.launcher.Err = assert.AnError

	resp := r.handle(t, events.SQSEvent{Records: records(2)})
	assert.Equal(t, []string{"m-00", "m-01"}, failures(resp))
	assert.Empty(t, r.sfn.Executions(t))
	assert.Equal(t, int64(1), r.metrics.Get("orders", telemetry.ReleaserNotStarted))

	// Delivered again once the controller can start: one entry each.
	r.launcher.Err = nil
	resp = r.handle(t, events.SQSEvent{Records: records(2)})
	assert.Empty(t, failures(resp))
	assert.Len(t, r.waiting(t), 2, "the second delivery replaced the first's entries")
	assert.Empty(t, r.sfn.Executions(t))
}

// failingRoom is a room whose writes fail.
type failingRoom struct{}

func (failingRoom) Enter(context.Context, room.Entry) error {
	return assert.AnError
}

func (failingRoom) EnterInLine(context.Context, room.Entry) (bool, error) {
	return false, assert.AnError
}

// A message that would only wait but cannot enter the room stays in the
// DLQ; no controller is started for it.
func TestARecordThatCannotEnterTheRoomStaysInTheDLQ(t *testing.T) {
	r := newRoomEnv(t)
	r.trip(t)
	r.h.Room = failingRoom{}

	resp := r.handle(t, events.SQSEvent{Records: records(2)})
	assert.Equal(t, []string{"m-00", "m-01"}, failures(resp))
	assert.Empty(t, r.sfn.Executions(t), "not started either")
	assert.Empty(t, r.launcher.Keys())
}

// A message that goes to the room with a body over claimcheck.RoomThreshold
// waits with a reference (its body in S3, for the release's execution to
// fetch back); one started at once keeps its body in its execution input.
func TestAWaitingMessagesLargeBodyGoesToS3(t *testing.T) {
	r := newRoomEnv(t)
	s3c := s3test.Bucket(t, "bodies")
	store := &claimcheck.Store{S3: s3c, Bucket: "bodies"}
	r.h.Bodies, r.h.RoomBodies = store, store.ForRoom()
	body := `{"pad":"` + strings.Repeat("p", claimcheck.RoomThreshold) + `"}`

	resp := r.handle(t, events.SQSEvent{Records: []events.SQSMessage{record("m-direct", body, nil)}})
	assert.Empty(t, failures(resp))
	started := r.input(t, "m-direct-a1")
	assert.Equal(t, body, started.Message.Body, "started at once: the body stays in the input")
	assert.Nil(t, started.BodyRef)

	r.trip(t)
	r.h.Clock.(*breakertest.Clock).Advance(starter.StatesMaxAge) // the starter sees the trip
	resp = r.handle(t, events.SQSEvent{Records: []events.SQSMessage{record("m-waits", body, nil)}})
	assert.Empty(t, failures(resp))
	docs := r.waiting(t)
	require.Len(t, docs, 1)
	require.NotNil(t, docs[0].BodyRef, "it waits with a reference")
	assert.Empty(t, docs[0].Message.Body)
	back, err := store.Redeem(t.Context(), docs[0])
	require.NoError(t, err)
	assert.Equal(t, body, back.Message.Body)
}
