package room

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/redrive/redrive/dynamo"
	"github.com/redrive/redrive/lambda/telemetry"
)

// Attribute and index names of a room item. The table's partition key is
// pk; the sparse index (dynamo.RoomIndex: partition key room, sort
// key seq) holds only room items, so a Query on it lists a breaker's
// waiting messages in the order they may go.
const (
	IndexName = dynamo.RoomIndex
	AttrRoom  = dynamo.RoomAttr
	AttrSeq   = dynamo.RoomSeqAttr

	// The index lists these besides its keys (dynamo.RoomListedAttrs),
	// not the document: a listed entry has none until it is claimed.
	attrMessage = dynamo.RoomMessageAttr
	attrEntered = dynamo.RoomEnteredAttr
	attrSince   = dynamo.RoomSinceAttr

	attrDocument = "doc"
	attrTTL      = "ttl"
	attrClaim    = "claim"
	attrClaimEnd = "claim_until"
)

// EnvTTL is the variable of how long a document may wait in the room
// (ROOM_TTL), read by every function that enters it.
const EnvTTL = "ROOM_TTL"

// DefaultTTL is how long a document may wait in the room before DynamoDB's
// TTL removes it: as long as SQS keeps a message at most (14 days).
// MinTTL is the least ROOM_TTL allowed.
const (
	DefaultTTL = 14 * 24 * time.Hour
	MinTTL     = time.Hour
)

// seqTime formats the times of a sequence so that sequence strings sort
// by time.
const seqTime = "2006-01-02T15:04:05.000000000Z"

// API is the part of the DynamoDB client the room calls; *dynamodb.Client
// satisfies it.
type API interface {
	PutItem(ctx context.Context, params *dynamodb.PutItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error)
	UpdateItem(ctx context.Context, params *dynamodb.UpdateItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error)
	DeleteItem(ctx context.Context, params *dynamodb.DeleteItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error)
	GetItem(ctx context.Context, params *dynamodb.GetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error)
	Query(ctx context.Context, params *dynamodb.QueryInput, optFns ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error)
}

// Entry is one message waiting in the room: its execution document, under
// its breaker key.
type Entry struct {
	// Key is the breaker key the message waits behind.
	Key string
	// MessageID names the waiting message (message.Document.RoomID): one
	// entry per message, so a message that enters again (or a duplicate
	// of its execution) replaces its entry.
	MessageID string
	// Document is the message's execution document, the input of the
	// execution its release starts: none on an entry Due or Oldest
	// listed (the index does not hold it), the latest on a claimed one.
	Document json.RawMessage
	// EnteredAt is when the entry was made; the item expires the Room's
	// ttl after it.
	EnteredAt time.Time
	// Since is when the message joined the line (its arrival or its last
	// failed try): among messages that may go at the same time, the
	// oldest goes first. Zero means EnteredAt.
	Since time.Time
	// NotBefore is when the message may go (its backoff, a delay rule, a
	// hold's next look); zero means at once.
	NotBefore time.Time
	// Place is a FIFO message's place in its message group (line.go); nil
	// for a standard queue's message. A release gives the entry its
	// group's turn before it starts it.
	Place *Place

	seq   string // the stored sequence, which a claim checks
	claim string // the claim a Claim took, which Take checks
}

// Due is when e may go: NotBefore, or Since when it may go at once.
func (e Entry) Due() time.Time {
	if e.NotBefore.After(e.Since) {
		return e.NotBefore
	}
	return e.Since
}

// Room keeps waiting messages' documents in the breaker table. It is safe
// for concurrent use.
type Room struct {
	api   API
	table string
	ttl   time.Duration
	// held remembers the FIFO groups found held behind a rule that is not
	// lifted, by turn item, until when not to look again (HeldRecheck).
	held sync.Map
}

// New returns a Room on table through api. Items expire (DynamoDB TTL on
// "ttl", the attribute the delivery records expire by too) ttl after they
// entered: set it far beyond any wait in the room.
func New(api API, table string, ttl time.Duration) *Room {
	return &Room{api: api, table: table, ttl: ttl}
}

// Enter stores e, replacing an earlier entry of the same message (and any
// claim on it: the message is back, with a newer document).
func (r *Room) Enter(ctx context.Context, e Entry) error {
	switch {
	case e.Key == "":
		return errors.New("room: enter: empty breaker key")
	case e.MessageID == "":
		return errors.New("room: enter: empty message id")
	case len(e.Document) == 0:
		return errors.New("room: enter: empty document")
	case e.Place != nil && (e.Place.Group == "" || len(e.Place.Sequence) != SequenceDigits):
		return errors.New("room: enter: a FIFO entry without a group or a padded sequence number")
	}
	e.EnteredAt = e.EnteredAt.UTC()
	if e.Since.IsZero() {
		e.Since = e.EnteredAt
	}
	_, err := r.api.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: aws.String(r.table),
		Item: map[string]types.AttributeValue{
			dynamo.PKAttr: dynamo.S(pk(e.Key, e.MessageID)),
			AttrRoom:      dynamo.S(e.Key),
			AttrSeq:       dynamo.S(sequence(e)),
			attrDocument:  dynamo.S(string(e.Document)),
			attrMessage:   dynamo.S(e.MessageID),
			attrEntered:   dynamo.S(e.EnteredAt.Format(time.RFC3339Nano)),
			attrSince:     dynamo.S(e.Since.UTC().Format(time.RFC3339Nano)),
			attrTTL:       dynamo.N(e.EnteredAt.Add(r.ttl).Unix()),
		},
	})
	if err != nil {
		return fmt.Errorf("room %q: enter %s: %w", e.Key, e.MessageID, err)
	}
	return nil
}

// sequence is e's place in line: when it may go, then when it joined the
// line, then its id; a FIFO entry's is fifoSequence.
func sequence(e Entry) string {
	if e.Place != nil {
		return fifoSequence(e)
	}
	return e.Due().UTC().Format(seqTime) + "#" + e.Since.UTC().Format(seqTime) + "#" + e.MessageID
}

// Due returns up to n of key's entries that may go at now, in line. The
// index is eventually consistent: an entry made a moment ago may be
// missing, and one taken a moment ago may still be listed (its claim
// fails).
func (r *Room) Due(ctx context.Context, key string, n int, now time.Time) ([]Entry, error) {
	return r.list(ctx, key, n, now.UTC().Format(seqTime)+"~")
}

// Oldest returns up to n of key's entries in line, whether or not they
// may go yet: the first is the one that goes next.
func (r *Room) Oldest(ctx context.Context, key string, n int) ([]Entry, error) {
	return r.list(ctx, key, n, "")
}

// list returns up to n of key's entries in line, those whose sequence is
// at most upto ("" for all).
func (r *Room) list(ctx context.Context, key string, n int, upto string) ([]Entry, error) {
	if n <= 0 {
		return nil, nil
	}
	cond, values := "#room = :key", map[string]types.AttributeValue{":key": dynamo.S(key)}
	names := map[string]string{"#room": AttrRoom}
	if upto != "" {
		cond += " AND #seq <= :upto"
		names["#seq"], values[":upto"] = AttrSeq, dynamo.S(upto)
	}
	var entries []Entry
	var start map[string]types.AttributeValue
	for len(entries) < n {
		out, err := r.api.Query(ctx, &dynamodb.QueryInput{
			TableName:                 aws.String(r.table),
			IndexName:                 aws.String(IndexName),
			KeyConditionExpression:    aws.String(cond),
			ExpressionAttributeNames:  names,
			ExpressionAttributeValues: values,
			Limit:                     aws.Int32(int32(min(n-len(entries), 1000))),
			ExclusiveStartKey:         start,
		})
		if err != nil {
			return nil, fmt.Errorf("room %q: list %d: %w", key, n, err)
		}
		for _, item := range out.Items {
			e, err := decode(key, item, false)
			if err != nil {
				// An item this code did not write (by hand, or by a newer
				// version) must not hold the room behind it: it is left
				// where it is, still counted by Depth, for a person.
				continue
			}
			entries = append(entries, e)
		}
		if start = out.LastEvaluatedKey; start == nil {
			break
		}
	}
	return entries, nil
}

// Claim takes e for a release until now+lease, if it is still in the room
// as listed and no live claim holds it, and returns it as stored (read
// with the write, so its document is the latest). It reports false when
// e is gone, replaced, or claimed by another release. claim names the
// release that takes it.
func (r *Room) Claim(ctx context.Context, e Entry, claim string, now time.Time, lease time.Duration) (Entry, bool, error) {
	out, err := r.api.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:           aws.String(r.table),
		Key:                 map[string]types.AttributeValue{dynamo.PKAttr: dynamo.S(pk(e.Key, e.MessageID))},
		UpdateExpression:    aws.String("SET #claim = :claim, #until = :until"),
		ConditionExpression: aws.String("#seq = :seq AND (attribute_not_exists(#until) OR #until <= :now)"),
		ExpressionAttributeNames: map[string]string{
			"#claim": attrClaim, "#until": attrClaimEnd, "#seq": AttrSeq,
		},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":claim": dynamo.S(claim), ":until": dynamo.N(now.Add(lease).UnixMilli()),
			":seq": dynamo.S(e.seq), ":now": dynamo.N(now.UnixMilli()),
		},
		ReturnValues: types.ReturnValueAllNew,
	})
	if _, lost := errors.AsType[*types.ConditionalCheckFailedException](err); lost {
		return Entry{}, false, nil
	}
	if err != nil {
		return Entry{}, false, fmt.Errorf("room %q: claim %s: %w", e.Key, e.MessageID, err)
	}
	got, err := decode(e.Key, out.Attributes, true)
	if err != nil {
		return Entry{}, false, err
	}
	got.claim = claim
	return got, true, nil
}

// Take removes a claimed entry from the room if its claim still holds,
// and reports whether it did: an entry the message made since (it is back)
// stays.
func (r *Room) Take(ctx context.Context, claimed Entry) (bool, error) {
	return r.settle(ctx, claimed, "take", &dynamodb.DeleteItemInput{})
}

// Unclaim gives up a claim that was not used (the release could not start
// its execution), so the entry goes with the next release rather than
// after the claim's lease.
func (r *Room) Unclaim(ctx context.Context, claimed Entry) error {
	_, err := r.settle(ctx, claimed, "unclaim", nil)
	return err
}

// settle deletes (del set) or unclaims claimed, on the condition that its
// claim holds.
func (r *Room) settle(ctx context.Context, claimed Entry, op string, del *dynamodb.DeleteItemInput) (bool, error) {
	key := map[string]types.AttributeValue{dynamo.PKAttr: dynamo.S(pk(claimed.Key, claimed.MessageID))}
	cond := aws.String("#claim = :claim")
	names := map[string]string{"#claim": attrClaim}
	values := map[string]types.AttributeValue{":claim": dynamo.S(claimed.claim)}
	var err error
	if del != nil {
		_, err = r.api.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(r.table), Key: key,
			ConditionExpression: cond, ExpressionAttributeNames: names, ExpressionAttributeValues: values})
	} else {
		// SET rather than REMOVE (which minidyn, the tests' and the
		// local stack's table, ignores on a top-level attribute): no
		// claim, and a lease over since the epoch, which Claim's
		// condition takes as free.
		names["#until"] = attrClaimEnd
		values[":none"], values[":zero"] = dynamo.Null, dynamo.N(0)
		_, err = r.api.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(r.table), Key: key,
			UpdateExpression: aws.String("SET #claim = :none, #until = :zero"), ConditionExpression: cond,
			ExpressionAttributeNames: names, ExpressionAttributeValues: values})
	}
	if _, lost := errors.AsType[*types.ConditionalCheckFailedException](err); lost {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("room %q: %s %s: %w", claimed.Key, op, claimed.MessageID, err)
	}
	return true, nil
}

// Depth counts key's entries (through the eventually consistent index).
func (r *Room) Depth(ctx context.Context, key string) (int, error) {
	total := 0
	var start map[string]types.AttributeValue
	for {
		out, err := r.api.Query(ctx, &dynamodb.QueryInput{
			TableName:                 aws.String(r.table),
			IndexName:                 aws.String(IndexName),
			KeyConditionExpression:    aws.String("#room = :key"),
			ExpressionAttributeNames:  map[string]string{"#room": AttrRoom},
			ExpressionAttributeValues: map[string]types.AttributeValue{":key": dynamo.S(key)},
			Select:                    types.SelectCount,
			ExclusiveStartKey:         start,
		})
		if err != nil {
			return 0, fmt.Errorf("room %q: count: %w", key, err)
		}
		total += int(out.Count)
		if start = out.LastEvaluatedKey; start == nil {
			return total, nil
		}
	}
}

// Gauges reads how key's room stands at now, for its metrics: the next
// entry's age (how long it has been in line; 0 when empty) and, when
// withDepth, how many entries wait (Depth reads every entry through the
// index, so callers count about once a minute). A gauge that could not be
// read is left out, and the errors are returned joined.
func (r *Room) Gauges(ctx context.Context, key string, now time.Time, withDepth bool) ([]telemetry.Gauge, error) {
	var gauges []telemetry.Gauge
	var errs []error
	if oldest, err := r.Oldest(ctx, key, 1); err == nil {
		var age time.Duration
		if len(oldest) > 0 {
			age = max(now.Sub(oldest[0].Since), 0)
		}
		gauges = append(gauges, telemetry.Gauge{Name: telemetry.OldestWaitingSeconds, Value: int64(age / time.Second), Unit: telemetry.UnitSeconds})
	} else {
		errs = append(errs, err)
	}
	if withDepth {
		if n, err := r.Depth(ctx, key); err == nil {
			gauges = append(gauges, telemetry.Gauge{Name: telemetry.RoomDepth, Value: int64(n), Unit: telemetry.UnitCount})
		} else {
			errs = append(errs, err)
		}
	}
	return gauges, errors.Join(errs...)
}

// pk is a room item's partition key.
func pk(key, messageID string) string { return dynamo.RoomPrefix + key + "#" + messageID }

// decode reads a room item of key: the whole item (withDocument), or
// what the index lists of it.
func decode(key string, item map[string]types.AttributeValue, withDocument bool) (Entry, error) {
	f := dynamo.Read(item)
	e := Entry{
		Key:       key,
		MessageID: f.Str(attrMessage, true),
		Document:  json.RawMessage(f.Str(attrDocument, withDocument)),
		EnteredAt: f.Time(attrEntered, true),
		Since:     f.Time(attrSince, true),
		seq:       f.Str(AttrSeq, true),
	}
	if err := f.Err(); err != nil {
		return Entry{}, fmt.Errorf("room %q: malformed item %s: %w", key, e.MessageID, err)
	}
	if e.Place, e.NotBefore = placeOf(e.seq); e.Place != nil {
		return e, nil
	}
	if due, ok := dueOf(e.seq); ok && due.After(e.Since) {
		e.NotBefore = due
	}
	return e, nil
}

// dueOf reads when an entry may go from its sequence.
func dueOf(seq string) (time.Time, bool) {
	if len(seq) < len(seqTime) {
		return time.Time{}, false
	}
	t, err := time.Parse(seqTime, seq[:len(seqTime)])
	return t, err == nil
}

// claimName is a release's claim on an entry: who claimed it and when,
// unique enough that two releases never share one.
func claimName(owner string, now time.Time, i int) string {
	return owner + "@" + strconv.FormatInt(now.UnixNano(), 36) + "." + strconv.Itoa(i)
}
