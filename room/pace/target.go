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

// The target's pace is one item among the pace rows, pk "pace#\x1ftarget"
// (no breaker key holds a control character: message.CheckKey). Every
// controller of a stack releases to the same target, so their ticks share
// one budget a tick, set by one rate controller (Policy.Step) on the
// throttles all of them report: the controllers of eight tenants then
// probe the target's capacity as one controller does, instead of eight
// probes adding up past it, and a throttle that any key's Attempt meets
// pauses them all (NoteThrottle).
const targetPK = dynamo.PacePrefix + "\x1ftarget"

func targetKey() map[string]types.AttributeValue {
	return map[string]types.AttributeValue{dynamo.PKAttr: dynamo.S(targetPK)}
}

// target is the target's pace row as stored.
type target struct {
	Version int64 `dynamodbav:"version"`
	// Slot is the tick the budget is of (Unix time in ticks).
	Slot          int64   `dynamodbav:"slot"`
	Rate          float64 `dynamodbav:"rate"`
	Ceiling       float64 `dynamodbav:"ceiling"`
	Carry         float64 `dynamodbav:"carry"`
	SeenThrottles int64   `dynamodbav:"seen_throttles"`
	// Throttles sums the throttles the takers reported.
	Throttles int64 `dynamodbav:"throttles"`
	// Budget is the slot's messages, Granted what its takers got of it.
	Budget  int64 `dynamodbav:"budget"`
	Granted int64 `dynamodbav:"granted"`
	// Takers counts the slot's takes, LastTakers the slot before's.
	Takers     int64 `dynamodbav:"takers"`
	LastTakers int64 `dynamodbav:"last_takers"`
	// PausedMS is the end of the last throttle pause a controller noted
	// (Unix milliseconds); NoteThrottle alone changes it.
	PausedMS int64 `dynamodbav:"paused_ms"`
}

// Grant is what Take gave one controller's tick.
type Grant struct {
	// N is how many messages the tick may release.
	N int
	// PausedUntil, when ahead of the tick, is a throttle pause that
	// another controller noted: the tick releases nothing until then.
	PausedUntil time.Time
	// Shared says other controllers took from the budget in this tick or
	// the last: a throttle of their messages may pause this one's.
	Shared bool
}

// Take asks the target's budget for the tick at now for up to want
// messages, for the controller of one breaker key, reporting throttles:
// how many times the target throttled that key's messages since its last
// take. The first take of a tick sets the tick's budget by Policy.Step
// from the last tick's (it grows when the last tick's budget was given
// out in full, and backs off when a throttle was reported since), with a
// versioned write; each later take of the tick gets its share (see
// share), so the first to tick does not starve the others, in one atomic
// update. A take during a noted throttle pause gets nothing, and the
// pause.
func (s *Store) Take(ctx context.Context, p Policy, now time.Time, want int, throttles int64) (Grant, error) {
	p = p.WithDefaults()
	slot := now.UnixNano() / int64(p.Tick)
	for range 5 {
		old, err := s.loadTarget(ctx)
		if err != nil {
			return Grant{}, err
		}
		if paused := time.UnixMilli(old.PausedMS); old.PausedMS > 0 && paused.After(now) {
			if throttles == 0 {
				return Grant{PausedUntil: paused}, nil
			}
			want = 0 // report the throttles, take nothing
		}
		it := old
		it.Throttles += throttles
		it = it.open(p, slot)
		n := min(int64(max(want, 0)), it.share())
		it.Granted += n
		if want > 0 {
			it.Takers++
		}
		if old.Slot == slot {
			err = s.addTake(ctx, it, n, want > 0, throttles)
		} else {
			err = s.saveTarget(ctx, old.Version, it)
		}
		if errors.Is(err, ErrConflict) {
			continue
		}
		if err != nil {
			return Grant{}, err
		}
		return Grant{N: int(n), PausedUntil: time.UnixMilli(it.PausedMS), Shared: max(it.Takers, it.LastTakers) > 1}, nil
	}
	return Grant{}, fmt.Errorf("pace: take from the target's budget: %w five times", ErrConflict)
}

// share is the next taker's part of what is left of the slot's budget.
// The budget is owed in equal parts to as many takers as took in the slot
// before (the units that do not divide to a different few of them each
// slot, so that a budget smaller than the controllers serves them all in
// turn); a taker gets what is left less what the takers after it are
// owed, so what an earlier one did not want goes to the next.
func (it target) share() int64 {
	left := max(it.Budget-it.Granted, 0)
	n := it.LastTakers
	if n == 0 {
		return left
	}
	q, r := it.Budget/n, it.Budget%n
	owed := int64(0)
	for j := it.Takers + 1; j < n; j++ {
		owed += q
		if (j+it.Slot)%n < r {
			owed++
		}
	}
	return max(left-owed, 0)
}

// open returns it for slot: as it is when it is slot's, else with slot's
// budget.
func (it target) open(p Policy, slot int64) target {
	if it.Slot == slot {
		return it
	}
	st := State{Rate: it.Rate, Ceiling: it.Ceiling, Carry: it.Carry, SeenThrottles: it.SeenThrottles,
		Full: it.Budget > 0 && it.Granted >= it.Budget}
	last := int64(0)
	if it.Slot == slot-1 {
		last = it.Takers
	}
	st, budget := p.Step(st, it.Throttles)
	it.Slot, it.Rate, it.Ceiling, it.Carry, it.SeenThrottles = slot, st.Rate, st.Ceiling, st.Carry, st.SeenThrottles
	it.Budget, it.Granted, it.Takers, it.LastTakers = int64(budget), 0, 0, last
	return it
}

// NoteThrottle pauses every controller's releases until until (a
// throttle's pause that one of them saw on its breaker row), unless a
// later pause is noted already.
func (s *Store) NoteThrottle(ctx context.Context, until time.Time) error {
	_, err := s.api.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(s.table), Key: targetKey(),
		UpdateExpression:          aws.String("SET #paused = :until"),
		ConditionExpression:       aws.String("attribute_not_exists(#paused) OR #paused < :until"),
		ExpressionAttributeNames:  map[string]string{"#paused": "paused_ms"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":until": dynamo.N(until.UnixMilli())},
	})
	if _, later := errors.AsType[*types.ConditionalCheckFailedException](err); later {
		return nil
	}
	if err != nil {
		return fmt.Errorf("pace: note the target's throttle: %w", err)
	}
	return nil
}

// PausedUntil returns the end of the last throttle pause noted (zero when
// none was), read eventually consistent: a pause is half a second, and a
// read a moment late only lets that moment's releases through, as a
// controller's own breaker row does.
func (s *Store) PausedUntil(ctx context.Context) (time.Time, error) {
	out, err := s.api.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String(s.table), Key: targetKey(),
		ProjectionExpression: aws.String("#paused"), ExpressionAttributeNames: map[string]string{"#paused": "paused_ms"},
	})
	if err != nil {
		return time.Time{}, fmt.Errorf("pace: read the target's throttle pause: %w", err)
	}
	var it target
	if err := attributevalue.UnmarshalMap(out.Item, &it); err != nil {
		return time.Time{}, fmt.Errorf("pace: malformed target row: %w", err)
	}
	if it.PausedMS == 0 {
		return time.Time{}, nil
	}
	return time.UnixMilli(it.PausedMS), nil
}

// loadTarget reads the target's row (strongly consistent); a missing row
// is the zero target.
func (s *Store) loadTarget(ctx context.Context) (target, error) {
	out, err := s.api.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String(s.table), Key: targetKey(), ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return target{}, fmt.Errorf("pace: load the target's row: %w", err)
	}
	var it target
	if err := attributevalue.UnmarshalMap(out.Item, &it); err != nil {
		return target{}, fmt.Errorf("pace: malformed target row: %w", err)
	}
	return it, nil
}

// addTake adds a take of n (and a taker, and throttles) to it, the slot
// open as read, in one atomic update: on the condition that the slot is
// still it's and n still fits in its budget, however many took since the
// read, so that the controllers of many keys taking in one slot seldom
// conflict.
func (s *Store) addTake(ctx context.Context, it target, n int64, taker bool, throttles int64) error {
	takers := int64(0)
	if taker {
		takers = 1
	}
	_, err := s.api.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(s.table), Key: targetKey(),
		UpdateExpression: aws.String("SET #granted = #granted + :n, #takers = #takers + :takers, " +
			"#throttles = #throttles + :throttles, #version = #version + :one"),
		ConditionExpression: aws.String("#slot = :slot AND #granted <= :limit"),
		ExpressionAttributeNames: map[string]string{"#granted": "granted", "#takers": "takers",
			"#throttles": "throttles", "#version": "version", "#slot": "slot"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":n": dynamo.N(n), ":takers": dynamo.N(takers),
			":throttles": dynamo.N(throttles), ":one": dynamo.N(1), ":slot": dynamo.N(it.Slot), ":limit": dynamo.N(it.Budget - n)},
	})
	if _, lost := errors.AsType[*types.ConditionalCheckFailedException](err); lost {
		return fmt.Errorf("pace: take %d of the target's budget: %w", n, ErrConflict)
	}
	if err != nil {
		return fmt.Errorf("pace: take %d of the target's budget: %w", n, err)
	}
	return nil
}

// saveTarget writes it as the next version of the target's row, on the
// condition that the stored version is still version. It leaves the noted
// pause as it is.
func (s *Store) saveTarget(ctx context.Context, version int64, it target) error {
	values, err := attributevalue.MarshalMap(map[string]any{
		":version": version + 1, ":slot": it.Slot, ":rate": it.Rate, ":ceiling": it.Ceiling, ":carry": it.Carry,
		":seen": it.SeenThrottles, ":throttles": it.Throttles, ":budget": it.Budget, ":granted": it.Granted,
		":takers": it.Takers, ":last": it.LastTakers,
	})
	if err != nil {
		return fmt.Errorf("pace: encode the target's row: %w", err)
	}
	cond := "attribute_not_exists(#version)" // NoteThrottle may have made the item
	if version > 0 {
		cond = "#version = :v"
		values[":v"] = dynamo.N(version)
	}
	_, err = s.api.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(s.table), Key: targetKey(),
		UpdateExpression: aws.String("SET #version = :version, #slot = :slot, #rate = :rate, #ceiling = :ceiling, " +
			"#carry = :carry, #seen = :seen, #throttles = :throttles, #budget = :budget, #granted = :granted, " +
			"#takers = :takers, #last = :last"),
		ConditionExpression: aws.String(cond), ExpressionAttributeValues: values,
		ExpressionAttributeNames: map[string]string{"#version": "version", "#slot": "slot", "#rate": "rate",
			"#ceiling": "ceiling", "#carry": "carry", "#seen": "seen_throttles", "#throttles": "throttles",
			"#budget": "budget", "#granted": "granted", "#takers": "takers", "#last": "last_takers"},
	})
	if _, lost := errors.AsType[*types.ConditionalCheckFailedException](err); lost {
		return fmt.Errorf("pace: target's row version %d: %w", version+1, ErrConflict)
	}
	if err != nil {
		return fmt.Errorf("pace: save the target's row: %w", err)
	}
	return nil
}
