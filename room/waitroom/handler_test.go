package waitroom_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/breaker/breakertest"
	"github.com/redrive/redrive/claimcheck"
	"github.com/redrive/redrive/emulate/s3local/s3test"
	"github.com/redrive/redrive/lambda/retryable"
	"github.com/redrive/redrive/message"
	"github.com/redrive/redrive/room"
	"github.com/redrive/redrive/room/waitroom"
	"github.com/redrive/redrive/test/roomtest"
)

// t0 is the tests' clock.
var t0 = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

// fixture is the Queue task's handler on a real room (a table of the test
// backend) with a recording launcher.
type fixture struct {
	handler  *waitroom.Handler
	room     *room.Room
	launcher *roomtest.Launcher
	client   *dynamodb.Client
	table    string
}

// waiting is up to n of the orders room's entries in line, with their
// documents.
func (f fixture) waiting(t *testing.T, n int) []room.Entry {
	return roomtest.Waiting(t, f.client, f.table, f.room, "orders", n)
}

func newFixture(t *testing.T) fixture {
	t.Helper()
	client, table := roomtest.Table(t)
	f := fixture{room: room.New(client, table, time.Hour), launcher: &roomtest.Launcher{}, client: client, table: table}
	f.handler = &waitroom.Handler{Room: f.room, Launcher: f.launcher,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Clock: breakertest.NewClock(t0)}
	return f
}

// doc is message id's attempt 2 on orders, as the Attempt routes it to
// the room: received a minute before t0, in its second cycle.
func doc(t *testing.T, id string) message.Document {
	t.Helper()
	d, err := message.NewDocument(message.Message{ID: id, Body: "{}"}, t0.Add(-time.Minute))
	require.NoError(t, err)
	d.BreakerKey, d.Attempt = "orders", 2
	d.Cycles, d.Next, d.Decision = 2, message.NextRoom, "QUEUE"
	return d
}

// raw is d as the state machine passes it.
func raw(t *testing.T, d message.Document) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(d)
	require.NoError(t, err)
	return b
}

func TestHandleStoresTheNextRunsDocument(t *testing.T) {
	f := newFixture(t)
	d := doc(t, "m-1")
	d.Runs, d.WaitSeconds = 1, 20
	d.NotBefore = t0.Add(5 * time.Minute)
	out, err := f.handler.Handle(t.Context(), raw(t, d))
	require.NoError(t, err)
	assert.Equal(t, waitroom.Output{BreakerKey: "orders", NotBefore: t0.Add(5 * time.Minute), ControllerStarted: true}, out)
	assert.Equal(t, []string{"orders"}, f.launcher.Keys(), "the controller is ensured")

	got := f.waiting(t, 5)
	require.Len(t, got, 1)
	e := got[0]
	require.True(t, strings.HasPrefix(d.RoomID(), "m-1#2#m"), "origin, attempt and message tag: %s", d.RoomID())
	assert.Equal(t, d.RoomID(), e.MessageID)
	assert.Equal(t, t0, e.EnteredAt)
	assert.Equal(t, t0.Add(-time.Minute), e.Since, "in line since the message was received")
	assert.Equal(t, t0.Add(5*time.Minute), e.NotBefore, "to go no sooner than its backoff's end")

	next, err := message.ParseDocument(e.Document)
	require.NoError(t, err, "the document is the next execution's input")
	assert.Equal(t, 2, next.Runs, "the next run")
	assert.Zero(t, next.Cycles, "its cycles counted afresh")
	assert.Empty(t, next.Next, "its routing cleared")
	assert.Zero(t, next.WaitSeconds)
	assert.Zero(t, next.NotBefore)
	assert.True(t, strings.HasSuffix(next.ExecutionName(), "-r2"), next.ExecutionName())
	want := d
	want.Runs, want.Cycles, want.Next, want.WaitSeconds, want.NotBefore = 2, 0, "", 0, time.Time{}
	assert.Equal(t, want, next, "otherwise the document as it came")
}

func TestHandleReportsAControllerThatRanAlready(t *testing.T) {
	f := newFixture(t)
	f.handler.Launcher = alreadyRunning{}
	out, err := f.handler.Handle(t.Context(), raw(t, doc(t, "m-1")))
	require.NoError(t, err)
	assert.False(t, out.ControllerStarted)
	assert.Zero(t, out.NotBefore, "no backoff: at the pace")
}

// alreadyRunning is a launcher that finds a controller running.
type alreadyRunning struct{}

func (alreadyRunning) Ensure(context.Context, string) (bool, error) { return false, nil }

// brokenRoom is a room table whose writes fail.
type brokenRoom struct{ room.API }

func (brokenRoom) PutItem(context.Context, *dynamodb.PutItemInput, ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	return nil, errors.New("injected: table unavailable")
}

// Messages go in line by when they may go, then by their last turn: a
// message whose wait ended keeps its place, a failed try sends it to the
// back, a backoff waits its end.
func TestHandleLinesMessagesUpByDueThenLastTurn(t *testing.T) {
	f := newFixture(t)
	waited := doc(t, "m-1") // received at t0-1m, turned away
	tried := doc(t, "m-2")  // received at t0-1m too, then a try failed at t0
	tried.AddFailure(message.Failure{At: t0, Try: 1, Outcome: message.OutcomeTransient, Message: "down"})
	later := doc(t, "m-3")
	later.ReceivedAt = t0.Add(-time.Second)
	backoff := doc(t, "m-4") // received first, backing off until t0+1m
	backoff.ReceivedAt = t0.Add(-time.Hour)
	backoff.NotBefore = t0.Add(time.Minute)

	for _, d := range []message.Document{backoff, tried, later, waited} {
		_, err := f.handler.Handle(t.Context(), raw(t, d))
		require.NoError(t, err)
	}
	origins := func(entries []room.Entry) []string {
		var out []string
		for _, e := range entries {
			origin, _, _ := strings.Cut(e.MessageID, "#")
			out = append(out, origin)
		}
		return out
	}
	got := f.waiting(t, 5)
	assert.Equal(t, []string{"m-1", "m-3", "m-2", "m-4"}, origins(got))
	due, err := f.room.Due(t.Context(), "orders", 5, t0)
	require.NoError(t, err)
	assert.Equal(t, []string{"m-1", "m-3", "m-2"}, origins(due), "the backoff is not due yet")
}

// A message held by a rule enters with its next look a minute ahead: it
// waits in its breaker's room, under the breaker key, as any other.
func TestHandleOfAHeldMessage(t *testing.T) {
	f := newFixture(t)
	d := doc(t, "m-1")
	d.HeldBy, d.Decision, d.NotBefore = "rule-7", message.DecisionHold, t0.Add(time.Minute)
	out, err := f.handler.Handle(t.Context(), raw(t, d))
	require.NoError(t, err)
	assert.Equal(t, "orders", out.BreakerKey)
	got := f.waiting(t, 5)
	require.Len(t, got, 1)
	assert.Equal(t, t0.Add(time.Minute), got[0].NotBefore)
	next, err := message.ParseDocument(got[0].Document)
	require.NoError(t, err)
	assert.Equal(t, "rule-7", next.HeldBy, "still held when released: the Attempt looks at the rule again")
}

// A message that enters again (a duplicate of its execution, or back
// after its release) replaces its entry: one entry per message.
func TestHandleAgainReplacesTheEntry(t *testing.T) {
	f := newFixture(t)
	d := doc(t, "m-1")
	_, err := f.handler.Handle(t.Context(), raw(t, d))
	require.NoError(t, err)
	d.Runs = 1
	_, err = f.handler.Handle(t.Context(), raw(t, d))
	require.NoError(t, err)
	got := f.waiting(t, 5)
	require.Len(t, got, 1)
	next, err := message.ParseDocument(got[0].Document)
	require.NoError(t, err)
	assert.Equal(t, 2, next.Runs, "the newer document")
}

func TestAControllerThatDidNotStartIsAnErrorButTheMessageWaits(t *testing.T) {
	f := newFixture(t)
	f.launcher.Err = errors.New("states is down")
	out, err := f.handler.Handle(t.Context(), raw(t, doc(t, "m-1")))
	var notStarted *waitroom.ControllerNotStarted
	require.ErrorAs(t, err, &notStarted, "named for the state machine's Catch, which ends the execution: the document is safe")
	assert.Equal(t, &waitroom.ControllerNotStarted{Breaker: "orders", Cause: "states is down"}, notStarted)
	assert.ErrorContains(t, err, `waitroom: the document is in breaker "orders"'s room, but its controller could not be started: states is down`)
	assert.Equal(t, "orders", out.BreakerKey)
	assert.False(t, out.ControllerStarted)
	n, derr := f.room.Depth(t.Context(), "orders")
	require.NoError(t, derr)
	assert.Equal(t, 1, n, "the message waits")
}

func TestInvalidEntry(t *testing.T) {
	tests := []struct {
		name  string
		event json.RawMessage
		want  string
	}{
		{name: "no document", event: nil, want: "not a JSON document"},
		{name: "not JSON", event: json.RawMessage(`{`), want: "not a JSON document"},
		{name: "invalid document", event: json.RawMessage(`{"originId":"m-1"}`), want: "breakerKey"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			_, err := f.handler.Handle(t.Context(), tt.event)
			var invalid *waitroom.InvalidEntry
			require.ErrorAs(t, err, &invalid, "named, for the state machine to park it at once")
			assert.Contains(t, invalid.Problem, tt.want)
			assert.ErrorContains(t, err, "waitroom: invalid entry: ")
			assert.Empty(t, f.launcher.Keys())
			n, derr := f.room.Depth(t.Context(), "orders")
			require.NoError(t, derr)
			assert.Zero(t, n)
		})
	}
}

// A failing room is an Unexpected error, which the Queue state retries,
// then parks the message: nothing is dropped.
func TestAFailingRoomIsUnexpected(t *testing.T) {
	f := newFixture(t)
	f.handler.Room = room.New(brokenRoom{}, "nowhere", time.Hour)
	_, err := f.handler.Handle(t.Context(), raw(t, doc(t, "m-1")))
	var unexpected *retryable.Unexpected
	require.ErrorAs(t, err, &unexpected)
	assert.Equal(t, "waitroom", unexpected.Task)
	assert.ErrorContains(t, err, "waitroom: room \"orders\": enter ")
	assert.Empty(t, f.launcher.Keys(), "no controller for a message that is not in the room")
}

func TestEntry(t *testing.T) {
	d := doc(t, "m-1")
	d.AddFailure(message.Failure{At: t0.Add(-10 * time.Second), Try: 1, Outcome: message.OutcomeTransient, Message: "down"})
	d.NotBefore = t0.Add(time.Minute)
	e, err := waitroom.Entry(d, t0)
	require.NoError(t, err)
	assert.Equal(t, "orders", e.Key)
	assert.Equal(t, d.RoomID(), e.MessageID)
	assert.Equal(t, t0, e.EnteredAt)
	assert.Equal(t, t0.Add(-10*time.Second), e.Since, "its last turn")
	assert.Equal(t, t0.Add(time.Minute), e.NotBefore)
	assert.Equal(t, t0.Add(time.Minute), e.Due())
	next, err := message.ParseDocument(e.Document)
	require.NoError(t, err)
	assert.Equal(t, 1, next.Runs)
	assert.Zero(t, d.Runs, "the caller's document is not changed")
}

// A document whose Attempt Lambda could not run goes back to the room, a
// few times; the last time, the Queue task fails it, for the state machine
// to park it with its last failure.
func TestADocumentWhoseAttemptKeepsFailingToRunIsGivenUp(t *testing.T) {
	f := newFixture(t)
	d := doc(t, "m-1")
	for run := 1; run < waitroom.MaxFailedRuns; run++ {
		d.Failure = &message.TaskFailure{Error: "Lambda.TooManyRequestsException", Cause: "Rate exceeded"}
		_, err := f.handler.Handle(t.Context(), raw(t, d))
		require.NoError(t, err, "run %d", run)
		got := f.waiting(t, 1)
		require.Len(t, got, 1)
		d, err = message.ParseDocument(got[0].Document)
		require.NoError(t, err)
		assert.Equal(t, run, d.FailedRuns)
		assert.Nil(t, d.Failure, "the next run starts without it")
	}
	d.Failure = &message.TaskFailure{Error: "Lambda.TooManyRequestsException", Cause: "Rate exceeded"}
	_, err := f.handler.Handle(t.Context(), raw(t, d))
	var giveUp *waitroom.TooManyFailedRuns
	require.ErrorAs(t, err, &giveUp)
	assert.Equal(t, waitroom.MaxFailedRuns, giveUp.Runs)
	assert.Contains(t, err.Error(), "Rate exceeded")
}

// A document that would wait with a body over claimcheck.RoomThreshold
// waits with a reference instead (its body in S3), so that the room's
// item stays small; when S3 fails, it waits with its body.
func TestAWaitingDocumentsLargeBodyGoesToS3(t *testing.T) {
	f := newFixture(t)
	s3c := s3test.Bucket(t, "bodies")
	store := &claimcheck.Store{S3: s3c, Bucket: "bodies"}
	f.handler.Bodies = store.ForRoom()
	body := strings.Repeat("z", claimcheck.RoomThreshold+1)
	d := doc(t, "m-big")
	d.Message.Body = body
	_, err := f.handler.Handle(t.Context(), raw(t, d))
	require.NoError(t, err)
	small := doc(t, "m-small")
	_, err = f.handler.Handle(t.Context(), raw(t, small))
	require.NoError(t, err)

	entries := f.waiting(t, 2)
	require.Len(t, entries, 2)
	byID := map[string]message.Document{}
	for _, e := range entries {
		next, err := message.ParseDocument(e.Document)
		require.NoError(t, err)
		byID[next.Message.ID] = next
	}
	big := byID["m-big"]
	require.NotNil(t, big.BodyRef, "the large body went to S3")
	assert.Empty(t, big.Message.Body)
	back, err := store.Redeem(t.Context(), big)
	require.NoError(t, err)
	assert.Equal(t, body, back.Message.Body, "and comes back byte for byte")
	assert.Nil(t, byID["m-small"].BodyRef, "a small body stays")

	f.handler.Bodies = &claimcheck.Store{S3: s3c, Bucket: "no-such-bucket"}
	d.Message.ID = "m-big-2"
	_, err = f.handler.Handle(t.Context(), raw(t, d))
	require.NoError(t, err, "S3 failing is no reason to fail the entry")
	found := false
	for _, e := range f.waiting(t, 3) {
		if next, err := message.ParseDocument(e.Document); err == nil && next.Message.ID == "m-big-2" {
			found = true
			assert.Equal(t, body, next.Message.Body, "it waits with its body")
			assert.Nil(t, next.BodyRef)
		}
	}
	assert.True(t, found, "it waits")
}
