package sqstest

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// QueuePrefix starts every queue name CreateQueue makes, so leftovers on a
// shared endpoint are easy to recognise.
const QueuePrefix = "redrive-test-"

// queueTimeout bounds creating and deleting a queue.
const queueTimeout = 30 * time.Second

// Queue is a queue CreateQueue made.
type Queue struct {
	Name string
	URL  string
	ARN  string
}

// CreateQueue creates a uniquely named queue with attrs (nil for the
// defaults: a standard queue; FifoQueue true for a FIFO queue, whose name
// then ends in .fifo), deletes it when tb ends, and returns it. Any
// failure stops the test.
func CreateQueue(tb testing.TB, client *sqs.Client, attrs map[string]string) Queue {
	tb.Helper()
	// rand.Text is 26 base32 characters: unique across test processes
	// sharing an endpoint, and valid in a queue name.
	name := QueuePrefix + strings.ToLower(rand.Text())
	if strings.EqualFold(attrs["FifoQueue"], "true") {
		name += ".fifo"
	}
	ctx, cancel := context.WithTimeout(context.Background(), queueTimeout)
	defer cancel()
	q, err := createQueue(ctx, client, name, attrs)
	if err != nil {
		tb.Fatalf("sqstest: %v", err)
	}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), queueTimeout)
		defer cancel()
		if err := deleteQueue(ctx, client, q.URL); err != nil {
			tb.Errorf("sqstest: %v", err)
		}
	})
	return q
}

// createQueue creates the queue and reads its ARN.
func createQueue(ctx context.Context, client *sqs.Client, name string, attrs map[string]string) (Queue, error) {
	created, err := client.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(name), Attributes: attrs})
	if err != nil {
		return Queue{}, fmt.Errorf("create queue %q: %w", name, err)
	}
	got, err := client.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{
		QueueUrl:       created.QueueUrl,
		AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameQueueArn},
	})
	if err != nil {
		return Queue{}, fmt.Errorf("read ARN of queue %q: %w", name, err)
	}
	return Queue{Name: name, URL: aws.ToString(created.QueueUrl), ARN: got.Attributes[string(types.QueueAttributeNameQueueArn)]}, nil
}

// deleteQueue removes the queue; one that is already gone is not an error.
func deleteQueue(ctx context.Context, client *sqs.Client, url string) error {
	_, err := client.DeleteQueue(ctx, &sqs.DeleteQueueInput{QueueUrl: aws.String(url)})
	var gone *types.QueueDoesNotExist
	if err != nil && !errors.As(err, &gone) {
		return fmt.Errorf("delete queue %q: %w", url, err)
	}
	return nil
}
