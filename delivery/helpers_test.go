package delivery_test

import (
	"context"
	"errors"
	"maps"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/breaker/breakertest"
	"github.com/redrive/redrive/delivery"
	"github.com/redrive/redrive/dynamo"
	"github.com/redrive/redrive/emulate/ddbtest"
)

// t0 is where every test clock starts.
var t0 = time.Date(2026, 4, 1, 9, 30, 0, 123456789, time.UTC)

// env is a ledger on a fresh table of the test backend, with its clock and
// the raw client for writing and inspecting items.
type env struct {
	ledger *delivery.Ledger
	clock  *breakertest.Clock
	client *dynamodb.Client
	table  string
}

func newEnv(tb testing.TB) env {
	tb.Helper()
	client, backend := ddbtest.Client(tb)
	table := ddbtest.CreateTable(tb, client, func(ctx context.Context, name string) error {
		return dynamo.CreateTable(ctx, client, name)
	})
	tb.Logf("backend %s, table %s", backend, table)
	clock := breakertest.NewClock(t0)
	return env{ledger: delivery.New(client, table, clock), clock: clock, client: client, table: table}
}

// getRaw reads id's item as stored.
func getRaw(t *testing.T, e env, id delivery.ID) map[string]types.AttributeValue {
	t.Helper()
	out, err := e.client.GetItem(t.Context(), &dynamodb.GetItemInput{
		TableName:      aws.String(e.table),
		Key:            map[string]types.AttributeValue{"pk": s(dynamo.DeliveryPrefix + id.String())},
		ConsistentRead: aws.Bool(true),
	})
	require.NoError(t, err)
	require.NotEmpty(t, out.Item, "item %s", id)
	return out.Item
}

// putRaw writes item for id with PutItem, bypassing the ledger.
func putRaw(t *testing.T, e env, id delivery.ID, item map[string]types.AttributeValue) {
	t.Helper()
	item = maps.Clone(item)
	item["pk"] = s(dynamo.DeliveryPrefix + id.String())
	_, err := e.client.PutItem(t.Context(), &dynamodb.PutItemInput{TableName: aws.String(e.table), Item: item})
	require.NoError(t, err)
}

func s(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
func n(v string) types.AttributeValue { return &types.AttributeValueMemberN{Value: v} }

// fakeAPI is a DynamoDB API that answers every call with err and counts
// the calls.
type fakeAPI struct {
	err   error
	calls int
}

func (f *fakeAPI) GetItem(context.Context, *dynamodb.GetItemInput, ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	f.calls++
	return nil, f.err
}

func (f *fakeAPI) PutItem(context.Context, *dynamodb.PutItemInput, ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	f.calls++
	return nil, f.err
}

func (f *fakeAPI) UpdateItem(context.Context, *dynamodb.UpdateItemInput, ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	f.calls++
	return nil, f.err
}

var _ delivery.API = (*fakeAPI)(nil)

var _ delivery.API = (*dynamodb.Client)(nil)

// errUnavailable stands for a DynamoDB outage.
var errUnavailable = errors.New("service unavailable")
