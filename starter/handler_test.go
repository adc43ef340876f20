package starter_test

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	sfntypes "github.com/aws/aws-sdk-go-v2/service/sfn/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/breaker/breakertest"
	"github.com/redrive/redrive/lambda/telemetry"
	"github.com/redrive/redrive/message"
)

func TestStartsOneExecutionPerRecord(t *testing.T) {
	e := newEnv(t, map[string]string{"BREAKER_KEY_ATTRIBUTE": "tenant"})
	resp := e.handle(t, goldenEvent(t, "event.json"))

	got, err := json.Marshal(resp)
	require.NoError(t, err)
	assert.JSONEq(t, string(golden(t, "response.json")), string(got))

	tests := []struct{ execution, input string }{
		{"4a7c9e1d-2b3f-4c5d-8e6f-7a8b9c0d1e2f-a1", "input-new.json"},
		{"059f36b4-87a3-44ab-83d2-661975830a7d-a3-mc6b2aff0", "input-returned.json"},
	}
	for _, tt := range tests {
		t.Run(tt.execution, func(t *testing.T) {
			x, ok := e.sfn.Describe(t, tt.execution)
			require.True(t, ok, "execution %s", tt.execution)
			assert.Equal(t, sfntypes.ExecutionStatusRunning, x.Status)
			assert.Equal(t, e.sfn.StateMachineARN, aws.ToString(x.StateMachineArn))
			assert.JSONEq(t, string(golden(t, tt.input)), aws.ToString(x.Input))
		})
	}
	assert.Len(t, e.sfn.Executions(t), 2)
	assert.Empty(t, e.parked(t))
}

func TestDuplicateDeliveryStartsNothingNew(t *testing.T) {
	e := newEnv(t, map[string]string{"BREAKER_KEY": "orders"})
	event := events.SQSEvent{Records: []events.SQSMessage{
		record("m-1", `{"order":1}`, nil),
		record("m-2", `{"order":2}`, map[string]string{"redrive": lineage(t, "o-2", 4)}),
	}}
	require.Empty(t, failures(e.handle(t, event)))
	require.ElementsMatch(t, []string{"m-1-a1", "o-2-a5-m8ae2a410"}, e.sfn.Executions(t))

	// The same records again, received later: the event source's
	// at-least-once delivery, or a retried batch.
	e.h.Clock = breakertest.NewClock(t0.Add(time.Minute))
	resp := e.handle(t, event)
	assert.Empty(t, failures(resp), "a duplicate is not a failure")
	assert.ElementsMatch(t, []string{"m-1-a1", "o-2-a5-m8ae2a410"}, e.sfn.Executions(t), "no new execution")
	assert.Equal(t, int64(2), e.metrics.Get("orders", telemetry.Duplicates))
	assert.Equal(t, t0, e.input(t, "m-1-a1").ReceivedAt, "the first execution is untouched")
}

// Two different messages that carry the same lineage (a client copied the
// attribute) are two redrives: neither passes for a duplicate of the other
// and is deleted unredriven.
func TestACopiedLineageIsNotADuplicate(t *testing.T) {
	e := newEnv(t, map[string]string{"BREAKER_KEY": "orders"})
	copied := lineage(t, "o-2", 4)
	event := events.SQSEvent{Records: []events.SQSMessage{
		record("m-2", `{"order":2}`, map[string]string{"redrive": copied}),
		record("m-3", `{"order":3}`, map[string]string{"redrive": copied}),
	}}
	require.Empty(t, failures(e.handle(t, event)))
	assert.ElementsMatch(t, []string{"o-2-a5-m8ae2a410", "o-2-a5-m6a7199fb"}, e.sfn.Executions(t), "one execution each")
	assert.Zero(t, e.metrics.Get("orders", telemetry.Duplicates))
	assert.JSONEq(t, `{"order":3}`, e.input(t, "o-2-a5-m6a7199fb").Message.Body)
}

// A duplicate identical to the first delivery, while its execution runs,
// gets Step Functions' idempotent success: still one execution.
func TestIdenticalDuplicateWhileRunning(t *testing.T) {
	e := newEnv(t, nil)
	event := events.SQSEvent{Records: []events.SQSMessage{record("m-1", "x", nil), record("m-1", "x", nil)}}
	assert.Empty(t, failures(e.handle(t, event)))
	assert.Equal(t, []string{"m-1-a1"}, e.sfn.Executions(t))
}

func TestBatchOrderAndConcurrency(t *testing.T) {
	tests := []struct {
		concurrency string
		records     int
	}{
		{"1", 5},
		{"4", 25},
		{"64", 10},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s workers, %d records", tt.concurrency, tt.records), func(t *testing.T) {
			e := newEnv(t, map[string]string{"START_CONCURRENCY": tt.concurrency})
			recs := records(tt.records)
			// Every third record's lineage is malformed and the parking
			// lot is gone, so those records fail, in batch order.
			var want []string
			for i := range recs {
				if i%3 == 1 {
					recs[i].MessageAttributes = map[string]events.SQSMessageAttribute{"redrive": {DataType: "String", StringValue: aws.String("{")}}
					want = append(want, recs[i].MessageId)
				}
			}
			e.h.Lot = brokenLot(t, e)
			resp := e.handle(t, events.SQSEvent{Records: recs})
			assert.Equal(t, want, failures(resp))
			assert.Len(t, e.sfn.Executions(t), tt.records-len(want))
		})
	}
}

func TestBreakerKeySelection(t *testing.T) {
	body := func(tenant string) string { return fmt.Sprintf(`{"tenant":{"id":%q}}`, tenant) }
	tests := []struct {
		name string
		vars map[string]string
		rec  events.SQSMessage
		want string
	}{
		{"fixed", map[string]string{"BREAKER_KEY": "orders"}, record("m-1", body("acme"), map[string]string{"tenant": "globex"}), "orders"},
		{"attribute", map[string]string{"BREAKER_KEY_ATTRIBUTE": "tenant"}, record("m-1", body("acme"), map[string]string{"tenant": "globex"}), "globex"},
		{"attribute missing: fallback", map[string]string{"BREAKER_KEY_ATTRIBUTE": "tenant", "BREAKER_KEY_DEFAULT": "shared"}, record("m-1", body("acme"), nil), "shared"},
		{"pointer", map[string]string{"BREAKER_KEY_POINTER": "/tenant/id"}, record("m-1", body("acme"), nil), "acme"},
		{"pointer into a non-JSON body: fallback", map[string]string{"BREAKER_KEY_POINTER": "/tenant/id"}, record("m-1", "plain text", nil), "default"},
		{"pointer into an envelope's body", map[string]string{"BREAKER_KEY_POINTER": "/tenant/id"}, envelopeRecord(t, "m-1", body("initech")), "initech"},
		{"nothing configured: the default", nil, record("m-1", body("acme"), nil), "default"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, tt.vars)
			require.Empty(t, failures(e.handle(t, events.SQSEvent{Records: []events.SQSMessage{tt.rec}})))
			names := e.sfn.Executions(t)
			require.Len(t, names, 1)
			assert.Equal(t, tt.want, e.input(t, names[0]).BreakerKey)
		})
	}
}

// envelopeRecord is a DLQ record whose body is an envelope around body,
// as a message with 10 attributes comes back.
func envelopeRecord(t *testing.T, id, body string) events.SQSMessage {
	t.Helper()
	attrs := map[string]message.Attribute{}
	for i := range message.MaxAttributes {
		attrs[fmt.Sprintf("a%d", i)] = message.StringAttribute("v")
	}
	wrapped, enveloped, err := message.WithLineage(message.Message{ID: id, Body: body, MessageAttributes: attrs}, message.Lineage{OriginID: "o-env", Attempt: 1})
	require.NoError(t, err)
	require.True(t, enveloped)
	return record(id, wrapped.Body, nil)
}
