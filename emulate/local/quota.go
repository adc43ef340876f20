package local

import (
	"context"
	"regexp"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/redrive/redrive/clock"
	"github.com/redrive/redrive/dynamo"
	"github.com/redrive/redrive/emulate/quota"
	"github.com/redrive/redrive/lambda/wire"
)

// partitionThroughput holds the tasks' DynamoDB calls to the account's
// throughput per partition (Options.Quotas): each partition key (of the
// table, or of an index for a Query) serves 3,000 read and 1,000 write
// units a second, and a call beyond them fails as DynamoDB's do, with
// ProvisionedThroughputExceededException. A call costs one unit (the
// items are small: a read of up to 4 KB, a write of up to 1 KB), a Query
// too (the room's reads a page of small entries).
type partitionThroughput struct {
	next    wire.DynamoDB
	account *quota.Account
	clock   clock.Clock
}

var _ wire.DynamoDB = partitionThroughput{}

// take takes units of quota n from the partition of key.
func (p partitionThroughput) take(n quota.Name, key string, units float64) error {
	if err := p.account.TakePartition(n, key, units, p.clock.Now()); err != nil {
		return &types.ProvisionedThroughputExceededException{Message: aws.String("The level of configured provisioned throughput for the table was exceeded. (" + err.Error() + ")")}
	}
	return nil
}

// partitionOf is the partition key of an item's key.
func partitionOf(key map[string]types.AttributeValue) string {
	pk, _ := key[dynamo.PKAttr].(*types.AttributeValueMemberS)
	if pk == nil {
		return ""
	}
	return pk.Value
}

// GetItem reads within the item's partition's read units.
func (p partitionThroughput) GetItem(ctx context.Context, in *dynamodb.GetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	if err := p.take(quota.PartitionRead, partitionOf(in.Key), 1); err != nil {
		return nil, err
	}
	return p.next.GetItem(ctx, in, optFns...)
}

// PutItem writes within the item's partition's write units.
func (p partitionThroughput) PutItem(ctx context.Context, in *dynamodb.PutItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	if err := p.take(quota.PartitionWrite, partitionOf(in.Item), 1); err != nil {
		return nil, err
	}
	return p.next.PutItem(ctx, in, optFns...)
}

// UpdateItem writes within the item's partition's write units.
func (p partitionThroughput) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	if err := p.take(quota.PartitionWrite, partitionOf(in.Key), 1); err != nil {
		return nil, err
	}
	return p.next.UpdateItem(ctx, in, optFns...)
}

// DeleteItem writes within the item's partition's write units.
func (p partitionThroughput) DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	if err := p.take(quota.PartitionWrite, partitionOf(in.Key), 1); err != nil {
		return nil, err
	}
	return p.next.DeleteItem(ctx, in, optFns...)
}

// placeholder finds the value placeholder of a key condition's partition
// equality (the first one).
var placeholder = regexp.MustCompile(`:[A-Za-z0-9_]+`)

// Query reads within its partition's read units: the index's partition
// that the key condition names.
func (p partitionThroughput) Query(ctx context.Context, in *dynamodb.QueryInput, optFns ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	key := aws.ToString(in.IndexName) + "/"
	if name := placeholder.FindString(aws.ToString(in.KeyConditionExpression)); name != "" {
		if v, ok := in.ExpressionAttributeValues[name].(*types.AttributeValueMemberS); ok {
			key += v.Value
		}
	}
	if err := p.take(quota.PartitionRead, key, 1); err != nil {
		return nil, err
	}
	return p.next.Query(ctx, in, optFns...)
}
