package starter_test

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/breaker/breakertest"
	"github.com/redrive/redrive/dynamo"
	"github.com/redrive/redrive/emulate/ddbtest"
	"github.com/redrive/redrive/lambda/telemetry"
	"github.com/redrive/redrive/message"
	"github.com/redrive/redrive/starter"
)

// withBreaker switches e to the sqs target with a real breaker over
// DynamoDB (minidyn, or DDB_ENDPOINT) that trips after two consecutive
// failures, and returns the breaker to inspect its row.
func withBreaker(t *testing.T, e *env) *breaker.Breaker {
	t.Helper()
	client, backend := ddbtest.Client(t)
	table := ddbtest.CreateTable(t, client, func(ctx context.Context, name string) error {
		return dynamo.CreateTable(ctx, client, name)
	})
	t.Logf("breaker table %s on %s", table, backend)
	vars := map[string]string{
		"STATE_MACHINE_ARN":            e.h.Config.StateMachineARN,
		"PARKING_LOT_URL":              e.h.Config.Lot.QueueURL,
		"TARGET_KIND":                  "sqs",
		"TABLE_NAME":                   table,
		"BREAKER_KEY":                  "orders",
		"BREAKER_CONSECUTIVE_FAILURES": "2",
		"RELEASE_STATE_MACHINE_ARN":    controllerARN,
	}
	cfg, err := starter.ConfigFromEnv(func(name string) string { return vars[name] })
	require.NoError(t, err)
	require.True(t, cfg.RecordsReturns())
	b, err := breaker.New(dynamo.New(client, table), cfg.Policy, breaker.Options{Clock: breakertest.NewClock(t0), Random: breaker.NewRandom(1)})
	require.NoError(t, err)
	e.h.Config = cfg
	e.h.Breaker = b
	return b
}

// controllerARN is the controller state machine the starter's config
// names; the tests' Launcher never starts it.
const controllerARN = "arn:aws:states:us-east-1:123456789012:stateMachine:redrive-release"

// returned is a DLQ record of a message redriven on attempt that came back.
func returned(t *testing.T, id, originID string, attempt int) events.SQSMessage {
	return record(id, `{"order":1}`, map[string]string{"redrive": lineage(t, originID, attempt)})
}

func TestReturnIsAConsumerFailureWithTheSQSTarget(t *testing.T) {
	e := newEnv(t, nil)
	b := withBreaker(t, e)
	ctx := context.Background()
	row := func() breaker.Row {
		r, err := b.Status(ctx, "orders")
		require.NoError(t, err)
		return r
	}

	// A new message is no failure.
	require.Empty(t, failures(e.handle(t, events.SQSEvent{Records: []events.SQSMessage{record("m-0", "x", nil)}})))
	assert.Zero(t, row().Totals.Failures)

	// A message back from its first redrive: attempt 2, one failure.
	first := returned(t, "m-1", "o-1", 1)
	require.Empty(t, failures(e.handle(t, events.SQSEvent{Records: []events.SQSMessage{first}})))
	doc := e.input(t, "o-1-a2-ma461b472")
	assert.Equal(t, 2, doc.Attempt)
	require.Len(t, doc.History, 1)
	assert.Equal(t, message.Failure{
		At: t0, Try: 1, Outcome: message.OutcomeTransient, ErrorType: starter.ErrorTypeReturned,
		Message: "the consumer failed the message redriven on attempt 1; it returned to the dead-letter queue",
	}, doc.History[0])
	r := row()
	assert.Equal(t, breaker.Closed, r.State)
	assert.Equal(t, int64(1), r.Totals.Failures)
	assert.Equal(t, 1, r.ConsecutiveFailures)
	assert.Equal(t, int64(1), e.metrics.Get("orders", telemetry.Transient))

	// Its duplicate delivery counts nothing more.
	e.h.Clock = breakertest.NewClock(t0.Add(time.Second))
	require.Empty(t, failures(e.handle(t, events.SQSEvent{Records: []events.SQSMessage{first}})))
	assert.Equal(t, int64(1), e.metrics.Get("orders", telemetry.Duplicates))
	assert.Equal(t, int64(1), row().Totals.Failures)

	// A second return trips the breaker.
	require.Empty(t, failures(e.handle(t, events.SQSEvent{Records: []events.SQSMessage{returned(t, "m-2", "o-2", 3)}})))
	r = row()
	assert.Equal(t, breaker.Open, r.State)
	assert.Equal(t, breaker.CauseConsecutiveFailures, r.Cause)
	assert.Equal(t, int64(2), r.Totals.Failures)

	// While OPEN nothing was admitted, so a late return does not count.
	require.Empty(t, failures(e.handle(t, events.SQSEvent{Records: []events.SQSMessage{returned(t, "m-3", "o-3", 1)}})))
	assert.Equal(t, r, row(), "row unchanged")
	assert.ElementsMatch(t, []string{"m-0-a1", "o-1-a2-ma461b472", "o-2-a4-m8ae2a410", "o-3-a2-m6a7199fb"}, e.sfn.Executions(t))
}

func TestReturnIsNotRecordedWithTheLambdaTarget(t *testing.T) {
	e := newEnv(t, map[string]string{"TARGET_KIND": "lambda"})
	require.Nil(t, e.h.Breaker, "precondition: no breaker to record on")
	require.Empty(t, failures(e.handle(t, events.SQSEvent{Records: []events.SQSMessage{returned(t, "m-1", "o-1", 1)}})))
	doc := e.input(t, "o-1-a2-ma461b472")
	assert.Equal(t, 2, doc.Attempt)
	assert.Empty(t, doc.History, "no consumer failure in the history")
	assert.Zero(t, e.metrics.Total(telemetry.Transient))
}

// A breaker that cannot be reached does not hold the redrive back: the
// execution starts and the error is logged.
func TestBreakerErrorStillStarts(t *testing.T) {
	e := newEnv(t, nil)
	withBreaker(t, e)
	client, _ := ddbtest.Client(t)
	missing, err := breaker.New(dynamo.New(client, "redrive-test-no-such-table"), breaker.Policy{}, breaker.Options{})
	require.NoError(t, err)
	e.h.Breaker = missing

	require.Empty(t, failures(e.handle(t, events.SQSEvent{Records: []events.SQSMessage{returned(t, "m-1", "o-1", 1)}})))
	assert.Equal(t, []string{"o-1-a2-ma461b472"}, e.sfn.Executions(t))
	assert.Zero(t, e.metrics.Total(telemetry.Transient), "nothing recorded")
}
