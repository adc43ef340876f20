package test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/emulate/local"
	"github.com/redrive/redrive/message"
)

// The DLQ delivers a message twice (the starter's first invocation started
// the execution but failed before its batch was deleted): the second
// delivery finds the execution there, and the message is redriven once.
func TestDuplicateDLQDeliveryStartsOneExecution(t *testing.T) {
	s := start(t, local.Options{})
	var crashed atomic.Bool
	require.NoError(t, s.Registry.Register(local.FunctionStarter,
		func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
			resp, err := s.Handlers.Starter.Handle(ctx, ev)
			if err == nil && crashed.CompareAndSwap(false, true) {
				return events.SQSEventResponse{}, errors.New("starter crashed after starting the batch")
			}
			return resp, err
		}))
	ids := send(t, s, bodies("duplicate", 3)...)
	drain(t, s)

	st := s.Stats()
	assert.EqualValues(t, 2, st.Invocations[local.FunctionStarter], "the batch came back once")
	assert.EqualValues(t, 1, st.Source.FunctionErrors)
	assert.EqualValues(t, 6, st.Source.Records, "each message was received twice")
	byOrigin := costsByOrigin(t, s)
	for _, id := range ids {
		assert.Len(t, byOrigin[id], 1, "one execution for %s", id)
	}
	out := accountFor(t, s)
	assert.Len(t, out.delivered, len(ids))
}

// StartExecution is throttled for two minutes: the starter reports the
// records as batch item failures, they stay in the DLQ, and a later poll
// starts them once the throttling stops; nothing is lost.
func TestThrottledStartExecutionKeepsMessagesInTheDLQ(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	const n = 20
	s := start(t, local.Options{Start: t0})
	s.ThrottleStartExecution(t0, t0.Add(2*time.Minute))
	send(t, s, bodies("throttled", n)...)

	runUntil(t, s, t0.Add(time.Minute))
	depth, err := s.SQSServer.Depth(local.DLQName)
	require.NoError(t, err)
	assert.Equal(t, n, depth.Total(), "every message is still in the DLQ")
	costs, err := s.Costs(t.Context())
	require.NoError(t, err)
	assert.Empty(t, costs, "no execution started while throttled")
	assert.Zero(t, len(s.Target.Ledger().Calls()))

	drain(t, s)
	st := s.Stats()
	assert.GreaterOrEqual(t, st.StartsThrottled, int64(n), "every message was refused at least once")
	assert.GreaterOrEqual(t, st.Source.Retried, int64(n))
	assert.Zero(t, st.Source.FunctionErrors, "throttling is per record, not a function error")
	costs, err = s.Costs(t.Context())
	require.NoError(t, err)
	assert.Len(t, costs, n)
	for _, c := range costs {
		assert.False(t, c.Execution.StartDate.Before(t0.Add(2*time.Minute)), "started after the throttling")
	}
	depth, err = s.SQSServer.Depth(local.DLQName)
	require.NoError(t, err)
	assert.Zero(t, depth.Total())
	out := accountFor(t, s)
	assert.Len(t, out.delivered, n)
}

// A message too large for a Step Functions execution input (SQS takes up
// to 1 MiB) is parked by the starter, unchanged, with the reason.
func TestOversizeMessageIsParkedByTheStarter(t *testing.T) {
	s := start(t, local.Options{})
	big := message.Message{Body: `{"blob":"` + strings.Repeat("x", 300<<10) + `"}`}
	ids := send(t, s, append(bodies("small", 3), big)...)
	drain(t, s)

	out := accountFor(t, s)
	assert.Len(t, out.delivered, 3)
	require.Len(t, out.parked, 1)
	p := out.parked[ids[3]]
	assert.Equal(t, big.Body, p.Message.Body, "the body is parked unchanged")
	assert.True(t, strings.HasPrefix(p.Record.Reason, "oversize: "), p.Record.Reason)
	assert.Contains(t, p.Record.Reason, "execution input")
	assert.Empty(t, p.Record.ExecutionARN, "parked before any execution")
	assert.Empty(t, costsByOrigin(t, s)[ids[3]], "no execution for it")
}
