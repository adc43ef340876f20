package sqslocal_test

import (
	"bytes"
	"encoding/json"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/emulate/sqslocal"
	"github.com/redrive/redrive/emulate/sqslocal/sqstest"
)

// wireReply is a raw response.
type wireReply struct {
	status     int
	queryError string
	body       map[string]any
}

// call POSTs body to the endpoint as action (target "" sends no
// X-Amz-Target) and decodes the JSON reply.
func (e *env) call(t *testing.T, method, target, body string) wireReply {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, e.b.Endpoint, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	if target != "" {
		req.Header.Set("X-Amz-Target", target)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(resp.Header.Get("Content-Type"), "application/x-amz-json-1.0"), resp.Header.Get("Content-Type"))
	var decoded map[string]any
	require.NoError(t, json.Unmarshal(raw, &decoded), "reply %s", raw)
	return wireReply{status: resp.StatusCode, queryError: resp.Header.Get("x-amzn-query-error"), body: decoded}
}

// The shapes, legacy codes and statuses are those of the SQS service model
// (its awsQueryError traits), which the SDK's error mapping relies on.
func TestErrorWireShape(t *testing.T) {
	e := newEnv(t)
	e.fauxqsDiffers(t, "renders other error shapes and prefixes every legacy code")
	q := e.queue(nil)
	purged := e.queue(nil)
	e.call(t, http.MethodPost, "AmazonSQS.PurgeQueue", `{"QueueUrl":"`+purged.URL+`"}`)
	tests := []struct {
		name       string
		method     string
		target     string
		body       string
		status     int
		queryError string
		shape      string
	}{
		{"queue does not exist", "POST", "AmazonSQS.GetQueueUrl", `{"QueueName":"nope"}`, 400, "AWS.SimpleQueueService.NonExistentQueue;Sender", "com.amazonaws.sqs#QueueDoesNotExist"},
		{"missing body", "POST", "AmazonSQS.SendMessage", `{"QueueUrl":"` + q.URL + `"}`, 400, "MissingParameter;Sender", "com.amazon.coral.service#MissingRequiredParameterException"},
		{"missing queue URL", "POST", "AmazonSQS.GetQueueAttributes", `{}`, 400, "MissingParameter;Sender", "com.amazon.coral.service#MissingRequiredParameterException"},
		{"missing receipt handle", "POST", "AmazonSQS.DeleteMessage", `{"QueueUrl":"` + q.URL + `"}`, 400, "MissingParameter;Sender", "com.amazon.coral.service#MissingRequiredParameterException"},
		{"missing visibility timeout", "POST", "AmazonSQS.ChangeMessageVisibility", `{"QueueUrl":"` + q.URL + `","ReceiptHandle":"` + receiptOf(t, e, q) + `"}`, 400, "MissingParameter;Sender", "com.amazon.coral.service#MissingRequiredParameterException"},
		{"missing attribute data type", "POST", "AmazonSQS.SendMessage", `{"QueueUrl":"` + q.URL + `","MessageBody":"x","MessageAttributes":{"a":{"StringValue":"v"}}}`, 400, "InvalidParameterValue;Sender", "com.amazon.coral.service#InvalidParameterValueException"},
		{"invalid parameter", "POST", "AmazonSQS.ReceiveMessage", `{"QueueUrl":"` + q.URL + `","MaxNumberOfMessages":11}`, 400, "InvalidParameterValue;Sender", "com.amazon.coral.service#InvalidParameterValueException"},
		{"queue name exists", "POST", "AmazonSQS.CreateQueue", `{"QueueName":"` + q.Name + `","Attributes":{"DelaySeconds":"1"}}`, 400, "QueueAlreadyExists;Sender", "com.amazonaws.sqs#QueueNameExists"},
		{"invalid attribute value", "POST", "AmazonSQS.SetQueueAttributes", `{"QueueUrl":"` + q.URL + `","Attributes":{"DelaySeconds":"-1"}}`, 400, "InvalidAttributeValue;Sender", "com.amazonaws.sqs#InvalidAttributeValue"},
		{"receipt handle invalid", "POST", "AmazonSQS.DeleteMessage", `{"QueueUrl":"` + q.URL + `","ReceiptHandle":"x"}`, 404, "ReceiptHandleIsInvalid;Sender", "com.amazonaws.sqs#ReceiptHandleIsInvalid"},
		{"purge in progress", "POST", "AmazonSQS.PurgeQueue", `{"QueueUrl":"` + purged.URL + `"}`, 403, "AWS.SimpleQueueService.PurgeQueueInProgress;Sender", "com.amazonaws.sqs#PurgeQueueInProgress"},
		{"batch IDs not distinct", "POST", "AmazonSQS.DeleteMessageBatch", `{"QueueUrl":"` + q.URL + `","Entries":[{"Id":"a","ReceiptHandle":"x"},{"Id":"a","ReceiptHandle":"y"}]}`, 400, "AWS.SimpleQueueService.BatchEntryIdsNotDistinct;Sender", "com.amazonaws.sqs#BatchEntryIdsNotDistinct"},
		{"resource not found", "POST", "AmazonSQS.ListMessageMoveTasks", `{"SourceArn":"` + q.ARN + `-missing"}`, 404, "ResourceNotFoundException;Sender", "com.amazonaws.sqs#ResourceNotFoundException"},
		{"missing source ARN", "POST", "AmazonSQS.StartMessageMoveTask", `{}`, 400, "MissingParameter;Sender", "com.amazon.coral.service#MissingRequiredParameterException"},
		{"malformed address", "POST", "AmazonSQS.PurgeQueue", `{"QueueUrl":"not a url"}`, 404, "InvalidAddress;Sender", "com.amazonaws.sqs#InvalidAddress"},
		{"malformed JSON", "POST", "AmazonSQS.ListQueues", `{`, 400, "SerializationException;Sender", "com.amazon.coral.service#SerializationException"},
		{"wrong JSON type", "POST", "AmazonSQS.GetQueueUrl", `{"QueueName":5}`, 400, "SerializationException;Sender", "com.amazon.coral.service#SerializationException"},
		{"two JSON values", "POST", "AmazonSQS.ListQueues", `{}{}`, 400, "SerializationException;Sender", "com.amazon.coral.service#SerializationException"},
		{"unknown action", "POST", "AmazonSQS.Frobnicate", `{}`, 400, "AWS.SimpleQueueService.UnsupportedOperation;Sender", "com.amazonaws.sqs#UnsupportedOperation"},
		{"no target", "POST", "", `{}`, 400, "AWS.SimpleQueueService.UnsupportedOperation;Sender", "com.amazonaws.sqs#UnsupportedOperation"},
		{"GET", "GET", "AmazonSQS.ListQueues", ``, 400, "AWS.SimpleQueueService.UnsupportedOperation;Sender", "com.amazonaws.sqs#UnsupportedOperation"},
		{"body too large", "POST", "AmazonSQS.SendMessage", `{"MessageBody":"` + strings.Repeat("m", 7<<20) + `"}`, 413, "RequestEntityTooLarge;Sender", "com.amazon.coral.service#RequestEntityTooLargeException"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := e.call(t, tt.method, tt.target, tt.body)
			assert.Equal(t, tt.status, got.status)
			assert.Equal(t, tt.queryError, got.queryError)
			assert.Equal(t, tt.shape, got.body["__type"])
			assert.NotEmpty(t, got.body["message"])
		})
	}
}

// receiptOf sends and receives a message on q and returns its handle.
func receiptOf(t *testing.T, e *env, q sqstest.Queue) string {
	t.Helper()
	e.send(q, "x", nil)
	return aws.ToString(e.receiveOne(q, sqs.ReceiveMessageInput{}).ReceiptHandle)
}

func TestExplicitZeroVisibilityTimeout(t *testing.T) {
	// The SDK omits a zero VisibilityTimeout, so this takes a raw call.
	e := newEnv(t)
	q := e.queue(nil)
	e.send(q, "x", nil)
	first := e.call(t, http.MethodPost, "AmazonSQS.ReceiveMessage", `{"QueueUrl":"`+q.URL+`","VisibilityTimeout":0}`)
	require.Equal(t, http.StatusOK, first.status)
	require.Len(t, first.body["Messages"], 1)
	assert.Len(t, e.receive(q, sqs.ReceiveMessageInput{}), 1, "visible again at once")
}

func TestRepliesCarryARequestID(t *testing.T) {
	e := newEnv(t)
	e.fauxqsDiffers(t, "sends no x-amzn-RequestId")
	ids := map[string]bool{}
	for range 3 {
		resp, err := http.Post(e.b.Endpoint, "application/x-amz-json-1.0", nil)
		require.NoError(t, err)
		require.NoError(t, resp.Body.Close())
		id := resp.Header.Get("x-amzn-RequestId")
		assert.Regexp(t, `^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`, id)
		ids[id] = true
	}
	assert.Len(t, ids, 3, "one ID per request")
}

func TestSDKRejectsATamperedChecksum(t *testing.T) {
	// Proof that the SDK really checks the body digests the server sends:
	// a proxy that corrupts them makes the calls fail.
	srv, err := sqslocal.NewServer(sqslocal.Options{})
	require.NoError(t, err)
	tamper := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, r)
		body := bytes.ReplaceAll(rec.Body.Bytes(), []byte(sqslocal.MD5OfBody("hello")), []byte(sqslocal.MD5OfBody("HELLO")))
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.Header().Del("Content-Length")
		w.WriteHeader(rec.Code)
		_, _ = w.Write(body)
	})
	hs := httptest.NewServer(tamper)
	t.Cleanup(hs.Close)
	t.Cleanup(srv.Close)
	client := sqstest.NewClient(hs.URL)
	created, err := client.CreateQueue(t.Context(), &sqs.CreateQueueInput{QueueName: aws.String("tampered")})
	require.NoError(t, err)
	_, err = client.SendMessage(t.Context(), &sqs.SendMessageInput{QueueUrl: created.QueueUrl, MessageBody: aws.String("hello")})
	require.ErrorContains(t, err, "checksum")
	_, err = client.ReceiveMessage(t.Context(), &sqs.ReceiveMessageInput{QueueUrl: created.QueueUrl})
	assert.ErrorContains(t, err, "checksum")
}

func TestSeededRandIsReproducible(t *testing.T) {
	ids := func() []string {
		b := sqstest.Start(t, sqslocal.Options{Rand: rand.NewChaCha8([32]byte{7})})
		if b.Server == nil {
			t.Skipf("embedded server only: Rand is a server option (backend %s)", b.Name)
		}
		q := sqstest.CreateQueue(t, b.Client, nil)
		var out []string
		for range 3 {
			sent, err := b.Client.SendMessage(t.Context(), &sqs.SendMessageInput{QueueUrl: aws.String(q.URL), MessageBody: aws.String("x")})
			require.NoError(t, err)
			out = append(out, aws.ToString(sent.MessageId))
		}
		return out
	}
	first := ids()
	assert.Equal(t, first, ids())
	assert.NotEqual(t, first[0], first[1])
}

func TestBrokenRandFailsCalls(t *testing.T) {
	srv, err := sqslocal.NewServer(sqslocal.Options{Rand: strings.NewReader("too short")})
	require.NoError(t, err)
	call := func(action, body string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodPost, "http://sqs.local/", strings.NewReader(body))
		req.Header.Set("X-Amz-Target", "AmazonSQS."+action)
		srv.ServeHTTP(rec, req)
		return rec
	}
	require.Equal(t, http.StatusOK, call("CreateQueue", `{"QueueName":"q"}`).Code, "creating a queue draws no randomness")
	rec := call("SendMessage", `{"QueueUrl":"http://sqs.local/123456789012/q","MessageBody":"x"}`)
	assert.Equal(t, http.StatusInternalServerError, rec.Code)
	assert.Equal(t, "InternalFailure;Receiver", rec.Header().Get("x-amzn-query-error"))
	assert.Contains(t, rec.Body.String(), "Options.Rand")
}
