package message_test

import (
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/message"
)

func TestLineageOfNewMessage(t *testing.T) {
	lin, found, err := message.LineageOf(message.Message{ID: "m-1", Body: "x"})
	require.NoError(t, err)
	assert.False(t, found)
	assert.Equal(t, message.Lineage{OriginID: "m-1", Attempt: 1}, lin)
}

func TestLineageOfMalformed(t *testing.T) {
	tests := []struct {
		name    string
		attr    message.Attribute
		body    string
		problem string
	}{
		{name: "not JSON", attr: message.StringAttribute("{originId:"), problem: "not a lineage JSON object"},
		{name: "JSON of another shape", attr: message.StringAttribute(`["m-1", 2]`), problem: "not a lineage JSON object"},
		{name: "attempt as a string", attr: message.StringAttribute(`{"originId":"m-1","attempt":"2"}`), problem: "not a lineage JSON object"},
		{name: "no origin", attr: message.StringAttribute(`{"attempt":2}`), problem: "originId is missing"},
		{name: "attempt zero", attr: message.StringAttribute(`{"originId":"m-1","attempt":0}`), problem: "attempt 0, want 1 to 99999"},
		// The starter starts attempt+1: the largest int64 would overflow.
		{name: "attempt at the int64 limit", attr: message.StringAttribute(`{"originId":"m-1","attempt":9223372036854775807}`), problem: "want 1 to 99999"},
		{name: "origin id too long", attr: message.StringAttribute(`{"originId":"` + strings.Repeat("o", message.MaxOriginID+1) + `","attempt":1}`),
			problem: "originId of 1025 bytes, want at most 1024"},
		{name: "unknown outcome", attr: message.StringAttribute(`{"originId":"m-1","attempt":1,"history":[{"try":1,"outcome":"MAYBE"}]}`), problem: `history[0].outcome "MAYBE"`},
		{name: "bad time", attr: message.StringAttribute(`{"originId":"m-1","attempt":1,"history":[{"at":"yesterday","try":1,"outcome":"POISON"}]}`), problem: "not a lineage JSON object"},
		{name: "replay attempt past the attempt", attr: message.StringAttribute(`{"originId":"m-1","attempt":2,"replay":"r-1","replayAttempt":3}`),
			problem: "replayAttempt 3, want 0 to the attempt, 2"},
		{name: "replay id too long", attr: message.StringAttribute(`{"originId":"m-1","attempt":2,"replay":"` + strings.Repeat("r", message.MaxReplayID+1) + `"}`),
			problem: "replay id of 129 bytes, want at most 128"},
		{name: "binary attribute", attr: message.Attribute{DataType: "Binary", BinaryValue: []byte("{}")}, problem: `data type "Binary", want String`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msg := message.Message{ID: "m-2", Body: "x", MessageAttributes: map[string]message.Attribute{message.AttributeName: tt.attr}}
			_, _, err := message.LineageOf(msg)
			require.Error(t, err)
			assert.ErrorIs(t, err, message.ErrMalformedLineage)
			assert.Contains(t, err.Error(), `attribute "redrive"`)
			assert.Contains(t, err.Error(), tt.problem)

			_, err = message.NewDocument(msg, receivedAt)
			assert.ErrorIs(t, err, message.ErrMalformedLineage, "the starter parks it as poison")
		})
	}
}

// TestLineageOfEvent: reading a record's lineage without converting it
// answers as converting it first does, for every kind of record.
func TestLineageOfEvent(t *testing.T) {
	lin := message.Lineage{OriginID: "origin-1", Attempt: 3, History: []message.Failure{{At: receivedAt, Try: 1, Outcome: message.OutcomeTransient}}}
	withLineage := func(msg message.Message) message.Message {
		out, _, err := message.WithLineage(msg, lin)
		require.NoError(t, err)
		return out
	}
	tests := []struct {
		name        string
		msg         message.Message
		found, fail bool
	}{
		{name: "no lineage", msg: message.Message{ID: "m-1", Body: `{"order":1}`}},
		{name: "lineage attribute", msg: withLineage(withAttributes(2)), found: true},
		{name: "enveloped", msg: withLineage(withAttributes(10)), found: true},
		{name: "malformed lineage", msg: message.Message{ID: "m-2", Body: "x", MessageAttributes: map[string]message.Attribute{message.AttributeName: message.StringAttribute(`{"attempt":2}`)}}, fail: true},
		{name: "binary lineage", msg: message.Message{ID: "m-3", MessageAttributes: map[string]message.Attribute{message.AttributeName: {DataType: "Binary", BinaryValue: []byte("{}")}}}, fail: true},
		{name: "malformed envelope", msg: message.Message{ID: "m-4", Body: `{"redriveEnvelope":1,"body":"b"}`}, fail: true},
		{name: "the key inside", msg: message.Message{ID: "m-5", Body: `{"data":{"redriveEnvelope":1}}`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want, wantFound, wantErr := message.LineageOf(message.FromEvent(tt.msg.Event()))
			got, found, err := message.LineageOfEvent(tt.msg.Event())
			assert.Equal(t, want, got)
			assert.Equal(t, wantFound, found)
			assert.Equal(t, tt.found, found)
			if tt.found {
				assert.Equal(t, lin, got)
			}
			assert.Equal(t, tt.fail, err != nil, "error: %v", err)
			if wantErr != nil {
				require.Error(t, err)
				assert.Equal(t, wantErr.Error(), err.Error())
				return
			}
			require.NoError(t, err)
		})
	}
}

func TestLineageOfKeepsNewestHistory(t *testing.T) {
	var history []string
	for i := range message.MaxHistory + 3 {
		history = append(history, fmt.Sprintf(`{"at":"2026-01-01T00:00:00Z","try":%d,"outcome":"TRANSIENT"}`, i+1))
	}
	attr := message.StringAttribute(`{"originId":"m-1","attempt":5,"history":[` + strings.Join(history, ",") + `]}`)
	lin, found, err := message.LineageOf(message.Message{ID: "m-9", MessageAttributes: map[string]message.Attribute{"redrive": attr}})
	require.NoError(t, err)
	assert.True(t, found)
	require.Len(t, lin.History, message.MaxHistory)
	assert.Equal(t, 4, lin.History[0].Try)
	assert.Equal(t, message.MaxHistory+3, lin.History[message.MaxHistory-1].Try)
}

func TestRoundTripThroughTheDLQ(t *testing.T) {
	first := message.Message{ID: "origin-1", Body: `{"order":1}`, MessageAttributes: map[string]message.Attribute{"tenant": message.StringAttribute("acme")}}
	doc, err := message.NewDocument(first, receivedAt)
	require.NoError(t, err)
	assert.Equal(t, "origin-1", doc.OriginID)
	assert.Equal(t, 1, doc.Attempt)
	assert.Empty(t, doc.History)

	doc.AddFailure(message.Failure{At: receivedAt, Try: 1, Outcome: message.OutcomeTransient, ErrorType: "Timeout", BreakerState: "CLOSED"})
	sent, enveloped, err := message.ForRedrive(doc)
	require.NoError(t, err)
	assert.False(t, enveloped)
	assert.Equal(t, first.Body, sent.Body)
	assert.Equal(t, first.MessageAttributes["tenant"], sent.MessageAttributes["tenant"])
	assert.Len(t, first.MessageAttributes, 1, "the document's message is not changed")

	// SQS gives the copy that comes back to the DLQ a new id.
	back := sent
	back.ID = "copy-2"
	again, err := message.NewDocument(back, receivedAt.Add(time.Hour))
	require.NoError(t, err)
	assert.Equal(t, "origin-1", again.OriginID, "origin survives the round trip")
	assert.Equal(t, 2, again.Attempt, "a message that comes back starts the next round trip")
	assert.Equal(t, doc.History, again.History)
	assert.Equal(t, "copy-2", again.Message.ID)
	assert.Equal(t, first.MessageAttributes, again.Message.MessageAttributes, "the lineage attribute is not part of the document's message")
}

func TestAddFailure(t *testing.T) {
	var doc message.Document
	for i := range message.MaxHistory + 5 {
		doc.AddFailure(message.Failure{Try: i + 1, Outcome: message.OutcomeTransient, Message: strings.Repeat("é", 200)})
	}
	require.Len(t, doc.History, message.MaxHistory)
	assert.Equal(t, 6, doc.History[0].Try, "oldest dropped")
	assert.Equal(t, message.MaxHistory+5, doc.History[message.MaxHistory-1].Try)
	for _, f := range doc.History {
		assert.LessOrEqual(t, len(f.Message), message.MaxFailureMessage)
		assert.True(t, utf8.ValidString(f.Message))
	}

	// A document's history never shares its array with another's.
	copied := doc
	copied.AddFailure(message.Failure{Try: 99, Outcome: message.OutcomePoison})
	assert.Equal(t, message.MaxHistory+5, doc.History[message.MaxHistory-1].Try)
}

func TestLastError(t *testing.T) {
	tests := []struct {
		failure message.Failure
		want    string
	}{
		{failure: message.Failure{ErrorType: "Timeout", Message: "after 30s"}, want: "Timeout: after 30s"},
		{failure: message.Failure{ErrorType: "Timeout"}, want: "Timeout"},
		{failure: message.Failure{Message: "after 30s"}, want: "after 30s"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			doc := message.Document{History: []message.Failure{{ErrorType: "Older"}, tt.failure}}
			assert.Equal(t, tt.want, doc.Lineage().LastError)
		})
	}
	assert.Empty(t, message.Document{}.Lineage().LastError)
}

func TestTruncate(t *testing.T) {
	tests := []struct {
		in   string
		max  int
		want string
	}{
		{in: "hello", max: 10, want: "hello"},
		{in: "hello", max: 5, want: "hello"},
		{in: "hello", max: 3, want: "hel"},
		{in: "héllo", max: 2, want: "h"}, // é is two bytes: not split
		{in: "héllo", max: 3, want: "hé"},
		{in: "日本", max: 5, want: "日"},
		{in: "abc", max: 0, want: ""},
		{in: "abc", max: -1, want: ""},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/%d", tt.in, tt.max), func(t *testing.T) {
			assert.Equal(t, tt.want, message.Truncate(tt.in, tt.max))
		})
	}
}

// A replay sends a parked message back with its lineage marked: the round
// trip it starts is the replay's, not a consumer's failure; a later round
// trip of the same message (redriven, failed again) is not, and the
// marker travels on so a message parked again names its replay.
func TestReplayMarkerTravelsWithTheLineage(t *testing.T) {
	parked := message.Lineage{OriginID: "o-1", Attempt: 3, LastError: "Rejected: no", Replay: "r-1", ReplayAttempt: 3, ReplayOf: "lot-7"}
	msg, _, err := message.WithLineage(message.Message{ID: "m-9", Body: "x"}, parked)
	require.NoError(t, err)
	assert.JSONEq(t, `{"originId":"o-1","attempt":3,"lastError":"Rejected: no","replay":"r-1","replayAttempt":3,"replayOf":"lot-7"}`,
		msg.MessageAttributes[message.AttributeName].StringValue)
	lin, found, err := message.LineageOf(msg)
	require.NoError(t, err)
	require.True(t, found)
	assert.True(t, lin.Replayed())

	doc, err := message.NewDocument(msg, receivedAt)
	require.NoError(t, err)
	assert.Equal(t, 4, doc.Attempt)
	assert.True(t, doc.Replayed(), "the replay's round trip")
	assert.Equal(t, "r-1", doc.Replay)
	assert.Equal(t, 3, doc.ReplayAttempt)
	doc.BreakerKey = "orders"
	require.NoError(t, doc.Validate())

	// A second copy of the same parked message (the replay sent it again
	// after failing to delete it from the lot) is the same execution.
	copy2 := msg
	copy2.ID = "m-10"
	doc2, err := message.NewDocument(copy2, receivedAt)
	require.NoError(t, err)
	doc2.BreakerKey = "orders"
	assert.Equal(t, doc.ExecutionName(), doc2.ExecutionName(), "a duplicate, not a second delivery")
	assert.Equal(t, doc.MessageTag(), doc2.MessageTag())
	other := doc2
	other.ReplayOf = "lot-8"
	assert.NotEqual(t, doc.ExecutionName(), other.ExecutionName(), "another parked message with the same lineage")

	// Redriven again and back in the DLQ: a later round trip, not the
	// replay's, though the lineage still names the replay.
	again, _, err := message.ForRedrive(doc)
	require.NoError(t, err)
	next, err := message.NewDocument(again, receivedAt)
	require.NoError(t, err)
	assert.Equal(t, 5, next.Attempt)
	assert.False(t, next.Replayed())
	next.Message.ID = "m-11"
	again.ID = "m-12"
	next2, err := message.NewDocument(again, receivedAt)
	require.NoError(t, err)
	assert.NotEqual(t, next.ExecutionName(), next2.ExecutionName(), "past the replay's round trip the DLQ message id tells copies apart")
	assert.Equal(t, "r-1", next.Lineage().Replay)
	assert.False(t, next.Lineage().Replayed())

	fresh, err := message.NewDocument(message.Message{ID: "m-1", Body: "x"}, receivedAt)
	require.NoError(t, err)
	assert.False(t, fresh.Replayed(), "a new message")
}

// Two messages that carry one lineage (a copy of it) wait in the room as
// two entries; a first attempt needs no tag, its origin id being its own.
func TestRoomIDTellsApartMessagesOfOneLineage(t *testing.T) {
	first := message.Document{OriginID: "m-1", Attempt: 1, Message: message.Message{ID: "m-1"}}
	assert.Equal(t, "m-1#1", first.RoomID())
	a := message.Document{OriginID: "m-1", Attempt: 2, Message: message.Message{ID: "dlq-a"}}
	b := a
	b.Message.ID = "dlq-b"
	assert.NotEqual(t, a.RoomID(), b.RoomID())
	assert.Equal(t, "m-1#2#"+a.MessageTag(), a.RoomID())
}

func TestBoundReason(t *testing.T) {
	assert.Equal(t, "poison: bad", message.BoundReason("poison: bad"), "a short reason as it is")
	long := "quarantined: " + strings.Repeat("é", message.MaxParkReason)
	got := message.BoundReason(long)
	assert.LessOrEqual(t, len(got), message.MaxParkReason)
	assert.True(t, utf8.ValidString(got), "no sequence split")
	assert.True(t, strings.HasPrefix(got, "quarantined: éé"))
	assert.True(t, strings.HasSuffix(got, " … (truncated)"))
}
