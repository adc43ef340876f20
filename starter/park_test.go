package starter_test

import (
	"cmp"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/lambda/telemetry"
	"github.com/redrive/redrive/message"
	"github.com/redrive/redrive/park"
	"github.com/redrive/redrive/starter"
)

// brokenLot is a parking lot whose queue does not exist.
func brokenLot(t *testing.T, e *env) *park.Lot {
	t.Helper()
	cfg := e.h.Config.Lot
	cfg.QueueURL += "-gone"
	return &park.Lot{SQS: e.sqs.Client, Config: cfg, Metrics: e.metrics, Logger: e.h.Logger}
}

// recordOf decodes the park.Record of a parked message, from its
// attribute or its envelope.
func recordOf(t *testing.T, msg message.Message) park.Record {
	t.Helper()
	a, ok := msg.MessageAttributes[message.AttributeName]
	if !ok {
		inner, _, err := message.Unwrap(msg)
		require.NoError(t, err)
		a, ok = inner.MessageAttributes[message.AttributeName]
		require.True(t, ok, "the %q attribute", message.AttributeName)
	}
	var rec park.Record
	require.NoError(t, json.Unmarshal([]byte(a.StringValue), &rec))
	return rec
}

func TestOversizeIsParked(t *testing.T) {
	// The document adds the message id twice, attributes and fields to
	// the body; 1 KiB covers them.
	const overhead = 1 << 10
	tests := []struct {
		name   string
		body   int
		parked bool
		// inLog: no room for the record; it is only logged.
		inLog bool
		// char fills the body; "" means "x".
		char string
	}{
		{"just under the limit starts", starter.MaxInputBytes - overhead, false, false, ""},
		// Step Functions counts UTF-8 bytes of the JSON: '<' is one byte,
		// not the six of Go's HTML-escaped "\u003c".
		{"characters Go would HTML-escape count as they are", starter.MaxInputBytes - overhead, false, false, "<"},
		{"over the limit is parked", starter.MaxInputBytes + 1, true, false, ""},
		{"SQS's largest message is parked as it arrived", 1<<20 - len("tenant"+"String"+"acme"), true, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, map[string]string{"BREAKER_KEY": "orders"})
			body := strings.Repeat(cmp.Or(tt.char, "x"), tt.body)
			rec := record("m-big", body, map[string]string{"tenant": "acme"})
			resp := e.handle(t, events.SQSEvent{Records: []events.SQSMessage{rec}})
			assert.Empty(t, failures(resp))
			if !tt.parked {
				assert.Equal(t, []string{"m-big-a1"}, e.sfn.Executions(t))
				assert.Empty(t, e.parked(t))
				return
			}
			assert.Empty(t, e.sfn.Executions(t), "nothing started")
			parked := e.parked(t)
			require.Len(t, parked, 1)
			assert.Equal(t, body, parked[0].Body, "original body")
			assert.Equal(t, message.StringAttribute("acme"), parked[0].MessageAttributes["tenant"])
			assert.Equal(t, int64(1), e.metrics.Get("orders", telemetry.Parked))
			if tt.inLog {
				assert.Len(t, parked[0].MessageAttributes, 1, "no record attribute")
				return
			}
			got := recordOf(t, parked[0])
			assert.Regexp(t, fmt.Sprintf(`^oversize: \d+ bytes exceeds the %d-byte limit`, starter.MaxInputBytes), got.Reason)
			assert.Equal(t, "m-big", got.OriginID)
			assert.Equal(t, 1, got.Attempt)
			assert.Equal(t, "orders", got.BreakerKey)
			assert.Empty(t, got.ExecutionARN)
		})
	}
}

func TestMalformedLineageIsParkedAsPoison(t *testing.T) {
	tests := []struct {
		name      string
		rec       events.SQSMessage
		reason    string
		malformed string
	}{
		{"not JSON", record("m-1", "payload", map[string]string{"redrive": "{not json", "tenant": "acme"}), `poison: message: malformed lineage: attribute "redrive"`, "{not json"},
		{"no origin", record("m-1", "payload", map[string]string{"redrive": `{"attempt":2}`, "tenant": "acme"}), "originId is missing", `{"attempt":2}`},
		{"binary", binaryLineage(record("m-1", "payload", map[string]string{"tenant": "acme"})), `data type "Binary", want String`, "AQI="},
		{"a broken envelope", record("m-1", `{"redriveEnvelope":1,"body":"payload"}`, map[string]string{"tenant": "acme"}), "envelope of message \"m-1\"", ""},
		// An envelope whose attribute SQS would refuse is parked as it
		// came, the envelope its body: unwrapped, the lot would refuse it.
		{"an envelope attribute without a value", record("m-1",
			`{"redriveEnvelope":1,"body":"payload","messageAttributes":{"k":{"dataType":"String"}},"lineage":{"originId":"m-1","attempt":1}}`,
			map[string]string{"tenant": "acme"}), `message attribute "k": String attribute without a value`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, map[string]string{"BREAKER_KEY_ATTRIBUTE": "tenant"})
			resp := e.handle(t, events.SQSEvent{Records: []events.SQSMessage{tt.rec}})
			assert.Empty(t, failures(resp))
			assert.Empty(t, e.sfn.Executions(t), "nothing started")

			parked := e.parked(t)
			require.Len(t, parked, 1)
			assert.Equal(t, tt.rec.Body, parked[0].Body, "body as it arrived")
			assert.Equal(t, message.StringAttribute("acme"), parked[0].MessageAttributes["tenant"])
			got := recordOf(t, parked[0])
			assert.Contains(t, got.Reason, tt.reason)
			assert.True(t, strings.HasPrefix(got.Reason, "poison: "), got.Reason)
			assert.Equal(t, tt.malformed, got.MalformedLineage, "the bad attribute is kept")
			assert.Equal(t, message.Lineage{OriginID: "m-1", Attempt: 1}, got.Lineage)
			assert.Equal(t, "acme", got.BreakerKey)
			assert.Equal(t, int64(1), e.metrics.Get("acme", telemetry.Parked))
		})
	}
}

// binaryLineage gives rec a Binary "redrive" attribute.
func binaryLineage(rec events.SQSMessage) events.SQSMessage {
	rec.MessageAttributes["redrive"] = events.SQSMessageAttribute{DataType: "Binary", BinaryValue: []byte{1, 2}}
	return rec
}

func TestFailedParkStaysInTheDLQ(t *testing.T) {
	e := newEnv(t, nil)
	e.h.Lot = brokenLot(t, e)
	recs := []events.SQSMessage{
		record("m-big", strings.Repeat("x", starter.MaxInputBytes), nil),
		record("m-ok", "fine", nil),
		record("m-bad", "payload", map[string]string{"redrive": "nope"}),
	}
	resp := e.handle(t, events.SQSEvent{Records: recs})
	assert.Equal(t, []string{"m-big", "m-bad"}, failures(resp))
	assert.Equal(t, []string{"m-ok-a1"}, e.sfn.Executions(t))
	assert.Zero(t, e.metrics.Total(telemetry.Parked))
}

func TestInvalidDocumentIsParkedAsPoison(t *testing.T) {
	e := newEnv(t, map[string]string{"BREAKER_KEY": "orders"})
	badTry := `{"originId":"o-1","attempt":1,"history":[{"at":"2026-01-01T00:00:00Z","try":0,"outcome":"TRANSIENT"}]}`
	recs := []events.SQSMessage{
		record("m-1", "payload", map[string]string{"redrive": badTry}),
		record("", "no id", nil),
	}
	resp := e.handle(t, events.SQSEvent{Records: recs})
	assert.Empty(t, failures(resp))
	assert.Empty(t, e.sfn.Executions(t), "nothing started")

	parked := e.parked(t)
	require.Len(t, parked, 2)
	reasons := []string{recordOf(t, parked[0]).Reason, recordOf(t, parked[1]).Reason}
	assert.Contains(t, reasons[0]+reasons[1], `poison: message: document field "history[0].try": 0, want at least 1`)
	assert.Contains(t, reasons[0]+reasons[1], `poison: message: document field "message.messageId": missing`)
	assert.Equal(t, int64(2), e.metrics.Get("orders", telemetry.Parked))
}
