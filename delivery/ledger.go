package delivery

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"maps"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/clock"
	"github.com/redrive/redrive/dynamo"
	"github.com/redrive/redrive/message"
)

// ErrNotHeld reports a Complete by a caller that no longer holds the
// record: its lease expired and another invocation took the record over,
// or the record is gone.
var ErrNotHeld = errors.New("delivery: record not held by this caller")

// API is the part of the DynamoDB client the ledger calls;
// *dynamodb.Client satisfies it.
type API interface {
	GetItem(ctx context.Context, params *dynamodb.GetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error)
	PutItem(ctx context.Context, params *dynamodb.PutItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error)
	UpdateItem(ctx context.Context, params *dynamodb.UpdateItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error)
}

// beginTries bounds Begin's put-then-read rounds: a round only repeats when
// the record changed between the failed put and the read.
const beginTries = 3

// Ledger keeps delivery records in one DynamoDB table (the breaker's). It
// is safe for concurrent use.
type Ledger struct {
	api   API
	table string
	clock clock.Clock
}

// New returns a Ledger on table through api, reading the time from clk
// (nil means clock.Wall; the local executor passes its virtual clock).
func New(api API, table string, clk clock.Clock) *Ledger {
	if clk == nil {
		clk = clock.Wall
	}
	return &Ledger{api: api, table: table, clock: clk}
}

// Begin takes the record of delivery try id for a delivery admitted with
// ticket, for lease. It creates the record IN_PROGRESS, or takes over one
// whose lease expired (TookOver: its holder died, and whether it
// delivered is unknown), and returns it with began true: the caller
// delivers, then calls Complete with the record. Otherwise it returns the
// record as stored with began false: COMPLETED (record its Outcome under
// its Ticket, do not deliver again) or IN_PROGRESS under another holder's
// unexpired lease (try again later).
func (l *Ledger) Begin(ctx context.Context, id ID, ticket breaker.Ticket, lease time.Duration) (rec Record, began bool, err error) {
	if err := id.validate(); err != nil {
		return Record{}, false, fmt.Errorf("begin delivery %s: %w", id, err)
	}
	if lease <= 0 {
		return Record{}, false, fmt.Errorf("begin delivery %s: %w: lease %v, want more than zero", id, ErrInvalid, lease)
	}
	for range beginTries {
		now := l.clock.Now().UTC()
		rec = Record{
			ID:        id,
			Status:    InProgress,
			Ticket:    ticket,
			Holder:    rand.Text(),
			BeganAt:   now,
			ExpiresAt: time.UnixMilli(now.Add(lease).UnixMilli()).UTC(),
		}
		taken, tookOver, err := l.take(ctx, rec, now)
		if err != nil {
			return Record{}, false, fmt.Errorf("begin delivery %s: %w", id, err)
		}
		if taken {
			rec.TookOver = tookOver
			return rec, true, nil
		}
		stored, found, err := l.Get(ctx, id)
		if err != nil {
			return Record{}, false, fmt.Errorf("begin delivery %s: %w", id, err)
		}
		if found && (stored.Status == Completed || !stored.expired(now)) {
			return stored, false, nil
		}
		// Deleted or expired since the put: take it on the next round.
	}
	return Record{}, false, fmt.Errorf("begin delivery %s: the record kept changing; gave up after %d tries", id, beginTries)
}

// The conditions on which take writes a record, with their names: no
// record exists (absentNames), or one exists IN_PROGRESS with a lease
// that ended at :now (expiredNames). Every call shares the names maps,
// which are never changed.
const (
	absent  = "attribute_not_exists(#pk)"
	expired = "#status = :inProgress AND #expiresAt <= :now"
)

var (
	absentNames  = map[string]string{"#pk": dynamo.PKAttr}
	expiredNames = map[string]string{"#status": attrStatus, "#expiresAt": attrExpiresAt}
)

// take writes rec unless a record exists that is COMPLETED or IN_PROGRESS
// with a lease unexpired at now; taken is false when one does. tookOver
// says rec replaced an IN_PROGRESS record whose lease had expired.
func (l *Ledger) take(ctx context.Context, rec Record, now time.Time) (taken, tookOver bool, err error) {
	// A new record first (one write on the common path), then the takeover
	// of an expired one, so the caller knows which it was.
	item := encodeBegin(rec)
	if taken, err = l.put(ctx, item, absent, absentNames, nil); taken || err != nil {
		return taken, false, err
	}
	taken, err = l.put(ctx, item, expired, expiredNames, map[string]types.AttributeValue{
		":inProgress": dynamo.S(string(InProgress)),
		":now":        dynamo.N(now.UnixMilli()),
	})
	return taken, taken, err
}

// put writes item on condition cond; taken is false when the condition
// failed.
func (l *Ledger) put(ctx context.Context, item map[string]types.AttributeValue, cond string, names map[string]string, values map[string]types.AttributeValue) (taken bool, err error) {
	_, err = l.api.PutItem(ctx, &dynamodb.PutItemInput{
		TableName:                 aws.String(l.table),
		Item:                      item,
		ConditionExpression:       aws.String(cond),
		ExpressionAttributeNames:  names,
		ExpressionAttributeValues: values,
	})
	if _, held := errors.AsType[*types.ConditionalCheckFailedException](err); held {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("put to table %q: %w", l.table, err)
	}
	return true, nil
}

// Complete's condition, that the caller still holds the record, and its
// update: the result, and a new expiry for the table's TTL.
const (
	stillHeld   = "#status = :inProgress AND #holder = :holder"
	completeSet = "SET #status = :completed, #outcome = :outcome, #completedAt = :completedAt, #ttl = :ttl"
)

// The optional parts of Complete's update, set when not empty.
const (
	setErrorType = ", #errorType = :errorType"
	setMessage   = ", #message = :message"
)

// The bits of an index in completeUpdates: which optional parts it sets.
const (
	withErrorType = 1 << iota
	withMessage
)

// completeNames are the names stillHeld and completeSet use.
var completeNames = map[string]string{
	"#status":      attrStatus,
	"#holder":      attrHolder,
	"#outcome":     attrOutcome,
	"#completedAt": attrCompletedAt,
	"#ttl":         attrTTL,
}

// completeUpdates are Complete's update expressions, with the names they
// and stillHeld use, indexed by which optional parts they set. Every call
// shares the names maps, which are never changed.
var completeUpdates = [...]struct {
	update string
	names  map[string]string
}{
	{completeSet, completeNames},
	withErrorType:               {completeSet + setErrorType, extend(completeNames, "#errorType", attrErrorType)},
	withMessage:                 {completeSet + setMessage, extend(completeNames, "#message", attrMessage)},
	withErrorType | withMessage: {completeSet + setErrorType + setMessage, extend(completeNames, "#errorType", attrErrorType, "#message", attrMessage)},
}

// extend is a copy of names with more, pairs of placeholder and attribute
// name, added.
func extend(names map[string]string, more ...string) map[string]string {
	names = maps.Clone(names)
	for i := 0; i < len(more); i += 2 {
		names[more[i]] = more[i+1]
	}
	return names
}

// Complete stores the outcome of the delivery made under held, the record
// Begin returned with began true, and returns the completed record. It
// succeeds as long as nobody took the record over, even after the lease
// ended; otherwise it
// returns an error matching ErrNotHeld that says who does. Completing again
// with the same holder (a retried call) returns the stored record. message
// is cut to message.MaxFailureMessage bytes.
func (l *Ledger) Complete(ctx context.Context, held Record, outcome breaker.Outcome, errorType, msg string) (Record, error) {
	id := held.ID
	if err := id.validate(); err != nil {
		return Record{}, fmt.Errorf("complete delivery %s: %w", id, err)
	}
	if !outcome.Valid() {
		return Record{}, fmt.Errorf("complete delivery %s: %w: outcome %s", id, ErrInvalid, outcome)
	}
	if held.Holder == "" {
		return Record{}, fmt.Errorf("complete delivery %s: %w: no holder (use the record Begin returned)", id, ErrInvalid)
	}
	now := l.clock.Now().UTC()
	done := held
	done.Status, done.Outcome, done.ErrorType, done.Message, done.CompletedAt = Completed, outcome, errorType, message.Truncate(msg, message.MaxFailureMessage), now

	values := map[string]types.AttributeValue{
		":inProgress":  dynamo.S(string(InProgress)),
		":holder":      dynamo.S(held.Holder),
		":completed":   dynamo.S(string(Completed)),
		":outcome":     dynamo.S(outcome.String()),
		":completedAt": dynamo.Time(now),
		":ttl":         dynamo.N(now.Add(RecordTTL).Unix()),
	}
	variant := 0
	if done.ErrorType != "" {
		variant |= withErrorType
		values[":errorType"] = dynamo.S(done.ErrorType)
	}
	if done.Message != "" {
		variant |= withMessage
		values[":message"] = dynamo.S(done.Message)
	}
	_, err := l.api.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(l.table),
		Key:                       id.key(),
		ConditionExpression:       aws.String(stillHeld),
		UpdateExpression:          aws.String(completeUpdates[variant].update),
		ExpressionAttributeNames:  completeUpdates[variant].names,
		ExpressionAttributeValues: values,
	})
	if _, lost := errors.AsType[*types.ConditionalCheckFailedException](err); lost {
		return l.notHeld(ctx, held)
	}
	if err != nil {
		return Record{}, fmt.Errorf("complete delivery %s: update in table %q: %w", id, l.table, err)
	}
	return done, nil
}

// notHeld explains a failed Complete by reading the record as it is now;
// a record this holder already completed is the retried call's answer.
func (l *Ledger) notHeld(ctx context.Context, held Record) (Record, error) {
	id := held.ID
	stored, found, err := l.Get(ctx, id)
	switch {
	case err != nil:
		return Record{}, fmt.Errorf("complete delivery %s: %w; then: %w", id, ErrNotHeld, err)
	case !found:
		return Record{}, fmt.Errorf("complete delivery %s: %w: the record is gone", id, ErrNotHeld)
	case stored.Holder == held.Holder && stored.Status == Completed:
		return stored, nil
	case stored.Status == Completed:
		return Record{}, fmt.Errorf("complete delivery %s: %w: another holder completed it with %s at %s",
			id, ErrNotHeld, stored.Outcome, stored.CompletedAt.Format(time.RFC3339Nano))
	default:
		return Record{}, fmt.Errorf("complete delivery %s: %w: another holder took it over at %s (our lease ended at %s)",
			id, ErrNotHeld, stored.BeganAt.Format(time.RFC3339Nano), held.ExpiresAt.Format(time.RFC3339Nano))
	}
}

// Get returns the stored record of id, read consistently; found is false
// when there is none.
func (l *Ledger) Get(ctx context.Context, id ID) (rec Record, found bool, err error) {
	if err := id.validate(); err != nil {
		return Record{}, false, fmt.Errorf("get delivery %s: %w", id, err)
	}
	out, err := l.api.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:      aws.String(l.table),
		Key:            id.key(),
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return Record{}, false, fmt.Errorf("get delivery %s from table %q: %w", id, l.table, err)
	}
	if len(out.Item) == 0 {
		return Record{}, false, nil
	}
	rec, err = decode(id, out.Item)
	if err != nil {
		return Record{}, false, fmt.Errorf("get delivery %s from table %q: %w", id, l.table, err)
	}
	return rec, true, nil
}
