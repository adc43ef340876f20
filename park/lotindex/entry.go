package lotindex

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/redrive/redrive/dynamo"
	"github.com/redrive/redrive/message"
)

// Attribute names of an index item. The table's partition key is pk;
// parked_day and parked_seq are the keys of the sparse index
// dynamo.ParkedIndex, which only index items carry.
const (
	attrDay       = dynamo.ParkedDayAttr
	attrSeq       = dynamo.ParkedSeqAttr
	attrBreaker   = "breaker"
	attrReason    = "reason_class"
	attrErrorType = "error_type"
	attrOriginID  = "origin_id"
	attrAttempt   = "attempt"
	attrParkedAt  = "parked_at"
	attrMessageID = "message_id"
	attrSize      = "body_size"
	attrTTL       = dynamo.TTLAttr
)

// dayLayout formats parked_day, the index's partition key.
const dayLayout = "2006-01-02"

// seqTime formats the parked time at the start of parked_seq: fixed width,
// so that the sort key orders by time (RFC 3339 with nanoseconds).
const seqTime = "2006-01-02T15:04:05.000000000Z"

// maxSeq is DynamoDB's limit on a sort key, in bytes; an origin id is cut
// to keep parked_seq within it (origin_id keeps the whole id).
const maxSeq = 1024

// None, as a Filter value, matches entries without that attribute; the
// CLI prints it for an empty one.
const None = "-"

// Entry is one parked message as the index holds it.
type Entry struct {
	// Breaker is the breaker key the message went through; empty for a
	// message parked without one (a document that did not decode).
	Breaker string
	// Reason is the class of the park reason (see ReasonClass), e.g.
	// "poison" or "exhausted".
	Reason string
	// ErrorType is the last failure's error type: the task error that
	// sent the message to the Park state, else the newest failure in its
	// history; empty when it has none.
	ErrorType string
	// OriginID and Attempt are the message's lineage.
	OriginID string
	Attempt  int
	// ParkedAt is when the message was parked.
	ParkedAt time.Time
	// MessageID is the parked message's id in the parking lot.
	MessageID string
	// Size is the message body's size in bytes.
	Size int
	// Expires is when the parking lot's retention drops the message; the
	// entry expires with it.
	Expires time.Time
}

// ReasonClass is the class of a park reason: the part before the first
// ':', e.g. "poison" for "poison: PoisonMessage: bad order"; the whole
// reason when it has no ':'.
func ReasonClass(reason string) string {
	class, _, _ := strings.Cut(reason, ":")
	return strings.TrimSpace(class)
}

// PutAPI is the DynamoDB call an Index makes to record an entry;
// *dynamodb.Client satisfies it.
type PutAPI interface {
	PutItem(ctx context.Context, params *dynamodb.PutItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error)
}

// QueryAPI is the DynamoDB call an Index makes to read entries;
// *dynamodb.Client satisfies it.
type QueryAPI interface {
	Query(ctx context.Context, params *dynamodb.QueryInput, optFns ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error)
}

// API is the part of the DynamoDB client an Index calls.
type API interface {
	PutAPI
	QueryAPI
}

// Index is the parking lot's index in a table of dynamo.TableInput's
// schema. It is safe for concurrent use.
type Index struct {
	api   API
	table string
}

// New returns the index in table through api.
func New(api API, table string) *Index {
	return &Index{api: api, table: table}
}

// Put records e, replacing an entry of the same parking-lot message id.
func (x *Index) Put(ctx context.Context, e Entry) error {
	switch {
	case e.MessageID == "":
		return errors.New("lotindex: put: empty parking-lot message id")
	case e.ParkedAt.IsZero():
		return fmt.Errorf("lotindex: put %s: no parked time", e.MessageID)
	}
	_, err := x.api.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(x.table), Item: item(e)})
	if err != nil {
		return fmt.Errorf("lotindex: put %s (origin %q): %w", e.MessageID, e.OriginID, err)
	}
	return nil
}

// item is e as stored. Empty strings are left out.
func item(e Entry) map[string]types.AttributeValue {
	at := e.ParkedAt.UTC()
	m := map[string]types.AttributeValue{
		dynamo.PKAttr: dynamo.S(dynamo.ParkedPrefix + e.MessageID),
		attrDay:       dynamo.S(at.Format(dayLayout)),
		attrSeq:       dynamo.S(seq(at, e.OriginID)),
		attrAttempt:   dynamo.N(int64(e.Attempt)),
		attrParkedAt:  dynamo.S(at.Format(time.RFC3339Nano)),
		attrMessageID: dynamo.S(e.MessageID),
		attrSize:      dynamo.N(int64(e.Size)),
		attrTTL:       dynamo.N(e.Expires.Unix()),
	}
	for name, v := range map[string]string{attrBreaker: e.Breaker, attrReason: e.Reason, attrErrorType: e.ErrorType, attrOriginID: e.OriginID} {
		if v != "" {
			m[name] = dynamo.S(v)
		}
	}
	return m
}

// seq is the index's sort key of a message parked at (UTC) with originID.
func seq(at time.Time, originID string) string {
	prefix := at.Format(seqTime) + "#"
	return prefix + message.Truncate(originID, maxSeq-len(prefix))
}

// decode reads an index item.
func decode(m map[string]types.AttributeValue) (Entry, error) {
	f := dynamo.Read(m)
	e := Entry{
		Breaker:   f.Str(attrBreaker, false),
		Reason:    f.Str(attrReason, false),
		ErrorType: f.Str(attrErrorType, false),
		OriginID:  f.Str(attrOriginID, false),
		Attempt:   int(f.Int64(attrAttempt, true)),
		MessageID: f.Str(attrMessageID, true),
		Size:      int(f.Int64(attrSize, true)),
		Expires:   time.Unix(f.Int64(attrTTL, true), 0).UTC(),
		ParkedAt:  f.Time(attrParkedAt, true),
	}
	if err := f.Err(); err != nil {
		return Entry{}, fmt.Errorf("lotindex: malformed item %q: %w", dynamo.Read(m).Str(dynamo.PKAttr, false), err)
	}
	return e, nil
}
