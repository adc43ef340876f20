package local

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/breaker/breakertest"
	"github.com/redrive/redrive/dynamo"
	"github.com/redrive/redrive/emulate/ddbmem"
	"github.com/redrive/redrive/emulate/quota"
)

// TestPartitionThroughputThrottlesAHotKey gives each partition one write
// and two reads a second: a second write to one key in the same second is
// ProvisionedThroughputExceededException and writes nothing; another key,
// and the same key a second later, are served.
func TestPartitionThroughputThrottlesAHotKey(t *testing.T) {
	ctx := context.Background()
	db := ddbmem.New()
	_, err := db.CreateTable(ctx, dynamo.TableInput("t"))
	require.NoError(t, err)
	clk := breakertest.NewClock(time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC))
	account := quota.NewAccount(quota.Profile{Name: "test", Rates: map[quota.Name]quota.Rate{
		quota.PartitionWrite: {Burst: 1, PerSecond: 1}, quota.PartitionRead: {Burst: 2, PerSecond: 2}}})
	p := partitionThroughput{next: db, account: account, clock: clk}
	put := func(pk, v string) error {
		_, err := p.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("t"), Item: map[string]types.AttributeValue{
			"pk": &types.AttributeValueMemberS{Value: pk}, "v": &types.AttributeValueMemberS{Value: v}}})
		return err
	}
	require.NoError(t, put("breaker#orders", "1"))
	err = put("breaker#orders", "2")
	var throttled *types.ProvisionedThroughputExceededException
	require.ErrorAs(t, err, &throttled)
	require.NoError(t, put("breaker#payments", "1"), "another partition")

	got, err := p.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("t"), Key: map[string]types.AttributeValue{
		"pk": &types.AttributeValueMemberS{Value: "breaker#orders"}}})
	require.NoError(t, err)
	assert.Equal(t, "1", got.Item["v"].(*types.AttributeValueMemberS).Value, "the throttled write wrote nothing")

	clk.Advance(time.Second)
	require.NoError(t, put("breaker#orders", "3"), "refilled")
	assert.Equal(t, int64(1), account.Report().Throttles[quota.PartitionWrite])
}
