// Package parktest helps tests look at a parking lot: the messages on an
// SQS test queue as message.Message values, and a Counter that remembers
// the metrics a Lot or a handler counted.
package parktest

import (
	"context"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/redrive/redrive/emulate/sqslocal/sqstest"
	"github.com/redrive/redrive/lambda/telemetry"
	"github.com/redrive/redrive/message"
)

// maxMessages is how many messages Messages reads: one ReceiveMessage.
const maxMessages = 10

// CreateQueue creates a parking-lot queue on b for Messages to read: a
// test queue (sqstest.CreateQueue) with SQS's default attributes, as a
// parking lot has.
func CreateQueue(tb testing.TB, b *sqstest.Backend) sqstest.Queue {
	tb.Helper()
	return sqstest.CreateQueue(tb, b.Client, nil)
}

// Messages receives the messages on q, a queue made by CreateQueue (at
// most 10, oldest first on the embedded server), with their message
// and system attributes, through the real SQS client. The messages it returns stay
// in flight for the queue's visibility timeout: read a parking lot once.
func Messages(tb testing.TB, b *sqstest.Backend, q sqstest.Queue) []message.Message {
	tb.Helper()
	got, err := b.Client.ReceiveMessage(context.Background(), &sqs.ReceiveMessageInput{
		QueueUrl:                    aws.String(q.URL),
		MaxNumberOfMessages:         maxMessages,
		MessageAttributeNames:       []string{"All"},
		MessageSystemAttributeNames: []types.MessageSystemAttributeName{types.MessageSystemAttributeNameAll},
	})
	if err != nil {
		tb.Fatalf("parktest: receive from %s: %v", q.URL, err)
	}
	out := make([]message.Message, 0, len(got.Messages))
	for _, m := range got.Messages {
		out = append(out, message.FromSQS(m))
	}
	return out
}

// Counter is a hand-written metrics sink (the Count method of
// *telemetry.Metrics) that remembers every count. It is safe for concurrent
// use.
type Counter struct {
	mu     sync.Mutex
	counts map[string]map[telemetry.Name]int64
}

// Count adds n to metric name of breaker key.
func (c *Counter) Count(key string, name telemetry.Name, n int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.counts == nil {
		c.counts = map[string]map[telemetry.Name]int64{}
	}
	if c.counts[key] == nil {
		c.counts[key] = map[telemetry.Name]int64{}
	}
	c.counts[key][name] += n
}

// Get is the sum counted for metric name of breaker key.
func (c *Counter) Get(key string, name telemetry.Name) int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.counts[key][name]
}

// Total is the sum counted for metric name over every breaker.
func (c *Counter) Total(name telemetry.Name) int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	var n int64
	for _, byName := range c.counts {
		n += byName[name]
	}
	return n
}
