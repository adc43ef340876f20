package delivery

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/tasks/message"
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
	now   func() time.Time
}

// New returns a Ledger on table through api, reading the time from now
// (nil means time.Now; the local executor passes its virtual clock).
func New(api API, table string, now func() time.Time) *Ledger {
	if now == nil {
		now = time.Now
	}
	return &Ledger{api: api, table: table, now: now}
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
		now := l.now().UTC()
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

// take writes rec unless a record exists that is COMPLETED or IN_PROGRESS
// with a lease unexpired at now; taken is false when one does. tookOver
// says rec replaced an IN_PROGRESS record whose lease had expired.
func (l *Ledger) take(ctx context.Context, rec Record, now time.Time) (taken, tookOver bool, err error) {
	// A new record first (one write on the common path), then the takeover
	// of an expired one, so the caller knows which it was.
	absent := expression.AttributeNotExists(expression.Name(attrPK))
	expired := expression.Name(attrStatus).Equal(expression.Value(string(InProgress))).And(
		expression.Name(attrExpiresAt).LessThanEqual(expression.Value(now.UnixMilli())))
	for i, free := range []expression.ConditionBuilder{absent, expired} {
		expr, err := expression.NewBuilder().WithCondition(free).Build()
		if err != nil {
			return false, false, fmt.Errorf("build condition: %w", err)
		}
		_, err = l.api.PutItem(ctx, &dynamodb.PutItemInput{
			TableName:                 aws.String(l.table),
			Item:                      encodeBegin(rec),
			ConditionExpression:       expr.Condition(),
			ExpressionAttributeNames:  expr.Names(),
			ExpressionAttributeValues: expr.Values(),
		})
		if _, held := errors.AsType[*types.ConditionalCheckFailedException](err); held {
			continue
		}
		if err != nil {
			return false, false, fmt.Errorf("put to table %q: %w", l.table, err)
		}
		return true, i == 1, nil
	}
	return false, false, nil
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
	now := l.now().UTC()
	done := held
	done.Status, done.Outcome, done.ErrorType, done.Message, done.CompletedAt = Completed, outcome, errorType, message.Truncate(msg, message.MaxFailureMessage), now

	update := expression.Set(expression.Name(attrStatus), expression.Value(string(Completed))).
		Set(expression.Name(attrOutcome), expression.Value(outcome.String())).
		Set(expression.Name(attrCompletedAt), expression.Value(now.Format(time.RFC3339Nano))).
		Set(expression.Name(attrTTL), expression.Value(now.Add(RecordTTL).Unix()))
	if done.ErrorType != "" {
		update = update.Set(expression.Name(attrErrorType), expression.Value(done.ErrorType))
	}
	if done.Message != "" {
		update = update.Set(expression.Name(attrMessage), expression.Value(done.Message))
	}
	stillHeld := expression.Name(attrStatus).Equal(expression.Value(string(InProgress))).
		And(expression.Name(attrHolder).Equal(expression.Value(held.Holder)))
	lost, err := l.update(ctx, id, stillHeld, update)
	if err != nil {
		return Record{}, fmt.Errorf("complete delivery %s: %w", id, err)
	}
	if lost {
		return l.notHeld(ctx, held)
	}
	return done, nil
}

// update applies upd to id's record on condition cond; lost reports that
// the condition failed.
func (l *Ledger) update(ctx context.Context, id ID, cond expression.ConditionBuilder, upd expression.UpdateBuilder) (lost bool, err error) {
	expr, err := expression.NewBuilder().WithCondition(cond).WithUpdate(upd).Build()
	if err != nil {
		return false, fmt.Errorf("build expression: %w", err)
	}
	_, err = l.api.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(l.table),
		Key:                       id.key(),
		ConditionExpression:       expr.Condition(),
		UpdateExpression:          expr.Update(),
		ExpressionAttributeNames:  expr.Names(),
		ExpressionAttributeValues: expr.Values(),
	})
	if _, failed := errors.AsType[*types.ConditionalCheckFailedException](err); failed {
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("update in table %q: %w", l.table, err)
	}
	return false, nil
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
