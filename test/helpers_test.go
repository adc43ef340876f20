package test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/emulate/ddbtest"
	"github.com/redrive/redrive/emulate/local"
	"github.com/redrive/redrive/message"
)

// runTimeout bounds one scenario's run in wall time, so a scenario that
// does not drain fails instead of hanging.
const runTimeout = 60 * time.Second

// start assembles a stack for t, closed when t ends.
func start(t *testing.T, opts local.Options) *local.Stack {
	t.Helper()
	if opts.DynamoDBEndpoint == "" {
		opts.DynamoDBEndpoint = ddbtest.Endpoint()
	}
	s, err := local.Start(context.Background(), opts)
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, s.Close()) })
	t.Logf("DynamoDB backend: %s", s.DynamoDBBackend)
	return s
}

// bodies returns n messages with bodies "<prefix>-<i>".
func bodies(prefix string, n int) []message.Message {
	msgs := make([]message.Message, n)
	for i := range msgs {
		msgs[i] = message.Message{Body: fmt.Sprintf(`{"order":"%s-%d"}`, prefix, i)}
	}
	return msgs
}

// send sends msgs to the DLQ now and returns their ids.
func send(t *testing.T, s *local.Stack, msgs ...message.Message) []string {
	t.Helper()
	ids, err := s.SendToDLQ(context.Background(), msgs...)
	require.NoError(t, err)
	return ids
}

// drain runs the stack until it has nothing left to do.
func drain(t *testing.T, s *local.Stack) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	require.NoError(t, s.RunUntilDrained(ctx))
}

// runUntil runs the stack up to at (executor time) within a wall-clock bound.
func runUntil(t *testing.T, s *local.Stack, at time.Time) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	require.NoError(t, s.RunUntil(ctx, at))
}

// outcome is where every sent message ended up.
type outcome struct {
	delivered map[string]bool
	parked    map[string]local.Parked
}

// accountFor drains the parking lot and checks that every message sent to
// the DLQ was delivered exactly once or parked, never both, and that
// nothing else reached the target or the parking lot.
func accountFor(t *testing.T, s *local.Stack) outcome {
	t.Helper()
	parked, err := s.ReceiveParked(context.Background())
	require.NoError(t, err)
	out := outcome{delivered: map[string]bool{}, parked: map[string]local.Parked{}}
	for _, p := range parked {
		id := p.Record.OriginID
		_, twice := out.parked[id]
		assert.False(t, twice, "message %s parked twice", id)
		out.parked[id] = p
	}
	for id, n := range s.Target.Ledger().Deliveries() {
		assert.Equal(t, 1, n, "message %s delivered %d times", id, n)
		out.delivered[id] = true
		_, alsoParked := out.parked[id]
		assert.False(t, alsoParked, "message %s delivered and parked", id)
	}
	sent := s.Sent()
	for _, m := range sent {
		_, parked := out.parked[m.ID]
		assert.True(t, out.delivered[m.ID] || parked, "message %s (%s) is lost: neither delivered nor parked", m.ID, m.Body)
	}
	assert.Equal(t, len(sent), len(out.delivered)+len(out.parked), "delivered + parked == sent")
	return out
}

// costsByOrigin returns the redrive executions per origin id (the sent
// message's id), oldest first.
func costsByOrigin(t *testing.T, s *local.Stack) map[string][]local.Cost {
	t.Helper()
	costs, err := s.Costs(context.Background())
	require.NoError(t, err)
	out := map[string][]local.Cost{}
	for _, m := range s.Sent() {
		out[m.ID] = nil
	}
	for _, c := range costs {
		var doc struct {
			OriginID string `json:"originId"`
		}
		require.NoError(t, json.Unmarshal(c.Execution.Input, &doc))
		out[doc.OriginID] = append(out[doc.OriginID], c)
	}
	return out
}

// logCosts logs the run's cost per message: transitions, Lambda
// invocations and breaker-row and ledger I/O.
func logCosts(t *testing.T, s *local.Stack, label string) {
	t.Helper()
	costs, err := s.Costs(context.Background())
	require.NoError(t, err)
	transitions := sumTransitions(costs)
	st := s.Stats()
	n := float64(len(s.Sent()))
	invocations := int64(0)
	for _, v := range st.Invocations {
		invocations += v
	}
	t.Logf("%s: %d messages, %d executions; per message: %.2f transitions, %.2f Lambda invocations %v, "+
		"breaker row %.2f reads %.2f writes %.3f conflicts (Breaker.Stats %+v), ledger %.2f reads %.2f writes",
		label, len(s.Sent()), len(costs), float64(transitions)/n, float64(invocations)/n, st.Invocations,
		float64(st.BreakerRows.Reads)/n, float64(st.BreakerRows.Writes)/n, float64(st.BreakerRows.Conflicts)/n, st.Breaker,
		float64(st.DeliveryRecords.Reads)/n, float64(st.DeliveryRecords.Writes)/n)
}

// totalTransitions adds up the billed transitions of every redrive
// execution so far.
func totalTransitions(t *testing.T, s *local.Stack) int {
	t.Helper()
	costs, err := s.Costs(t.Context())
	require.NoError(t, err)
	return sumTransitions(costs)
}

// sumTransitions adds up the billed transitions of costs.
func sumTransitions(costs []local.Cost) int {
	n := 0
	for _, c := range costs {
		n += c.Transitions
	}
	return n
}
