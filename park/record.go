package park

import (
	"fmt"
	"time"

	"github.com/redrive/redrive/message"
	"github.com/redrive/redrive/park/lotindex"
)

// Record is what a parked message carries in its "redrive" attribute: its
// lineage (origin id, attempt, last error, failure history) and why and
// where it was parked. Its JSON is the lineage's plus the fields below, so
// the starter reads a parked message that comes back as an ordinary
// lineage.
type Record struct {
	message.Lineage
	// MessageTag is the parked message's message.Document.MessageTag,
	// which tells apart different messages of one lineage; empty on a
	// first attempt. With the origin id and attempt it names the message
	// in the lot's index (Key), whatever copy of it the lot holds.
	MessageTag string `json:"messageTag,omitempty"`
	// Tries counts delivery tries in the last round trip.
	Tries int `json:"tries"`
	// Runs counts the executions the last round trip had before the one
	// that parked it (one per release from the waiting room).
	Runs int `json:"runs,omitempty"`
	// BreakerKey names the breaker the message was delivered through.
	BreakerKey string `json:"breakerKey,omitempty"`
	// MessageGroupID is a FIFO message's group; a FIFO parking lot keeps
	// the message in it.
	MessageGroupID string `json:"messageGroupId,omitempty"`
	// BreakerState is the breaker's state at the last Attempt.
	BreakerState string `json:"breakerState,omitempty"`
	// Reason says why the message was parked.
	Reason string `json:"parkReason"`
	// Failure is the task error a Catch routed to the Park state, if that
	// is why.
	Failure *message.TaskFailure `json:"failure,omitempty"`
	// ExecutionARN is the execution that parked the message; empty when
	// the starter parked it before starting one.
	ExecutionARN string `json:"executionArn,omitempty"`
	// ParkedAt is when the message was parked.
	ParkedAt time.Time `json:"parkedAt"`
	// MalformedLineage is the undecodable "redrive" attribute the message
	// arrived with, kept here because the Record replaces it.
	MalformedLineage string `json:"malformedLineage,omitempty"`
	// Truncated reports that parts of the Record were shortened or dropped
	// to fit the parking lot's message size limit (see Lot.Park).
	Truncated bool `json:"truncated,omitempty"`
}

// ErrorType is the error type of the record's last failure: the task
// error that sent the message to the Park state, else the newest failure
// in its history; empty when it has none. The parking lot's index and
// replay filters read it.
func (r Record) ErrorType() string {
	if r.Failure != nil {
		return r.Failure.Error
	}
	if n := len(r.History); n > 0 {
		return r.History[n-1].ErrorType
	}
	return ""
}

// Key names the parked message in the lot's index: every copy of one
// park (a retried park sends it again) has the same Key.
func (r Record) Key() lotindex.Key {
	return lotindex.Key{OriginID: r.OriginID, Attempt: r.Attempt, Tag: r.MessageTag}
}

// RecordOf is the Record of a document the state machine parks:
// executionARN is the parking execution. The reason is the document's
// failure when a Catch sent it (the failure is why the Park state ran),
// else its park reason.
func RecordOf(doc message.Document, executionARN string, now time.Time) Record {
	var group string
	if doc.FIFO != nil {
		group = doc.FIFO.GroupID
	}
	return Record{
		MessageGroupID: group,
		Lineage:        doc.Lineage(),
		MessageTag:     doc.MessageTag(),
		Tries:          doc.Tries,
		Runs:           doc.Runs,
		BreakerKey:     doc.BreakerKey,
		BreakerState:   doc.BreakerState,
		Reason:         reasonOf(doc),
		Failure:        doc.Failure,
		ExecutionARN:   executionARN,
		ParkedAt:       now,
	}
}

// reasonOf says why the state machine parked doc.
func reasonOf(doc message.Document) string {
	switch {
	case doc.Failure != nil:
		return "task failed: " + doc.Failure.Error
	case doc.ParkReason != "":
		return doc.ParkReason
	}
	return fmt.Sprintf("no park reason given (next %q)", doc.Next)
}
