package delivery

import (
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/dynamo"
	"github.com/redrive/redrive/message"
)

// RecordTTL is how long a record is kept after its last write, through the
// table's TTL on "ttl": far longer than any retry of the Attempt task.
const RecordTTL = 7 * 24 * time.Hour

// maxOriginID bounds an origin id, keeping the key far below DynamoDB's
// 2048-byte partition key limit.
const maxOriginID = message.MaxOriginID

// ErrInvalid reports a request the ledger refuses before calling DynamoDB:
// an incomplete ID, a lease that is not positive, an unknown outcome.
var ErrInvalid = errors.New("delivery: invalid request")

// ErrMalformed reports a stored record that does not decode.
var ErrMalformed = errors.New("delivery: malformed record")

// ID names one delivery try of a message.
type ID struct {
	// OriginID is the message's first SQS message id.
	OriginID string
	// Attempt is the DLQ round trip, from 1.
	Attempt int
	// Try is the delivery try within the round trip, from 1.
	Try int
	// Message tells apart different messages that carry the same lineage
	// (message.Document.MessageTag); empty on the first attempt.
	Message string
}

// String is the ID as it appears in the record's key and in errors,
// "<originId>#<attempt>#<try>", or "<originId>#<attempt>-<message>#<try>".
func (id ID) String() string {
	if id.Message != "" {
		return fmt.Sprintf("%s#%d-%s#%d", id.OriginID, id.Attempt, id.Message, id.Try)
	}
	return fmt.Sprintf("%s#%d#%d", id.OriginID, id.Attempt, id.Try)
}

func (id ID) validate() error {
	switch {
	case id.OriginID == "":
		return fmt.Errorf("%w: empty origin id", ErrInvalid)
	case len(id.OriginID) > maxOriginID:
		return fmt.Errorf("%w: origin id of %d bytes, want at most %d", ErrInvalid, len(id.OriginID), maxOriginID)
	case id.Attempt < 1:
		return fmt.Errorf("%w: attempt %d, want at least 1", ErrInvalid, id.Attempt)
	case id.Try < 1:
		return fmt.Errorf("%w: try %d, want at least 1", ErrInvalid, id.Try)
	}
	return nil
}

// key is the record's primary key.
func (id ID) key() map[string]types.AttributeValue {
	return map[string]types.AttributeValue{dynamo.PKAttr: dynamo.S(dynamo.DeliveryPrefix + id.String())}
}

// Status is where a delivery try stands.
type Status string

// The statuses of a record.
const (
	// InProgress: a holder is delivering, until ExpiresAt.
	InProgress Status = "IN_PROGRESS"
	// Completed: the delivery happened; Outcome says how it went.
	Completed Status = "COMPLETED"
)

// Record is one delivery try as stored.
type Record struct {
	// ID names the try.
	ID ID
	// Status is InProgress or Completed.
	Status Status
	// Ticket is the breaker admission the delivery was made under.
	Ticket breaker.Ticket
	// Holder identifies the invocation that took the record; Complete
	// must present it.
	Holder string
	// BeganAt is when the record was taken.
	BeganAt time.Time
	// ExpiresAt ends the holder's lease (millisecond precision); after it,
	// the next Begin takes the record over.
	ExpiresAt time.Time
	// Outcome, ErrorType and Message are the delivery's result, once
	// Completed.
	Outcome   breaker.Outcome
	ErrorType string
	Message   string
	// CompletedAt is when Complete stored the result.
	CompletedAt time.Time
	// TookOver says Begin took this record over from a holder whose lease
	// expired: that invocation died, and whether its consumer call went
	// through is unknown. It is not stored.
	TookOver bool
}

// expired reports whether r's lease has ended at now, at the millisecond
// precision the condition expressions compare.
func (r Record) expired(now time.Time) bool {
	return r.ExpiresAt.UnixMilli() <= now.UnixMilli()
}

// Attribute names of a record item (see the package doc for their types).
const (
	attrStatus      = "status"
	attrHolder      = "holder"
	attrGeneration  = "generation"
	attrLeaseID     = "lease_id"
	attrBeganAt     = "began_at"
	attrExpiresAt   = "expires_at"
	attrTTL         = "ttl"
	attrOutcome     = "outcome"
	attrErrorType   = "error_type"
	attrMessage     = "message"
	attrCompletedAt = "completed_at"
)

// encodeBegin is the item Begin writes.
func encodeBegin(r Record) map[string]types.AttributeValue {
	item := r.ID.key()
	item[attrStatus] = dynamo.S(string(InProgress))
	item[attrHolder] = dynamo.S(r.Holder)
	item[attrGeneration] = dynamo.N(r.Ticket.Generation)
	item[attrBeganAt] = dynamo.Time(r.BeganAt)
	item[attrExpiresAt] = dynamo.N(r.ExpiresAt.UnixMilli())
	item[attrTTL] = dynamo.N(r.BeganAt.Add(RecordTTL).Unix())
	if r.Ticket.LeaseID != "" {
		item[attrLeaseID] = dynamo.S(r.Ticket.LeaseID)
	}
	return item
}

// decode reads a stored item of the record id.
func decode(id ID, item map[string]types.AttributeValue) (Record, error) {
	f := dynamo.Read(item)
	r := Record{
		ID:        id,
		Status:    Status(f.Str(attrStatus, true)),
		Holder:    f.Str(attrHolder, true),
		Ticket:    breaker.Ticket{Generation: f.Int64(attrGeneration, true), LeaseID: f.Str(attrLeaseID, false)},
		BeganAt:   f.Time(attrBeganAt, true),
		ExpiresAt: time.UnixMilli(f.Int64(attrExpiresAt, true)).UTC(),
		ErrorType: f.Str(attrErrorType, false),
		Message:   f.Str(attrMessage, false),
	}
	if r.Status != InProgress && r.Status != Completed && f.Err() == nil {
		f.Fail(attrStatus, "unknown status %q", r.Status)
	}
	if r.Status == Completed {
		r.CompletedAt = f.Time(attrCompletedAt, true)
		if name := f.Str(attrOutcome, true); f.Err() == nil {
			o, err := breaker.ParseOutcome(name)
			if err != nil {
				f.Fail(attrOutcome, "unknown outcome %q", name)
			}
			r.Outcome = o
		}
	}
	if f.Err() != nil {
		return Record{}, fmt.Errorf("%w: delivery %q: %w", ErrMalformed, id.String(), f.Err())
	}
	return r, nil
}
