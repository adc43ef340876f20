package target_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/delivery/target"
	"github.com/redrive/redrive/emulate/sqslocal"
	"github.com/redrive/redrive/emulate/sqslocal/sqstest"
	"github.com/redrive/redrive/message"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// traceHeader is an X-Ray trace header as SQS carries it.
const traceHeader = "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1"

// sqsClient is the real SDK client pointed at h, without retries.
func sqsClient(t testing.TB, h http.Handler) *sqs.Client {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return newSQSClient(srv.URL)
}

// newSQSClient is the real SDK client for the SQS endpoint at url, without
// retries, so a throttled call fails at once.
func newSQSClient(url string) *sqs.Client {
	return sqs.New(sqs.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(url),
		Credentials:  credentials.NewStaticCredentialsProvider("AKIDLOCAL", "local-secret", ""),
		Retryer:      aws.NopRetryer{},
	})
}

// localQueue creates a queue with attrs on sqslocal (or SQS_ENDPOINT); it
// returns the client and the queue's URL.
func localQueue(t testing.TB, attrs map[string]string) (*sqs.Client, string) {
	t.Helper()
	backend := sqstest.Start(t, sqslocal.Options{})
	return backend.Client, sqstest.CreateQueue(t, backend.Client, attrs).URL
}

// newSQSTarget is an sqs target sending to queueURL through client.
func newSQSTarget(t testing.TB, client target.SendMessageAPI, queueURL string) target.Target {
	t.Helper()
	tg, err := target.New(target.Config{Kind: target.KindSQS, QueueURL: queueURL}, target.Clients{SQS: client})
	require.NoError(t, err)
	return tg
}

// receiveOne receives the one message on queueURL with all its attributes.
func receiveOne(t testing.TB, client *sqs.Client, queueURL string) message.Message {
	t.Helper()
	out, err := client.ReceiveMessage(context.Background(), &sqs.ReceiveMessageInput{
		QueueUrl:                    aws.String(queueURL),
		MaxNumberOfMessages:         10,
		MessageAttributeNames:       []string{"All"},
		MessageSystemAttributeNames: []sqstypes.MessageSystemAttributeName{sqstypes.MessageSystemAttributeNameAll},
	})
	require.NoError(t, err)
	require.Len(t, out.Messages, 1)
	return message.FromSQS(out.Messages[0])
}

func TestSQSDeliver(t *testing.T) {
	client, queueURL := localQueue(t, nil)
	tg := newSQSTarget(t, client, queueURL)
	doc := testDocument()
	doc.Message.Attributes["AWSTraceHeader"] = traceHeader

	require.Equal(t, target.Delivered(), tg.Deliver(context.Background(), doc))

	got := receiveOne(t, client, queueURL)
	assert.NotEqual(t, doc.Message.ID, got.ID, "SQS gives the sent copy a new id")
	assert.Equal(t, doc.Message.Body, got.Body, "body unchanged")
	if os.Getenv(sqstest.EndpointEnv) == "" { // fauxqs returns no AWSTraceHeader on receive (emulate/sqslocal/FAUXQS.md)
		assert.Equal(t, traceHeader, got.Attributes["AWSTraceHeader"], "the X-Ray trace travels on")
	}
	assertAttributes(t, doc, got)
}

// To a FIFO source queue the message goes in its group, with a
// deduplication id of its round trip: a retried send is not a second
// message, the next round trip's is.
func TestSQSDeliverToAFIFOQueue(t *testing.T) {
	client, queueURL := localQueue(t, map[string]string{"FifoQueue": "true"})
	tg := newSQSTarget(t, client, queueURL)
	doc := testDocument()
	doc.FIFO = &message.FIFO{GroupID: "account-7", DeduplicationID: "d-1", SequenceNumber: "1001"}

	require.Equal(t, target.Delivered(), tg.Deliver(context.Background(), doc))
	require.Equal(t, target.Delivered(), tg.Deliver(context.Background(), doc), "a retried send")
	got := receiveOne(t, client, queueURL)
	assert.Equal(t, doc.Message.Body, got.Body)
	assert.Equal(t, "account-7", got.Attributes["MessageGroupId"])
	if os.Getenv(sqstest.EndpointEnv) == "" { // fauxqs checks nothing of the ids; sqslocal returns them as SQS does
		assert.Len(t, got.Attributes["MessageDeduplicationId"], 64)
	}

	standard := testDocument()
	res := tg.Deliver(context.Background(), standard)
	assert.Equal(t, breaker.Poison, res.Outcome, "a standard queue's message has no group for a FIFO queue")
	assert.Equal(t, "NotFIFO", res.ErrorType)
}

func TestSQSDeliverEnvelopesWhenAttributesAreFull(t *testing.T) {
	client, queueURL := localQueue(t, nil)
	tg := newSQSTarget(t, client, queueURL)
	doc := withAttributes(testDocument(), message.MaxAttributes)

	require.Equal(t, target.Delivered(), tg.Deliver(context.Background(), doc))

	got := receiveOne(t, client, queueURL)
	assert.Empty(t, got.MessageAttributes, "every attribute travels inside the envelope")
	assert.Contains(t, got.Body, `"redriveEnvelope":1`)
	unwrapped, wrapped, err := message.Unwrap(got)
	require.NoError(t, err)
	require.True(t, wrapped)
	assert.Equal(t, doc.Message.Body, unwrapped.Body)
	assertAttributes(t, doc, unwrapped)

	// What the starter makes of it when it comes back to the DLQ.
	back, err := message.NewDocument(got, time.Date(2025, 3, 14, 10, 0, 0, 0, time.UTC))
	require.NoError(t, err)
	assert.Equal(t, doc.OriginID, back.OriginID)
	assert.Equal(t, doc.Attempt+1, back.Attempt)
	assert.Equal(t, doc.Message.Body, back.Message.Body)
	assert.Equal(t, doc.Message.MessageAttributes, back.Message.MessageAttributes)
	assert.Equal(t, doc.History, back.History)
}

// sqsError answers every call with an SQS error in the JSON protocol's
// shape, as SQS does when it throttles or fails.
func sqsError(status int, code string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fault := "Sender"
		if status >= 500 {
			fault = "Receiver"
		}
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		w.Header().Set("x-amzn-query-error", code+";"+fault)
		w.WriteHeader(status)
		_, _ = w.Write([]byte(`{"__type":"com.amazonaws.sqs#` + code + `","message":"` + code + ` from the test"}`))
	})
}

func TestSQSDeliverFailures(t *testing.T) {
	client, queueURL := localQueue(t, map[string]string{"MaximumMessageSize": "1024"})
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()

	big := testDocument()
	big.Message.Body = strings.Repeat("x", 2048)
	control := testDocument()
	control.Message.Body = "order \x00 1001"
	tests := []struct {
		name      string
		client    *sqs.Client
		queueURL  string
		doc       message.Document
		want      breaker.Outcome
		errorType string
		message   string
	}{
		{name: "message over the queue's size limit", client: client, queueURL: queueURL, doc: big, want: breaker.Poison, errorType: "InvalidParameterValue", message: "shorter than 1024 bytes"},
		{name: "body with a character SQS refuses", client: client, queueURL: queueURL, doc: control, want: breaker.Poison, errorType: "InvalidMessageContents", message: "InvalidMessageContents"},
		{name: "queue gone", client: client, queueURL: queueURL + "-deleted", doc: testDocument(), want: breaker.Transient, errorType: "NonExistentQueue"},
		{name: "throttled", client: sqsClient(t, sqsError(http.StatusBadRequest, "RequestThrottled")), queueURL: queueURL, doc: testDocument(), want: breaker.Throttled, errorType: "RequestThrottled"},
		{name: "KMS throttled", client: sqsClient(t, sqsError(http.StatusBadRequest, "KmsThrottled")), queueURL: queueURL, doc: testDocument(), want: breaker.Throttled, errorType: "KmsThrottled"},
		{name: "service fault", client: sqsClient(t, sqsError(http.StatusInternalServerError, "InternalError")), queueURL: queueURL, doc: testDocument(), want: breaker.Transient, errorType: "InternalError"},
		{name: "unreachable endpoint", client: newSQSClient(closed.URL), queueURL: queueURL, doc: testDocument(), want: breaker.Transient, errorType: "RequestSendError"},
		{name: "invalid document", client: client, queueURL: queueURL, doc: message.Document{}, want: breaker.Poison, errorType: "InvalidDocument", message: `document field "message.messageId": missing`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := newSQSTarget(t, tt.client, tt.queueURL).Deliver(context.Background(), tt.doc)
			assert.Equal(t, tt.want, got.Outcome, "result %+v", got)
			assert.Equal(t, tt.errorType, got.ErrorType)
			assert.Contains(t, got.Message, tt.message)
		})
	}
	depth, err := client.GetQueueAttributes(context.Background(), &sqs.GetQueueAttributesInput{
		QueueUrl: aws.String(queueURL), AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameApproximateNumberOfMessages},
	})
	require.NoError(t, err)
	assert.Equal(t, "0", depth.Attributes[string(sqstypes.QueueAttributeNameApproximateNumberOfMessages)], "nothing refused was enqueued")
}
