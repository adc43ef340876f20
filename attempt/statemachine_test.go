package attempt_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/attempt"
	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/delivery/target"
	"github.com/redrive/redrive/emulate/executor"
	"github.com/redrive/redrive/message"
	"github.com/redrive/redrive/statemachine"
)

// These tests run the committed redrive.asl.json on the local executor
// with the real Attempt handler, so the payload contract between the two
// (Payload, OutputPath, Route on next, Cooldown on waitSeconds, error names
// in Retry and Catch) is what is tested. Park and Continue are recorded.

// machine is the redrive state machine on a local executor, its Attempt
// function backed by a fixture on the executor's virtual clock.
type machine struct {
	exec    *executor.Executor
	arn     string
	fixture fixture

	mu        sync.Mutex
	parked    []json.RawMessage
	continued []json.RawMessage
	waited    []json.RawMessage
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
	require.NoError(t, reg.Register(arn("continue"), record(&m.continued)))
	// The waiting room takes the token and nobody releases it: the
	// state's timeout brings the message back.
	require.NoError(t, reg.Register(arn("waitroom"), record(&m.waited)))
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

// run executes input to the end and returns the execution and its history.
func (m *machine) run(t *testing.T, input string) (executor.Execution, []executor.Event) {
	t.Helper()
	x, err := m.exec.StartExecution(t.Context(), m.arn, "m-1-a1", input)
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

func TestStateMachineRedrivesThroughBackoff(t *testing.T) {
	m := newMachine(t, options{policy: neverTrips, config: testConfig}, transient("busy"), transient("busy"), target.Delivered())

	x, history := m.run(t, documentJSON(t, newDocument("orders")))

	require.Equal(t, executor.Succeeded, x.Status, "%s: %s", x.Error, x.Cause)
	var out message.Document
	require.NoError(t, json.Unmarshal(x.Output, &out))
	assert.Equal(t, message.NextDone, out.Next)
	assert.Equal(t, 3, out.Tries)
	assert.Equal(t, 3, out.Cycles)
	assert.Len(t, out.History, 2)
	assert.Equal(t, 2, countEvents(history, "WaitStateEntered"))
	// Two backoffs of virtual time, 23s and 45s.
	assert.Equal(t, t0, out.History[0].At)
	assert.Equal(t, t0.Add(23*time.Second), out.History[1].At)
	assert.Equal(t, t0.Add(68*time.Second), x.StopDate)
	assert.Empty(t, m.parked)
	assert.Empty(t, m.continued)
}

func TestStateMachineContinuesBeforeTheHistoryLimit(t *testing.T) {
	m := newMachine(t, options{policy: tripping}, target.Delivered())
	_, _, err := m.fixture.breaker.Command(t.Context(), "orders",
		breaker.Command{Kind: breaker.ForceOpen, Actor: "test", Reason: "hold everything"})
	require.NoError(t, err)

	x, history := m.run(t, documentJSON(t, newDocument("orders")))

	require.Equal(t, executor.Succeeded, x.Status, "%s: %s", x.Error, x.Cause)
	require.Len(t, m.continued, 1)
	var in struct{ Document message.Document }
	require.NoError(t, json.Unmarshal(m.continued[0], &in))
	assert.Equal(t, attempt.DefaultMaxCycles+1, in.Document.Cycles)
	assert.Equal(t, message.NextContinue, in.Document.Next)
	assert.Zero(t, m.fixture.target.calls())
	// A forced-open breaker queues every cycle in the waiting room, whose
	// timeout (no release comes) brings the message back: the costliest
	// cycle there is.
	assert.Len(t, m.waited, attempt.DefaultMaxCycles)
	assert.Equal(t, attempt.DefaultMaxCycles, countEvents(history, "TaskTimedOut"))
	assert.Equal(t, time.Duration(attempt.DefaultMaxCycles)*attempt.DefaultRoomTimeout, x.StopDate.Sub(x.StartDate))
	t.Logf("%d cycles: %d history events (limit 25,000), %d state transitions, %s of virtual time",
		attempt.DefaultMaxCycles, len(history), x.Transitions, x.StopDate.Sub(x.StartDate))
	perCycle := float64(len(history)) / attempt.DefaultMaxCycles
	assert.Less(t, len(history), 25_000/3, "far below the history limit")
	assert.Less(t, perCycle*attempt.MaxMaxCycles, 21_000.0,
		"MaxMaxCycles such cycles leave room for retries under the 25,000-event limit")
}

func TestStateMachineParksAnInvalidDocumentWithoutRetrying(t *testing.T) {
	m := newMachine(t, options{policy: tripping, config: testConfig}, target.Delivered())
	doc := newDocument("orders")
	doc.OriginID = ""

	x, history := m.run(t, documentJSON(t, doc))

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

// TestDeliveryInProgressOutlastsTheLongestLease reads the Attempt state's
// Retry for DeliveryInProgress from the committed definition: its delays,
// without jitter, must add up to more than MaxDeliveryLease, or a message
// whose holder died would be parked before its lease let it be taken over.
func TestDeliveryInProgressOutlastsTheLongestLease(t *testing.T) {
	var def struct {
		States map[string]struct {
			Retry []struct {
				ErrorEquals     []string
				IntervalSeconds float64
				MaxAttempts     int
				BackoffRate     float64
				MaxDelaySeconds float64
				JitterStrategy  string
			}
		}
	}
	require.NoError(t, json.Unmarshal([]byte(statemachine.Redrive().Template), &def))
	for _, r := range def.States["Attempt"].Retry {
		if len(r.ErrorEquals) != 1 || r.ErrorEquals[0] != "DeliveryInProgress" {
			continue
		}
		assert.Equal(t, "NONE", r.JitterStrategy, "jitter would shorten the budget")
		var total time.Duration
		delay := r.IntervalSeconds
		for range r.MaxAttempts {
			total += time.Duration(min(delay, r.MaxDelaySeconds) * float64(time.Second))
			delay *= r.BackoffRate
		}
		assert.Greater(t, total, attempt.MaxDeliveryLease, "retries for %v", total)
		return
	}
	t.Fatal("no Retry for DeliveryInProgress")
}
