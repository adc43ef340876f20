package pace

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/redrive/redrive/dynamo"
)

// ErrConflict reports a Save that lost to another writer of the pace row.
var ErrConflict = errors.New("pace: conflicting write")

// API is the part of the DynamoDB client the store calls; *dynamodb.Client
// satisfies it.
type API interface {
	GetItem(ctx context.Context, params *dynamodb.GetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error)
	PutItem(ctx context.Context, params *dynamodb.PutItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error)
	UpdateItem(ctx context.Context, params *dynamodb.UpdateItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error)
}

// Store keeps pace rows (pk "pace#<key>") in the breaker table.
type Store struct {
	api   API
	table string
}

// NewStore returns a Store on table through api.
func NewStore(api API, table string) *Store { return &Store{api: api, table: table} }

// item is a pace row as stored.
type item struct {
	PK            string    `dynamodbav:"pk"`
	Version       int64     `dynamodbav:"version"`
	Epoch         int64     `dynamodbav:"epoch"`
	ReleaserUntil time.Time `dynamodbav:"releaser_until"`
	Rate          float64   `dynamodbav:"rate"`
	Ceiling       float64   `dynamodbav:"ceiling"`
	SeenThrottles int64     `dynamodbav:"seen_throttles"`
	Full          bool      `dynamodbav:"full"`
	Carry         float64   `dynamodbav:"carry"`
	// Slot and Arrivals count Admit's fresh arrivals per second; Admit
	// alone changes them (without a version).
	Slot     int64 `dynamodbav:"slot"`
	Arrivals int64 `dynamodbav:"arrivals"`
	// EnteredMS is the note of the last entry into the room (Unix
	// milliseconds, EntryNoteAhead after it); Save keeps it, Entered
	// alone changes it (without a version), and Quit checks it.
	EnteredMS int64 `dynamodbav:"entered_ms"`
	// DrainedMS is when a controller last ended on an empty room (Unix
	// milliseconds, the time it last looked): an entry noted since, with
	// no controller, is a room nobody releases (Admission.Stalled).
	DrainedMS int64 `dynamodbav:"drained_ms"`
}

func rowKey(key string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{dynamo.PKAttr: dynamo.S(dynamo.PacePrefix + key)}
}

// Load reads key's pace row (strongly consistent); a missing row is the
// zero State of key.
func (s *Store) Load(ctx context.Context, key string) (State, error) {
	it, err := s.load(ctx, key)
	if err != nil {
		return State{}, err
	}
	return it.state(key), nil
}

// load reads key's pace row as stored (strongly consistent); a missing
// row is the zero item.
func (s *Store) load(ctx context.Context, key string) (item, error) {
	out, err := s.api.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String(s.table), Key: rowKey(key), ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return item{}, fmt.Errorf("pace %q: load: %w", key, err)
	}
	var it item
	if err := attributevalue.UnmarshalMap(out.Item, &it); err != nil {
		return item{}, fmt.Errorf("pace %q: malformed row: %w", key, err)
	}
	return it, nil
}

// decodeState reads key's pace row.
func decodeState(key string, row map[string]types.AttributeValue) (State, error) {
	var it item
	if err := attributevalue.UnmarshalMap(row, &it); err != nil {
		return State{}, fmt.Errorf("pace %q: malformed row: %w", key, err)
	}
	return it.state(key), nil
}

// state is the releaser's part of the row of key.
func (it item) state(key string) State {
	return State{Key: key, Version: it.Version, Epoch: it.Epoch, ReleaserUntil: it.ReleaserUntil, Rate: it.Rate,
		Ceiling: it.Ceiling, SeenThrottles: it.SeenThrottles, Full: it.Full, Carry: it.Carry}
}

// Save writes st as the next version of its row, on the condition that the
// stored version is still st.Version; it returns the saved state. It sets
// only the releaser's fields: Admit's count and Entered's time, written
// without a version, stay as they are.
func (s *Store) Save(ctx context.Context, st State) (State, error) {
	next := st
	next.Version++
	values, err := attributevalue.MarshalMap(map[string]any{
		":version": next.Version, ":epoch": next.Epoch, ":until": next.ReleaserUntil.UTC(), ":rate": next.Rate,
		":ceiling": next.Ceiling, ":seen": next.SeenThrottles, ":full": next.Full, ":carry": next.Carry,
	})
	if err != nil {
		return State{}, fmt.Errorf("pace %q: encode: %w", st.Key, err)
	}
	cond := "attribute_not_exists(#version)" // Admit or Entered may have made the item
	if st.Version > 0 {
		cond = "#version = :v"
		values[":v"] = dynamo.N(st.Version)
	}
	_, err = s.api.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(s.table), Key: rowKey(st.Key),
		UpdateExpression: aws.String("SET #version = :version, #epoch = :epoch, #until = :until, #rate = :rate, " +
			"#ceiling = :ceiling, #seen = :seen, #full = :full, #carry = :carry"),
		ConditionExpression: aws.String(cond), ExpressionAttributeValues: values,
		ExpressionAttributeNames: map[string]string{"#version": "version", "#epoch": "epoch", "#until": "releaser_until",
			"#rate": "rate", "#ceiling": "ceiling", "#seen": "seen_throttles", "#full": "full", "#carry": "carry"},
	})
	if _, lost := errors.AsType[*types.ConditionalCheckFailedException](err); lost {
		return State{}, fmt.Errorf("pace %q version %d: %w", st.Key, next.Version, ErrConflict)
	}
	if err != nil {
		return State{}, fmt.Errorf("pace %q: save version %d: %w", st.Key, next.Version, err)
	}
	return next, nil
}

// EntryNoteAhead is how far ahead of the entry Entered dates its note:
// an entry within it of the last note, while a controller holds the
// lease, is covered by that note and writes nothing (a read instead of a
// write for most entries of a busy room), at the price of a controller
// that may run this much longer after the last entry before it quits.
const EntryNoteAhead = 5 * time.Second

// Entered notes that a message entered key's room at now, and takes the
// releaser lease (as Acquire) when nobody holds it: it reports whether it
// did. The note is what keeps a controller from ending while a message it
// may not have seen yet (the room's index lags) just entered (see Quit):
// it is dated EntryNoteAhead after now and only ever moves forward, so a
// note at or after now with a live lease already covers this entry (a
// controller quits only once it looked at the room after the note), and
// Entered then only reads the row.
func (s *Store) Entered(ctx context.Context, key string, p Policy, now time.Time) (State, bool, error) {
	it, err := s.load(ctx, key)
	if err != nil {
		return State{}, false, err
	}
	if it.ReleaserUntil.After(now) && it.EnteredMS >= now.UnixMilli() {
		return it.state(key), false, nil
	}
	note := dynamo.N(now.Add(EntryNoteAhead).UnixMilli())
	out, err := s.api.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(s.table), Key: rowKey(key),
		UpdateExpression:          aws.String("SET #entered = :note"),
		ConditionExpression:       aws.String("attribute_not_exists(#entered) OR #entered < :note"),
		ExpressionAttributeNames:  map[string]string{"#entered": "entered_ms"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":note": note},
		ReturnValues:              types.ReturnValueAllNew,
	})
	var st State
	switch _, later := errors.AsType[*types.ConditionalCheckFailedException](err); {
	case later: // another entry noted a later time: the lease is as it is now
		st, err = s.Load(ctx, key)
	case err == nil:
		st, err = decodeState(key, out.Attributes)
	default:
		err = fmt.Errorf("pace %q: note an entry: %w", key, err)
	}
	if err != nil {
		return State{}, false, err
	}
	if st.ReleaserUntil.After(now) {
		return st, false, nil
	}
	return s.Acquire(ctx, key, p, now)
}

// Quit gives up the lease of epoch's releaser unless a message entered
// the room at or after checked (when the releaser last looked at the room,
// less what the index may lag). It reports whether it quit, and whether
// the row is still epoch's (false: a newer releaser took over, and this
// one is to end).
func (s *Store) Quit(ctx context.Context, key string, epoch int64, checked time.Time) (quit, mine bool, err error) {
	zero, err := attributevalue.Marshal(time.Time{})
	if err != nil {
		return false, false, fmt.Errorf("pace %q: encode: %w", key, err)
	}
	_, err = s.api.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(s.table), Key: rowKey(key),
		UpdateExpression:    aws.String("SET #until = :zero, #version = #version + :one, #drained = :checked"),
		ConditionExpression: aws.String("#epoch = :epoch AND (attribute_not_exists(#entered) OR #entered < :checked)"),
		ExpressionAttributeNames: map[string]string{"#until": "releaser_until", "#version": "version", "#epoch": "epoch",
			"#entered": "entered_ms", "#drained": "drained_ms"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":zero": zero, ":one": dynamo.N(1),
			":epoch": dynamo.N(epoch), ":checked": dynamo.N(checked.UnixMilli())},
	})
	if _, lost := errors.AsType[*types.ConditionalCheckFailedException](err); lost {
		st, err := s.Load(ctx, key)
		if err != nil {
			return false, true, err
		}
		return false, st.Epoch == epoch, nil
	}
	if err != nil {
		return false, true, fmt.Errorf("pace %q: give up the lease of epoch %d: %w", key, epoch, err)
	}
	return true, true, nil
}

// Acquire takes the releaser lease of key at now when nobody holds it, for
// a new epoch that starts from a fresh rate. It reports false when a live
// releaser holds it (or another caller took it first).
func (s *Store) Acquire(ctx context.Context, key string, p Policy, now time.Time) (State, bool, error) {
	st, err := s.Load(ctx, key)
	if err != nil {
		return State{}, false, err
	}
	if st.ReleaserUntil.After(now) {
		return st, false, nil
	}
	saved, err := s.Save(ctx, newEpoch(st, p, now))
	if errors.Is(err, ErrConflict) {
		return st, false, nil
	}
	if err != nil {
		return State{}, false, err
	}
	return saved, true, nil
}

// TakeOver takes the releaser lease of key at now for a new epoch whether
// or not a live releaser holds it: the releaser of the old epoch stops at
// its next tick. It is for an operator's command that lets messages
// through, which must not wait for a releaser that waits out a cooldown.
func (s *Store) TakeOver(ctx context.Context, key string, p Policy, now time.Time) (State, error) {
	for range 5 {
		st, err := s.Load(ctx, key)
		if err != nil {
			return State{}, err
		}
		saved, err := s.Save(ctx, newEpoch(st, p, now))
		if errors.Is(err, ErrConflict) {
			continue
		}
		return saved, err
	}
	return State{}, fmt.Errorf("pace %q: take over: %w five times", key, ErrConflict)
}

// newEpoch is st with the lease of a new epoch at now, from a fresh rate.
func newEpoch(st State, p Policy, now time.Time) State {
	st.Epoch++
	st.ReleaserUntil = now.Add(p.WithDefaults().Lease)
	st.Rate, st.Ceiling, st.Full, st.Carry = 0, 0, false, 0
	return st
}

// Update applies fn to key's row on behalf of the releaser of epoch and
// saves it, reloading on a conflict. It reports false, saving nothing,
// when the row's epoch is no longer epoch (a newer releaser took over).
func (s *Store) Update(ctx context.Context, key string, epoch int64, fn func(State) State) (State, bool, error) {
	for range 5 {
		st, err := s.Load(ctx, key)
		if err != nil {
			return State{}, false, err
		}
		if st.Epoch != epoch {
			return st, false, nil
		}
		saved, err := s.Save(ctx, fn(st))
		if errors.Is(err, ErrConflict) {
			continue
		}
		if err != nil {
			return State{}, false, err
		}
		return saved, true, nil
	}
	return State{}, false, fmt.Errorf("pace %q: update: %w five times", key, ErrConflict)
}

// Hold sets the lease of epoch's releaser to end at until (zero gives it
// up) and reports whether the row is still epoch's: false, saving nothing,
// when a newer releaser took over.
func (s *Store) Hold(ctx context.Context, key string, epoch int64, until time.Time) (bool, error) {
	_, mine, err := s.Update(ctx, key, epoch, func(st State) State {
		st.ReleaserUntil = until
		return st
	})
	return mine, err
}

// Admission is what Admit says of a batch's fresh arrivals.
type Admission struct {
	// Allowed is how many may go straight to the target.
	Allowed int
	// Stalled says the key's room may hold messages that no controller
	// releases (one entered after the last controller ended on an empty
	// room, and none holds the lease: it died, or could not be started):
	// the caller starts one.
	Stalled bool
}

// Admit counts n fresh arrivals for key at now (messages the starter is
// about to start, not released from the room) and says how many of them
// may go straight to the target: none while a controller releases a
// backlog (its last tick used its whole quota: the newcomers queue behind
// the room), else what is left of this second's allowance, the larger of
// p.Start and the rate the last controller found (so a room that ran
// short stops filling, and its controller ends). One conditional
// UpdateItem, two when the second turned.
func (s *Store) Admit(ctx context.Context, key string, n int, p Policy, now time.Time) (Admission, error) {
	if n <= 0 {
		return Admission{}, nil
	}
	sec := now.Unix()
	values := map[string]types.AttributeValue{
		":n":   dynamo.N(int64(n)),
		":sec": dynamo.N(sec),
	}
	updates := []struct{ update, cond string }{
		{"SET arrivals = arrivals + :n", "slot = :sec"},
		{"SET arrivals = :n, slot = :sec", "attribute_not_exists(slot) OR slot < :sec"},
	}
	for range 2 {
		for _, u := range updates {
			out, err := s.api.UpdateItem(ctx, &dynamodb.UpdateItemInput{
				TableName: aws.String(s.table), Key: rowKey(key),
				UpdateExpression: aws.String(u.update), ConditionExpression: aws.String(u.cond),
				ExpressionAttributeValues: values, ReturnValues: types.ReturnValueAllNew,
			})
			if _, lost := errors.AsType[*types.ConditionalCheckFailedException](err); lost {
				continue
			}
			if err != nil {
				return Admission{}, fmt.Errorf("pace %q: count %d arrivals: %w", key, n, err)
			}
			var it item
			if err := attributevalue.UnmarshalMap(out.Attributes, &it); err != nil {
				return Admission{}, fmt.Errorf("pace %q: malformed row: %w", key, err)
			}
			live := it.ReleaserUntil.After(now)
			a := Admission{Stalled: !live && it.EnteredMS > 0 && it.EnteredMS >= it.DrainedMS}
			if live && it.Full {
				return a, nil
			}
			limit := int64(max(p.WithDefaults().Start, it.Rate))
			a.Allowed = int(min(max(limit-(it.Arrivals-int64(n)), 0), int64(n)))
			return a, nil
		}
	}
	return Admission{}, fmt.Errorf("pace %q: count %d arrivals: %w twice", key, n, ErrConflict)
}
