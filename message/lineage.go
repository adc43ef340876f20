package message

import (
	"encoding/json"
	"fmt"
	"maps"
	"time"
	"unicode/utf8"

	"github.com/aws/aws-lambda-go/events"
)

const (
	// AttributeName is the message attribute that carries the Lineage.
	AttributeName = "redrive"
	// MaxAttributes is how many message attributes SQS allows on a message.
	MaxAttributes = 10
	// MaxHistory is how many failures a Lineage or Document keeps (the most
	// recent), so documents and attributes stay bounded.
	MaxHistory = 10
	// MaxFailureMessage bounds a Failure's message, in bytes.
	MaxFailureMessage = 256
	// MaxOriginID bounds an origin id, in bytes: it is part of the
	// delivery records' keys, far below DynamoDB's 2,048-byte limit.
	MaxOriginID = 1024
	// MaxAttempt bounds the DLQ round trips of one message (its attempt
	// number): far beyond any real redrive, and far from overflowing.
	MaxAttempt = 100_000
)

// Outcome names of a Failure: breaker.Transient and breaker.Poison as
// strings.
const (
	OutcomeTransient = "TRANSIENT"
	OutcomePoison    = "POISON"
)

// Lineage is what travels with a message across DLQ round trips, in the
// "redrive" attribute as JSON.
type Lineage struct {
	// OriginID is the first SQS message id the message had; it names the
	// message for its whole life (execution names, delivery records).
	OriginID string `json:"originId"`
	// Attempt is the DLQ round trip the message was sent on, from 1.
	Attempt int `json:"attempt"`
	// LastError summarises the newest failure, "errorType: message".
	LastError string `json:"lastError,omitempty"`
	// History holds the most recent failures, oldest first, at most
	// MaxHistory.
	History []Failure `json:"history,omitempty"`
	// Replay is the id of the replay (park/replay) that last sent the
	// message back from the parking lot; empty if none did.
	Replay string `json:"replay,omitempty"`
	// ReplayAttempt is the attempt the replay sent the message back on:
	// the round trip after it (Attempt ReplayAttempt+1) is the replay's,
	// so its arrival in the DLQ is no consumer failure, while a later
	// return still is.
	ReplayAttempt int `json:"replayAttempt,omitempty"`
	// ReplayOf is the id the message had in the parking lot when the
	// replay sent it back. Copies of one parked message sent back twice
	// (a replay interrupted between sending a copy and deleting the
	// parked message, then run again) share it, and so share their
	// execution name and delivery records (see Document.MessageTag): the
	// second copy is a duplicate, never a second delivery.
	ReplayOf string `json:"replayOf,omitempty"`
}

// MaxReplayID bounds a replay id and a ReplayOf, in bytes.
const MaxReplayID = 128

// Replayed reports whether the round trip after the lineage's attempt
// (the one a message carrying it starts) is a replay's: the replay sent
// the message back with this lineage, rather than a consumer failing it.
func (l Lineage) Replayed() bool {
	return l.Replay != "" && l.ReplayAttempt == l.Attempt
}

// Failure is one failed delivery try.
type Failure struct {
	// At is when the try failed.
	At time.Time `json:"at"`
	// Try is the delivery try within its round trip, from 1.
	Try int `json:"try"`
	// Outcome is OutcomeTransient or OutcomePoison.
	Outcome string `json:"outcome"`
	// ErrorType classifies the failure, e.g. "BatchItemFailure".
	ErrorType string `json:"errorType,omitempty"`
	// Message is the error message, at most MaxFailureMessage bytes.
	Message string `json:"message,omitempty"`
	// BreakerState is the breaker's state after the outcome was recorded.
	BreakerState string `json:"breakerState,omitempty"`
}

// summary is the failure as a LastError line.
func (f Failure) summary() string {
	switch {
	case f.ErrorType == "":
		return f.Message
	case f.Message == "":
		return f.ErrorType
	}
	return f.ErrorType + ": " + f.Message
}

// appendFailure appends f, its message truncated, keeping the newest
// MaxHistory failures in a fresh slice.
func appendFailure(history []Failure, f Failure) []Failure {
	f.Message = Truncate(f.Message, MaxFailureMessage)
	keep := min(len(history), MaxHistory-1)
	out := make([]Failure, 0, keep+1)
	out = append(out, history[len(history)-keep:]...)
	return append(out, f)
}

// MaxParkReason bounds a document's ParkReason, in bytes: a reason quotes
// what it can (an error, a rule), and every field a task adds to a
// document must stay small, or the execution would pass Step Functions'
// payload limit.
const MaxParkReason = 1 << 10

// truncatedMark ends a park reason that was cut.
const truncatedMark = " … (truncated)"

// BoundReason is a park reason within MaxParkReason: reason as it is, or
// cut, without splitting a UTF-8 sequence, and marked as cut.
func BoundReason(reason string) string {
	if len(reason) <= MaxParkReason {
		return reason
	}
	return Truncate(reason, MaxParkReason-len(truncatedMark)) + truncatedMark
}

// Truncate cuts s to at most max bytes without splitting a UTF-8 sequence.
func Truncate(s string, max int) string {
	if len(s) <= max {
		return s
	}
	if max <= 0 {
		return ""
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}

// LineageOf returns the lineage msg carries, from its "redrive" attribute or
// its envelope; found is false for a message without one, which gets a new
// lineage: its own id as origin, attempt 1. A lineage that does not decode
// is an error matching ErrMalformedLineage that names the attribute.
func LineageOf(msg Message) (lin Lineage, found bool, err error) {
	inner, _, err := Unwrap(msg)
	if err != nil {
		return Lineage{}, false, err
	}
	return lineageAttribute(inner)
}

// LineageOfEvent is LineageOf(FromEvent(e)) without copying e: a consumer
// reads every record's lineage.
func LineageOfEvent(e events.SQSMessage) (lin Lineage, found bool, err error) {
	if mightBeEnvelope(e.Body) {
		return LineageOf(FromEvent(e))
	}
	a, ok := e.MessageAttributes[AttributeName]
	return lineageFrom(e.MessageId, eventAttribute(a), ok)
}

// lineageAttribute reads the "redrive" attribute of an unwrapped message.
func lineageAttribute(msg Message) (Lineage, bool, error) {
	a, ok := msg.MessageAttributes[AttributeName]
	return lineageFrom(msg.ID, a, ok)
}

// lineageFrom reads a, the "redrive" attribute (ok says it is there) of
// the unwrapped message id.
func lineageFrom(id string, a Attribute, ok bool) (Lineage, bool, error) {
	if !ok {
		return Lineage{OriginID: id, Attempt: 1}, false, nil
	}
	if !a.IsString() {
		return Lineage{}, false, fmt.Errorf("%w: attribute %q: data type %q, want String", ErrMalformedLineage, AttributeName, a.DataType)
	}
	lin, err := decodeLineage([]byte(a.StringValue))
	if err != nil {
		return Lineage{}, false, fmt.Errorf("%w: attribute %q: %w", ErrMalformedLineage, AttributeName, err)
	}
	return lin, true, nil
}

// decodeLineage parses and checks a lineage's JSON. A history longer than
// MaxHistory keeps its newest failures.
func decodeLineage(data []byte) (Lineage, error) {
	var lin Lineage
	if err := json.Unmarshal(data, &lin); err != nil {
		return Lineage{}, fmt.Errorf("not a lineage JSON object: %w", err)
	}
	switch {
	case lin.OriginID == "":
		return Lineage{}, fmt.Errorf("originId is missing")
	case len(lin.OriginID) > MaxOriginID:
		return Lineage{}, fmt.Errorf("originId of %d bytes, want at most %d", len(lin.OriginID), MaxOriginID)
	case lin.Attempt < 1 || lin.Attempt >= MaxAttempt:
		return Lineage{}, fmt.Errorf("attempt %d, want 1 to %d", lin.Attempt, MaxAttempt-1)
	}
	switch {
	case len(lin.Replay) > MaxReplayID:
		return Lineage{}, fmt.Errorf("replay id of %d bytes, want at most %d", len(lin.Replay), MaxReplayID)
	case len(lin.ReplayOf) > MaxReplayID:
		return Lineage{}, fmt.Errorf("replayOf of %d bytes, want at most %d", len(lin.ReplayOf), MaxReplayID)
	case lin.ReplayAttempt < 0 || lin.ReplayAttempt > lin.Attempt:
		return Lineage{}, fmt.Errorf("replayAttempt %d, want 0 to the attempt, %d", lin.ReplayAttempt, lin.Attempt)
	}
	for i, f := range lin.History {
		if f.Outcome != OutcomeTransient && f.Outcome != OutcomePoison {
			return Lineage{}, fmt.Errorf("history[%d].outcome %q, want %s or %s", i, f.Outcome, OutcomeTransient, OutcomePoison)
		}
	}
	if n := len(lin.History); n > MaxHistory {
		lin.History = lin.History[n-MaxHistory:]
	}
	return lin, nil
}

// WithLineage returns msg carrying lin in its "redrive" attribute, replacing
// any lineage it had. When the other attributes already use all
// MaxAttributes, it returns an envelope instead (enveloped is true): a
// message whose body holds the original body, attributes and lineage as
// JSON; Unwrap reverses either form. msg must not be an envelope itself.
func WithLineage(msg Message, lin Lineage) (out Message, enveloped bool, err error) {
	encoded, err := json.Marshal(lin)
	if err != nil {
		return Message{}, false, fmt.Errorf("encode lineage of %q: %w", lin.OriginID, err)
	}
	others := maps.Clone(msg.MessageAttributes)
	delete(others, AttributeName)
	if len(others) < MaxAttributes {
		out = msg
		out.MessageAttributes = others
		out.setAttribute(AttributeName, StringAttribute(string(encoded)))
		return out, false, nil
	}
	body, err := json.Marshal(envelope{Version: envelopeVersion, Body: &msg.Body, MessageAttributes: others, Lineage: encoded})
	if err != nil {
		return Message{}, false, fmt.Errorf("wrap message %q in an envelope: %w", msg.ID, err)
	}
	return Message{ID: msg.ID, Body: string(body), Attributes: maps.Clone(msg.Attributes)}, true, nil
}
