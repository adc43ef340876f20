package message

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	jsonv1 "github.com/go-json-experiment/json/v1"

	"github.com/redrive/redrive/breaker"
)

// FieldError names one field of a Document that is missing or malformed,
// by its JSON path (e.g. "history[2].outcome").
type FieldError struct {
	// Field is the JSON path of the field.
	Field string
	// Problem says what is wrong with it.
	Problem string
}

// Error implements error.
func (e *FieldError) Error() string {
	return fmt.Sprintf("message: document field %q: %s", e.Field, e.Problem)
}

// Unwrap makes errors.Is(err, ErrInvalidDocument) hold.
func (e *FieldError) Unwrap() error { return ErrInvalidDocument }

// The values a Document's breaker fields may hold, "" included where a
// field may be unset.
var (
	nexts     = []Next{"", NextDone, NextWait, NextRoom, NextPark}
	decisions = []string{"", breaker.Proceed.String(), breaker.Canary.String(), breaker.Wait.String(), breaker.Queue.String(),
		DecisionQuarantine, DecisionHold, DecisionDelay}
	outcomes = []string{"", breaker.Success.String(), breaker.Transient.String(), breaker.Poison.String(), breaker.Throttled.String()}
)

// Validate reports every missing or malformed field, joined into one error
// of *FieldError values; nil means the document can be attempted.
func (d Document) Validate() error {
	var errs []error
	check := func(bad bool, field, format string, args ...any) {
		if bad {
			errs = append(errs, &FieldError{Field: field, Problem: fmt.Sprintf(format, args...)})
		}
	}
	check(d.Message.ID == "", "message.messageId", "missing")
	check(d.OriginID == "", "originId", "missing")
	check(len(d.OriginID) > MaxOriginID, "originId", "%d bytes, want at most %d", len(d.OriginID), MaxOriginID)
	check(d.Attempt < 1 || d.Attempt > MaxAttempt, "attempt", "%d, want 1 to %d", d.Attempt, MaxAttempt)
	check(d.BreakerKey == "", "breakerKey", "missing")
	check(d.ReceivedAt.IsZero(), "receivedAt", "missing")
	check(d.Tries < 0, "tries", "%d, want at least 0", d.Tries)
	check(d.Throttled < 0, "throttled", "%d, want at least 0", d.Throttled)
	check(d.Cycles < 0, "cycles", "%d, want at least 0", d.Cycles)
	check(d.Runs < 0, "runs", "%d, want at least 0", d.Runs)
	check(d.FailedRuns < 0, "failedRuns", "%d, want at least 0", d.FailedRuns)
	if r := d.BodyRef; r != nil {
		check(r.Bucket == "" || r.Key == "", "bodyRef", "bucket %q, key %q: want both", r.Bucket, r.Key)
		check(r.Size <= 0 || len(r.SHA256) != 64, "bodyRef", "size %d, sha256 %q: want a positive size and 64 hex digits", r.Size, r.SHA256)
		check(d.Message.Body != "", "message.body", "%d bytes beside a bodyRef, want none", len(d.Message.Body))
	}
	if d.FIFO != nil {
		field, problem := checkFIFO(d.FIFO)
		check(problem != "", field, "%s", problem)
	}
	check(len(d.Replay) > MaxReplayID, "replay", "%d bytes, want at most %d", len(d.Replay), MaxReplayID)
	check(len(d.ReplayOf) > MaxReplayID, "replayOf", "%d bytes, want at most %d", len(d.ReplayOf), MaxReplayID)
	check(d.ReplayAttempt < 0 || (d.ReplayAttempt > 0 && d.ReplayAttempt >= d.Attempt), "replayAttempt", "%d, want 0 to the attempt less one, %d", d.ReplayAttempt, d.Attempt-1)
	check(len(d.History) > MaxHistory, "history", "%d failures, want at most %d", len(d.History), MaxHistory)
	for i, f := range d.History {
		field := fmt.Sprintf("history[%d]", i)
		check(f.Outcome != OutcomeTransient && f.Outcome != OutcomePoison, field+".outcome", "%q, want %s or %s", f.Outcome, OutcomeTransient, OutcomePoison)
		check(f.Try < 1, field+".try", "%d, want at least 1", f.Try)
		check(f.At.IsZero(), field+".at", "missing")
	}
	check(!slices.Contains(nexts, d.Next), "next", "%q, want one of %q", d.Next, nexts[1:])
	check(d.WaitSeconds < 0, "waitSeconds", "%d, want at least 0", d.WaitSeconds)
	check(!slices.Contains(decisions, d.Decision), "decision", "%q, want one of %q", d.Decision, decisions[1:])
	check(!slices.Contains(outcomes, d.Outcome), "outcome", "%q, want one of %q", d.Outcome, outcomes[1:])
	if d.BreakerState != "" {
		_, err := breaker.ParseState(d.BreakerState)
		check(err != nil, "breakerState", "unknown state %q", d.BreakerState)
	}
	return errors.Join(errs...)
}

// ParseDocument decodes and validates an execution document; a field of the
// wrong JSON type or a failed Validate is an error matching
// ErrInvalidDocument that names the field. It decodes as encoding/json
// does, in one pass (encoding/json/v2 with v1's semantics; every Attempt
// parses one), and again with encoding/json for its errors.
func ParseDocument(data []byte) (Document, error) {
	var d Document
	if jsonv1.Unmarshal(data, &d) != nil {
		// v2 words some errors otherwise: name the field from
		// encoding/json's, as a Lambda's own decoding does.
		d = Document{}
		if err := json.Unmarshal(data, &d); err != nil {
			return Document{}, decodeError(data, err)
		}
	}
	if err := d.Validate(); err != nil {
		return Document{}, err
	}
	return d, nil
}

// decodeError names the field a JSON decoding error of data is about.
func decodeError(data []byte, err error) error {
	if typeErr, ok := errors.AsType[*json.UnmarshalTypeError](err); ok && typeErr.Field != "" {
		return &FieldError{Field: typeErr.Field, Problem: fmt.Sprintf("JSON %s, want %s", typeErr.Value, typeErr.Type)}
	}
	if _, ok := errors.AsType[*time.ParseError](err); ok {
		if field := badTimeField(data); field != "" {
			return &FieldError{Field: field, Problem: err.Error() + " (want RFC 3339)"}
		}
	}
	return fmt.Errorf("%w: not a JSON document: %w", ErrInvalidDocument, err)
}

// badTimeField finds the time field that does not parse: encoding/json
// reports a time's error without its field.
func badTimeField(data []byte) string {
	var times struct {
		ReceivedAt json.RawMessage `json:"receivedAt"`
		History    []struct {
			At json.RawMessage `json:"at"`
		} `json:"history"`
	}
	bad := func(raw json.RawMessage) bool { return len(raw) > 0 && json.Unmarshal(raw, new(time.Time)) != nil }
	if json.Unmarshal(data, &times) != nil {
		return ""
	}
	if bad(times.ReceivedAt) {
		return "receivedAt"
	}
	for i, f := range times.History {
		if bad(f.At) {
			return fmt.Sprintf("history[%d].at", i)
		}
	}
	return ""
}
