package room

import (
	"context"
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
// waiting messages oldest first.
const (
	IndexName = dynamo.RoomIndex
	AttrRoom  = dynamo.RoomAttr
	AttrSeq   = dynamo.RoomSeqAttr

	attrToken   = "token"
	attrEntered = "entered_at"
	attrSince   = "since"
	attrTTL     = "ttl"
	attrMessage = "message_id"
	attrWatch   = "watch_until"
	attrWatcher = "watcher"
)

// seqTime formats Since so that sequence strings sort by time.
const seqTime = "2006-01-02T15:04:05.000000000Z"

// API is the part of the DynamoDB client the room calls; *dynamodb.Client
// satisfies it.
type API interface {
	GetItem(ctx context.Context, params *dynamodb.GetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error)
	PutItem(ctx context.Context, params *dynamodb.PutItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error)
	DeleteItem(ctx context.Context, params *dynamodb.DeleteItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error)
	Query(ctx context.Context, params *dynamodb.QueryInput, optFns ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error)
}

// Entry is one message waiting in the room: the task token its execution
// waits on, under its breaker key.
type Entry struct {
	// Key is the breaker key the message waits behind.
	Key string
	// MessageID names the waiting message (origin id and attempt): one
	// entry per message, so a retried entry replaces the one before.
	MessageID string
	// Token is the task token that resumes the execution.
	Token string
	// EnteredAt is when the entry was made; the item expires the Room's
	// ttl after it.
	EnteredAt time.Time
	// Since is when the message joined the line: it orders the room,
	// oldest first, so a message that enters again (its wait timed out)
	// keeps its place. Zero means EnteredAt.
	Since time.Time
}

// Room keeps waiting messages' task tokens in the breaker table. It is safe
// for concurrent use.
type Room struct {
	api   API
	table string
	ttl   time.Duration
	// watches is the last watch seen of each room (key: a watch), so
	// that Watch skips the table while it knows the watch is live: a watch
	// only ever ends later than seen, so the skip is always right.
	watches sync.Map
}

// watch is a room's watch as last seen: its watcher, until when.
type watch struct {
	watcher string
	until   int64 // Unix milliseconds
}

// New returns a Room on table through api. Items expire (DynamoDB TTL on
// "ttl", the attribute the delivery records expire by too) ttl after they entered: set it above the waiting state's
// timeout, after which the token is worthless anyway.
func New(api API, table string, ttl time.Duration) *Room {
	return &Room{api: api, table: table, ttl: ttl}
}

// Enter stores e, replacing an earlier entry of the same message.
func (r *Room) Enter(ctx context.Context, e Entry) error {
	switch {
	case e.Key == "":
		return errors.New("room: enter: empty breaker key")
	case e.MessageID == "":
		return errors.New("room: enter: empty message id")
	case e.Token == "":
		return errors.New("room: enter: empty task token")
	}
	at, since := e.EnteredAt.UTC(), e.Since.UTC()
	if e.Since.IsZero() {
		since = at
	}
	_, err := r.api.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: aws.String(r.table),
		Item: map[string]types.AttributeValue{
			dynamo.PKAttr: dynamo.S(pk(e.Key, e.MessageID)),
			AttrRoom:      dynamo.S(e.Key),
			AttrSeq:       dynamo.S(since.Format(seqTime) + "#" + e.MessageID),
			attrToken:     dynamo.S(e.Token),
			attrMessage:   dynamo.S(e.MessageID),
			attrEntered:   dynamo.S(at.Format(time.RFC3339Nano)),
			attrSince:     dynamo.S(since.Format(time.RFC3339Nano)),
			attrTTL:       dynamo.N(at.Add(r.ttl).Unix()),
		},
	})
	if err != nil {
		return fmt.Errorf("room %q: enter %s: %w", e.Key, e.MessageID, err)
	}
	return nil
}

// Oldest returns up to n of key's entries, oldest first. The index is
// eventually consistent: an entry made a moment ago may be missing, and
// one taken a moment ago may still be listed (a release of it finds its
// token spent).
func (r *Room) Oldest(ctx context.Context, key string, n int) ([]Entry, error) {
	if n <= 0 {
		return nil, nil
	}
	var entries []Entry
	var start map[string]types.AttributeValue
	for len(entries) < n {
		out, err := r.api.Query(ctx, &dynamodb.QueryInput{
			TableName:                 aws.String(r.table),
			IndexName:                 aws.String(IndexName),
			KeyConditionExpression:    aws.String("#room = :key"),
			ExpressionAttributeNames:  map[string]string{"#room": AttrRoom},
			ExpressionAttributeValues: map[string]types.AttributeValue{":key": dynamo.S(key)},
			Limit:                     aws.Int32(int32(min(n-len(entries), 1000))),
			ExclusiveStartKey:         start,
		})
		if err != nil {
			return nil, fmt.Errorf("room %q: list the oldest %d: %w", key, n, err)
		}
		for _, item := range out.Items {
			e, err := decode(key, item)
			if err != nil {
				return nil, err
			}
			entries = append(entries, e)
		}
		if start = out.LastEvaluatedKey; start == nil {
			break
		}
	}
	return entries, nil
}

// Take removes e from the room if it is still there with the same token,
// and reports whether it did: an entry the message made since, with a new
// token, stays.
func (r *Room) Take(ctx context.Context, e Entry) (bool, error) {
	_, err := r.api.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		TableName:                 aws.String(r.table),
		Key:                       map[string]types.AttributeValue{dynamo.PKAttr: dynamo.S(pk(e.Key, e.MessageID))},
		ConditionExpression:       aws.String("#token = :token"),
		ExpressionAttributeNames:  map[string]string{"#token": attrToken},
		ExpressionAttributeValues: map[string]types.AttributeValue{":token": dynamo.S(e.Token)},
	})
	if _, lost := errors.AsType[*types.ConditionalCheckFailedException](err); lost {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("room %q: take %s: %w", e.Key, e.MessageID, err)
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

// Gauges reads how key's room stands at now, for its metrics: the oldest
// entry's age (0 when empty) and, when withDepth, how many entries wait
// (Depth reads every entry through the index, so callers count about once
// a minute). A gauge that could not be read is left out, and the errors
// are returned joined.
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

// Watch makes message key's watcher until now+d when the room has none (no
// watch, or one that ended by now) or message is its watcher already (back
// in the room after a release, as a scout whose probe failed), and reports
// whether it did: of many callers at once, one is. The watcher's message
// waits in the room at most d, the others longer, so that a room whose
// releases stopped (a releaser stopped, or never started; a broken chain
// of scouts) while its watcher waits has a message back at its breaker
// within d, without every message coming back. It reads the watch first (an eventually consistent
// read, a quarter of a write's price and spread over more capacity) and
// writes only when it may take it.
func (r *Room) Watch(ctx context.Context, key, message string, now time.Time, d time.Duration) (bool, error) {
	if seen, ok := r.watches.Load(key); ok && seen.(watch).watcher != message && seen.(watch).until > now.UnixMilli() {
		return false, nil
	}
	pk := map[string]types.AttributeValue{dynamo.PKAttr: dynamo.S(dynamo.RoomWatchPrefix + key)}
	got, err := r.api.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(r.table), Key: pk})
	if err != nil {
		return false, fmt.Errorf("room %q: read the watch: %w", key, err)
	}
	if n, ok := got.Item[attrWatch].(*types.AttributeValueMemberN); ok {
		until, err := strconv.ParseInt(n.Value, 10, 64)
		watcher, _ := got.Item[attrWatcher].(*types.AttributeValueMemberS)
		if err == nil && watcher != nil {
			r.watches.Store(key, watch{watcher: watcher.Value, until: until})
		}
		if err == nil && until > now.UnixMilli() && (watcher == nil || watcher.Value != message) {
			return false, nil
		}
	}
	until := now.Add(d)
	_, err = r.api.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: aws.String(r.table),
		Item: map[string]types.AttributeValue{
			dynamo.PKAttr: pk[dynamo.PKAttr],
			attrWatch:     dynamo.N(until.UnixMilli()),
			attrWatcher:   dynamo.S(message),
			attrTTL:       dynamo.N(until.Add(r.ttl).Unix()),
		},
		ConditionExpression:       aws.String("attribute_not_exists(#watch) OR #watch <= :now OR #watcher = :me"),
		ExpressionAttributeNames:  map[string]string{"#watch": attrWatch, "#watcher": attrWatcher},
		ExpressionAttributeValues: map[string]types.AttributeValue{":now": dynamo.N(now.UnixMilli()), ":me": dynamo.S(message)},
	})
	if _, taken := errors.AsType[*types.ConditionalCheckFailedException](err); taken {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("room %q: watch: %w", key, err)
	}
	r.watches.Store(key, watch{watcher: message, until: until.UnixMilli()})
	return true, nil
}

// pk is a room item's partition key.
func pk(key, messageID string) string { return dynamo.RoomPrefix + key + "#" + messageID }

// decode reads a room item of key.
func decode(key string, item map[string]types.AttributeValue) (Entry, error) {
	f := dynamo.Read(item)
	e := Entry{
		Key:       key,
		MessageID: f.Str(attrMessage, true),
		Token:     f.Str(attrToken, true),
		EnteredAt: f.Time(attrEntered, true),
		Since:     f.Time(attrSince, false), // items entered before Since existed lack it
	}
	if err := f.Err(); err != nil {
		return Entry{}, fmt.Errorf("room %q: malformed item %s: %w", key, e.MessageID, err)
	}
	if e.Since.IsZero() {
		e.Since = e.EnteredAt
	}
	return e, nil
}

// HoldKey is the room key under which the messages that routing rule
// ruleID holds wait (rules). It starts with a space, which no
// breaker key may (message.CheckKey), so a hold never shares a breaker's
// room, and no releaser, which runs per breaker key, ever releases it.
func HoldKey(ruleID string) string { return " hold " + ruleID }
