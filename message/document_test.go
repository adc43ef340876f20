package message_test

import (
	"encoding/json"
	"errors"
	"maps"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/message"
)

// validDocument is the golden document, which Validate accepts.
func validDocument(t *testing.T) message.Document {
	t.Helper()
	doc, err := message.ParseDocument(golden(t, "document.json"))
	require.NoError(t, err)
	return doc
}

// fieldErrors returns the fields named by the *FieldError values in err.
func fieldErrors(t *testing.T, err error) map[string]string {
	t.Helper()
	require.Error(t, err)
	assert.ErrorIs(t, err, message.ErrInvalidDocument)
	errs := []error{err}
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		errs = joined.Unwrap()
	}
	fields := map[string]string{}
	for _, e := range errs {
		var ferr *message.FieldError
		require.ErrorAs(t, e, &ferr)
		fields[ferr.Field] = ferr.Error()
	}
	return fields
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name    string
		change  func(d *message.Document)
		field   string
		problem string
	}{
		{name: "no message id", change: func(d *message.Document) { d.Message.ID = "" }, field: "message.messageId", problem: "missing"},
		{name: "no origin", change: func(d *message.Document) { d.OriginID = "" }, field: "originId", problem: "missing"},
		{name: "attempt zero", change: func(d *message.Document) { d.Attempt = 0 }, field: "attempt", problem: "0, want 1 to 100000"},
		{name: "attempt past the bound", change: func(d *message.Document) { d.Attempt = math.MaxInt64 }, field: "attempt", problem: "want 1 to 100000"},
		{name: "origin id too long", change: func(d *message.Document) { d.OriginID = strings.Repeat("o", message.MaxOriginID+1) },
			field: "originId", problem: "1025 bytes, want at most 1024"},
		{name: "no breaker key", change: func(d *message.Document) { d.BreakerKey = "" }, field: "breakerKey", problem: "missing"},
		{name: "no receive time", change: func(d *message.Document) { d.ReceivedAt = time.Time{} }, field: "receivedAt", problem: "missing"},
		{name: "negative tries", change: func(d *message.Document) { d.Tries = -1 }, field: "tries", problem: "-1, want at least 0"},
		{name: "negative cycles", change: func(d *message.Document) { d.Cycles = -2 }, field: "cycles", problem: "-2"},
		{name: "negative runs", change: func(d *message.Document) { d.Runs = -3 }, field: "runs", problem: "-3, want at least 0"},
		{name: "replay attempt not before the attempt", change: func(d *message.Document) { d.Replay, d.ReplayAttempt = "r-1", d.Attempt },
			field: "replayAttempt", problem: "want 0 to the attempt less one"},
		{name: "replay id too long", change: func(d *message.Document) { d.Replay = strings.Repeat("r", message.MaxReplayID+1) },
			field: "replay", problem: "129 bytes, want at most 128"},
		{name: "history too long", change: func(d *message.Document) {
			d.History = append(d.History, make([]message.Failure, message.MaxHistory)...)
			for i := range d.History {
				d.History[i] = d.History[0]
			}
		}, field: "history", problem: "11 failures, want at most 10"},
		{name: "history outcome", change: func(d *message.Document) { d.History[0].Outcome = "SUCCESS" }, field: "history[0].outcome", problem: `"SUCCESS", want TRANSIENT or POISON`},
		{name: "history try", change: func(d *message.Document) { d.History[0].Try = 0 }, field: "history[0].try", problem: "want at least 1"},
		{name: "history time", change: func(d *message.Document) { d.History[0].At = time.Time{} }, field: "history[0].at", problem: "missing"},
		{name: "next", change: func(d *message.Document) { d.Next = "LATER" }, field: "next", problem: `"LATER", want one of ["DONE" "WAIT" "ROOM" "PARK"]`},
		{name: "wait", change: func(d *message.Document) { d.WaitSeconds = -5 }, field: "waitSeconds", problem: "-5"},
		{name: "negative throttled", change: func(d *message.Document) { d.Throttled = -1 }, field: "throttled", problem: "-1, want at least 0"},
		{name: "decision", change: func(d *message.Document) { d.Decision = "MAYBE" }, field: "decision", problem: `want one of ["PROCEED" "CANARY" "WAIT" "QUEUE" "QUARANTINE" "HOLD" "DELAY"]`},
		{name: "outcome", change: func(d *message.Document) { d.Outcome = "FAILED" }, field: "outcome", problem: `want one of ["SUCCESS" "TRANSIENT" "POISON" "THROTTLED"]`},
		{name: "breaker state", change: func(d *message.Document) { d.BreakerState = "AJAR" }, field: "breakerState", problem: `unknown state "AJAR"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := validDocument(t)
			tt.change(&doc)
			fields := fieldErrors(t, doc.Validate())
			require.Len(t, fields, 1, "%v", fields)
			assert.Contains(t, fields[tt.field], `document field "`+tt.field+`"`)
			assert.Contains(t, fields[tt.field], tt.problem)
		})
	}
}

func TestValidateAcceptsEveryRoute(t *testing.T) {
	for _, next := range []message.Next{message.NextDone, message.NextWait, message.NextRoom, message.NextPark} {
		t.Run(string(next), func(t *testing.T) {
			doc := validDocument(t)
			doc.Next, doc.Decision, doc.Outcome, doc.BreakerState = next, "CANARY", "SUCCESS", "HALF_OPEN"
			assert.NoError(t, doc.Validate())
		})
	}
}

// TestValidateRejectsContinue: the continuation route is gone; a document
// still routed to it (from before the redesign) is invalid, not silently
// parked.
func TestValidateRejectsContinue(t *testing.T) {
	doc := validDocument(t)
	doc.Next = "CONTINUE"
	assert.Contains(t, fieldErrors(t, doc.Validate()), "next")
}

// TestDocumentNotBeforeAndRuns: a document bound for the room carries when
// it may go and how many executions its round trip had; both survive the
// trip through JSON, and are left out while unset.
func TestDocumentNotBeforeAndRuns(t *testing.T) {
	doc := validDocument(t)
	raw, err := json.Marshal(doc)
	require.NoError(t, err)
	assert.NotContains(t, string(raw), `"notBefore"`)
	assert.NotContains(t, string(raw), `"runs"`)

	doc.Next, doc.Runs = message.NextRoom, 2
	doc.NotBefore = time.Date(2026, 1, 1, 0, 15, 0, 5e8, time.UTC)
	raw, err = json.Marshal(doc)
	require.NoError(t, err)
	assert.Contains(t, string(raw), `"notBefore":"2026-01-01T00:15:00.5Z"`)
	assert.Contains(t, string(raw), `"runs":2`)
	back, err := message.ParseDocument(raw)
	require.NoError(t, err)
	assert.True(t, doc.NotBefore.Equal(back.NotBefore))
	assert.Equal(t, 2, back.Runs)
	assert.Equal(t, doc.ExecutionName(), back.ExecutionName())
}

func TestValidateReportsEveryField(t *testing.T) {
	fields := fieldErrors(t, message.Document{Attempt: -1, Next: "?"}.Validate())
	assert.ElementsMatch(t, []string{"message.messageId", "originId", "attempt", "breakerKey", "receivedAt", "next"}, slices.Collect(maps.Keys(fields)))
}

func TestParseDocumentErrors(t *testing.T) {
	tests := []struct {
		name    string
		change  func(m map[string]any)
		raw     string
		field   string
		problem string
	}{
		{name: "attempt as a string", change: func(m map[string]any) { m["attempt"] = "3" }, field: "attempt", problem: "JSON string, want int"},
		{name: "message as a string", change: func(m map[string]any) { m["message"] = "hello" }, field: "message", problem: "JSON string"},
		{name: "body as a number", change: func(m map[string]any) { m["message"].(map[string]any)["body"] = 5 }, field: "message.body", problem: "JSON number, want string"},
		{name: "history as an object", change: func(m map[string]any) { m["history"] = map[string]any{} }, field: "history", problem: "JSON object"},
		{name: "missing origin", change: func(m map[string]any) { delete(m, "originId") }, field: "originId", problem: "missing"},
		{name: "receive time not a time", change: func(m map[string]any) { m["receivedAt"] = "yesterday" }, field: "receivedAt", problem: `parsing time "yesterday"`},
		{name: "failure time not a time", change: func(m map[string]any) { m["history"].([]any)[0].(map[string]any)["at"] = "noon" }, field: "history[0].at", problem: `parsing time "noon"`},
		{name: "a failure's try as a string", change: func(m map[string]any) { m["history"].([]any)[0].(map[string]any)["try"] = "1" }, field: "history.try", problem: "JSON string, want int"},
		{name: "receive time as a number", change: func(m map[string]any) { m["receivedAt"] = 5 }, problem: "not a JSON document: Time.UnmarshalJSON"},
		{name: "not JSON", raw: "{", problem: "not a JSON document"},
		{name: "JSON null", raw: "null", field: "message.messageId", problem: "missing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := []byte(tt.raw)
			if tt.change != nil {
				var m map[string]any
				require.NoError(t, json.Unmarshal(golden(t, "document.json"), &m))
				tt.change(m)
				var err error
				data, err = json.Marshal(m)
				require.NoError(t, err)
			}
			_, err := message.ParseDocument(data)
			require.Error(t, err)
			assert.ErrorIs(t, err, message.ErrInvalidDocument)
			assert.Contains(t, err.Error(), tt.problem)
			if tt.field != "" {
				assert.Contains(t, fieldErrors(t, err), tt.field)
			}
		})
	}
}

func TestFieldErrorMessage(t *testing.T) {
	err := &message.FieldError{Field: "attempt", Problem: "0, want at least 1"}
	assert.Equal(t, `message: document field "attempt": 0, want at least 1`, err.Error())
	assert.True(t, errors.Is(err, message.ErrInvalidDocument))
}
