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

// crashStarterOnce makes s's starter fail its first invocation after it
// has handled the batch, as a starter that crashed before the batch was
// deleted: the DLQ delivers the batch again.
func crashStarterOnce(t *testing.T, s *local.Stack) {
	t.Helper()
	var crashed atomic.Bool
	require.NoError(t, s.Registry.Register(local.FunctionStarter,
		func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
			resp, err := s.Handlers.Starter.Handle(ctx, ev)
			if err == nil && crashed.CompareAndSwap(false, true) {
				return events.SQSEventResponse{}, errors.New("starter crashed after handling the batch")
			}
			return resp, err
		}))
}

// The DLQ delivers a message twice (the starter's first invocation started
// the execution but failed before its batch was deleted): the message is
// redriven once. A Standard attempt machine finds the execution there (its
// name is the message's); an Express one does not deduplicate names, and
// the second execution finds the delivery done in the ledger.
func TestDuplicateDLQDeliveryDeliversOnce(t *testing.T) {
	for _, standard := range []bool{false, true} {
		t.Run(map[bool]string{false: "express", true: "standard"}[standard], func(t *testing.T) {
			s := start(t, local.Options{StandardAttempts: standard})
			crashStarterOnce(t, s)
			ids := send(t, s, bodies("duplicate", 3)...)
			drain(t, s)

			st := s.Stats()
			assert.EqualValues(t, 2, st.Invocations[local.FunctionStarter], "the batch came back once")
			assert.EqualValues(t, 1, st.Source.FunctionErrors)
			assert.EqualValues(t, 6, st.Source.Records, "each message was received twice")
			assert.EqualValues(t, len(ids), st.Invocations[local.FunctionConsumer], "the consumer got each message once")
			byOrigin := triesByOrigin(t, s)
			for _, id := range ids {
				tries := byOrigin[id]
				if standard {
					assert.Len(t, tries, 1, "one execution for %s", id)
				} else {
					assert.Len(t, tries, 2, "an Express execution per DLQ delivery of %s", id)
				}
				for _, tr := range tries {
					assert.Equal(t, endDelivered, tr.End, "%s: %s", id, tr.Name)
				}
			}
			out := accountFor(t, s)
			assert.Len(t, out.delivered, len(ids))
		})
	}
}

// StartExecution is throttled for two minutes: the starter reports the
// records it could not start as batch item failures, and they stay in the
// DLQ (or, back from it while the breaker's pace row says a controller
// runs, wait in the room); those beyond the pace it puts in the room,
// whose controller cannot be started either. Once the throttling stops,
// the messages are started and the room is released: nothing is lost.
func TestThrottledStartExecutionKeepsMessagesInTheDLQ(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	const n = 20
	s := start(t, local.Options{Start: t0})
	s.ThrottleStartExecution(t0, t0.Add(2*time.Minute))
	send(t, s, bodies("throttled", n)...)

	runUntil(t, s, t0.Add(time.Minute))
	depth, err := s.SQSServer.Depth(local.DLQName)
	require.NoError(t, err)
	held := inRoom(t, s, local.DefaultBreakerKey)
	t.Logf("a minute in: %d in the DLQ, %d in the room", depth.Total(), len(held))
	assert.Equal(t, n, depth.Total(), "every message is still in the DLQ: one the starter put in the room is failed back to the DLQ while its controller cannot be started")
	assert.LessOrEqual(t, len(held), n)
	tries := triesByOrigin(t, s)
	for id, tr := range tries {
		assert.Empty(t, tr, "no execution of %s started while throttled", id)
	}
	assert.Zero(t, len(s.Target.Ledger().Calls()))

	drain(t, s)
	st := s.Stats()
	assert.Positive(t, st.StartsThrottled, "starts were refused")
	assert.Positive(t, st.Source.Retried)
	assert.Zero(t, st.Source.FunctionErrors, "throttling is per record, not a function error")
	for id, tr := range triesByOrigin(t, s) {
		require.NotEmpty(t, tr, "message %s was started", id)
		for _, x := range tr {
			assert.False(t, x.StartDate.Before(t0.Add(2*time.Minute)), "started after the throttling")
		}
	}
	depth, err = s.SQSServer.Depth(local.DLQName)
	require.NoError(t, err)
	assert.Zero(t, depth.Total())
	roomDepth, _ := s.Room()
	assert.Zero(t, roomDepth, "the room was released")
	out := accountFor(t, s)
	assert.Len(t, out.delivered, n)
}

// A body too large for an execution input travels by claim check and is
// delivered; a message whose attributes alone are too large for one (SQS
// takes up to 1 MiB of body and attributes) is parked by the starter,
// unchanged, with the reason.
func TestOversizeMessageIsParkedByTheStarter(t *testing.T) {
	s := start(t, local.Options{})
	bigBody := message.Message{Body: `{"blob":"` + strings.Repeat("x", 300<<10) + `"}`}
	bigAttribute := message.Message{Body: `{"order":1}`,
		MessageAttributes: map[string]message.Attribute{"blob": message.StringAttribute(strings.Repeat("y", 300<<10))}}
	ids := send(t, s, append(bodies("small", 3), bigBody, bigAttribute)...)
	drain(t, s)

	out := accountFor(t, s)
	assert.Len(t, out.delivered, 4, "the three small ones and the large body, by claim check")
	assert.Contains(t, out.delivered, ids[3])
	require.Len(t, out.parked, 1)
	p := out.parked[ids[4]]
	assert.Equal(t, bigAttribute.Body, p.Message.Body, "the body is parked unchanged")
	assert.Equal(t, bigAttribute.MessageAttributes["blob"], p.Message.MessageAttributes["blob"], "and its attributes")
	assert.True(t, strings.HasPrefix(p.Record.Reason, "oversize: "), p.Record.Reason)
	assert.Contains(t, p.Record.Reason, "execution input")
	assert.Empty(t, p.Record.ExecutionARN, "parked before any execution")
	assert.Empty(t, triesByOrigin(t, s)[ids[4]], "no execution for it")
}
