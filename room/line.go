package room

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/redrive/redrive/dynamo"
	"github.com/redrive/redrive/message"
)

// Place is a FIFO message's place in its message group: a group's
// messages go one at a time, in the order of their sequence numbers, each
// once the one before it in the group was delivered or parked (Advance).
// The group's turn is kept in one item per breaker key and group (a
// conditional write takes it), so no two messages of a group are ever in
// flight at once, whatever the releases racing.
type Place struct {
	// Group is the message's MessageGroupId.
	Group string
	// Sequence is the message's SequenceNumber in its dead-letter queue,
	// zero-padded to SequenceDigits: a group's messages arrive in its
	// order, which strings compare as the numbers do.
	Sequence string
	// Prev is the Sequence of the message of the group that entered the
	// room before it (EnterInLine sets it); "" when it was the first.
	Prev string
}

// SequenceDigits is the width of a padded sequence number, the most an
// SQS SequenceNumber has.
const SequenceDigits = message.MaxSequenceDigits

// PadSequence returns an SQS SequenceNumber padded to SequenceDigits, or
// an error when it is not a decimal number of at most that many digits.
func PadSequence(seq string) (string, error) {
	if !message.IsSequenceNumber(seq) {
		return "", fmt.Errorf("room: sequence number %q is not a decimal number of at most %d digits", seq, SequenceDigits)
	}
	return strings.Repeat("0", SequenceDigits-len(seq)) + seq, nil
}

// HeldRecheck is how long a release leaves a group it found held behind
// a rule not lifted before it looks again: about as long as a change of
// the rules takes to be seen (rules.CacheTTL), so a held group costs a
// look every half minute, not a write every tick.
const HeldRecheck = 30 * time.Second

// StaleTurn is how long a group's turn stays with a message that is no
// longer in the room before the next message may take it over: far
// longer than an Express execution lasts (five minutes), so the message's
// delivery is surely over, delivered or parked, and only the Advance that
// should have followed was lost.
const StaleTurn = 15 * time.Minute

// Attributes of a group's turn item.
const (
	attrTail       = "tail"    // the Sequence of the group's last message to enter
	attrDone       = "done"    // the Sequence of its last message delivered or parked
	attrTurn       = "turn"    // the Sequence of the message whose turn it is, or noTurn
	attrTurnID     = "turn_id" // that message's MessageID
	attrTurnAt     = "turn_at" // when it took the turn (Unix milliseconds)
	attrHeld       = "held"    // the hold rule the group waits behind, or noTurn
	noTurn         = "-"       // no message has the turn; no hold
	maxEnterRounds = 5         // EnterInLine's tries against concurrent entries
	turnTTLs       = 3         // a turn item outlives the entries it orders: this many room TTLs after the last enters
)

// turnPK is the partition key of key's group's turn item. A unit
// separator, which neither a breaker key (message.CheckKey: no control
// characters) nor a MessageGroupId holds, parts the two, so that no two
// keys and groups share an item.
func turnPK(key, group string) string { return dynamo.GroupPrefix + key + "\x1f" + group }

// EnterInLine puts e, a FIFO message that has just arrived, in the room
// behind the messages of its group that entered before it (e.Place.Prev
// is set here), and reports whether it entered: false means it had
// entered before (a second delivery of the same DLQ message, whose
// sequence number the group has already seen), and nothing was written.
// The entry is written before the group's tail moves on, so an arrival
// that fails between the two writes leaves nothing out of line: its
// retry writes both again.
func (r *Room) EnterInLine(ctx context.Context, e Entry) (bool, error) {
	if e.Place == nil || e.Place.Group == "" || e.Place.Sequence == "" {
		return false, fmt.Errorf("room %q: enter %s in line: no message group or sequence number", e.Key, e.MessageID)
	}
	for range maxEnterRounds {
		t, err := r.turn(ctx, e.Key, e.Place.Group)
		if err != nil {
			return false, err
		}
		if t.tail >= e.Place.Sequence {
			return false, nil
		}
		e.Place.Prev = t.tail
		if err := r.Enter(ctx, e); err != nil {
			return false, err
		}
		cond, values := "attribute_not_exists(#tail)", map[string]types.AttributeValue{":seq": dynamo.S(e.Place.Sequence)}
		if t.tail != "" {
			cond, values[":old"] = "#tail = :old", dynamo.S(t.tail)
		}
		values[":ttl"] = dynamo.N(e.EnteredAt.Add(turnTTLs * r.ttl).Unix())
		_, err = r.api.UpdateItem(ctx, &dynamodb.UpdateItemInput{
			TableName:                 aws.String(r.table),
			Key:                       map[string]types.AttributeValue{dynamo.PKAttr: dynamo.S(turnPK(e.Key, e.Place.Group))},
			UpdateExpression:          aws.String("SET #tail = :seq, #ttl = :ttl"),
			ConditionExpression:       aws.String(cond),
			ExpressionAttributeNames:  map[string]string{"#tail": attrTail, "#ttl": attrTTL},
			ExpressionAttributeValues: values,
		})
		if _, raced := errors.AsType[*types.ConditionalCheckFailedException](err); raced {
			continue // another arrival of the group moved the tail: look again
		}
		if err != nil {
			return false, fmt.Errorf("room %q: enter %s in group %q: %w", e.Key, e.MessageID, e.Place.Group, err)
		}
		return true, nil
	}
	return false, fmt.Errorf("room %q: enter %s in group %q: the group's tail kept moving", e.Key, e.MessageID, e.Place.Group)
}

// groupTurn is a group's turn item as read.
type groupTurn struct {
	tail, done, turn, turnID, held string
	turnAt                         time.Time
}

// turn reads key's group's turn item, strongly consistent; a group never
// seen reads empty.
func (r *Room) turn(ctx context.Context, key, group string) (groupTurn, error) {
	out, err := r.api.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:      aws.String(r.table),
		Key:            map[string]types.AttributeValue{dynamo.PKAttr: dynamo.S(turnPK(key, group))},
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return groupTurn{}, fmt.Errorf("room %q: read group %q: %w", key, group, err)
	}
	f := dynamo.Read(out.Item)
	t := groupTurn{tail: f.Str(attrTail, false), done: f.Str(attrDone, false), turn: f.Str(attrTurn, false),
		turnID: f.Str(attrTurnID, false), held: f.Str(attrHeld, false), turnAt: time.UnixMilli(f.Int64(attrTurnAt, false))}
	if t.held == noTurn {
		t.held = ""
	}
	if err := f.Err(); err != nil {
		return groupTurn{}, fmt.Errorf("room %q: malformed group %q: %w", key, group, err)
	}
	return t, nil
}

// takeTurn gives e's group's turn to e at now, and reports whether it has
// it: every message before it in the group was delivered or parked, the
// group is not held and no other message has the turn (e may have it
// already: a message that went back to the room after a failed try keeps
// its group's turn, so its group waits behind it). When the turn is held
// by the message before e, which is gone from the room and took it
// StaleTurn ago or more, its Advance was lost: e takes over. A group held
// behind a hold rule (Hold) goes on once lifted says the rule is. A
// message the group has moved past (done) is back in the room as a
// duplicate of an Express execution: it goes without the turn, its
// delivery record making it harmless, so it holds nothing up.
func (r *Room) takeTurn(ctx context.Context, e Entry, now time.Time, lifted func(context.Context, string) (bool, error)) (bool, error) {
	p := e.Place
	done := "attribute_not_exists(#done)"
	values := map[string]types.AttributeValue{
		":seq": dynamo.S(p.Sequence), ":id": dynamo.S(e.MessageID), ":at": dynamo.N(now.UnixMilli()), ":none": dynamo.S(noTurn),
	}
	if p.Prev != "" {
		done, values[":prev"] = "#done = :prev", dynamo.S(p.Prev)
	}
	if r.heldAt(e, now) {
		return false, nil
	}
	ok, err := r.setTurn(ctx, e, "SET #turn = :seq, #turn_id = :id, #turn_at = :at",
		done+" AND (attribute_not_exists(#turn) OR #turn IN (:none, :seq)) AND (attribute_not_exists(#held) OR #held = :none)", values)
	if ok || err != nil {
		return ok, err
	}
	t, err := r.turn(ctx, e.Key, p.Group)
	switch {
	case err != nil:
		return false, err
	case t.done != "" && p.Sequence <= t.done:
		return true, nil
	case p.Prev == "":
		return false, nil
	case t.held != "" && t.done == p.Prev && lifted != nil:
		return r.unhold(ctx, e, t.held, now, lifted)
	case t.turn == p.Prev && now.Sub(t.turnAt) >= StaleTurn:
		return r.takeOver(ctx, e, t, now)
	}
	return false, nil
}

// heldAt reports whether e's group was found held behind a rule not
// lifted less than HeldRecheck before now: it is not looked at again yet.
func (r *Room) heldAt(e Entry, now time.Time) bool {
	if e.Place == nil {
		return false
	}
	until, held := r.held.Load(turnPK(e.Key, e.Place.Group))
	return held && now.Before(until.(time.Time))
}

// unhold lets e's group go on from behind the hold rule id, if lifted
// says the rule is lifted, and gives e the turn.
func (r *Room) unhold(ctx context.Context, e Entry, id string, now time.Time, lifted func(context.Context, string) (bool, error)) (bool, error) {
	gone, err := lifted(ctx, id)
	if err != nil || !gone {
		r.held.Store(turnPK(e.Key, e.Place.Group), now.Add(HeldRecheck))
		return false, err
	}
	r.held.Delete(turnPK(e.Key, e.Place.Group))
	return r.setTurn(ctx, e, "SET #turn = :seq, #turn_id = :id, #turn_at = :at, #held = :none", "#held = :rule AND #done = :prev",
		map[string]types.AttributeValue{
			":seq": dynamo.S(e.Place.Sequence), ":id": dynamo.S(e.MessageID), ":at": dynamo.N(now.UnixMilli()),
			":none": dynamo.S(noTurn), ":rule": dynamo.S(id), ":prev": dynamo.S(e.Place.Prev),
		})
}

// takeOver gives e the turn that the message before it in the group still
// holds, stale as t shows it (see takeTurn).
func (r *Room) takeOver(ctx context.Context, e Entry, t groupTurn, now time.Time) (bool, error) {
	out, err := r.api.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:      aws.String(r.table),
		Key:            map[string]types.AttributeValue{dynamo.PKAttr: dynamo.S(pk(e.Key, t.turnID))},
		ConsistentRead: aws.Bool(true),
	})
	if err != nil || out.Item != nil {
		// Still in the room: the message before e has the turn, waiting.
		return false, err
	}
	return r.setTurn(ctx, e, "SET #done = :prev, #turn = :seq, #turn_id = :id, #turn_at = :at",
		"#turn = :prev AND #turn_at = :was", map[string]types.AttributeValue{
			":prev": dynamo.S(e.Place.Prev), ":seq": dynamo.S(e.Place.Sequence), ":id": dynamo.S(e.MessageID),
			":at": dynamo.N(now.UnixMilli()), ":was": dynamo.N(t.turnAt.UnixMilli()),
		})
}

// setTurn updates e's group's turn item by update on cond, and reports
// whether the condition held.
func (r *Room) setTurn(ctx context.Context, e Entry, update, cond string, values map[string]types.AttributeValue) (bool, error) {
	names := map[string]string{"#turn": attrTurn, "#turn_id": attrTurnID, "#turn_at": attrTurnAt}
	for name, attr := range map[string]string{"#done": attrDone, "#held": attrHeld} {
		if strings.Contains(update+cond, name) {
			names[name] = attr
		}
	}
	_, err := r.api.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(r.table),
		Key:                       map[string]types.AttributeValue{dynamo.PKAttr: dynamo.S(turnPK(e.Key, e.Place.Group))},
		UpdateExpression:          aws.String(update),
		ConditionExpression:       aws.String(cond),
		ExpressionAttributeNames:  names,
		ExpressionAttributeValues: values,
	})
	if _, lost := errors.AsType[*types.ConditionalCheckFailedException](err); lost {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("room %q: take group %q's turn for %s: %w", e.Key, e.Place.Group, e.MessageID, err)
	}
	return true, nil
}

// Advance ends the turn of message id at p in key's room, delivered or
// parked, so the next message of its group may go, and takes an entry of
// it still in the room out: an Express duplicate's, which would
// otherwise hold the group until its delivery's lease ends. A message
// that does not have its group's turn (an Advance done before, or a turn
// taken over) changes nothing.
func (r *Room) Advance(ctx context.Context, key, id string, p Place) error {
	return r.endTurn(ctx, key, id, p, noTurn)
}

// Hold is Advance for a parked message that holds its group behind the
// hold rule ruleID: the group's next message goes once the release's
// Lifted says the rule is lifted (Releaser.Lifted).
func (r *Room) Hold(ctx context.Context, key, id string, p Place, ruleID string) error {
	return r.endTurn(ctx, key, id, p, ruleID)
}

// endTurn is Advance and Hold, held being the hold rule or noTurn.
func (r *Room) endTurn(ctx context.Context, key, id string, p Place, held string) error {
	_, err := r.api.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(r.table),
		Key:                       map[string]types.AttributeValue{dynamo.PKAttr: dynamo.S(turnPK(key, p.Group))},
		UpdateExpression:          aws.String("SET #done = :seq, #turn = :none, #held = :held"),
		ConditionExpression:       aws.String("#turn = :seq"),
		ExpressionAttributeNames:  map[string]string{"#done": attrDone, "#turn": attrTurn, "#held": attrHeld},
		ExpressionAttributeValues: map[string]types.AttributeValue{":seq": dynamo.S(p.Sequence), ":none": dynamo.S(noTurn), ":held": dynamo.S(held)},
	})
	if _, stale := errors.AsType[*types.ConditionalCheckFailedException](err); stale {
		return nil
	}
	if err != nil {
		return fmt.Errorf("room %q: end the turn of %s in group %q: %w", key, p.Sequence, p.Group, err)
	}
	// Done: an entry of it left (a duplicate's) goes. One that stays, or
	// comes after, goes without the turn (takeTurn).
	if _, err := r.api.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		TableName: aws.String(r.table),
		Key:       map[string]types.AttributeValue{dynamo.PKAttr: dynamo.S(pk(key, id))},
	}); err != nil {
		return fmt.Errorf("room %q: take %s, done, out: %w", key, id, err)
	}
	return nil
}

// fifoMark starts every FIFO entry's sequence: the epoch, so that every
// FIFO entry is listed as due, then a word no standard entry's sequence
// has (theirs go on with a time).
var fifoMark = time.Unix(0, 0).UTC().Format(seqTime) + "#fifo#"

// fifoSequence is a FIFO entry's place in line (the index's sort key): the
// mark, then its sequence number, so that a group's messages are listed
// in their order and the oldest groups first, whatever their heads'
// failed tries; then what a listing must know without reading each item
// (the index's projection is fixed once a table is deployed): the
// sequence number before it in its group, when it may go and its group,
// length-prefixed (it may hold any punctuation); its message id last, as
// it may hold anything.
func fifoSequence(e Entry) string {
	notBefore := ""
	if !e.NotBefore.IsZero() {
		notBefore = e.NotBefore.UTC().Format(seqTime)
	}
	p := e.Place
	return fifoMark + p.Sequence + "#" + p.Prev + "#" + notBefore + "#" + strconv.Itoa(len(p.Group)) + ":" + p.Group + "#" + e.MessageID
}

// placeOf reads the place and the NotBefore of a FIFO entry's sequence;
// nil for a standard entry's (or one that does not parse).
func placeOf(seq string) (*Place, time.Time) {
	rest, ok := strings.CutPrefix(seq, fifoMark)
	if !ok {
		return nil, time.Time{}
	}
	parts := strings.SplitN(rest, "#", 4)
	if len(parts) != 4 {
		return nil, time.Time{}
	}
	size, group, ok := strings.Cut(parts[3], ":")
	n, err := strconv.Atoi(size)
	if !ok || err != nil || n < 0 || n > len(group) {
		return nil, time.Time{}
	}
	var notBefore time.Time
	if parts[2] != "" {
		if notBefore, err = time.Parse(seqTime, parts[2]); err != nil {
			return nil, time.Time{}
		}
	}
	return &Place{Sequence: parts[0], Prev: parts[1], Group: group[:n]}, notBefore
}

// inTurn returns the entries of a listing that may go at now, in line:
// every entry of a standard queue (listed because due), and of each FIFO
// group only the listed entry with the least sequence number (the one
// whose turn it may be) if it is due, the FIFO entries by when they may
// go (a head back in the room after a failed try by that try, so a probe
// or a canary goes to another group's head next, as it would go to
// another message of a standard queue); and how many FIFO entries it
// left out. A group whose head is not due waits without a write.
func inTurn(entries []Entry, now time.Time) (out []Entry, behind int) {
	least := map[string]string{} // group -> its least listed sequence
	for _, e := range entries {
		if p := e.Place; p != nil {
			if seq, seen := least[p.Group]; !seen || p.Sequence < seq {
				least[p.Group] = p.Sequence
			}
		}
	}
	for _, e := range entries {
		switch {
		case e.Place == nil:
			out = append(out, e)
		case least[e.Place.Group] == e.Place.Sequence && !e.Due().After(now):
			out = append(out, e)
		default:
			behind++
		}
	}
	slices.SortStableFunc(out, func(a, b Entry) int { return a.Due().Compare(b.Due()) })
	return out, behind
}
