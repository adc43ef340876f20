package attempt_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/delivery/target"
	"github.com/redrive/redrive/emulate/executor"
	"github.com/redrive/redrive/message"
	"github.com/redrive/redrive/room/waitroom"
	"github.com/redrive/redrive/statemachine"
)

// These tests run the committed redrive.asl.json on the local executor
// with the real Attempt handler, so the payload contract between the two
// (Payload, OutputPath, Route on next, Backoff on waitSeconds, error names
// in Retry and Catch) is what is tested. Park and Queue (the waiting
// room's entry) are recorded.

// machine is the redrive state machine on a local executor, its Attempt
// function backed by a fixture on the executor's virtual clock.
type machine struct {
	exec    *executor.Executor
	arn     string
	fixture fixture

	mu     sync.Mutex
	parked []json.RawMessage
	queued []json.RawMessage
}

func newMachine(t *testing.T, o options, results ...target.Result) *machine {
	t.Helper()
	reg := executor.NewRegistry()
	m := &machine{exec: executor.New(executor.Options{Invoker: reg, Start: t0})}
	o.clock = m.exec
	m.fixture = newFixture(t, o, results...)
	record := func(into *[]json.RawMessage) func(context.Context, json.RawMessage) (map[string]any, error) {
		return func(_ context.Context, in json.RawMessage) (map[string]any, error) {
			m.mu.Lock()
			defer m.mu.Unlock()
			*into = append(*into, in)
			return map[string]any{"ok": true}, nil
		}
	}
	arn := func(name string) string { return "arn:aws:lambda:us-east-1:123456789012:function:" + name }
	require.NoError(t, reg.Register(arn("attempt"), m.fixture.handler.Handle))
	require.NoError(t, reg.Register(arn("park"), record(&m.parked)))
	// The Queue task's document, as the waiting room would store it.
	require.NoError(t, reg.Register(arn("waitroom"), record(&m.queued)))
	def, err := statemachine.Redrive().Render(map[string]string{
		statemachine.AttemptFunctionArn:     arn("attempt"),
		statemachine.ParkFunctionArn:        arn("park"),
		statemachine.WaitingRoomFunctionArn: arn("waitroom"),
	})
	require.NoError(t, err)
	m.arn, err = m.exec.CreateStateMachine(t.Context(), "redrive", def, "arn:aws:iam::123456789012:role/redrive")
	require.NoError(t, err)
	return m
}

// run executes input to the end as the execution name and returns the
// execution and its history.
func (m *machine) run(t *testing.T, name, input string) (executor.Execution, []executor.Event) {
	t.Helper()
	x, err := m.exec.StartExecution(t.Context(), m.arn, name, input)
	require.NoError(t, err)
	require.NoError(t, m.exec.Run(t.Context()))
	x, err = m.exec.DescribeExecution(t.Context(), x.ARN)
	require.NoError(t, err)
	history, err := m.exec.History(t.Context(), x.ARN)
	require.NoError(t, err)
	return x, history
}

func countEvents(history []executor.Event, typ string) int {
	n := 0
	for _, ev := range history {
		if ev.Type == typ {
			n++
		}
	}
	return n
}

func documentJSON(t *testing.T, doc message.Document) string {
	t.Helper()
	b, err := json.Marshal(doc)
	require.NoError(t, err)
	return string(b)
}

// A first failure backs off inline (3 s, in the first cycle); the
// second one's backoff (6 s, past MaxInlineWait) is the room's: the Queue
// task gets the document and the execution ends. Released, the document
// runs as the next execution and is delivered.
func TestStateMachineBacksOffInlineOnceThenQueues(t *testing.T) {
	m := newMachine(t, options{policy: neverTrips, config: shortBackoff}, transient("busy"), transient("busy"), target.Delivered())

	x, history := m.run(t, "m-1-a1", documentJSON(t, newDocument("orders")))

	require.Equal(t, executor.Succeeded, x.Status, "%s: %s", x.Error, x.Cause)
	assert.Equal(t, 1, countEvents(history, "WaitStateEntered"), "one inline backoff")
	assert.Equal(t, t0.Add(3*time.Second), x.StopDate, "the execution ends when its document enters the room")
	assert.Empty(t, m.parked)
	require.Len(t, m.queued, 1)
	queued, err := message.ParseDocument(m.queued[0])
	require.NoError(t, err)
	assert.Equal(t, message.NextRoom, queued.Next)
	assert.Equal(t, 2, queued.Tries)
	assert.Equal(t, 2, queued.Cycles)
	assert.Equal(t, t0.Add((3+6)*time.Second), queued.NotBefore, "to go when the second backoff ends")
	var out struct {
		Queued struct{ Room map[string]any } `json:"queued"`
	}
	require.NoError(t, json.Unmarshal(x.Output, &out))
	assert.Equal(t, map[string]any{"ok": true}, out.Queued.Room, "the Queue task's result, beside the document")

	// The controller releases it as a new execution, its cycles afresh.
	e, err := waitroom.Entry(queued, m.exec.Now())
	require.NoError(t, err)
	released, err := message.ParseDocument(e.Document)
	require.NoError(t, err)
	x, history = m.run(t, released.ExecutionName(), string(e.Document))
	require.Equal(t, executor.Succeeded, x.Status, "%s: %s", x.Error, x.Cause)
	assert.Equal(t, "m-1-a1-r1", released.ExecutionName())
	var done message.Document
	require.NoError(t, json.Unmarshal(x.Output, &done))
	assert.Equal(t, message.NextDone, done.Next)
	assert.Equal(t, 3, done.Tries)
	assert.Equal(t, 1, done.Cycles)
	assert.Len(t, done.History, 2)
	assert.Zero(t, countEvents(history, "WaitStateEntered"))
	assert.Len(t, m.queued, 1, "delivered, not queued again")
	assert.Equal(t, 3, m.fixture.target.calls())
}

// Behind a forced-open breaker the execution does not wait: one Attempt,
// the Queue task, and it ends, whatever the hold's length.
func TestStateMachineQueuesBehindAForcedOpenBreakerAndEnds(t *testing.T) {
	m := newMachine(t, options{policy: tripping}, target.Delivered())
	_, _, err := m.fixture.breaker.Command(t.Context(), "orders",
		breaker.Command{Kind: breaker.ForceOpen, Actor: "test", Reason: "hold everything"})
	require.NoError(t, err)

	x, history := m.run(t, "m-1-a1", documentJSON(t, newDocument("orders")))

	require.Equal(t, executor.Succeeded, x.Status, "%s: %s", x.Error, x.Cause)
	assert.Equal(t, x.StartDate, x.StopDate, "no time waited in the execution")
	assert.Zero(t, countEvents(history, "WaitStateEntered"))
	assert.Zero(t, m.fixture.target.calls())
	assert.Empty(t, m.parked)
	require.Len(t, m.queued, 1)
	var in message.Document
	require.NoError(t, json.Unmarshal(m.queued[0], &in))
	assert.Equal(t, message.NextRoom, in.Next)
	assert.Equal(t, "QUEUE", in.Decision)
	assert.Equal(t, "FORCED_OPEN", in.BreakerState)
	assert.Equal(t, 1, in.Cycles)
	t.Logf("%d history events, %d state transitions", len(history), x.Transitions)
}

func TestStateMachineParksAnInvalidDocumentWithoutRetrying(t *testing.T) {
	m := newMachine(t, options{policy: tripping, config: testConfig}, target.Delivered())
	doc := newDocument("orders")
	doc.OriginID = ""

	x, history := m.run(t, "m-1-a1", documentJSON(t, doc))

	require.Equal(t, executor.Succeeded, x.Status, "%s: %s", x.Error, x.Cause)
	assert.Equal(t, 1, countEvents(history, "TaskFailed"), "InvalidDocument is not retried")
	require.Len(t, m.parked, 1)
	var in struct{ Document message.Document }
	require.NoError(t, json.Unmarshal(m.parked[0], &in))
	require.NotNil(t, in.Document.Failure)
	assert.Equal(t, "InvalidDocument", in.Document.Failure.Error)
	assert.Contains(t, in.Document.Failure.Cause, "originId")
	assert.Zero(t, m.fixture.target.calls())
}
