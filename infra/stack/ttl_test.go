package stack

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/breaker/dynamostore"
	"github.com/redrive/redrive/tasks/delivery"
	"github.com/redrive/redrive/tasks/room"
)

// The table has one TTL attribute (DynamoDB allows one per table); these
// tests check, against the tasks' own code, that the items meant to expire
// carry it as DynamoDB reads it: a Number of epoch seconds.

// puts records the items written through it; every call succeeds.
type puts struct {
	items []map[string]types.AttributeValue
}

func (p *puts) PutItem(_ context.Context, in *dynamodb.PutItemInput, _ ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	p.items = append(p.items, in.Item)
	return &dynamodb.PutItemOutput{}, nil
}

func (p *puts) GetItem(context.Context, *dynamodb.GetItemInput, ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	return &dynamodb.GetItemOutput{}, nil
}

func (p *puts) UpdateItem(context.Context, *dynamodb.UpdateItemInput, ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	return &dynamodb.UpdateItemOutput{}, nil
}

func (p *puts) DeleteItem(context.Context, *dynamodb.DeleteItemInput, ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	return &dynamodb.DeleteItemOutput{}, nil
}

func (p *puts) Query(context.Context, *dynamodb.QueryInput, ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	return &dynamodb.QueryOutput{}, nil
}

// expiry reads the table's TTL attribute of item as DynamoDB's TTL does.
func expiry(t *testing.T, item map[string]types.AttributeValue) time.Time {
	t.Helper()
	n, ok := item[dynamostore.TTLAttr].(*types.AttributeValueMemberN)
	require.True(t, ok, "the item has no Number attribute %q (the table's TTL attribute), so it never expires; it has %v",
		dynamostore.TTLAttr, keysOf(item))
	sec, err := strconv.ParseInt(n.Value, 10, 64)
	require.NoError(t, err)
	return time.Unix(sec, 0).UTC()
}

func keysOf(item map[string]types.AttributeValue) []string {
	var out []string
	for k := range item {
		out = append(out, k)
	}
	return out
}

func TestTableTTL(t *testing.T) {
	s := synth(t, demoName)
	_, table := s.only(t, "AWS::DynamoDB::Table")
	assert.Equal(t, `{"AttributeName":"`+dynamostore.TTLAttr+`","Enabled":true}`, render(table.Properties["TimeToLiveSpecification"]))
}

func TestDeliveryRecordsExpireByTheTableTTL(t *testing.T) {
	now := time.Date(2026, 4, 1, 9, 30, 0, 0, time.UTC)
	api := &puts{}
	ledger := delivery.New(api, "Table", func() time.Time { return now })
	_, began, err := ledger.Begin(context.Background(), delivery.ID{OriginID: "m-1", Attempt: 1, Try: 1}, breaker.Ticket{}, time.Minute)
	require.NoError(t, err)
	require.True(t, began)
	require.Len(t, api.items, 1)
	assert.Equal(t, now.Add(delivery.RecordTTL), expiry(t, api.items[0]))
}

// TestRoomItemsExpireByTheTableTTL fails while tasks/room writes its
// expiry to "expires_at": the table's TTL attribute is "ttl", the delivery
// records' (one per delivery try, the table's bulk), and DynamoDB allows
// one TTL attribute per table, so room items would never expire. The fix
// belongs in tasks/room: write the expiry (epoch seconds) to "ttl".
func TestRoomItemsExpireByTheTableTTL(t *testing.T) {
	entered := time.Date(2026, 4, 1, 9, 30, 0, 0, time.UTC)
	api := &puts{}
	const ttl = 2 * time.Hour
	require.NoError(t, room.New(api, "Table", ttl).Enter(context.Background(),
		room.Entry{Key: "orders", MessageID: "m-1#1", Token: "token", EnteredAt: entered}))
	require.Len(t, api.items, 1)
	assert.Equal(t, entered.Add(ttl), expiry(t, api.items[0]))
}
