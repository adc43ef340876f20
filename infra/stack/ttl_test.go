package stack

import (
	"context"
	"log/slog"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/breaker/breakertest"
	"github.com/redrive/redrive/delivery"
	"github.com/redrive/redrive/dynamo"
	"github.com/redrive/redrive/lambda/telemetry"
	"github.com/redrive/redrive/message"
	"github.com/redrive/redrive/park"
	"github.com/redrive/redrive/park/lotindex"
	"github.com/redrive/redrive/room"
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
	n, ok := item[dynamo.TTLAttr].(*types.AttributeValueMemberN)
	require.True(t, ok, "the item has no Number attribute %q (the table's TTL attribute), so it never expires; it has %v",
		dynamo.TTLAttr, keysOf(item))
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
	assert.Equal(t, `{"AttributeName":"`+dynamo.TTLAttr+`","Enabled":true}`, render(table.Properties["TimeToLiveSpecification"]))
}

func TestDeliveryRecordsExpireByTheTableTTL(t *testing.T) {
	now := time.Date(2026, 4, 1, 9, 30, 0, 0, time.UTC)
	api := &puts{}
	ledger := delivery.New(api, "Table", breakertest.NewClock(now))
	_, began, err := ledger.Begin(context.Background(), delivery.ID{OriginID: "m-1", Attempt: 1, Try: 1}, breaker.Ticket{}, time.Minute)
	require.NoError(t, err)
	require.True(t, began)
	require.Len(t, api.items, 1)
	assert.Equal(t, now.Add(delivery.RecordTTL), expiry(t, api.items[0]))
}

// TestRoomItemsExpireByTheTableTTL: a room entry (a waiting message's
// document) expires by the table's TTL attribute, "ttl", the delivery
// records' too (DynamoDB allows one TTL attribute per table), the room's
// TTL after it entered.
func TestRoomItemsExpireByTheTableTTL(t *testing.T) {
	entered := time.Date(2026, 4, 1, 9, 30, 0, 0, time.UTC)
	api := &puts{}
	const ttl = 2 * time.Hour
	require.NoError(t, room.New(api, "Table", ttl).Enter(context.Background(),
		room.Entry{Key: "orders", MessageID: "m-1#1", Document: []byte(`{"message":{"id":"m-1"}}`), EnteredAt: entered}))
	require.Len(t, api.items, 1)
	assert.Equal(t, entered.Add(ttl), expiry(t, api.items[0]))
}

// sent is an SQS client whose every SendMessage succeeds.
type sent struct{}

func (sent) SendMessage(context.Context, *sqs.SendMessageInput, ...func(*sqs.Options)) (*sqs.SendMessageOutput, error) {
	return &sqs.SendMessageOutput{MessageId: aws.String("parked-1")}, nil
}

// TestParkedIndexEntriesExpireWithTheParkingLot: an entry of the parking
// lot's index expires by the table's TTL when the lot drops its message:
// the functions that park read the lot's retention as the queue has it,
// and the parking lot's Lot writes the entry's expiry with it.
func TestParkedIndexEntriesExpireWithTheParkingLot(t *testing.T) {
	s := synth(t, demoName)
	queue := s.resources[s.id(t, "AWS::SQS::Queue", "ParkingLot")].Properties
	retention := time.Duration(queue["MessageRetentionPeriod"].(float64)) * time.Second
	for _, fn := range []string{starterFn, parkFn} {
		got, err := time.ParseDuration(s.environment(t, fn)[park.EnvRetention])
		require.NoError(t, err, fn)
		assert.Equal(t, retention, got, "%s's %s", fn, park.EnvRetention)
	}

	parked := time.Date(2026, 4, 1, 9, 30, 0, 0, time.UTC)
	api := &puts{}
	lot := &park.Lot{SQS: sent{}, Index: lotindex.New(api, "Table"), Metrics: telemetry.NewMetrics(nil, nil, nil), Logger: slog.New(slog.DiscardHandler),
		Config: park.LotConfig{QueueURL: "https://sqs.eu-west-1.amazonaws.com/123456789012/lot", MaxMessageSize: park.DefaultMaxMessageSize, Retention: retention}}
	_, err := lot.Park(context.Background(), message.Message{ID: "m-1", Body: "x"},
		park.Record{Lineage: message.Lineage{OriginID: "o-1", Attempt: 1}, Reason: "poison: x", ParkedAt: parked})
	require.NoError(t, err)
	require.Len(t, api.items, 1)
	assert.Equal(t, parked.Add(retention), expiry(t, api.items[0]))
}
