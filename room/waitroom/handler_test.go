package waitroom_test

import (
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/breaker/breakertest"
	"github.com/redrive/redrive/dynamo"
	"github.com/redrive/redrive/message"
	"github.com/redrive/redrive/room"
	"github.com/redrive/redrive/room/waitroom"
	"github.com/redrive/redrive/test/roomtest"
)

// t0 is the tests' clock.
var t0 = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

// fixture is the WaitingRoom handler on a real room and breaker (one
// table of the test backend) with a recording launcher.
type fixture struct {
	handler  *waitroom.Handler
	breaker  *breaker.Breaker
	room     *room.Room
	launcher *roomtest.Launcher
}

func newFixture(t *testing.T) fixture {
	t.Helper()
	client, table := roomtest.Table(t)
	clock := breakertest.NewClock(t0)
	b, err := breaker.New(dynamo.New(client, table), breaker.Policy{ConsecutiveFailures: 1, FailureRateThreshold: -1}, breaker.Options{Clock: clock})
	require.NoError(t, err)
	f := fixture{breaker: b, room: room.New(client, table, time.Hour), launcher: &roomtest.Launcher{}}
	f.handler = &waitroom.Handler{Room: f.room, Breaker: b, Launcher: f.launcher,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Clock: clock}
	return f
}

// input is the WaitingRoom payload of message id's attempt 2 on orders.
func input(t *testing.T, id string) waitroom.Input {
	t.Helper()
	doc, err := message.NewDocument(message.Message{ID: id, Body: "{}"}, t0.Add(-time.Minute))
	require.NoError(t, err)
	doc.BreakerKey, doc.Attempt = "orders", 2
	raw, err := json.Marshal(doc)
	require.NoError(t, err)
	return waitroom.Input{Document: raw, TaskToken: "token-" + id}
}

func TestEnterStoresTheToken(t *testing.T) {
	f := newFixture(t)
	in := input(t, "m-1")
	_, err := f.handler.Handle(t.Context(), in)
	require.NoError(t, err)
	got, err := f.room.Oldest(t.Context(), "orders", 5)
	require.NoError(t, err)
	doc, err := message.ParseDocument(in.Document)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(doc.RoomID(), "m-1#2#m"), "origin, attempt and message tag: %s", doc.RoomID())
	assert.Equal(t, []room.Entry{{Key: "orders", MessageID: doc.RoomID(), Token: "token-m-1", EnteredAt: t0, Since: t0.Add(-time.Minute)}}, got,
		"in line since the message was received")
}

func TestEnterLinesMessagesUpByTheirLastTurn(t *testing.T) {
	f := newFixture(t)
	timedOut := input(t, "m-1") // received at t0-1m; its wait timed out, and it enters again
	tried := input(t, "m-2")    // received at t0-1m too, then a try failed at t0
	doc, err := message.ParseDocument(tried.Document)
	require.NoError(t, err)
	doc.AddFailure(message.Failure{At: t0, Try: 1, Outcome: message.OutcomeTransient, Message: "down"})
	tried.Document, err = json.Marshal(doc)
	require.NoError(t, err)
	later := input(t, "m-3")
	doc, err = message.ParseDocument(later.Document)
	require.NoError(t, err)
	doc.ReceivedAt = t0.Add(-time.Second)
	later.Document, err = json.Marshal(doc)
	require.NoError(t, err)

	for _, in := range []waitroom.Input{tried, later, timedOut} {
		_, err := f.handler.Handle(t.Context(), in)
		require.NoError(t, err)
	}
	got, err := f.room.Oldest(t.Context(), "orders", 5)
	require.NoError(t, err)
	var origins []string
	for _, e := range got {
		origin, _, _ := strings.Cut(e.MessageID, "#")
		origins = append(origins, origin)
	}
	assert.Equal(t, []string{"m-1", "m-3", "m-2"}, origins,
		"a wait that timed out keeps the message's place; a failed try sends it to the back")
}

func TestEnterStartsAReleaserOnlyWhenTheBreakerLetsMessagesThrough(t *testing.T) {
	tests := []struct {
		name    string
		prepare func(t *testing.T, f fixture)
		want    []string
	}{
		{name: "closed", want: []string{"orders"}},
		{name: "forced closed", prepare: command(breaker.ForceClose), want: []string{"orders"}},
		{name: "forced open", prepare: command(breaker.ForceOpen)},
		{name: "open", prepare: func(t *testing.T, f fixture) {
			d, err := f.breaker.Admit(t.Context(), "orders")
			require.NoError(t, err)
			row, err := f.breaker.Record(t.Context(), "orders", d.Row, d.Ticket, breaker.Transient)
			require.NoError(t, err)
			require.Equal(t, breaker.Open, row.State)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			if tt.prepare != nil {
				tt.prepare(t, f)
			}
			_, err := f.handler.Handle(t.Context(), input(t, "m-1"))
			require.NoError(t, err)
			assert.Equal(t, tt.want, f.launcher.Keys())
		})
	}
}

// command applies an operator's command of kind to orders.
func command(kind breaker.CommandKind) func(t *testing.T, f fixture) {
	return func(t *testing.T, f fixture) {
		_, _, err := f.breaker.Command(t.Context(), "orders", breaker.Command{Kind: kind, Actor: "ops", Reason: "test"})
		require.NoError(t, err)
	}
}

func TestAFailedReleaserStartIsAnErrorButTheMessageWaits(t *testing.T) {
	f := newFixture(t)
	f.launcher.Err = errors.New("states is down")
	_, err := f.handler.Handle(t.Context(), input(t, "m-1"))
	assert.ErrorIs(t, err, f.launcher.Err)
	assert.ErrorContains(t, err, "waitroom: entered, but: ")
	n, derr := f.room.Depth(t.Context(), "orders")
	require.NoError(t, derr)
	assert.Equal(t, 1, n)
}

func TestInvalidEntry(t *testing.T) {
	valid := input(t, "m-1")
	tests := []struct {
		name string
		in   waitroom.Input
		want string
	}{
		{name: "no token", in: waitroom.Input{Document: valid.Document}, want: "taskToken is empty"},
		{name: "no document", in: waitroom.Input{TaskToken: "t"}, want: "not a JSON document"},
		{name: "invalid document", in: waitroom.Input{Document: json.RawMessage(`{"originId":"m-1"}`), TaskToken: "t"}, want: "breakerKey"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			_, err := f.handler.Handle(t.Context(), tt.in)
			var invalid *waitroom.InvalidEntry
			require.ErrorAs(t, err, &invalid)
			assert.Contains(t, invalid.Problem, tt.want)
			assert.ErrorContains(t, err, "waitroom: invalid entry: ")
			assert.Empty(t, f.launcher.Keys())
		})
	}
}
