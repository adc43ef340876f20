package sqslocal

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// errorAnswer is an SDK HTTP client that answers every request with one
// server error, as ServeHTTP writes it.
type errorAnswer struct{ err *apiError }

// Do answers req with the error.
func (a errorAnswer) Do(*http.Request) (*http.Response, error) {
	rec := httptest.NewRecorder()
	writeError(rec, a.err)
	return rec.Result(), nil
}

// TestSDKErrorMatchesTheSDK answers each of the Client's operations with
// each of the server's errors through the SDK's own client, and requires
// sdkError to make of it the error the SDK's deserializer makes: the
// sdkErrors table must say which operations map which error to a type.
func TestSDKErrorMatchesTheSDK(t *testing.T) {
	url := aws.String("http://sqs.test/123456789012/q")
	entry := aws.String("e")
	calls := map[string]func(context.Context, *sqs.Client) error{
		opSendMessage: func(ctx context.Context, c *sqs.Client) error {
			_, err := c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: url, MessageBody: aws.String("b")})
			return err
		},
		opSendMessageBatch: func(ctx context.Context, c *sqs.Client) error {
			_, err := c.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: url, Entries: []types.SendMessageBatchRequestEntry{{Id: entry, MessageBody: aws.String("b")}}})
			return err
		},
		opReceiveMessage: func(ctx context.Context, c *sqs.Client) error {
			_, err := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: url})
			return err
		},
		opDeleteMessage: func(ctx context.Context, c *sqs.Client) error {
			_, err := c.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: url, ReceiptHandle: aws.String("h")})
			return err
		},
		opDeleteMessageBatch: func(ctx context.Context, c *sqs.Client) error {
			_, err := c.DeleteMessageBatch(ctx, &sqs.DeleteMessageBatchInput{QueueUrl: url, Entries: []types.DeleteMessageBatchRequestEntry{{Id: entry, ReceiptHandle: aws.String("h")}}})
			return err
		},
		opChangeMessageVisibility: func(ctx context.Context, c *sqs.Client) error {
			_, err := c.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{QueueUrl: url, ReceiptHandle: aws.String("h")})
			return err
		},
		opChangeMessageVisibilityBatch: func(ctx context.Context, c *sqs.Client) error {
			_, err := c.ChangeMessageVisibilityBatch(ctx, &sqs.ChangeMessageVisibilityBatchInput{QueueUrl: url, Entries: []types.ChangeMessageVisibilityBatchRequestEntry{{Id: entry, ReceiptHandle: aws.String("h")}}})
			return err
		},
		opGetQueueURL: func(ctx context.Context, c *sqs.Client) error {
			_, err := c.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String("q")})
			return err
		},
		opGetQueueAttributes: func(ctx context.Context, c *sqs.Client) error {
			_, err := c.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: url})
			return err
		},
	}
	require.ElementsMatch(t, allOps, slices.Collect(maps.Keys(calls)), "one call per operation of the Client")
	kinds := []errorKind{
		errBatchEntryIdsNotDistinct, errBatchRequestTooLong, errEmptyBatchRequest, errInvalidAddress,
		errInvalidAttributeName, errInvalidAttributeValue, errInvalidBatchEntryID, errInvalidMessageContents,
		errMessageNotInflight, errPurgeQueueInProgress, errQueueDeletedRecently, errQueueDoesNotExist,
		errQueueNameExists, errReceiptHandleIsInvalid, errResourceNotFound, errTooManyEntries,
		errUnsupportedOperation, errInvalidParameterValue, errMissingParameter, errSerialization,
		errRequestTooLarge, errInternal,
	}
	for _, kind := range kinds {
		e := kind.errorf("what went wrong with %s", kind.code)
		client := sqs.New(sqs.Options{
			Region:           "us-east-1",
			BaseEndpoint:     aws.String("http://sqs.test"),
			Credentials:      aws.AnonymousCredentials{},
			HTTPClient:       errorAnswer{e},
			RetryMaxAttempts: 1,
		})
		for _, op := range allOps {
			t.Run(kind.code+"/"+op, func(t *testing.T) {
				var want smithy.APIError
				require.True(t, errors.As(calls[op](t.Context(), client), &want), "the SDK reports an API error")
				got := sdkError(op, e)
				assert.Equal(t, fmt.Sprintf("%T", want), fmt.Sprintf("%T", got))
				assert.Equal(t, want, got)
			})
		}
	}
}
