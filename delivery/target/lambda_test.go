package target_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda/messages"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	lambdatypes "github.com/aws/aws-sdk-go-v2/service/lambda/types"
	"github.com/aws/smithy-go"
	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/delivery/target"
	"github.com/redrive/redrive/emulate/executor"
	"github.com/redrive/redrive/emulate/executor/lambdaapi"
	"github.com/redrive/redrive/message"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ValidationError is a consumer's error for a message it can never
// process; configured as poison in these tests.
type ValidationError struct{ Field string }

func (e *ValidationError) Error() string { return "invalid field " + e.Field }

// DownstreamUnavailable is a consumer's error for a downstream outage.
type DownstreamUnavailable struct{ Status int }

func (e *DownstreamUnavailable) Error() string { return "orders API answered 503" }

// DownstreamBusy is a consumer's error for a downstream that answered 429:
// a throttle error type of the tests' targets.
type DownstreamBusy struct{}

func (e *DownstreamBusy) Error() string { return "orders API answered 429" }

// consumers hosts the consumer functions the tests invoke and records the
// raw event each received.
type consumers struct {
	mu       sync.Mutex
	received map[string][]json.RawMessage
}

// newConsumers registers every test consumer in a Registry.
func newConsumers(t testing.TB) (*consumers, *executor.Registry) {
	t.Helper()
	c := &consumers{received: map[string][]json.RawMessage{}}
	reg := executor.NewRegistry()
	register := func(name string, reply func(events.SQSEvent) (any, error)) {
		require.NoError(t, reg.Register(name, func(_ context.Context, raw json.RawMessage) (any, error) {
			c.mu.Lock()
			c.received[name] = append(c.received[name], raw)
			c.mu.Unlock()
			var e events.SQSEvent
			if err := json.Unmarshal(raw, &e); err != nil {
				return nil, err
			}
			return reply(e)
		}))
	}
	register("ok", func(events.SQSEvent) (any, error) { return nil, nil })
	register("invalid", func(events.SQSEvent) (any, error) { return nil, &ValidationError{Field: "amount"} })
	register("down", func(events.SQSEvent) (any, error) { return nil, &DownstreamUnavailable{Status: 503} })
	register("busy", func(events.SQSEvent) (any, error) { return nil, &DownstreamBusy{} })
	register("partial", func(e events.SQSEvent) (any, error) {
		return events.SQSEventResponse{BatchItemFailures: []events.SQSBatchItemFailure{{ItemIdentifier: e.Records[0].MessageId}}}, nil
	})
	register("partial-empty-id", func(events.SQSEvent) (any, error) {
		return events.SQSEventResponse{BatchItemFailures: []events.SQSBatchItemFailure{{ItemIdentifier: ""}}}, nil
	})
	register("no-failures", func(events.SQSEvent) (any, error) { return events.SQSEventResponse{}, nil })
	register("panics", func(events.SQSEvent) (any, error) { panic("orders client not initialised") })
	register("timeout", func(events.SQSEvent) (any, error) {
		return nil, messages.InvokeResponse_Error{Type: "Sandbox.Timedout", Message: "RequestId: 7 Error: Task timed out after 3.00 seconds"}
	})
	register("crash", func(events.SQSEvent) (any, error) {
		return nil, messages.InvokeResponse_Error{Type: "Runtime.ExitError", Message: "RequestId: 8 Error: Runtime exited with error: exit status 2"}
	})
	return c, reg
}

// events returns the raw events function received.
func (c *consumers) events(function string) []json.RawMessage {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.received[function]
}

// serviceOutage answers every invocation with err, as the Lambda service
// does when it throttles or fails before running the function.
type serviceOutage struct{ err error }

func (o serviceOutage) Invoke(context.Context, string, []byte) (executor.Invocation, error) {
	return executor.Invocation{}, o.err
}

// lambdaClient is the real SDK client pointed at the Lambda Invoke API
// served by h, without retries.
func lambdaClient(t testing.TB, h http.Handler) *lambda.Client {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return lambda.New(lambda.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(srv.URL),
		Credentials:  credentials.NewStaticCredentialsProvider("AKIDLOCAL", "local-secret", ""),
		HTTPClient:   srv.Client(),
		Retryer:      aws.NopRetryer{},
	})
}

// newLambdaTarget is a lambda target for function through client.
func newLambdaTarget(t testing.TB, client target.InvokeAPI, function string) target.Target {
	t.Helper()
	tg, err := target.New(target.Config{
		Kind:               target.KindLambda,
		Function:           function,
		SourceARN:          "arn:aws:sqs:eu-west-1:123456789012:orders",
		PoisonErrorTypes:   []string{"ValidationError", "SchemaError"},
		ThrottleErrorTypes: []string{"DownstreamBusy"},
	}, target.Clients{Lambda: client})
	require.NoError(t, err)
	return tg
}

func TestLambdaDeliverOutcomes(t *testing.T) {
	_, reg := newConsumers(t)
	client := lambdaClient(t, lambdaapi.NewServer(reg))
	tests := []struct {
		function  string
		want      breaker.Outcome
		errorType string
		message   string
	}{
		{function: "ok", want: breaker.Success},
		{function: "no-failures", want: breaker.Success},
		{function: "invalid", want: breaker.Poison, errorType: "ValidationError", message: "invalid field amount"},
		{function: "down", want: breaker.Transient, errorType: "DownstreamUnavailable", message: "orders API answered 503"},
		{function: "busy", want: breaker.Throttled, errorType: "DownstreamBusy", message: "orders API answered 429"},
		{function: "partial", want: breaker.Transient, errorType: target.BatchItemFailure, message: `the consumer reported message "` + messageID + `" in batchItemFailures`},
		{function: "partial-empty-id", want: breaker.Transient, errorType: target.BatchItemFailure, message: "without an itemIdentifier; Lambda fails the whole batch"},
		{function: "panics", want: breaker.Transient, errorType: "string", message: "orders client not initialised"},
		{function: "timeout", want: breaker.Transient, errorType: "Sandbox.Timedout", message: "Task timed out after 3.00 seconds"},
		{function: "crash", want: breaker.Transient, errorType: "Runtime.ExitError", message: "exit status 2"},
		{function: "missing", want: breaker.Transient, errorType: "ResourceNotFoundException", message: "Function not found"},
		{function: "arn:aws:lambda:eu-west-1:123456789012:function:ok:live", want: breaker.Success},
	}
	for _, tt := range tests {
		t.Run(tt.function, func(t *testing.T) {
			got := newLambdaTarget(t, client, tt.function).Deliver(context.Background(), testDocument())
			assert.Equal(t, tt.want, got.Outcome, "result %+v", got)
			assert.Equal(t, tt.errorType, got.ErrorType)
			if tt.message == "" {
				assert.Empty(t, got.Message)
			} else {
				assert.Contains(t, got.Message, tt.message)
			}
		})
	}
}

func TestLambdaDeliverServiceErrors(t *testing.T) {
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	tests := []struct {
		name      string
		client    *lambda.Client
		want      breaker.Outcome
		errorType string
	}{
		{
			name: "throttled", want: breaker.Throttled,
			client: lambdaClient(t, lambdaapi.NewServer(serviceOutage{&lambdatypes.TooManyRequestsException{
				Type: aws.String("User"), Message: aws.String("Rate Exceeded."), Reason: lambdatypes.ThrottleReasonConcurrentInvocationLimitExceeded,
			}})),
			errorType: "TooManyRequestsException",
		},
		{
			name:      "service fault",
			client:    lambdaClient(t, lambdaapi.NewServer(serviceOutage{&smithy.GenericAPIError{Code: "ServiceException", Message: "internal failure", Fault: smithy.FaultServer}})),
			want:      breaker.Transient,
			errorType: "ServiceException",
		},
		{
			name: "unreachable endpoint",
			client: lambda.New(lambda.Options{
				Region: "us-east-1", BaseEndpoint: aws.String(closed.URL), Retryer: aws.NopRetryer{},
				Credentials: credentials.NewStaticCredentialsProvider("AKIDLOCAL", "local-secret", ""),
			}),
			want:      breaker.Transient,
			errorType: "RequestSendError",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := newLambdaTarget(t, tt.client, "ok").Deliver(context.Background(), testDocument())
			assert.Equal(t, tt.want, got.Outcome, "result %+v", got)
			assert.Equal(t, tt.errorType, got.ErrorType)
			assert.Contains(t, got.Message, `invoke "ok"`)
		})
	}
}

func TestLambdaDeliverRefusesUndeliverable(t *testing.T) {
	c, reg := newConsumers(t)
	tg := newLambdaTarget(t, lambdaClient(t, lambdaapi.NewServer(reg)), "ok")

	huge := testDocument()
	huge.Message.Body = strings.Repeat("x", target.MaxInvokePayload)
	invalid := testDocument()
	invalid.OriginID = ""
	tests := []struct {
		name      string
		doc       message.Document
		errorType string
		message   string
	}{
		{name: "over 6 MB", doc: huge, errorType: "RequestTooLargeException", message: "over Lambda's 6291456-byte limit for a synchronous invocation: Invoke can never deliver it"},
		{name: "invalid document", doc: invalid, errorType: "InvalidDocument", message: `document field "originId": missing`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tg.Deliver(context.Background(), tt.doc)
			assert.Equal(t, breaker.Poison, got.Outcome, "result %+v", got)
			assert.Equal(t, tt.errorType, got.ErrorType)
			assert.Contains(t, got.Message, tt.message)
		})
	}
	assert.Empty(t, c.events("ok"), "the consumer must not be invoked")
}

func TestLambdaEvent(t *testing.T) {
	c, reg := newConsumers(t)
	tg := newLambdaTarget(t, lambdaClient(t, lambdaapi.NewServer(reg)), "ok")
	doc := testDocument()
	require.Equal(t, breaker.Success, tg.Deliver(context.Background(), doc).Outcome)

	got := c.events("ok")
	require.Len(t, got, 1)
	assert.JSONEq(t, string(golden(t, "lambda_event.json", got[0])), string(got[0]))

	var e events.SQSEvent
	require.NoError(t, json.Unmarshal(got[0], &e))
	require.Len(t, e.Records, 1)
	record := e.Records[0]
	assert.Equal(t, doc.Message.ID, record.MessageId)
	assert.Equal(t, doc.Message.Body, record.Body, "body unchanged")
	assert.Equal(t, doc.Message.Attributes, record.Attributes, "system attributes preserved")
	assert.Equal(t, "aws:sqs", record.EventSource)
	assert.Equal(t, "arn:aws:sqs:eu-west-1:123456789012:orders", record.EventSourceARN)
	assert.Equal(t, "eu-west-1", record.AWSRegion)
	assertAttributes(t, doc, message.FromEvent(record))
}

func TestLambdaEventNeverEnvelopes(t *testing.T) {
	c, reg := newConsumers(t)
	tg := newLambdaTarget(t, lambdaClient(t, lambdaapi.NewServer(reg)), "ok")
	doc := withAttributes(testDocument(), message.MaxAttributes)
	require.Equal(t, breaker.Success, tg.Deliver(context.Background(), doc).Outcome)

	got := c.events("ok")
	require.Len(t, got, 1)
	var e events.SQSEvent
	require.NoError(t, json.Unmarshal(got[0], &e))
	require.Len(t, e.Records, 1)
	received := message.FromEvent(e.Records[0])
	assert.Equal(t, doc.Message.Body, received.Body, "the consumer gets the original body, not an envelope")
	assert.Len(t, received.MessageAttributes, message.MaxAttributes+1)
	assertAttributes(t, doc, received)
}

// assertAttributes checks that received carries doc's message attributes
// unchanged plus doc's lineage in the "redrive" attribute.
func assertAttributes(t *testing.T, doc message.Document, received message.Message) {
	t.Helper()
	lin, found, err := message.LineageOf(received)
	require.NoError(t, err)
	require.True(t, found, "lineage attribute %q missing", message.AttributeName)
	assert.Equal(t, doc.Lineage(), lin)
	assert.Equal(t, "orders API answered 503", lin.History[0].Message)

	others := received.MessageAttributes
	delete(others, message.AttributeName)
	assert.Equal(t, doc.Message.MessageAttributes, others)
}
