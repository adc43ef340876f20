package sqslocal_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/emulate/sqslocal"
	"github.com/redrive/redrive/emulate/sqslocal/sqstest"
)

// sqsAPI is what sqslocal.Client implements of the SDK's SQS client, with
// the SDK's signatures: code written against it takes either.
type sqsAPI interface {
	SendMessage(ctx context.Context, params *sqs.SendMessageInput, optFns ...func(*sqs.Options)) (*sqs.SendMessageOutput, error)
	SendMessageBatch(ctx context.Context, params *sqs.SendMessageBatchInput, optFns ...func(*sqs.Options)) (*sqs.SendMessageBatchOutput, error)
	ReceiveMessage(ctx context.Context, params *sqs.ReceiveMessageInput, optFns ...func(*sqs.Options)) (*sqs.ReceiveMessageOutput, error)
	DeleteMessage(ctx context.Context, params *sqs.DeleteMessageInput, optFns ...func(*sqs.Options)) (*sqs.DeleteMessageOutput, error)
	DeleteMessageBatch(ctx context.Context, params *sqs.DeleteMessageBatchInput, optFns ...func(*sqs.Options)) (*sqs.DeleteMessageBatchOutput, error)
	ChangeMessageVisibility(ctx context.Context, params *sqs.ChangeMessageVisibilityInput, optFns ...func(*sqs.Options)) (*sqs.ChangeMessageVisibilityOutput, error)
	ChangeMessageVisibilityBatch(ctx context.Context, params *sqs.ChangeMessageVisibilityBatchInput, optFns ...func(*sqs.Options)) (*sqs.ChangeMessageVisibilityBatchOutput, error)
	GetQueueUrl(ctx context.Context, params *sqs.GetQueueUrlInput, optFns ...func(*sqs.Options)) (*sqs.GetQueueUrlOutput, error)
	GetQueueAttributes(ctx context.Context, params *sqs.GetQueueAttributesInput, optFns ...func(*sqs.Options)) (*sqs.GetQueueAttributesOutput, error)
}

var (
	_ sqsAPI = (*sqs.Client)(nil)
	_ sqsAPI = (*sqslocal.Client)(nil)
)

// path is one side of a conformance test: the client its calls go
// through, its server's clock, and the receipt handles of the messages it
// received, by body.
type path struct {
	api     sqsAPI
	clock   *sqstest.Clock
	handles map[string]string
}

// handle is the receipt handle of the latest receive of the message with
// body.
func (p *path) handle(body string) *string {
	return aws.String(p.handles[body])
}

// newPaths starts two servers with the same options (the same seeded
// Rand, manual clocks at epoch, a small MaxMessageSize so the size limits
// are quick to reach) and a queue "q" on each. It returns the path of the
// SDK's client over HTTP to one, that of the other's in-process Client,
// whose base URL is the HTTP server's so their queue URLs match, and the
// URL of "q".
func newPaths(t *testing.T) (sdk, local *path, url string) {
	t.Helper()
	var paths [2]*path
	var endpoint string
	for i := range paths {
		clock := sqstest.NewClock(epoch)
		srv, err := sqslocal.NewServer(sqslocal.Options{
			MaxMessageSize: 1024,
			Rand:           rand.NewChaCha8([32]byte{'s', 'q', 's'}),
			Clock:          clock,
		})
		require.NoError(t, err)
		serve(t, srv, "CreateQueue", `{"QueueName":"q"}`)
		paths[i] = &path{clock: clock, handles: map[string]string{}}
		if i == 0 {
			b := sqstest.Serve(t, srv)
			paths[i].api, endpoint = b.Client, b.Endpoint
			continue
		}
		t.Cleanup(srv.Close)
		paths[i].api = srv.Client(endpoint)
	}
	return paths[0], paths[1], endpoint + "/123456789012/q"
}

// step is one call of the conformance test, made on both paths.
type step struct {
	name     string
	advance  time.Duration // how far both clocks move first
	canceled bool          // whether the call's context is canceled already
	call     func(ctx context.Context, p *path) (any, error)
	errType  string // the type of the innermost error; "" for success
	code     string // an API error's ErrorCode()
}

// res returns an SDK call's results as a step does.
func res[T any](out T, err error) (any, error) {
	return out, err
}

// sendCall sends with in.
func sendCall(in sqs.SendMessageInput) func(context.Context, *path) (any, error) {
	return func(ctx context.Context, p *path) (any, error) { return res(p.api.SendMessage(ctx, &in)) }
}

// sendBatchCall sends a batch with in.
func sendBatchCall(in sqs.SendMessageBatchInput) func(context.Context, *path) (any, error) {
	return func(ctx context.Context, p *path) (any, error) { return res(p.api.SendMessageBatch(ctx, &in)) }
}

// receiveCall receives with in and records the receipt handles.
func receiveCall(in sqs.ReceiveMessageInput) func(context.Context, *path) (any, error) {
	return func(ctx context.Context, p *path) (any, error) {
		out, err := p.api.ReceiveMessage(ctx, &in)
		if err == nil {
			for _, m := range out.Messages {
				p.handles[aws.ToString(m.Body)] = aws.ToString(m.ReceiptHandle)
			}
		}
		return out, err
	}
}

// getQueueURLCall reads a queue URL with in.
func getQueueURLCall(in sqs.GetQueueUrlInput) func(context.Context, *path) (any, error) {
	return func(ctx context.Context, p *path) (any, error) { return res(p.api.GetQueueUrl(ctx, &in)) }
}

// attributesCall reads queue attributes with in.
func attributesCall(in sqs.GetQueueAttributesInput) func(context.Context, *path) (any, error) {
	return func(ctx context.Context, p *path) (any, error) { return res(p.api.GetQueueAttributes(ctx, &in)) }
}

// sendEntries are n batch entries with IDs 0 to n-1.
func sendEntries(n int) []types.SendMessageBatchRequestEntry {
	out := make([]types.SendMessageBatchRequestEntry, n)
	for i := range out {
		out[i] = types.SendMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), MessageBody: aws.String("n" + strconv.Itoa(i))}
	}
	return out
}

// deleteEntries are n batch entries with IDs 0 to n-1.
func deleteEntries(n int) []types.DeleteMessageBatchRequestEntry {
	out := make([]types.DeleteMessageBatchRequestEntry, n)
	for i := range out {
		out[i] = types.DeleteMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), ReceiptHandle: aws.String("h")}
	}
	return out
}

// TestClientConformance makes the same calls through the SDK's client
// over HTTP to one server and through the in-process Client of another
// with the same options, and requires the same outputs (message IDs,
// receipt handles, digests, attributes, batch entries) and equivalent
// errors (the same types along the chain, the same codes, messages and
// text).
func TestClientConformance(t *testing.T) {
	sdk, local, url := newPaths(t)
	nope := strings.TrimSuffix(url, "/q") + "/nope"
	attrs := map[string]types.MessageAttributeValue{
		"s": str("text"),
		"n": {DataType: aws.String("Number.int"), StringValue: aws.String("42")},
		"b": {DataType: aws.String("Binary"), BinaryValue: []byte{0, 1, 2}},
	}
	trace := map[string]types.MessageSystemAttributeValue{"AWSTraceHeader": {DataType: aws.String("String"), StringValue: aws.String("Root=1-abc")}}
	const (
		generic       = "*smithy.GenericAPIError"
		invalid       = "smithy.InvalidParamsError"
		canceled      = "*errors.errorString" // context.Canceled
		checksum      = "sqs.messageChecksumError"
		batchChecksum = "sqs.batchMessageChecksumError"
		badParam      = "InvalidParameterValue"
		noQueue       = "AWS.SimpleQueueService.NonExistentQueue"
		badReceipt    = "ReceiptHandleIsInvalid"
	)
	steps := []step{
		{name: "GetQueueUrl", call: getQueueURLCall(sqs.GetQueueUrlInput{QueueName: aws.String("q")})},
		{name: "GetQueueUrl of an unknown queue", call: getQueueURLCall(sqs.GetQueueUrlInput{QueueName: aws.String("nope")}),
			errType: "*types.QueueDoesNotExist", code: noQueue},
		{name: "GetQueueUrl of another account", call: getQueueURLCall(sqs.GetQueueUrlInput{QueueName: aws.String("q"), QueueOwnerAWSAccountId: aws.String("999999999999")}),
			errType: "*types.QueueDoesNotExist", code: noQueue},
		{name: "GetQueueUrl of an empty name", call: getQueueURLCall(sqs.GetQueueUrlInput{QueueName: aws.String("")}),
			errType: generic, code: "MissingParameter"},
		{name: "GetQueueUrl without a name", call: getQueueURLCall(sqs.GetQueueUrlInput{}), errType: invalid},

		{name: "SendMessage", call: sendCall(sqs.SendMessageInput{QueueUrl: &url, MessageBody: aws.String("hello")})},
		{name: "SendMessage with attributes", call: sendCall(sqs.SendMessageInput{QueueUrl: &url, MessageBody: aws.String("attrs"),
			MessageAttributes: attrs, MessageSystemAttributes: trace, MessageGroupId: aws.String("g")})},
		// The server has invalid UTF-8 as U+FFFD: the message is sent, but
		// its body's digest is not the caller's.
		{name: "SendMessage of invalid UTF-8", call: sendCall(sqs.SendMessageInput{QueueUrl: &url, MessageBody: aws.String("caf\xe9 \xff\xfe"),
			MessageAttributes: map[string]types.MessageAttributeValue{"u": str("\xc3")}}), errType: checksum},
		{name: "SendMessage with an attribute of invalid UTF-8", call: sendCall(sqs.SendMessageInput{QueueUrl: &url, MessageBody: aws.String("u-attr"),
			MessageAttributes: map[string]types.MessageAttributeValue{"u": str("\xc3\xc3")}})},
		{name: "SendMessage with an attribute name of invalid UTF-8", call: sendCall(sqs.SendMessageInput{QueueUrl: &url, MessageBody: aws.String("x"),
			MessageAttributes: map[string]types.MessageAttributeValue{"\xffu": str("v")}}), errType: generic, code: badParam},
		{name: "SendMessage with a delay", call: sendCall(sqs.SendMessageInput{QueueUrl: &url, MessageBody: aws.String("delayed"), DelaySeconds: 5})},
		{name: "SendMessage to an unknown queue", call: sendCall(sqs.SendMessageInput{QueueUrl: &nope, MessageBody: aws.String("x")}),
			errType: "*types.QueueDoesNotExist", code: noQueue},
		{name: "SendMessage to a malformed URL", call: sendCall(sqs.SendMessageInput{QueueUrl: aws.String("not a url"), MessageBody: aws.String("x")}),
			errType: "*types.InvalidAddress", code: "InvalidAddress"},
		{name: "SendMessage of an oversize body", call: sendCall(sqs.SendMessageInput{QueueUrl: &url, MessageBody: aws.String(strings.Repeat("x", 1025))}),
			errType: generic, code: badParam},
		{name: "SendMessage of an invalid character", call: sendCall(sqs.SendMessageInput{QueueUrl: &url, MessageBody: aws.String("a\x01")}),
			errType: "*types.InvalidMessageContents", code: "InvalidMessageContents"},
		{name: "SendMessage with a reserved attribute name", call: sendCall(sqs.SendMessageInput{QueueUrl: &url, MessageBody: aws.String("x"),
			MessageAttributes: map[string]types.MessageAttributeValue{"AWS.x": str("v")}}), errType: generic, code: badParam},
		{name: "SendMessage with an empty binary value on a String", call: sendCall(sqs.SendMessageInput{QueueUrl: &url, MessageBody: aws.String("x"),
			MessageAttributes: map[string]types.MessageAttributeValue{"a": {DataType: aws.String("String"), StringValue: aws.String("v"), BinaryValue: []byte{}}}}),
			errType: generic, code: badParam},
		{name: "SendMessage with list values", call: sendCall(sqs.SendMessageInput{QueueUrl: &url, MessageBody: aws.String("x"),
			MessageAttributes: map[string]types.MessageAttributeValue{"a": {DataType: aws.String("String"), StringValue: aws.String("v"), StringListValues: []string{}}}}),
			errType: generic, code: badParam},
		{name: "SendMessage with another system attribute", call: sendCall(sqs.SendMessageInput{QueueUrl: &url, MessageBody: aws.String("x"),
			MessageSystemAttributes: map[string]types.MessageSystemAttributeValue{"Other": {DataType: aws.String("String"), StringValue: aws.String("v")}}}),
			errType: generic, code: badParam},
		{name: "SendMessage with a deduplication ID", call: sendCall(sqs.SendMessageInput{QueueUrl: &url, MessageBody: aws.String("x"), MessageDeduplicationId: aws.String("d")}),
			errType: generic, code: badParam},
		{name: "SendMessage of an empty body", call: sendCall(sqs.SendMessageInput{QueueUrl: &url, MessageBody: aws.String("")}),
			errType: generic, code: "MissingParameter"},
		{name: "SendMessage without required members", call: sendCall(sqs.SendMessageInput{
			MessageAttributes: map[string]types.MessageAttributeValue{"a": {StringValue: aws.String("v")}}}), errType: invalid},
		{name: "SendMessage with a canceled context", canceled: true, call: sendCall(sqs.SendMessageInput{QueueUrl: &url, MessageBody: aws.String("x")}),
			errType: canceled},

		{name: "SendMessageBatch", call: sendBatchCall(sqs.SendMessageBatchInput{QueueUrl: &url, Entries: []types.SendMessageBatchRequestEntry{
			{Id: aws.String("ok"), MessageBody: aws.String("b1")},
			{Id: aws.String("bad-char"), MessageBody: aws.String("\x02")},
			{Id: aws.String("empty"), MessageBody: aws.String("")},
			{Id: aws.String("attrs"), MessageBody: aws.String("b4"), MessageAttributes: attrs, DelaySeconds: 0},
		}})},
		{name: "SendMessageBatch of invalid UTF-8", call: sendBatchCall(sqs.SendMessageBatchInput{QueueUrl: &url, Entries: []types.SendMessageBatchRequestEntry{
			{Id: aws.String("u1"), MessageBody: aws.String("u1\xff")},
			{Id: aws.String("ok"), MessageBody: aws.String("u-ok")},
			{Id: aws.String("u2"), MessageBody: aws.String("u2\xfe\xfe")},
			{Id: aws.String("u3"), MessageBody: aws.String("\x03\xff")},
		}}), errType: batchChecksum},
		{name: "SendMessageBatch of no entries", call: sendBatchCall(sqs.SendMessageBatchInput{QueueUrl: &url, Entries: []types.SendMessageBatchRequestEntry{}}),
			errType: "*types.EmptyBatchRequest", code: "AWS.SimpleQueueService.EmptyBatchRequest"},
		{name: "SendMessageBatch without entries", call: sendBatchCall(sqs.SendMessageBatchInput{QueueUrl: &url}), errType: invalid},
		{name: "SendMessageBatch of too many entries", call: sendBatchCall(sqs.SendMessageBatchInput{QueueUrl: &url, Entries: sendEntries(11)}),
			errType: "*types.TooManyEntriesInBatchRequest", code: "AWS.SimpleQueueService.TooManyEntriesInBatchRequest"},
		{name: "SendMessageBatch with repeated IDs", call: sendBatchCall(sqs.SendMessageBatchInput{QueueUrl: &url, Entries: append(sendEntries(2), sendEntries(1)...)}),
			errType: "*types.BatchEntryIdsNotDistinct", code: "AWS.SimpleQueueService.BatchEntryIdsNotDistinct"},
		{name: "SendMessageBatch with an invalid ID", call: sendBatchCall(sqs.SendMessageBatchInput{QueueUrl: &url, Entries: []types.SendMessageBatchRequestEntry{
			{Id: aws.String("a b"), MessageBody: aws.String("x")}}}),
			errType: "*types.InvalidBatchEntryId", code: "AWS.SimpleQueueService.InvalidBatchEntryId"},
		{name: "SendMessageBatch too long", call: sendBatchCall(sqs.SendMessageBatchInput{QueueUrl: &url, Entries: []types.SendMessageBatchRequestEntry{
			{Id: aws.String("a"), MessageBody: aws.String(strings.Repeat("a", 600))}, {Id: aws.String("b"), MessageBody: aws.String(strings.Repeat("b", 600))}}}),
			errType: "*types.BatchRequestTooLong", code: "AWS.SimpleQueueService.BatchRequestTooLong"},
		{name: "SendMessageBatch to an unknown queue", call: sendBatchCall(sqs.SendMessageBatchInput{QueueUrl: &nope, Entries: sendEntries(1)}),
			errType: "*types.QueueDoesNotExist", code: noQueue},
		{name: "SendMessageBatch without required entry members", call: sendBatchCall(sqs.SendMessageBatchInput{QueueUrl: &url, Entries: []types.SendMessageBatchRequestEntry{
			{}, {Id: aws.String("a"), MessageBody: aws.String("x"), MessageAttributes: map[string]types.MessageAttributeValue{"a": {}}},
			{Id: aws.String("b"), MessageBody: aws.String("x"), MessageSystemAttributes: map[string]types.MessageSystemAttributeValue{"AWSTraceHeader": {}}}}}),
			errType: invalid},

		{name: "ReceiveMessage", call: receiveCall(sqs.ReceiveMessageInput{QueueUrl: &url, MaxNumberOfMessages: 10, VisibilityTimeout: 30,
			MessageAttributeNames: []string{"All"}, MessageSystemAttributeNames: []types.MessageSystemAttributeName{"All"}})},
		{name: "ReceiveMessage of none visible", call: receiveCall(sqs.ReceiveMessageInput{QueueUrl: &url, MaxNumberOfMessages: 10})},
		{name: "ReceiveMessage of an unknown attribute", call: receiveCall(sqs.ReceiveMessageInput{QueueUrl: &url, MessageSystemAttributeNames: []types.MessageSystemAttributeName{"Bogus"}}),
			errType: generic, code: "InvalidAttributeName"}, // not typed for ReceiveMessage
		{name: "ReceiveMessage of too many", call: receiveCall(sqs.ReceiveMessageInput{QueueUrl: &url, MaxNumberOfMessages: 11}),
			errType: generic, code: badParam},
		{name: "ReceiveMessage from an unknown queue", call: receiveCall(sqs.ReceiveMessageInput{QueueUrl: &nope}),
			errType: "*types.QueueDoesNotExist", code: noQueue},
		{name: "ReceiveMessage without a queue", call: receiveCall(sqs.ReceiveMessageInput{}), errType: invalid},
		{name: "ReceiveMessage with a canceled context", canceled: true, call: receiveCall(sqs.ReceiveMessageInput{QueueUrl: &url}), errType: canceled},

		{name: "ChangeMessageVisibility", call: func(ctx context.Context, p *path) (any, error) {
			return res(p.api.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{QueueUrl: &url, ReceiptHandle: p.handle("hello"), VisibilityTimeout: 60}))
		}},
		{name: "ChangeMessageVisibility of an invalid handle", call: func(ctx context.Context, p *path) (any, error) {
			return res(p.api.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{QueueUrl: &url, ReceiptHandle: aws.String("garbage"), VisibilityTimeout: 60}))
		}, errType: "*types.ReceiptHandleIsInvalid", code: badReceipt},
		{name: "ChangeMessageVisibility past 12 hours", call: func(ctx context.Context, p *path) (any, error) {
			return res(p.api.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{QueueUrl: &url, ReceiptHandle: p.handle("hello"), VisibilityTimeout: 43201}))
		}, errType: generic, code: badParam},
		{name: "ChangeMessageVisibility without required members", call: func(ctx context.Context, p *path) (any, error) {
			return res(p.api.ChangeMessageVisibility(ctx, nil))
		}, errType: invalid},
		{name: "ChangeMessageVisibilityBatch", call: func(ctx context.Context, p *path) (any, error) {
			return res(p.api.ChangeMessageVisibilityBatch(ctx, &sqs.ChangeMessageVisibilityBatchInput{QueueUrl: &url, Entries: []types.ChangeMessageVisibilityBatchRequestEntry{
				{Id: aws.String("now"), ReceiptHandle: p.handle("attrs"), VisibilityTimeout: 0},
				{Id: aws.String("garbage"), ReceiptHandle: aws.String("garbage"), VisibilityTimeout: 10},
				{Id: aws.String("later"), ReceiptHandle: p.handle("b1"), VisibilityTimeout: 120},
			}}))
		}},
		{name: "ChangeMessageVisibilityBatch of no entries", call: func(ctx context.Context, p *path) (any, error) {
			return res(p.api.ChangeMessageVisibilityBatch(ctx, &sqs.ChangeMessageVisibilityBatchInput{QueueUrl: &url, Entries: []types.ChangeMessageVisibilityBatchRequestEntry{}}))
		}, errType: "*types.EmptyBatchRequest", code: "AWS.SimpleQueueService.EmptyBatchRequest"},
		{name: "ChangeMessageVisibilityBatch with repeated IDs", call: func(ctx context.Context, p *path) (any, error) {
			return res(p.api.ChangeMessageVisibilityBatch(ctx, &sqs.ChangeMessageVisibilityBatchInput{QueueUrl: &url, Entries: []types.ChangeMessageVisibilityBatchRequestEntry{
				{Id: aws.String("a"), ReceiptHandle: aws.String("h")}, {Id: aws.String("a"), ReceiptHandle: aws.String("h")}}}))
		}, errType: "*types.BatchEntryIdsNotDistinct", code: "AWS.SimpleQueueService.BatchEntryIdsNotDistinct"},
		{name: "ChangeMessageVisibilityBatch without required entry members", call: func(ctx context.Context, p *path) (any, error) {
			return res(p.api.ChangeMessageVisibilityBatch(ctx, &sqs.ChangeMessageVisibilityBatchInput{QueueUrl: &url, Entries: []types.ChangeMessageVisibilityBatchRequestEntry{{}}}))
		}, errType: invalid},

		{name: "DeleteMessage", call: func(ctx context.Context, p *path) (any, error) {
			return res(p.api.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: &url, ReceiptHandle: p.handle("hello")}))
		}},
		{name: "DeleteMessage of an invalid handle", call: func(ctx context.Context, p *path) (any, error) {
			return res(p.api.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: &url, ReceiptHandle: aws.String("garbage")}))
		}, errType: "*types.ReceiptHandleIsInvalid", code: badReceipt},
		{name: "DeleteMessage of an empty handle", call: func(ctx context.Context, p *path) (any, error) {
			return res(p.api.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: &url, ReceiptHandle: aws.String("")}))
		}, errType: generic, code: "MissingParameter"},
		{name: "DeleteMessage from an unknown queue", call: func(ctx context.Context, p *path) (any, error) {
			return res(p.api.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: &nope, ReceiptHandle: p.handle("attrs")}))
		}, errType: "*types.QueueDoesNotExist", code: noQueue},
		{name: "DeleteMessageBatch", call: func(ctx context.Context, p *path) (any, error) {
			return res(p.api.DeleteMessageBatch(ctx, &sqs.DeleteMessageBatchInput{QueueUrl: &url, Entries: []types.DeleteMessageBatchRequestEntry{
				{Id: aws.String("utf8"), ReceiptHandle: p.handle("caf\uFFFD \uFFFD\uFFFD")},
				{Id: aws.String("garbage"), ReceiptHandle: aws.String("garbage")},
				{Id: aws.String("b1"), ReceiptHandle: p.handle("b1")},
			}}))
		}},
		{name: "DeleteMessageBatch of too many entries", call: func(ctx context.Context, p *path) (any, error) {
			return res(p.api.DeleteMessageBatch(ctx, &sqs.DeleteMessageBatchInput{QueueUrl: &url, Entries: deleteEntries(11)}))
		}, errType: "*types.TooManyEntriesInBatchRequest", code: "AWS.SimpleQueueService.TooManyEntriesInBatchRequest"},
		{name: "DeleteMessageBatch with an invalid ID", call: func(ctx context.Context, p *path) (any, error) {
			return res(p.api.DeleteMessageBatch(ctx, &sqs.DeleteMessageBatchInput{QueueUrl: &url, Entries: []types.DeleteMessageBatchRequestEntry{
				{Id: aws.String(strings.Repeat("i", 81)), ReceiptHandle: aws.String("h")}}}))
		}, errType: "*types.InvalidBatchEntryId", code: "AWS.SimpleQueueService.InvalidBatchEntryId"},
		{name: "DeleteMessageBatch without entries", call: func(ctx context.Context, p *path) (any, error) {
			return res(p.api.DeleteMessageBatch(ctx, &sqs.DeleteMessageBatchInput{QueueUrl: &url}))
		}, errType: invalid},

		{name: "ReceiveMessage of the delayed message", advance: 5 * time.Second, call: receiveCall(sqs.ReceiveMessageInput{QueueUrl: &url,
			//lint:ignore SA1019 the legacy member, as the AWS CLI v1 sends it
			MaxNumberOfMessages: 10, VisibilityTimeout: 1, AttributeNames: []types.QueueAttributeName{"All"}, MessageAttributeNames: []string{"s", "b.*"}})},
		{name: "ChangeMessageVisibility of a message no longer in flight", advance: 2 * time.Second, call: func(ctx context.Context, p *path) (any, error) {
			return res(p.api.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{QueueUrl: &url, ReceiptHandle: p.handle("delayed"), VisibilityTimeout: 10}))
		}, errType: "*types.MessageNotInflight", code: "AWS.SimpleQueueService.MessageNotInflight"},

		{name: "GetQueueAttributes", call: attributesCall(sqs.GetQueueAttributesInput{QueueUrl: &url, AttributeNames: []types.QueueAttributeName{"All"}})},
		{name: "GetQueueAttributes of none", call: attributesCall(sqs.GetQueueAttributesInput{QueueUrl: &url})},
		{name: "GetQueueAttributes of an unknown attribute", call: attributesCall(sqs.GetQueueAttributesInput{QueueUrl: &url, AttributeNames: []types.QueueAttributeName{"Bogus"}}),
			errType: "*types.InvalidAttributeName", code: "InvalidAttributeName"},
		{name: "GetQueueAttributes of an unknown queue", call: attributesCall(sqs.GetQueueAttributesInput{QueueUrl: &nope}),
			errType: "*types.QueueDoesNotExist", code: noQueue},

		{name: "SendMessage after it all", call: sendCall(sqs.SendMessageInput{QueueUrl: &url, MessageBody: aws.String("last")})},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			var outs [2]any
			var errs [2]error
			for i, p := range []*path{sdk, local} {
				p.clock.Advance(s.advance)
				ctx, cancel := context.WithCancel(t.Context())
				if s.canceled {
					cancel()
				}
				outs[i], errs[i] = s.call(ctx, p)
				cancel()
			}
			if s.errType == "" {
				require.NoError(t, errs[0], "over HTTP")
			} else {
				chain := errorChain(errs[0])
				require.Equal(t, s.errType, chain[len(chain)-1], "over HTTP: %v", errs[0])
				var apiErr smithy.APIError
				if s.code != "" && assert.True(t, errors.As(errs[0], &apiErr), "an API error") {
					assert.Equal(t, s.code, apiErr.ErrorCode())
				}
			}
			requireSameError(t, errs[0], errs[1])
			assert.Equal(t, withoutMetadata(outs[0]), withoutMetadata(outs[1]), "outputs")
		})
	}
}

// TestClientLongPoll long-polls through both paths: a send ends one poll
// with the message, a canceled context another with the SDK's error.
func TestClientLongPoll(t *testing.T) {
	sdk, local, url := newPaths(t)
	type result struct {
		out any
		err error
	}
	var woken, sent, canceled [2]result
	for i, p := range []*path{sdk, local} {
		poll := func(ctx context.Context) <-chan result {
			c := make(chan result, 1)
			go func() {
				out, err := p.api.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: &url, WaitTimeSeconds: 20})
				c <- result{out, err}
			}()
			return c
		}
		// Each poll leaves its wait-time timer pending on the clock.
		wake := poll(t.Context())
		require.NoError(t, p.clock.WaitForTimers(t.Context(), 1))
		out, err := p.api.SendMessage(t.Context(), &sqs.SendMessageInput{QueueUrl: &url, MessageBody: aws.String("wake")})
		sent[i] = result{out, err}
		woken[i] = <-wake

		ctx, cancel := context.WithCancel(t.Context())
		end := poll(ctx)
		require.NoError(t, p.clock.WaitForTimers(t.Context(), 2))
		cancel()
		canceled[i] = <-end
	}
	require.NoError(t, sent[0].err)
	require.NoError(t, woken[0].err)
	require.Len(t, woken[0].out.(*sqs.ReceiveMessageOutput).Messages, 1)
	assert.Equal(t, withoutMetadata(sent[0].out), withoutMetadata(sent[1].out), "sent")
	assert.Equal(t, withoutMetadata(woken[0].out), withoutMetadata(woken[1].out), "received")
	require.ErrorIs(t, canceled[0].err, context.Canceled)
	requireSameError(t, canceled[0].err, canceled[1].err)
}

// TestClientCopiesBinaryValues checks that the in-process Client shares no
// binary attribute value with its caller, as the SDK's JSON shares none:
// changing the value sent, or one received, changes no message.
func TestClientCopiesBinaryValues(t *testing.T) {
	clock := sqstest.NewClock(epoch)
	srv, err := sqslocal.NewServer(sqslocal.Options{Clock: clock})
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	url := serve(t, srv, "CreateQueue", `{"QueueName":"q"}`)["QueueUrl"].(string)
	c := srv.Client("http://sqs.local")
	value := []byte{1, 2, 3}
	_, err = c.SendMessage(t.Context(), &sqs.SendMessageInput{QueueUrl: &url, MessageBody: aws.String("m"),
		MessageAttributes: map[string]types.MessageAttributeValue{"b": {DataType: aws.String("Binary"), BinaryValue: value}}})
	require.NoError(t, err)
	value[0] = 9
	for range 2 {
		got, err := c.ReceiveMessage(t.Context(), &sqs.ReceiveMessageInput{QueueUrl: &url, MessageAttributeNames: []string{"All"}})
		require.NoError(t, err)
		require.Len(t, got.Messages, 1)
		received := got.Messages[0].MessageAttributes["b"].BinaryValue
		assert.Equal(t, []byte{1, 2, 3}, received)
		received[1] = 9
		clock.Advance(30 * time.Second) // the default visibility timeout
	}
}

// errorChain is the types of err and of the errors it wraps, outermost
// first.
func errorChain(err error) []string {
	var chain []string
	for ; err != nil; err = errors.Unwrap(err) {
		chain = append(chain, fmt.Sprintf("%T", err))
	}
	return chain
}

// requireSameError requires got to be want as callers see it: the same
// types along the chain and the same text, the same API error (type,
// code, message, fault) and HTTP status and request ID.
func requireSameError(t *testing.T, want, got error) {
	t.Helper()
	if want == nil {
		require.NoError(t, got)
		return
	}
	require.Error(t, got, "want %v", want)
	wantChain, gotChain := errorChain(want), errorChain(got)
	if last := wantChain[len(wantChain)-1]; last == "sqs.messageChecksumError" || last == "sqs.batchMessageChecksumError" {
		// The SDK's types, unexported; the Client's error has their text.
		wantChain, gotChain = wantChain[:len(wantChain)-1], gotChain[:len(gotChain)-1]
	}
	assert.Equal(t, wantChain, gotChain, "error types")
	assert.Equal(t, want.Error(), got.Error())
	var wantAPI, gotAPI smithy.APIError
	if errors.As(want, &wantAPI) && assert.True(t, errors.As(got, &gotAPI), "an API error") {
		assert.Equal(t, wantAPI, gotAPI)
	}
	var wantResp, gotResp *awshttp.ResponseError
	if errors.As(want, &wantResp) && assert.True(t, errors.As(got, &gotResp), "a response error") {
		assert.Equal(t, wantResp.HTTPStatusCode(), gotResp.HTTPStatusCode())
		assert.Equal(t, wantResp.ServiceRequestID(), gotResp.ServiceRequestID())
	}
}

// withoutMetadata is a copy of an SDK output without its ResultMetadata,
// which the in-process Client leaves empty; a nil output as it is.
func withoutMetadata(out any) any {
	v := reflect.ValueOf(out)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return out
	}
	c := reflect.New(v.Elem().Type())
	c.Elem().Set(v.Elem())
	c.Elem().FieldByName("ResultMetadata").SetZero()
	return c.Interface()
}

// handlerTransport serves each request with a handler on the caller's
// goroutine, as redrive run's SDK clients reach the embedded servers.
type handlerTransport struct{ h http.Handler }

// RoundTrip serves req and returns the recorded response.
func (t handlerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	in := req.Clone(req.Context())
	in.RequestURI = req.URL.RequestURI()
	in.Host = req.URL.Host
	rec := httptest.NewRecorder()
	t.h.ServeHTTP(rec, in)
	return rec.Result(), nil
}

// BenchmarkClientRoundTrip sends a message with the lineage attribute the
// redrive path carries, receives it and deletes it with
// DeleteMessageBatch, per iteration: through the SDK's client over an
// in-process HTTP transport (as redrive run calls the server) and over
// loopback HTTP, and through the in-process Client.
func BenchmarkClientRoundTrip(b *testing.B) {
	const base = "http://sqs.local"
	paths := []struct {
		name string
		api  func(b *testing.B, srv *sqslocal.Server) sqsAPI
	}{
		{"sdk-in-process-transport", func(b *testing.B, srv *sqslocal.Server) sqsAPI {
			b.Cleanup(srv.Close)
			return sqs.New(sqs.Options{
				Region:       sqstest.Region,
				BaseEndpoint: aws.String(base),
				Credentials:  credentials.NewStaticCredentialsProvider("test", "test", ""),
				HTTPClient:   &http.Client{Transport: handlerTransport{srv}},
			})
		}},
		{"sdk-loopback", func(b *testing.B, srv *sqslocal.Server) sqsAPI { return sqstest.Serve(b, srv).Client }},
		{"client", func(b *testing.B, srv *sqslocal.Server) sqsAPI {
			b.Cleanup(srv.Close)
			return srv.Client(base)
		}},
	}
	for _, p := range paths {
		b.Run(p.name, func(b *testing.B) {
			srv, err := sqslocal.NewServer(sqslocal.Options{})
			require.NoError(b, err)
			url := aws.String(serve(b, srv, "CreateQueue", `{"QueueName":"q"}`)["QueueUrl"].(string))
			api := p.api(b, srv)
			ctx := b.Context()
			attrs := map[string]types.MessageAttributeValue{"redrive": str(`{"origin":"m-1","attempt":1}`)}
			body := aws.String(strings.Repeat("b", 1024))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := api.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: url, MessageBody: body, MessageAttributes: attrs}); err != nil {
					b.Fatal(err)
				}
				got, err := api.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: url, MessageAttributeNames: []string{"All"}})
				if err != nil || len(got.Messages) != 1 {
					b.Fatalf("receive: %v, %+v", err, got)
				}
				del, err := api.DeleteMessageBatch(ctx, &sqs.DeleteMessageBatchInput{QueueUrl: url, Entries: []types.DeleteMessageBatchRequestEntry{
					{Id: aws.String("0"), ReceiptHandle: got.Messages[0].ReceiptHandle}}})
				if err != nil || len(del.Successful) != 1 {
					b.Fatalf("delete: %v, %+v", err, del)
				}
			}
		})
	}
}
