package delivery

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/message"
)

// KeyPrefix starts the partition key of every delivery record.
const KeyPrefix = "delivery#"

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
	return map[string]types.AttributeValue{attrPK: str(KeyPrefix + id.String())}
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
	attrPK          = "pk"
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
	item[attrStatus] = str(string(InProgress))
	item[attrHolder] = str(r.Holder)
	item[attrGeneration] = num(r.Ticket.Generation)
	item[attrBeganAt] = timestamp(r.BeganAt)
	item[attrExpiresAt] = num(r.ExpiresAt.UnixMilli())
	item[attrTTL] = num(r.BeganAt.Add(RecordTTL).Unix())
	if r.Ticket.LeaseID != "" {
		item[attrLeaseID] = str(r.Ticket.LeaseID)
	}
	return item
}

// decode reads a stored item of the record id.
func decode(id ID, item map[string]types.AttributeValue) (Record, error) {
	f := fields{item: item}
	r := Record{
		ID:        id,
		Status:    Status(f.str(attrStatus, true)),
		Holder:    f.str(attrHolder, true),
		Ticket:    breaker.Ticket{Generation: f.int64(attrGeneration), LeaseID: f.str(attrLeaseID, false)},
		BeganAt:   f.time(attrBeganAt, true),
		ExpiresAt: time.UnixMilli(f.int64(attrExpiresAt)).UTC(),
		ErrorType: f.str(attrErrorType, false),
		Message:   f.str(attrMessage, false),
	}
	if r.Status != InProgress && r.Status != Completed && f.err == nil {
		f.fail(attrStatus, "unknown status %q", r.Status)
	}
	if r.Status == Completed {
		r.CompletedAt = f.time(attrCompletedAt, true)
		if name := f.str(attrOutcome, true); f.err == nil {
			o, err := breaker.ParseOutcome(name)
			if err != nil {
				f.fail(attrOutcome, "unknown outcome %q", name)
			}
			r.Outcome = o
		}
	}
	if f.err != nil {
		return Record{}, fmt.Errorf("%w: delivery %q: %w", ErrMalformed, id.String(), f.err)
	}
	return r, nil
}

// fields reads typed attributes of one item, keeping the first problem.
type fields struct {
	item map[string]types.AttributeValue
	err  error
}

func (f *fields) fail(name, format string, args ...any) {
	if f.err == nil {
		f.err = fmt.Errorf("attribute %q: %s", name, fmt.Sprintf(format, args...))
	}
}

// str reads an S attribute; absent is "" (a problem when required).
func (f *fields) str(name string, required bool) string {
	switch av := f.item[name].(type) {
	case nil:
		if required {
			f.fail(name, "missing")
		}
		return ""
	case *types.AttributeValueMemberS:
		return av.Value
	default:
		f.fail(name, "want a string (S), got %s", typeName(av))
		return ""
	}
}

// int64 reads a required integer N attribute.
func (f *fields) int64(name string) int64 {
	av, ok := f.item[name].(*types.AttributeValueMemberN)
	if !ok {
		if f.item[name] == nil {
			f.fail(name, "missing")
		} else {
			f.fail(name, "want a number (N), got %s", typeName(f.item[name]))
		}
		return 0
	}
	v, err := strconv.ParseInt(av.Value, 10, 64)
	if err != nil {
		f.fail(name, "want a 64-bit integer, got %q", av.Value)
	}
	return v
}

// time reads an RFC 3339 S attribute.
func (f *fields) time(name string, required bool) time.Time {
	s := f.str(name, required)
	if s == "" {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		f.fail(name, "want an RFC 3339 time, got %q", s)
	}
	return t
}

// typeName is the DynamoDB type code of av, e.g. "S" or "BOOL".
func typeName(av types.AttributeValue) string {
	return strings.TrimPrefix(fmt.Sprintf("%T", av), "*types.AttributeValueMember")
}

func str(s string) types.AttributeValue { return &types.AttributeValueMemberS{Value: s} }

func num(n int64) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(n, 10)}
}

// timestamp is t in UTC with nanoseconds, as the breaker rows store times.
func timestamp(t time.Time) types.AttributeValue {
	return str(t.UTC().Format(time.RFC3339Nano))
}
