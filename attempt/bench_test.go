package attempt_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/delivery"
	"github.com/redrive/redrive/delivery/target"
	"github.com/redrive/redrive/message"
)

// countingAPI counts the ledger's DynamoDB calls.
type countingAPI struct {
	delivery.API
	calls atomic.Int64
}

func (c *countingAPI) GetItem(ctx context.Context, in *dynamodb.GetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	c.calls.Add(1)
	return c.API.GetItem(ctx, in, opts...)
}

func (c *countingAPI) PutItem(ctx context.Context, in *dynamodb.PutItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	c.calls.Add(1)
	return c.API.PutItem(ctx, in, opts...)
}

func (c *countingAPI) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	c.calls.Add(1)
	return c.API.UpdateItem(ctx, in, opts...)
}

// BenchmarkHealthyAttempt is one message on the CLOSED path, each a new
// origin id: the figures are the DynamoDB calls a message costs (breaker
// row reads and writes, delivery-record calls) on the test backend.
func BenchmarkHealthyAttempt(b *testing.B) {
	f := newFixture(b, options{policy: tripping, config: testConfig}, target.Delivered())
	api := &countingAPI{API: f.client}
	f.handler.Ledger = delivery.New(api, f.table, f.handler.Clock)
	events := make([][]byte, b.N)
	for i := range events {
		doc := newDocument("orders")
		doc.OriginID = fmt.Sprintf("m-%d", i)
		doc.Message.ID = doc.OriginID
		var err error
		events[i], err = json.Marshal(doc)
		require.NoError(b, err)
	}
	before := f.breaker.Stats()
	b.ResetTimer()
	for i := range b.N {
		out, err := f.handler.Handle(context.Background(), events[i])
		if err != nil || out.Next != message.NextDone {
			b.Fatalf("attempt %d: next %q, error %v", i, out.Next, err)
		}
	}
	b.StopTimer()
	after := f.breaker.Stats()
	n := float64(b.N)
	b.ReportMetric(float64(after.Loads-before.Loads)/n, "row-reads/msg")
	b.ReportMetric(float64(after.Saves-before.Saves)/n, "row-writes/msg")
	b.ReportMetric(float64(api.calls.Load())/n, "ledger-calls/msg")
}
