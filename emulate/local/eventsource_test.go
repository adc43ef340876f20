package local_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/emulate/local"
)

// starterFunc is the starter's handler signature.
type starterFunc func(context.Context, events.SQSEvent) (events.SQSEventResponse, error)

// firstCall wraps the starter: fail answers its first invocation, given
// the real starter; later invocations go to the real starter.
func firstCall(t *testing.T, s *local.Stack, fail func(context.Context, events.SQSEvent, starterFunc) (events.SQSEventResponse, error)) *atomic.Int64 {
	t.Helper()
	var calls atomic.Int64
	require.NoError(t, s.Registry.Register(local.FunctionStarter, func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
		if calls.Add(1) == 1 {
			return fail(ctx, ev, s.Handlers.Starter.Handle)
		}
		return s.Handlers.Starter.Handle(ctx, ev)
	}))
	return &calls
}

// startDates returns when each redrive execution started, by origin id.
func startDates(t *testing.T, s *local.Stack) map[string]time.Time {
	t.Helper()
	out := map[string]time.Time{}
	for _, x := range executions(t, s) {
		out[strings.TrimSuffix(x.Name, "-a1")] = x.StartDate
	}
	return out
}

func TestEventSourceRetriesAsLambdaDoes(t *testing.T) {
	const visibility = 45 * time.Second
	tests := []struct {
		name string
		// fail is the first invocation's answer; retried lists which
		// records (by index) come back after the visibility timeout.
		fail    func(context.Context, events.SQSEvent, starterFunc) (events.SQSEventResponse, error)
		retried []int
		errors  int64
	}{
		{
			name: "function error retries the batch",
			fail: func(context.Context, events.SQSEvent, starterFunc) (events.SQSEventResponse, error) {
				return events.SQSEventResponse{}, errors.New("boom")
			},
			retried: []int{0, 1, 2},
			errors:  1,
		},
		{
			name: "batch item failures retry those records",
			fail: func(ctx context.Context, ev events.SQSEvent, start starterFunc) (events.SQSEventResponse, error) {
				if _, err := start(ctx, events.SQSEvent{Records: []events.SQSMessage{ev.Records[0], ev.Records[2]}}); err != nil {
					return events.SQSEventResponse{}, err
				}
				return events.SQSEventResponse{BatchItemFailures: []events.SQSBatchItemFailure{{ItemIdentifier: ev.Records[1].MessageId}}}, nil
			},
			retried: []int{1},
		},
		{
			name: "a failure naming no record of the batch retries the batch",
			fail: func(context.Context, events.SQSEvent, starterFunc) (events.SQSEventResponse, error) {
				return events.SQSEventResponse{BatchItemFailures: []events.SQSBatchItemFailure{{ItemIdentifier: "not-in-batch"}}}, nil
			},
			retried: []int{0, 1, 2},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := start(t, local.Options{VisibilityTimeout: visibility})
			calls := firstCall(t, s, tt.fail)
			ids, err := s.SendToDLQ(t.Context(), messages(3)...)
			require.NoError(t, err)
			run(t, s)

			assert.EqualValues(t, 2, calls.Load(), "one retry batch")
			started := startDates(t, s)
			require.Len(t, started, 3, "every message started in the end")
			retried := map[int]bool{}
			for _, i := range tt.retried {
				retried[i] = true
			}
			for i, id := range ids {
				want := t0
				if retried[i] {
					want = t0.Add(visibility)
				}
				assert.Equal(t, want, started[id], "record %d", i)
			}
			st := s.Stats().Source
			assert.EqualValues(t, len(tt.retried), st.Retried)
			assert.EqualValues(t, tt.errors, st.FunctionErrors)
			assert.EqualValues(t, 3, st.Deleted)
			depth, err := s.SQSServer.Depth(local.DLQName)
			require.NoError(t, err)
			assert.Zero(t, depth.Total())
		})
	}
}

func TestEventSourceBatchSize(t *testing.T) {
	s := start(t, local.Options{BatchSize: 4})
	_, err := s.SendToDLQ(t.Context(), messages(10)...)
	require.NoError(t, err)
	run(t, s)
	st := s.Stats()
	assert.EqualValues(t, 3, st.Source.Batches, "4 + 4 + 2")
	assert.EqualValues(t, 3, st.Invocations[local.FunctionStarter])
	assert.Len(t, s.Target.Ledger().Deliveries(), 10)
}

func TestEventSourceBatchingWindowFillsTheBatches(t *testing.T) {
	// 25 messages sent 100ms apart: without a window each is received as
	// it comes, one invocation each; with a 1s window, ten at a time as
	// each batch fills, and the last five when the window has passed.
	for _, tt := range []struct {
		window      time.Duration
		invocations int64
	}{{0, 25}, {time.Second, 3}} {
		s := start(t, local.Options{BatchWindow: tt.window})
		msgs := messages(25)
		for i, m := range msgs {
			s.SendToDLQAt(t0.Add(time.Duration(i)*100*time.Millisecond), m)
		}
		run(t, s)
		st := s.Stats()
		assert.EqualValues(t, tt.invocations, st.Invocations[local.FunctionStarter], "window %v", tt.window)
		assert.Len(t, s.Target.Ledger().Deliveries(), 25, "window %v", tt.window)
	}
}

// Through the API and in process alike.
func TestThrottleStartExecution(t *testing.T) {
	for _, inProcess := range []bool{false, true} {
		t.Run(fmt.Sprintf("InProcess=%v", inProcess), func(t *testing.T) {
			s := start(t, local.Options{InProcess: inProcess})
			s.ThrottleStartExecution(t0.Add(time.Minute), t0.Add(2*time.Minute))
			s.SendToDLQAt(t0.Add(90*time.Second), messages(1)...)
			_, err := s.SendToDLQ(t.Context(), messages(1)...)
			require.NoError(t, err)
			run(t, s)
			xs := executions(t, s)
			require.Len(t, xs, 2)
			assert.Equal(t, t0, xs[0].StartDate, "before the window")
			assert.Equal(t, t0.Add(2*time.Minute), xs[1].StartDate, "retried after the visibility timeout, once the window closed")
			assert.EqualValues(t, 1, s.Stats().StartsThrottled, "refused once, at 1m30s")
		})
	}
}
