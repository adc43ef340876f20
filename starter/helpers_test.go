package starter_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/breaker/breakertest"
	"github.com/redrive/redrive/emulate/sqslocal"
	"github.com/redrive/redrive/emulate/sqslocal/sqstest"
	"github.com/redrive/redrive/lambda/telemetry"
	"github.com/redrive/redrive/message"
	"github.com/redrive/redrive/park"
	"github.com/redrive/redrive/starter"
	"github.com/redrive/redrive/test/parktest"
	"github.com/redrive/redrive/test/sfntest"
)

// t0 is when the starter receives the test events.
var t0 = time.Date(2026, 1, 1, 1, 0, 0, 0, time.UTC)

// env is a starter wired to a local Step Functions endpoint with the
// redrive state machine and an SQS parking lot.
type env struct {
	sfn     *sfntest.Env
	sqs     *sqstest.Backend
	lot     sqstest.Queue
	metrics *parktest.Counter
	h       *starter.Handler
}

// newEnv makes an env; vars are extra starter settings (the breaker key
// selection, START_CONCURRENCY).
func newEnv(t testing.TB, vars map[string]string) *env {
	t.Helper()
	sf := sfntest.Start(t, nil)
	b := sqstest.Start(t, sqslocal.Options{})
	lot := parktest.CreateQueue(t, b)
	all := map[string]string{
		"STATE_MACHINE_ARN": sf.StateMachineARN,
		"PARKING_LOT_URL":   lot.URL,
		"TARGET_KIND":       "lambda",
	}
	for k, v := range vars {
		all[k] = v
	}
	cfg, err := starter.ConfigFromEnv(func(name string) string { return all[name] })
	require.NoError(t, err)
	m := &parktest.Counter{}
	logger := telemetry.JSONLogger(t.Output())
	h := &starter.Handler{
		SFN:     sf.Client,
		Lot:     &park.Lot{SQS: b.Client, Config: cfg.Lot, Metrics: m, Logger: logger},
		Config:  cfg,
		Metrics: m,
		Logger:  logger,
		Clock:   breakertest.NewClock(t0),
	}
	return &env{sfn: sf, sqs: b, lot: lot, metrics: m, h: h}
}

// handle runs the starter on event and requires it not to fail as a whole.
func (e *env) handle(t testing.TB, event events.SQSEvent) events.SQSEventResponse {
	t.Helper()
	resp, err := e.h.Handle(context.Background(), event)
	require.NoError(t, err)
	return resp
}

// parked returns the messages on the parking lot.
func (e *env) parked(t *testing.T) []message.Message {
	t.Helper()
	return parktest.Messages(t, e.sqs, e.lot)
}

// input returns the document the execution called name was started with.
func (e *env) input(t *testing.T, name string) message.Document {
	t.Helper()
	x, ok := e.sfn.Describe(t, name)
	require.True(t, ok, "execution %s exists", name)
	doc, err := message.ParseDocument([]byte(aws.ToString(x.Input)))
	require.NoError(t, err)
	return doc
}

// failures lists a response's failed message ids, in order.
func failures(resp events.SQSEventResponse) []string {
	ids := []string{}
	for _, f := range resp.BatchItemFailures {
		ids = append(ids, f.ItemIdentifier)
	}
	return ids
}

// golden reads a file under testdata.
func golden(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	return data
}

// goldenEvent reads an SQS event under testdata.
func goldenEvent(t *testing.T, name string) events.SQSEvent {
	t.Helper()
	var ev events.SQSEvent
	require.NoError(t, json.Unmarshal(golden(t, name), &ev))
	return ev
}

// record is a DLQ record with id, body and String message attributes.
func record(id, body string, attrs map[string]string) events.SQSMessage {
	r := events.SQSMessage{
		MessageId:      id,
		Body:           body,
		EventSource:    "aws:sqs",
		EventSourceARN: "arn:aws:sqs:us-east-1:123456789012:orders-dlq",
		AWSRegion:      "us-east-1",
		Attributes:     map[string]string{"ApproximateReceiveCount": "1"},
	}
	for name, v := range attrs {
		if r.MessageAttributes == nil {
			r.MessageAttributes = map[string]events.SQSMessageAttribute{}
		}
		r.MessageAttributes[name] = events.SQSMessageAttribute{DataType: "String", StringValue: aws.String(v)}
	}
	return r
}

// lineage is the "redrive" attribute value of a message sent on attempt.
func lineage(t *testing.T, originID string, attempt int) string {
	t.Helper()
	data, err := json.Marshal(message.Lineage{OriginID: originID, Attempt: attempt})
	require.NoError(t, err)
	return string(data)
}

// records returns n records with ids "m-00", "m-01", ...
func records(n int) []events.SQSMessage {
	out := make([]events.SQSMessage, n)
	for i := range out {
		out[i] = record(fmt.Sprintf("m-%02d", i), fmt.Sprintf(`{"n":%d}`, i), nil)
	}
	return out
}
