package rules

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/dynamo"
)

// MaxAudit is how many changes the rules item keeps, newest last; every
// change is also logged by the admin function.
const MaxAudit = 200

// writeTries is how many conditional writes a change tries before it
// reports contention.
const writeTries = 5

// Item attributes.
const (
	attrVersion = "version"
	attrNextID  = "next_id"
	attrRules   = "rules"
	attrAudit   = "audit"
)

// The operations an audit Change records.
const (
	OpAdd    = "add"
	OpRemove = "remove"
	OpExpire = "expire"
)

// Change is one entry of the audit trail.
type Change struct {
	// At is when the change was made.
	At time.Time `json:"at"`
	// Op is OpAdd, OpRemove or OpExpire (a rule past its end, dropped by
	// the next change).
	Op string `json:"op"`
	// Actor and Reason say who and why; a rule's own for add and expire.
	Actor  string `json:"actor"`
	Reason string `json:"reason"`
	// Rule is the rule added, removed or expired.
	Rule Rule `json:"rule"`
}

// Book is the rules item: the rules in force and the audit trail.
type Book struct {
	// Version increases by one per write; 0 means no item yet.
	Version int64 `json:"version"`
	// NextID numbers the next rule added.
	NextID int64 `json:"nextId"`
	// Rules are the rules, in the order they were added.
	Rules []Rule `json:"rules"`
	// Audit holds the last MaxAudit changes, oldest first.
	Audit []Change `json:"audit"`
}

// ErrNoRule reports a remove of a rule id that is not in force.
var ErrNoRule = errors.New("rules: no such rule")

// ErrTooMany reports an add beyond MaxRules.
var ErrTooMany = fmt.Errorf("rules: at most %d rules may be in force", MaxRules)

// ErrTooLarge reports an add that would make the rules in force larger
// than MaxRulesBytes.
var ErrTooLarge = errors.New("rules: the rules in force would not fit in their table item")

// maxItemBytes bounds the rules item, below DynamoDB's 400 KB item limit;
// the rules may take MaxRulesBytes of it, and the audit trail gives up its
// oldest changes to fit in the rest (every change is logged too).
const maxItemBytes = 350_000

// MaxRulesBytes bounds the rules in force as encoding/json writes them (a
// JSON array): an add that would pass it fails with ErrTooLarge. So no
// rule ever added encodes in more than MaxRulesBytes-2 bytes, and an
// audit Change in more than that and its time, op, actor and reason.
const MaxRulesBytes = 200_000

// API is the part of the DynamoDB client the store calls; *dynamodb.Client
// satisfies it.
type API interface {
	GetItem(ctx context.Context, params *dynamodb.GetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error)
	PutItem(ctx context.Context, params *dynamodb.PutItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error)
}

// Store reads and changes the rules item of a table. It is safe for
// concurrent use: every change is one conditional write on the item's
// version.
type Store struct {
	api   API
	table string
}

// NewStore returns the Store of table through api.
func NewStore(api API, table string) *Store { return &Store{api: api, table: table} }

// Load reads the rules item (strongly consistent); an empty Book when there
// is none.
func (s *Store) Load(ctx context.Context) (Book, error) {
	out, err := s.api.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:      aws.String(s.table),
		Key:            map[string]types.AttributeValue{dynamo.PKAttr: dynamo.S(dynamo.RulesKey)},
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return Book{}, fmt.Errorf("rules: read: %w", err)
	}
	if out.Item == nil {
		return Book{NextID: 1}, nil
	}
	return decode(out.Item)
}

// Add adds a rule made of spec, which must Check, at now, and returns it
// with its id. Rules past their end are dropped (and audited) on the way.
func (s *Store) Add(ctx context.Context, spec Spec, actor, reason string, until, now time.Time) (Rule, error) {
	var added Rule
	_, err := s.change(ctx, now, func(b *Book) error {
		if len(b.Rules) >= MaxRules {
			return ErrTooMany
		}
		added = Rule{Spec: spec, ID: "r" + strconv.FormatInt(b.NextID, 10), Actor: actor, Reason: reason, Added: now.UTC(), Until: until.UTC()}
		b.NextID++
		b.Rules = append(b.Rules, added)
		b.audit(Change{At: now.UTC(), Op: OpAdd, Actor: actor, Reason: reason, Rule: added})
		return nil
	})
	return added, err
}

// Remove removes the rule id at now and returns it; ErrNoRule when no rule
// in force has that id.
func (s *Store) Remove(ctx context.Context, id, actor, reason string, now time.Time) (Rule, error) {
	var removed Rule
	_, err := s.change(ctx, now, func(b *Book) error {
		for i, r := range b.Rules {
			if r.ID == id {
				removed = r
				b.Rules = append(b.Rules[:i:i], b.Rules[i+1:]...)
				b.audit(Change{At: now.UTC(), Op: OpRemove, Actor: actor, Reason: reason, Rule: r})
				return nil
			}
		}
		return fmt.Errorf("%w %q", ErrNoRule, id)
	})
	return removed, err
}

// change applies edit to the stored Book, after dropping the rules past
// their end at now, with a conditional write; a lost race reads again, up
// to writeTries times, then fails with a *breaker.ConflictError.
func (s *Store) change(ctx context.Context, now time.Time, edit func(*Book) error) (Book, error) {
	for range writeTries {
		b, err := s.Load(ctx)
		if err != nil {
			return Book{}, err
		}
		version := b.Version
		b.expire(now)
		if err := edit(&b); err != nil {
			return Book{}, err
		}
		b.Version++
		err = s.put(ctx, b, version)
		if _, lost := errors.AsType[*types.ConditionalCheckFailedException](err); lost {
			continue
		}
		if err != nil {
			return Book{}, fmt.Errorf("rules: write: %w", err)
		}
		return b, nil
	}
	return Book{}, &breaker.ConflictError{Key: dynamo.RulesKey, Attempts: writeTries}
}

// expire drops the rules past their end at now, auditing each.
func (b *Book) expire(now time.Time) {
	kept := b.Rules[:0:0]
	for _, r := range b.Rules {
		if r.ActiveAt(now) {
			kept = append(kept, r)
			continue
		}
		b.audit(Change{At: now.UTC(), Op: OpExpire, Actor: r.Actor, Reason: "ended at " + r.Until.Format(time.RFC3339), Rule: r})
	}
	b.Rules = kept
}

// audit appends c to the trail, keeping the last MaxAudit.
func (b *Book) audit(c Change) {
	b.Audit = append(b.Audit, c)
	if extra := len(b.Audit) - MaxAudit; extra > 0 {
		b.Audit = append([]Change(nil), b.Audit[extra:]...)
	}
}

// put writes b on the condition that the stored version is still version.
// It drops the audit trail's oldest changes while the item is larger than
// maxItemBytes, and fails with ErrTooLarge when the rules alone are.
func (s *Store) put(ctx context.Context, b Book, version int64) error {
	rules, err := json.Marshal(b.Rules)
	if err != nil {
		return err
	}
	if len(rules) > MaxRulesBytes {
		return fmt.Errorf("%w: %d bytes of rules, at most %d", ErrTooLarge, len(rules), MaxRulesBytes)
	}
	audit, err := json.Marshal(b.Audit)
	for err == nil && len(rules)+len(audit) > maxItemBytes {
		b.Audit = b.Audit[max(1, len(b.Audit)/10):]
		audit, err = json.Marshal(b.Audit)
	}
	if err != nil {
		return err
	}
	in := &dynamodb.PutItemInput{
		TableName: aws.String(s.table),
		Item: map[string]types.AttributeValue{
			dynamo.PKAttr: dynamo.S(dynamo.RulesKey),
			attrVersion:   dynamo.N(b.Version),
			attrNextID:    dynamo.N(b.NextID),
			attrRules:     dynamo.S(string(rules)),
			attrAudit:     dynamo.S(string(audit)),
		},
		ConditionExpression:      aws.String("attribute_not_exists(#pk)"),
		ExpressionAttributeNames: map[string]string{"#pk": dynamo.PKAttr},
	}
	if version > 0 {
		in.ConditionExpression = aws.String("#v = :v")
		in.ExpressionAttributeNames = map[string]string{"#v": attrVersion}
		in.ExpressionAttributeValues = map[string]types.AttributeValue{":v": dynamo.N(version)}
	}
	_, err = s.api.PutItem(ctx, in)
	return err
}

// decode reads a rules item.
func decode(item map[string]types.AttributeValue) (Book, error) {
	f := dynamo.Read(item)
	b := Book{Version: f.Int64(attrVersion, true), NextID: f.Int64(attrNextID, true)}
	f.JSON(attrRules, true, &b.Rules)
	f.JSON(attrAudit, true, &b.Audit)
	if err := f.Err(); err != nil {
		return Book{}, fmt.Errorf("rules: malformed item: %w", err)
	}
	return b, nil
}
