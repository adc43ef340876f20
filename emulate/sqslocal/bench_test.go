package sqslocal_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/emulate/sqslocal"
	"github.com/redrive/redrive/emulate/sqslocal/sqstest"
)

// BenchmarkRoundTrip sends, receives and deletes one message per
// iteration through the SDK client over loopback HTTP, with the lineage
// attribute the redrive path carries: the cost a handler pays per message
// against the backend (sqslocal, or SQS_ENDPOINT when set).
func BenchmarkRoundTrip(b *testing.B) {
	backend := sqstest.Start(b, sqslocal.Options{})
	q := sqstest.CreateQueue(b, backend.Client, nil)
	attrs := map[string]types.MessageAttributeValue{"redrive": str(`{"origin":"m-1","attempt":1}`)}
	body := aws.String(strings.Repeat("b", 1024))
	ctx := b.Context()
	b.ReportAllocs()
	for b.Loop() {
		_, err := backend.Client.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(q.URL), MessageBody: body, MessageAttributes: attrs})
		require.NoError(b, err)
		got, err := backend.Client.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(q.URL), MessageAttributeNames: []string{"All"}})
		require.NoError(b, err)
		require.Len(b, got.Messages, 1)
		_, err = backend.Client.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(q.URL), ReceiptHandle: got.Messages[0].ReceiptHandle})
		require.NoError(b, err)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
	b.Logf("backend %s", backend.Name)
}

// BenchmarkReceiveBehindInFlight receives (and deletes) the next visible
// message behind a backlog of in-flight ones, calling the handler in
// process: the server's own cost, which grows with the messages a receive
// has to pass over.
func BenchmarkReceiveBehindInFlight(b *testing.B) {
	for _, inFlight := range []int{0, 1000, 10000} {
		b.Run(fmt.Sprintf("in-flight=%d", inFlight), func(b *testing.B) {
			srv, err := sqslocal.NewServer(sqslocal.Options{})
			require.NoError(b, err)
			url := serve(b, srv, "CreateQueue", `{"QueueName":"q"}`)["QueueUrl"].(string)
			for range inFlight {
				serve(b, srv, "SendMessage", `{"QueueUrl":"`+url+`","MessageBody":"hidden"}`)
			}
			for range inFlight / 10 {
				serve(b, srv, "ReceiveMessage", `{"QueueUrl":"`+url+`","MaxNumberOfMessages":10,"VisibilityTimeout":43200}`)
			}
			b.ReportAllocs()
			for b.Loop() {
				serve(b, srv, "SendMessage", `{"QueueUrl":"`+url+`","MessageBody":"next"}`)
				got := serve(b, srv, "ReceiveMessage", `{"QueueUrl":"`+url+`"}`)
				msg := got["Messages"].([]any)[0].(map[string]any)
				serve(b, srv, "DeleteMessage", `{"QueueUrl":"`+url+`","ReceiptHandle":"`+msg["ReceiptHandle"].(string)+`"}`)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
		})
	}
}

// serve calls srv's handler in process and decodes the reply.
func serve(tb testing.TB, srv *sqslocal.Server, action, body string) map[string]any {
	req := httptest.NewRequest(http.MethodPost, "http://sqs.local/", strings.NewReader(body))
	req.Header.Set("X-Amz-Target", "AmazonSQS."+action)
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, req)
	require.Equal(tb, http.StatusOK, rec.Code, "%s: %s", action, rec.Body)
	var out map[string]any
	require.NoError(tb, json.Unmarshal(rec.Body.Bytes(), &out))
	return out
}
