package message_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/message"
)

// golden reads testdata/name.
func golden(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	return data
}

// assertGolden compares v, as JSON, with testdata/name.
func assertGolden(t *testing.T, name string, v any) {
	t.Helper()
	got, err := json.Marshal(v)
	require.NoError(t, err)
	assert.JSONEq(t, string(golden(t, name)), string(got), "testdata/%s", name)
}

// decodeGolden decodes testdata/name into a T.
func decodeGolden[T any](t *testing.T, name string) T {
	t.Helper()
	var v T
	require.NoError(t, json.Unmarshal(golden(t, name), &v), "testdata/%s", name)
	return v
}

// receivedAt is when the golden document's message was received.
var receivedAt = time.Date(2026, 1, 1, 0, 10, 0, 123456789, time.UTC)

func TestGoldenEventToMessage(t *testing.T) {
	event := decodeGolden[events.SQSEvent](t, "sqs-event.json")
	require.Len(t, event.Records, 1)
	assertGolden(t, "message.json", message.FromEvent(event.Records[0]))
}

func TestGoldenMessageRoundTrip(t *testing.T) {
	msg := decodeGolden[message.Message](t, "message.json")
	assert.Equal(t, []byte{0xde, 0xad, 0xbe, 0xef}, msg.MessageAttributes["signature"].BinaryValue)
	assertGolden(t, "message.json", msg)
}

func TestGoldenLineage(t *testing.T) {
	lin, found, err := message.LineageOf(decodeGolden[message.Message](t, "message.json"))
	require.NoError(t, err)
	assert.True(t, found)
	assert.Equal(t, message.Lineage{
		OriginID:  "059f36b4-87a3-44ab-83d2-661975830a7d",
		Attempt:   2,
		LastError: "BatchItemFailure: downstream 503",
		History: []message.Failure{{
			At: time.Date(2026, 1, 1, 0, 0, 0, 5e8, time.UTC), Try: 1, Outcome: message.OutcomeTransient,
			ErrorType: "BatchItemFailure", Message: "downstream 503", BreakerState: "CLOSED",
		}},
	}, lin)
	assertGolden(t, "lineage.json", lin)
}

func TestGoldenDocument(t *testing.T) {
	doc, err := message.NewDocument(decodeGolden[message.Message](t, "message.json"), receivedAt)
	require.NoError(t, err)
	doc.BreakerKey, err = selector(t, map[string]string{message.EnvKeyPointer: "/tenant/id"}).Select(doc.Message)
	require.NoError(t, err)
	require.NoError(t, doc.Validate())
	assertGolden(t, "document.json", doc)

	parsed, err := message.ParseDocument(golden(t, "document.json"))
	require.NoError(t, err)
	assert.Equal(t, doc, parsed)
}

func TestGoldenAttemptOutput(t *testing.T) {
	doc, err := message.ParseDocument(golden(t, "attempt-output.json"))
	require.NoError(t, err)
	assert.Equal(t, message.NextWait, doc.Next)
	assert.Equal(t, 30, doc.WaitSeconds)
	assert.Equal(t, 1, doc.Runs)
	assert.True(t, strings.HasSuffix(doc.ExecutionName(), "-r1"), doc.ExecutionName())
	assert.Equal(t, &message.TaskFailure{Error: "States.Timeout", Cause: "Task timed out after 60 seconds"}, doc.Failure)
	require.Len(t, doc.History, 2)
	assert.Equal(t, "Lambda.TooManyRequestsException", doc.Lineage().LastError)
	assertGolden(t, "attempt-output.json", doc)
}

func TestGoldenEventForConsumer(t *testing.T) {
	doc, err := message.ParseDocument(golden(t, "document.json"))
	require.NoError(t, err)
	msg, enveloped, err := message.ForRedrive(doc)
	require.NoError(t, err)
	assert.False(t, enveloped)
	event := msg.Event()
	event.EventSourceARN = "arn:aws:sqs:eu-west-1:123456789012:orders"
	event.AWSRegion = "eu-west-1"
	assertGolden(t, "event.json", event)
}

func TestGoldenEnvelope(t *testing.T) {
	msg := message.Message{ID: "m-11", Body: "hello, world", Attributes: map[string]string{"SentTimestamp": "1767225600000"}}
	msg.MessageAttributes = map[string]message.Attribute{
		"a8": {DataType: "Number", StringValue: "8"},
		"a9": {DataType: "Binary", BinaryValue: []byte{9}},
	}
	for i := range 8 {
		msg.MessageAttributes[fmt.Sprintf("a%d", i)] = message.StringAttribute(fmt.Sprintf("v%d", i))
	}
	lin := message.Lineage{OriginID: "m-1", Attempt: 4, LastError: "Timeout", History: []message.Failure{{
		At: time.Date(2026, 2, 3, 4, 5, 6, 0, time.UTC), Try: 3, Outcome: message.OutcomeTransient, ErrorType: "Timeout", BreakerState: "HALF_OPEN",
	}}}
	wrapped, enveloped, err := message.WithLineage(msg, lin)
	require.NoError(t, err)
	assert.True(t, enveloped)
	assertGolden(t, "envelope.json", wrapped)

	got, found, err := message.LineageOf(decodeGolden[message.Message](t, "envelope.json"))
	require.NoError(t, err)
	assert.True(t, found)
	assert.Equal(t, lin, got)
}
