package park_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/emulate/sqslocal/sqstest"
	"github.com/redrive/redrive/lambda/telemetry"
	"github.com/redrive/redrive/message"
	"github.com/redrive/redrive/park"
)

// failures returns n history failures with messages of the longest size
// kept.
func failures(n int) []message.Failure {
	var out []message.Failure
	for i := range n {
		out = append(out, message.Failure{
			At: t0.Add(time.Duration(i-n) * time.Minute), Try: i + 1, Outcome: message.OutcomeTransient,
			ErrorType: "Timeout", Message: strings.Repeat("x", message.MaxFailureMessage), BreakerState: "CLOSED",
		})
	}
	return out
}

func TestParkEnvelopesAtTenAttributes(t *testing.T) {
	tests := []struct {
		name      string
		others    int
		enveloped bool
	}{
		{"nine attributes leave room for the record", 9, false},
		{"ten attributes take an envelope", 10, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newLotEnv(t, 0)
			msg := message.Message{ID: "m-1", Body: `{"order":1}`, MessageAttributes: attributes(tt.others)}
			rec := park.Record{Lineage: message.Lineage{OriginID: "o-1", Attempt: 3, History: failures(2)}, Tries: 4, Reason: "poison: bad order", ParkedAt: t0}
			out, err := e.lot.Park(context.Background(), msg, rec)
			require.NoError(t, err)
			assert.Equal(t, tt.enveloped, out.Enveloped)

			parked := e.receiveOne(t)
			inner, got, _ := recordOf(t, parked)
			assert.Equal(t, msg.Body, inner.Body, "original body, after Unwrap")
			for name, a := range msg.MessageAttributes {
				assert.Equal(t, a, inner.MessageAttributes[name], "attribute %q", name)
			}
			assert.Len(t, inner.MessageAttributes, tt.others+1)
			assert.Equal(t, "poison: bad order", got.Reason)
			assert.Equal(t, 4, got.Tries)
			assert.Len(t, got.History, 2)

			lin, found, err := message.LineageOf(parked)
			require.NoError(t, err)
			assert.True(t, found)
			assert.Equal(t, rec.Lineage.OriginID, lin.OriginID)
			assert.Equal(t, rec.Lineage.Attempt, lin.Attempt)
		})
	}
}

// A parked message moved back to its source queue that fails again starts
// the next attempt with its history.
func TestParkedMessageReadsBackAsLineage(t *testing.T) {
	e := newLotEnv(t, 0)
	msg := message.Message{ID: "m-2", Body: "payload", MessageAttributes: attributes(1)}
	rec := park.Record{Lineage: message.Lineage{OriginID: "o-2", Attempt: 2, History: failures(3)}, Reason: "exhausted", ParkedAt: t0}
	_, err := e.lot.Park(context.Background(), msg, rec)
	require.NoError(t, err)

	doc, err := message.NewDocument(e.receiveOne(t), t0)
	require.NoError(t, err)
	assert.Equal(t, "o-2", doc.OriginID)
	assert.Equal(t, 3, doc.Attempt)
	assert.Equal(t, rec.History, doc.History)
	assert.Equal(t, "payload", doc.Message.Body)
	assert.Equal(t, msg.MessageAttributes, doc.Message.MessageAttributes)
}

func TestParkShrinksRecordToFit(t *testing.T) {
	const limit = 8 << 10
	longCause := strings.Repeat("c", 32<<10)
	tests := []struct {
		name      string
		limit     int
		body      int
		others    int
		history   [2]int // the least and most failures kept
		cause     int
		truncated bool
	}{
		{"a message that fits keeps everything", park.DefaultMaxMessageSize, 1 << 10, 1, [2]int{10, 10}, len(longCause), false},
		{"the cause is cut first", limit, 1 << 10, 1, [2]int{10, 10}, 1024, true},
		{"then the oldest failures go", limit, 5 << 10, 1, [2]int{1, 9}, 1024, true},
		{"in an envelope too", limit, 4 << 10, 10, [2]int{1, 9}, 1024, true},
		{"then the cause goes", limit, 7 << 10, 1, [2]int{0, 0}, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newLotEnv(t, tt.limit)
			msg := message.Message{ID: "m-3", Body: strings.Repeat("b", tt.body), MessageAttributes: attributes(tt.others)}
			rec := park.Record{
				Lineage:      message.Lineage{OriginID: "o-3", Attempt: 1, History: failures(10), LastError: "Timeout: x"},
				Reason:       "task failed: States.Timeout",
				Failure:      &message.TaskFailure{Error: "States.Timeout", Cause: longCause},
				ExecutionARN: "arn:aws:states:us-east-1:123456789012:execution:redrive:o-3-a1",
				ParkedAt:     t0,
			}
			out, err := e.lot.Park(context.Background(), msg, rec)
			require.NoError(t, err)
			assert.Equal(t, tt.truncated, out.Truncated)
			assert.Equal(t, tt.others == 10, out.Enveloped)

			parked := e.receiveOne(t)
			assert.LessOrEqual(t, size(parked), tt.limit)
			inner, got, _ := recordOf(t, parked)
			assert.Equal(t, msg.Body, inner.Body, "the body is never cut")
			assert.Equal(t, tt.truncated, got.Truncated)
			assert.GreaterOrEqual(t, len(got.History), tt.history[0])
			assert.LessOrEqual(t, len(got.History), tt.history[1])
			if len(got.History) > 0 {
				assert.Equal(t, rec.History[len(rec.History)-len(got.History):], got.History, "the newest failures are kept")
			}
			require.NotNil(t, got.Failure)
			assert.Equal(t, "States.Timeout", got.Failure.Error)
			assert.Len(t, got.Failure.Cause, tt.cause)
			assert.Equal(t, "o-3", got.OriginID)
			assert.Equal(t, rec.Reason, got.Reason)
			assert.Equal(t, rec.ExecutionARN, got.ExecutionARN)
		})
	}
}

func TestParkAtTheSizeLimit(t *testing.T) {
	const limit = 4 << 10
	tests := []struct {
		name   string
		others int
	}{
		{"a body at the limit", 0},
		{"a body and ten attributes at the limit", 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newLotEnv(t, limit)
			var log bytes.Buffer
			e.lot.Logger = telemetry.JSONLogger(&log)
			attrs := attributes(tt.others)
			msg := message.Message{ID: "m-5", Body: strings.Repeat("b", limit-size(message.Message{MessageAttributes: attrs})), MessageAttributes: attrs}
			require.Equal(t, limit, size(msg), "precondition")
			rec := park.Record{Lineage: message.Lineage{OriginID: "o-5", Attempt: 2, History: failures(1)}, Reason: "oversize: too big", ParkedAt: t0}

			out, err := e.lot.Park(context.Background(), msg, rec)
			require.NoError(t, err)
			assert.True(t, out.RecordInLogOnly)
			assert.False(t, out.Enveloped)

			parked := e.receiveOne(t)
			assert.Equal(t, msg.Body, parked.Body, "parked as it arrived")
			assert.Equal(t, msg.MessageAttributes, parked.MessageAttributes)
			var line struct{ Record park.Record }
			require.NoError(t, json.Unmarshal(log.Bytes(), &line), "one log line: %s", log.String())
			assert.Equal(t, rec, line.Record, "the whole record is in the log")
		})
	}
}

func TestParkTooLargeSendsNothing(t *testing.T) {
	e := newLotEnv(t, 4<<10)
	msg := message.Message{ID: "m-4", Body: strings.Repeat("b", 4<<10+1)}
	_, err := e.lot.Park(context.Background(), msg, park.Record{Lineage: message.Lineage{OriginID: "o-4", Attempt: 1}, Reason: "oversize", ParkedAt: t0})
	require.ErrorIs(t, err, park.ErrTooLarge)
	assert.Contains(t, err.Error(), `message "m-4" is 4097 bytes as it arrived, over the 4096-byte limit`)
	assert.Empty(t, e.receiveAll(t))
	assert.Zero(t, e.metrics.Total(telemetry.Parked))
}

// size is a message's size as SQS counts it.
func size(m message.Message) int {
	n := len(m.Body)
	for name, a := range m.MessageAttributes {
		n += len(name) + len(a.DataType) + len(a.StringValue) + len(a.BinaryValue)
	}
	return n
}

// A FIFO parking lot keeps a message in its group, and a park retried
// after its send went through is not a second copy (its deduplication id
// is the message's Key).
func TestParkInAFIFOLot(t *testing.T) {
	e := newLotEnv(t, 0)
	e.queue = sqstest.CreateQueue(t, e.backend.Client, map[string]string{"FifoQueue": "true"})
	e.lot.Config.QueueURL = e.queue.URL
	rec := park.Record{Lineage: message.Lineage{OriginID: "o-1", Attempt: 1}, BreakerKey: "orders", MessageGroupID: "account-7", Reason: "poison", ParkedAt: t0}
	for range 2 {
		_, err := e.lot.Park(context.Background(), message.Message{ID: "m-1", Body: "first"}, rec)
		require.NoError(t, err)
	}
	other := rec
	other.OriginID, other.MessageGroupID = "o-2", ""
	_, err := e.lot.Park(context.Background(), message.Message{ID: "m-2", Body: "second"}, other)
	require.NoError(t, err)

	msgs := e.receiveAll(t)
	require.Len(t, msgs, 2, "the retried park sent no second copy")
	groups := map[string]string{}
	for _, m := range msgs {
		groups[m.Body] = m.Attributes["MessageGroupId"]
	}
	assert.Equal(t, map[string]string{"first": "account-7", "second": "orders"}, groups, "its group, or its breaker key without one")
}
