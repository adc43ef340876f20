package message

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"time"
)

// Next tells the state machine's Route state where to go after an Attempt.
type Next string

// The routes the attempt state machine knows.
const (
	// NextDone: delivered; the execution succeeds.
	NextDone Next = "DONE"
	// NextWait: wait WaitSeconds (a short backoff, within the execution),
	// then attempt again.
	NextWait Next = "WAIT"
	// NextRoom: the document goes into its breaker's waiting room, to be
	// released by the breaker's controller no sooner than NotBefore; the
	// execution ends.
	NextRoom Next = "ROOM"
	// NextPark: send the message to the parking lot.
	NextPark Next = "PARK"
)

// The Attempt's decisions on a routing rule's verdict (rules), beside
// the breaker's verdicts, in Document.Decision.
const (
	DecisionQuarantine = "QUARANTINE"
	DecisionHold       = "HOLD"
	DecisionDelay      = "DELAY"
)

// Document is the redrive execution's input and the Attempt task's output:
// the state machine passes it from task to task whole. String fields that
// name breaker values use the breaker package's names ("HALF_OPEN",
// "CANARY", "TRANSIENT").
type Document struct {
	// Message is the message being redriven, unwrapped, without its
	// "redrive" attribute (the fields below carry the lineage).
	Message Message `json:"message"`
	// OriginID is the message's first SQS message id.
	OriginID string `json:"originId"`
	// Attempt is the DLQ round trip, from 1.
	Attempt int `json:"attempt"`
	// BreakerKey names the breaker the message is delivered through.
	BreakerKey string `json:"breakerKey"`
	// ReceivedAt is when the starter received the message.
	ReceivedAt time.Time `json:"receivedAt"`
	// Tries counts delivery tries in this round trip that count toward
	// MAX_ATTEMPTS.
	Tries int `json:"tries"`
	// Throttled counts delivery tries the target throttled: they use no
	// attempt, the message waits in the room instead.
	Throttled int `json:"throttled,omitempty"`
	// Cycles counts Attempt cycles in this execution: a delivery try
	// waits within its execution (NextWait) only for its first few
	// cycles, so an Express execution ends far within its five minutes.
	Cycles int `json:"cycles"`
	// Execution is the current execution's, as whoever started it (the
	// starter, the controller) put it in its input: the Attempt keeps
	// every execution within Express's five minutes by it. Nil in an
	// execution started otherwise (by hand), which is not kept to it.
	Execution *Execution `json:"execution,omitempty"`
	// FailedRuns counts this round trip's executions whose Attempt Lambda
	// could not run (throttled, timed out, failed), each sending the
	// document to the room: past a few, it is parked.
	FailedRuns int `json:"failedRuns,omitempty"`
	// Runs counts the executions this round trip had before this one:
	// each release from the room starts the next, named after it.
	Runs int `json:"runs,omitempty"`
	// HeldBy names the routing rule (rules) holding the message: it waits
	// in its breaker's room and is looked at again every minute until the
	// rule ends or is removed.
	HeldBy string `json:"heldBy,omitempty"`
	// FIFO is what a message from a FIFO dead-letter queue keeps of its
	// place there; nil for a standard queue's.
	FIFO *FIFO `json:"fifo,omitempty"`
	// BodyRef, when set, is where the message's body is kept (package
	// claimcheck): it was too large for the document, whose Message.Body
	// is then empty.
	BodyRef *BodyRef `json:"bodyRef,omitempty"`
	// History holds the most recent failures, oldest first, at most
	// MaxHistory.
	History []Failure `json:"history,omitempty"`
	// Replay, ReplayAttempt and ReplayOf are the lineage's (see
	// Lineage): the replay that last sent the message back from the
	// parking lot, the attempt it sent it on, and the message's id in the
	// lot. They travel on, so a message parked again shows which replay
	// sent it back.
	Replay        string `json:"replay,omitempty"`
	ReplayAttempt int    `json:"replayAttempt,omitempty"`
	ReplayOf      string `json:"replayOf,omitempty"`

	// Next is where the state machine goes after the Attempt; empty in an
	// execution's input.
	Next Next `json:"next"`
	// WaitSeconds is how long to wait when Next is NextWait.
	WaitSeconds int `json:"waitSeconds"`
	// NotBefore is when a document bound for the room (NextRoom) may be
	// released: the end of its backoff, a delay rule's or a cooldown;
	// zero means as soon as the controller's pace allows.
	NotBefore time.Time `json:"notBefore,omitzero"`
	// Decision is the breaker's verdict: "PROCEED", "CANARY", "WAIT" or
	// "QUEUE"; or a routing rule's: "QUARANTINE", "HOLD" or "DELAY".
	Decision string `json:"decision"`
	// Outcome is the delivery's outcome: "SUCCESS", "TRANSIENT",
	// "POISON", "THROTTLED", or "" when nothing was delivered.
	Outcome string `json:"outcome"`
	// BreakerState is the breaker's state after the Attempt.
	BreakerState string `json:"breakerState"`
	// ParkReason says why Next is NextPark.
	ParkReason string `json:"parkReason"`

	// Failure is set by the state machine's Catch (ResultPath $.failure)
	// when a task failed for good, for the Park task to report.
	Failure *TaskFailure `json:"failure,omitempty"`
	// TableFailure is set by the Attempt state's Catch (ResultPath
	// $.tableFailure) when the table kept failing the Attempt
	// (TableUnavailable) through the state's Retry; TableSince is when the
	// Attempt first saw that. While either is set, the Attempt waits out
	// further table failures instead of failing, up to TABLE_RETRY_BUDGET
	// after TableSince, then parks the message.
	TableFailure *TaskFailure `json:"tableFailure,omitempty"`
	TableSince   time.Time    `json:"tableSince,omitzero"`
}

// Execution is what a document knows of the execution that carries it.
type Execution struct {
	// StartTime is when the execution started.
	StartTime time.Time `json:"startTime"`
}

// BodyRef is a body kept in S3 by claim check: where, how large and its
// SHA-256, which the body is checked against when it is fetched back.
type BodyRef struct {
	Bucket string `json:"bucket"`
	Key    string `json:"key"`
	Size   int    `json:"size"`
	SHA256 string `json:"sha256"`
}

// TaskFailure is a Step Functions error as a Catch records it.
type TaskFailure struct {
	// Error is the error name, e.g. "States.Timeout" or "InvalidDocument".
	Error string `json:"Error"`
	// Cause is the error's details; for a Lambda error, its JSON.
	Cause string `json:"Cause"`
}

// NewDocument starts the execution document for a message taken off the DLQ
// at receivedAt: it unwraps an envelope, and reads the lineage. A message
// that comes back with lineage starts the next round trip (Attempt is the
// lineage's plus one) and keeps its origin and failure history; a new one
// is attempt 1 with its own id as origin. A message from a FIFO queue
// keeps its group, deduplication id and sequence number (FIFO). The
// caller sets BreakerKey. A malformed lineage is an error matching
// ErrMalformedLineage.
func NewDocument(msg Message, receivedAt time.Time) (Document, error) {
	inner, _, err := Unwrap(msg)
	if err != nil {
		return Document{}, err
	}
	lin, found, err := lineageAttribute(inner)
	if err != nil {
		return Document{}, err
	}
	inner.MessageAttributes = maps.Clone(inner.MessageAttributes)
	delete(inner.MessageAttributes, AttributeName)
	if len(inner.MessageAttributes) == 0 {
		inner.MessageAttributes = nil
	}
	doc := Document{Message: inner, OriginID: lin.OriginID, Attempt: lin.Attempt, ReceivedAt: receivedAt, History: lin.History,
		Replay: lin.Replay, ReplayAttempt: lin.ReplayAttempt, ReplayOf: lin.ReplayOf, FIFO: fifoOf(msg)}
	if found {
		doc.Attempt++
	}
	return doc, nil
}

// Lineage is the lineage a redriven copy of the document's message carries.
func (d Document) Lineage() Lineage {
	lin := Lineage{OriginID: d.OriginID, Attempt: d.Attempt, History: slices.Clone(d.History), Replay: d.Replay, ReplayAttempt: d.ReplayAttempt, ReplayOf: d.ReplayOf}
	if n := len(d.History); n > 0 {
		lin.LastError = d.History[n-1].summary()
	}
	return lin
}

// Replayed reports whether this round trip is a replay's: the message
// came to the DLQ from the parking lot, sent back by replay d.Replay, not
// because a consumer failed it.
func (d Document) Replayed() bool {
	return d.Replay != "" && d.Attempt == d.ReplayAttempt+1
}

// LastTurn is when the message last had its turn: its last failed try, or
// its arrival (ReceivedAt) if no try failed since. The waiting room lines
// messages up by it, and a routing rule's delay counts from it.
func (d Document) LastTurn() time.Time {
	last := d.ReceivedAt
	if n := len(d.History); n > 0 && d.History[n-1].At.After(last) {
		last = d.History[n-1].At
	}
	return last
}

// AddFailure appends f to the history, its message truncated to
// MaxFailureMessage bytes, dropping the oldest beyond MaxHistory.
func (d *Document) AddFailure(f Failure) {
	d.History = appendFailure(d.History, f)
}

// ForRedrive returns the document's message with its lineage, ready to send
// back to a queue or to the parking lot (see WithLineage).
func ForRedrive(d Document) (msg Message, enveloped bool, err error) {
	return WithLineage(d.Message, d.Lineage())
}

// Input encodes d as an execution input, the way Step Functions measures
// it: compact JSON without HTML escaping, so a body full of '<', '>' or
// '&' counts one byte each, not six.
func (d Document) Input() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(d); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
