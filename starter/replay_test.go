package starter_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/lambda/telemetry"
	"github.com/redrive/redrive/message"
)

// replayed is a DLQ record of a message a replay sent back from the
// parking lot, parked on attempt.
func replayed(t *testing.T, id, originID string, attempt int) events.SQSMessage {
	t.Helper()
	data, err := json.Marshal(message.Lineage{OriginID: originID, Attempt: attempt, Replay: "r-1", ReplayAttempt: attempt})
	require.NoError(t, err)
	return record(id, `{"order":1}`, map[string]string{"redrive": string(data)})
}

// With the sqs target, a message a replay sent back arrives in the DLQ
// with lineage, but no consumer failed it: it starts the next attempt
// with nothing added to its history or its breaker. Once redriven, a
// return of the same message is a consumer failure again.
func TestReplayedMessageIsNoConsumerFailure(t *testing.T) {
	e := newEnv(t, nil)
	b := withBreaker(t, e)
	require.Empty(t, failures(e.handle(t, events.SQSEvent{Records: []events.SQSMessage{replayed(t, "m-1", "o-1", 2)}})))
	names := e.sfn.Executions(t)
	require.Len(t, names, 1)
	doc := e.input(t, names[0])
	assert.Equal(t, 3, doc.Attempt, "the attempt advances")
	assert.True(t, doc.Replayed())
	assert.Empty(t, doc.History, "no consumer failure in the history")
	row, err := b.Status(context.Background(), "orders")
	require.NoError(t, err)
	assert.Zero(t, row.Totals.Failures)
	assert.Zero(t, e.metrics.Total(telemetry.Transient))

	// The redriven copy fails at the consumer and returns: a failure.
	back, _, err := message.ForRedrive(doc)
	require.NoError(t, err)
	lin := back.MessageAttributes[message.AttributeName].StringValue
	require.Empty(t, failures(e.handle(t, events.SQSEvent{Records: []events.SQSMessage{record("m-2", back.Body, map[string]string{"redrive": lin})}})))
	row, err = b.Status(context.Background(), "orders")
	require.NoError(t, err)
	assert.Equal(t, int64(1), row.Totals.Failures)
	assert.Len(t, e.sfn.Executions(t), 2)
}
