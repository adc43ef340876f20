package dynamo

import (
	"context"
	"errors"
	"fmt"
	"maps"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/redrive/redrive/breaker"
)

// ErrInvalidRow reports a Load or Save the store refuses before calling
// DynamoDB: an empty key, a version that does not follow the previous one,
// or a state with no name.
var ErrInvalidRow = errors.New("dynamo: invalid row")

// API is the part of the DynamoDB client the store calls; *dynamodb.Client
// satisfies it.
type API interface {
	GetItem(ctx context.Context, params *dynamodb.GetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error)
	PutItem(ctx context.Context, params *dynamodb.PutItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error)
	UpdateItem(ctx context.Context, params *dynamodb.UpdateItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error)
}

// Store keeps breaker rows in one DynamoDB table whose partition key is the
// string attribute pk (see TableInput).
type Store struct {
	api   API
	table string
}

var _ breaker.Store = (*Store)(nil)

// New returns a Store on table through api.
func New(api API, table string) *Store {
	return &Store{api: api, table: table}
}

// Load returns the row for key with a strongly consistent read; a missing
// item is Row{Key: key}.
func (s *Store) Load(ctx context.Context, key string) (breaker.Row, error) {
	item, err := s.rawItem(ctx, "load", key)
	if err != nil {
		return breaker.Row{}, err
	}
	if item == nil {
		return breaker.Row{Key: key}, nil
	}
	row, err := decode(key, item)
	if err != nil {
		return breaker.Row{}, fmt.Errorf("load breaker %q from table %q: %w", key, s.table, err)
	}
	return row, nil
}

// rawItem reads key's item as stored, strongly consistent; nil when there
// is none. op names what it reads for, in errors.
func (s *Store) rawItem(ctx context.Context, op, key string) (map[string]types.AttributeValue, error) {
	if key == "" {
		return nil, fmt.Errorf("%s breaker: %w: empty key", op, ErrInvalidRow)
	}
	out, err := s.api.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String(s.table), Key: itemKey(key), ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return nil, fmt.Errorf("%s breaker %q from table %q: %w", op, key, s.table, err)
	}
	if len(out.Item) == 0 {
		return nil, nil
	}
	return out.Item, nil
}

// The conditions of a Save: that no item exists (saveNew, a new row, with
// saveNewNames), or that the stored version is :prevVersion (saveOver, with
// saveNames).
const (
	saveNew  = "attribute_not_exists(#pk)"
	saveOver = "#version = :prevVersion"
)

// saveNewNames are the names of saveNew and saveUpdate. Every Save of a new
// row shares the map; it is never changed.
var saveNewNames = func() map[string]string {
	names := maps.Clone(saveNames)
	names["#pk"] = PKAttr
	return names
}()

// Save writes next in one UpdateItem on the condition that the stored
// version is prevVersion (that no item exists when prevVersion is 0). A
// failed condition returns an error matching breaker.ErrConflict.
func (s *Store) Save(ctx context.Context, prevVersion int64, next breaker.Row) error {
	if err := checkSave(prevVersion, next); err != nil {
		return fmt.Errorf("save breaker %q over version %d: %w", next.Key, prevVersion, err)
	}
	cond, names, values := saveOver, saveNames, encode(next, asValue)
	if prevVersion == 0 {
		cond, names = saveNew, saveNewNames
	} else {
		values[":prevVersion"] = N(prevVersion)
	}
	_, err := s.api.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(s.table),
		Key:                       itemKey(next.Key),
		ConditionExpression:       aws.String(cond),
		UpdateExpression:          aws.String(saveUpdate),
		ExpressionAttributeNames:  names,
		ExpressionAttributeValues: values,
	})
	if ccf, ok := errors.AsType[*types.ConditionalCheckFailedException](err); ok {
		return fmt.Errorf("save breaker %q over version %d: %w (%s)", next.Key, prevVersion, breaker.ErrConflict, ccf.ErrorMessage())
	}
	if err != nil {
		return fmt.Errorf("save breaker %q over version %d to table %q: %w", next.Key, prevVersion, s.table, err)
	}
	return nil
}

// checkSave rejects a Save that is a programming error rather than a race.
func checkSave(prevVersion int64, next breaker.Row) error {
	switch {
	case next.Key == "":
		return fmt.Errorf("%w: empty key", ErrInvalidRow)
	case prevVersion < 0:
		return fmt.Errorf("%w: negative previous version", ErrInvalidRow)
	case next.Version != prevVersion+1:
		return fmt.Errorf("%w: next version %d, want %d", ErrInvalidRow, next.Version, prevVersion+1)
	}
	if _, err := breaker.ParseState(next.State.String()); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidRow, err)
	}
	return nil
}

// itemKey is the primary key of key's item.
func itemKey(key string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{PKAttr: &types.AttributeValueMemberS{Value: BreakerPrefix + key}}
}
