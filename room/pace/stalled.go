package pace

import (
	"context"
	"fmt"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/redrive/redrive/dynamo"
)

// The stalled-rooms list is one item among the pace rows, pk "pace#" (the
// pace row of no key: a breaker key is never empty), whose string set
// names the keys whose controller could not be started: their rooms hold
// messages nobody releases until the sweep (release.Launcher.Sweep)
// starts one.
const stalledAttr = "stalled_keys"

func stalledKey() map[string]types.AttributeValue {
	return map[string]types.AttributeValue{dynamo.PKAttr: dynamo.S(dynamo.PacePrefix)}
}

// NoteStalled adds key to the stalled-rooms list.
func (s *Store) NoteStalled(ctx context.Context, key string) error {
	return s.changeStalled(ctx, "ADD", key)
}

// ClearStalled removes key from the stalled-rooms list.
func (s *Store) ClearStalled(ctx context.Context, key string) error {
	return s.changeStalled(ctx, "DELETE", key)
}

func (s *Store) changeStalled(ctx context.Context, op, key string) error {
	_, err := s.api.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(s.table), Key: stalledKey(),
		UpdateExpression:          aws.String(op + " #keys :key"),
		ExpressionAttributeNames:  map[string]string{"#keys": stalledAttr},
		ExpressionAttributeValues: map[string]types.AttributeValue{":key": &types.AttributeValueMemberSS{Value: []string{key}}},
	})
	if err != nil {
		return fmt.Errorf("pace: %s %q on the stalled-rooms list: %w", op, key, err)
	}
	return nil
}

// Stalled returns the keys on the stalled-rooms list, sorted (strongly
// consistent).
func (s *Store) Stalled(ctx context.Context) ([]string, error) {
	out, err := s.api.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String(s.table), Key: stalledKey(), ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return nil, fmt.Errorf("pace: read the stalled-rooms list: %w", err)
	}
	set, ok := out.Item[stalledAttr].(*types.AttributeValueMemberSS)
	if !ok {
		return nil, nil
	}
	return slices.Sorted(slices.Values(set.Value)), nil
}
