package lotindex

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
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
	attrTag       = "message_tag"
	attrGroup     = "message_group"
	attrParkedAt  = "parked_at"
	attrMessageID = "message_id"
	attrSize      = "body_size"
	attrTTL       = dynamo.TTLAttr
	// attrTaken and attrTakenBy are a take's (Take): the parking-lot id
	// of the copy a replay sends back, and the replay's id.
	attrTaken   = "taken"
	attrTakenBy = "taken_by"
)

// takenPrefix starts the partition key of a take, after
// dynamo.ParkedPrefix; an entry's starts with its attempt, a number.
const takenPrefix = "taken#"

// dayLayout formats parked_day, the index's partition key.
const dayLayout = "2006-01-02"

// seqTime formats the parked time at the start of parked_seq: fixed width,
// so that the sort key orders by time (RFC 3339 with nanoseconds).
const seqTime = "2006-01-02T15:04:05.000000000Z"

// maxSeq is DynamoDB's limit on a sort key, in bytes; an origin id is cut
// to keep parked_seq within it (origin_id keeps the whole id).
const maxSeq = 1024

// maxKeyOrigin bounds the origin id a partition key holds as it is; a
// longer one is held as its SHA-256, within DynamoDB's 2,048 bytes.
const maxKeyOrigin = 1024

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
	// Group is a FIFO message's MessageGroupId; empty for a standard
	// queue's.
	Group string
	// OriginID and Attempt are the message's lineage, and Tag its
	// message tag: together its Key.
	OriginID string
	Attempt  int
	Tag      string
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

// Key is the entry's Key.
func (e Entry) Key() Key { return Key{OriginID: e.OriginID, Attempt: e.Attempt, Tag: e.Tag} }

// Key names a parked message in the index: its lineage's origin id and
// attempt, and its message tag (message.Document.MessageTag), which tells
// apart different messages that carry one lineage. Every copy of one park
// has the same Key (a park retried after its message was sent sends it
// again: the lot then holds two copies), so the index holds the message
// once, and a replay moves one copy (Take).
type Key struct {
	OriginID string
	Attempt  int
	Tag      string
}

// id is k as one string: "<attempt>#<tag>#<origin id>", the origin id
// last, so that it reads one way only.
func (k Key) id() string {
	origin := k.OriginID
	if len(origin) > maxKeyOrigin {
		sum := sha256.Sum256([]byte(origin))
		origin = "sha256:" + hex.EncodeToString(sum[:])
	}
	return strconv.Itoa(k.Attempt) + "#" + k.Tag + "#" + origin
}

// entryPK is the partition key of k's entry, "parked#<id>"; takePK of
// its take, "parked#taken#<id>": an item of its own, so that a park
// writing the entry again never undoes a take.
func (k Key) entryPK() string { return dynamo.ParkedPrefix + k.id() }

func (k Key) takePK() string { return dynamo.ParkedPrefix + takenPrefix + k.id() }

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

// DeleteAPI is the DynamoDB call an Index makes to remove an entry
// (Unlist); *dynamodb.Client satisfies it.
type DeleteAPI interface {
	DeleteItem(ctx context.Context, params *dynamodb.DeleteItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error)
}

// API is the part of the DynamoDB client an Index calls.
type API interface {
	PutAPI
	QueryAPI
	DeleteAPI
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

// Put records e under its Key, replacing the entry of an earlier copy of
// the same message: the entry names the copy parked last.
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

// TakenFor is how long the index remembers that a replay took a message:
// twice the parking lot's longest retention. Every copy of one park is
// sent within a retention of the first (the park task retries for
// seconds; the starter parks a DLQ message again only while the DLQ,
// which counts its retention from the message's first enqueue, keeps
// it), so every copy is gone from the lot before the take is forgotten.
const TakenFor = 2 * MaxRetention

// Take records that replay takes message k, about to send back its copy
// messageID, and reports whether it does: false when a replay took
// another copy, which makes messageID a duplicate, to delete unsent.
// Taking the taken copy again succeeds (a replay run again after it
// stopped before the copy left the lot). The take is an item of its own,
// written whether or not the message has an entry (a message parked
// unindexed has none), never listed, expiring TakenFor after now. So each
// message goes back once, however many copies of it the lot holds, and
// whichever copy a replay's filter reaches first.
func (x *Index) Take(ctx context.Context, k Key, messageID, replay string, now time.Time) (bool, error) {
	_, err := x.api.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: aws.String(x.table),
		Item: map[string]types.AttributeValue{
			dynamo.PKAttr: dynamo.S(k.takePK()), attrTaken: dynamo.S(messageID), attrTakenBy: dynamo.S(replay),
			attrTTL: dynamo.N(now.Add(TakenFor).Unix()),
		},
		ConditionExpression:       aws.String("attribute_not_exists(#taken) OR #taken = :m"),
		ExpressionAttributeNames:  map[string]string{"#taken": attrTaken},
		ExpressionAttributeValues: map[string]types.AttributeValue{":m": dynamo.S(messageID)},
	})
	if _, other := errors.AsType[*types.ConditionalCheckFailedException](err); other {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("lotindex: take %s (origin %q, attempt %d): %w", messageID, k.OriginID, k.Attempt, err)
	}
	return true, nil
}

// Unlist deletes message k's entry, whichever copy it names, once a
// replay has moved the message or deleted a duplicate of it: no copy of it
// is left for `redrive parked` to list (but the copy taken, in the rare
// case that a duplicate is deleted before the taken copy has moved).
func (x *Index) Unlist(ctx context.Context, k Key) error {
	_, err := x.api.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(x.table), Key: map[string]types.AttributeValue{dynamo.PKAttr: dynamo.S(k.entryPK())}})
	if err != nil {
		return fmt.Errorf("lotindex: unlist origin %q, attempt %d: %w", k.OriginID, k.Attempt, err)
	}
	return nil
}

// item is e as stored. Empty strings are left out.
func item(e Entry) map[string]types.AttributeValue {
	at := e.ParkedAt.UTC()
	m := map[string]types.AttributeValue{
		dynamo.PKAttr: dynamo.S(e.Key().entryPK()),
		attrDay:       dynamo.S(at.Format(dayLayout)),
		attrSeq:       dynamo.S(seq(at, e.OriginID)),
		attrAttempt:   dynamo.N(int64(e.Attempt)),
		attrParkedAt:  dynamo.S(at.Format(time.RFC3339Nano)),
		attrMessageID: dynamo.S(e.MessageID),
		attrSize:      dynamo.N(int64(e.Size)),
		attrTTL:       dynamo.N(e.Expires.Unix()),
	}
	for name, v := range map[string]string{attrBreaker: e.Breaker, attrReason: e.Reason, attrErrorType: e.ErrorType, attrGroup: e.Group, attrOriginID: e.OriginID, attrTag: e.Tag} {
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
		Group:     f.Str(attrGroup, false),
		OriginID:  f.Str(attrOriginID, false),
		Attempt:   int(f.Int64(attrAttempt, true)),
		Tag:       f.Str(attrTag, false),
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
