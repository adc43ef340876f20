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
// message's id), oldest first, with what each cost, read from its
// history: only a stack with Options.StandardAttempts has them (an
// Express execution keeps no history; triesByOrigin lists those).
func costsByOrigin(t *testing.T, s *local.Stack) map[string][]local.Cost {
	t.Helper()
	require.False(t, s.ExpressAttempts(), "histories need Options.StandardAttempts")
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

// logCosts logs the run's cost per message: executions and transitions
// (of the attempt state machine and of the controllers), Lambda
// invocations and breaker-row and ledger I/O.
func logCosts(t *testing.T, s *local.Stack, label string) {
	t.Helper()
	attempts, transitions := executionsOf(t, s, s.RedriveARN)
	controllers, controllerTransitions := executionsOf(t, s, s.ReleaseARN)
	st := s.Stats()
	n := float64(len(s.Sent()))
	invocations := int64(0)
	for _, v := range st.Invocations {
		invocations += v
	}
	t.Logf("%s: %d messages, %d attempt executions (express %v), %d controllers (%d transitions); per message: %.2f executions, %.2f transitions, "+
		"%.2f Lambda invocations %v, breaker row %.2f reads %.2f writes %.3f conflicts (Breaker.Stats %+v), ledger %.2f reads %.2f writes, room %.2f reads %.2f writes",
		label, len(s.Sent()), attempts, s.ExpressAttempts(), controllers, controllerTransitions, float64(attempts)/n, float64(transitions)/n,
		float64(invocations)/n, st.Invocations,
		float64(st.BreakerRows.Reads)/n, float64(st.BreakerRows.Writes)/n, float64(st.BreakerRows.Conflicts)/n, st.Breaker,
		float64(st.DeliveryRecords.Reads)/n, float64(st.DeliveryRecords.Writes)/n, float64(st.RoomItems.Reads)/n, float64(st.RoomItems.Writes)/n)
}

// executionsOf counts the executions of the state machine arn so far and
// adds up their billed transitions (the executor counts them for Express
// executions too).
func executionsOf(t *testing.T, s *local.Stack, arn string) (executions, transitions int) {
	t.Helper()
	xs, err := s.Executor.ListExecutions(t.Context(), arn, "")
	require.NoError(t, err)
	for _, x := range xs {
		transitions += x.Transitions
	}
	return len(xs), transitions
}

// totalTransitions adds up the billed transitions of every redrive
// execution so far.
func totalTransitions(t *testing.T, s *local.Stack) int {
	t.Helper()
	_, n := executionsOf(t, s, s.RedriveARN)
	return n
}
