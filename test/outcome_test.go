package test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/attempt"
	"github.com/redrive/redrive/delivery/target"
	"github.com/redrive/redrive/emulate/executor"
	"github.com/redrive/redrive/emulate/local"
	"github.com/redrive/redrive/lambda/wire"
	"github.com/redrive/redrive/message"
)

// tableFaults is the tasks' DynamoDB client with faults: an UpdateItem
// (and a GetItem, with reads) whose partition key starts with prefix
// fails, as an unavailable table's does, while failing says so (executor
// time). It counts what it failed.
type tableFaults struct {
	wire.DynamoDB
	prefix  string
	reads   bool
	failing func() bool

	mu     sync.Mutex
	failed int
	// logs are the handlers' log lines.
	logs syncBuffer
}

// errUnavailable is the injected failure.
var errUnavailable = errors.New("InternalServerError: the table is unavailable (injected)")

// fails reports (and counts) whether a call on key fails.
func (f *tableFaults) fails(key map[string]types.AttributeValue) bool {
	pk, ok := key["pk"].(*types.AttributeValueMemberS)
	if !ok || !strings.HasPrefix(pk.Value, f.prefix) || !f.failing() {
		return false
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failed++
	return true
}

func (f *tableFaults) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	if f.fails(in.Key) {
		return nil, errUnavailable
	}
	return f.DynamoDB.UpdateItem(ctx, in, optFns...)
}

func (f *tableFaults) GetItem(ctx context.Context, in *dynamodb.GetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	if f.reads && f.fails(in.Key) {
		return nil, errUnavailable
	}
	return f.DynamoDB.GetItem(ctx, in, optFns...)
}

// faultsOn starts a stack whose tasks' UpdateItem calls (and GetItem
// calls, with reads) on keys starting with prefix fail while failing says
// so.
func faultsOn(t *testing.T, prefix string, reads bool, failing func(s *local.Stack) bool) (*local.Stack, *tableFaults) {
	t.Helper()
	var s *local.Stack
	f := &tableFaults{prefix: prefix, reads: reads, failing: func() bool { return failing(s) }}
	s = start(t, local.Options{Logs: &f.logs, WrapDynamoDB: func(db wire.DynamoDB) wire.DynamoDB {
		f.DynamoDB = db
		return f
	}})
	return s, f
}

// trickle sends n messages, one every 200 ms (under the pace), from now.
func trickle(s *local.Stack, prefix string, n int) {
	at := s.Executor.Now()
	for i, m := range bodies(prefix, n) {
		s.SendToDLQAt(at.Add(time.Duration(i)*200*time.Millisecond), m)
	}
}

// assertDeliveredOnceEach checks that every message sent was delivered
// exactly once, none was parked, and each had one execution, which ended
// Delivered.
func assertDeliveredOnceEach(t *testing.T, s *local.Stack) {
	t.Helper()
	out := accountFor(t, s)
	assert.Len(t, out.delivered, len(s.Sent()), "every message delivered")
	assert.Empty(t, out.parked, "none parked")
	for id, tries := range triesByOrigin(t, s) {
		require.Len(t, tries, 1, id)
		assert.Equal(t, executor.Succeeded, tries[0].Status, id)
		assert.Equal(t, endDelivered, tries[0].End, id)
	}
}

// The consumer took each message, and then the delivery record cannot be
// completed, ever: the outcome stands (Delivered), and no retry delivers
// it again, then or when the record's lease ends.
func TestADeliveryRecordThatCannotBeCompletedDeliversOnce(t *testing.T) {
	s, faults := faultsOn(t, "delivery#", false, func(*local.Stack) bool { return true })
	trickle(s, "uncompleted", 20)
	drain(t, s)
	assertDeliveredOnceEach(t, s)
	assert.Equal(t, 20*4, faults.failed, "each Complete tried four times within its Attempt")
	assert.EqualValues(t, 20, s.Stats().Invocations[local.FunctionAttempt], "one Attempt each: none failed, none retried")
}

// The breaker row cannot be written for the first 3 seconds while
// messages are delivered (a new row writes its first 20 outcomes): each
// outcome is known, so each message is Delivered, none parked, none twice;
// the outcomes after the fault are recorded.
func TestABreakerRowThatCannotBeWrittenParksNothingDelivered(t *testing.T) {
	var until time.Time
	s, faults := faultsOn(t, "breaker#", false, func(s *local.Stack) bool { return s.Executor.Now().Before(until) })
	until = s.Executor.Now().Add(3 * time.Second)
	trickle(s, "unrecorded", 30)
	drain(t, s)
	assertDeliveredOnceEach(t, s)
	assert.Positive(t, faults.failed, "the fault fired")
	row, err := s.BreakerRow(t.Context(), "orders")
	require.NoError(t, err)
	assert.Equal(t, "CLOSED", row.State.String())
	assert.Positive(t, row.Version, "written once the table was back")
	unrecorded := strings.Count(faults.logs.String(), "could not store a known outcome in the breaker row")
	assert.Positive(t, unrecorded, "some outcomes could not be recorded, and said so")
	assert.Less(t, unrecorded, 30)
}

// The breaker row can be neither read nor written for 15 s, 30 s, 60 s,
// 10 min from the start: the table's errors are not the messages' fault,
// so none is parked; each is delivered once when the table is back.
func TestABreakerRowUnavailableFromTheStartParksNothing(t *testing.T) {
	for _, outage := range []time.Duration{15 * time.Second, 30 * time.Second, time.Minute, 10 * time.Minute} {
		t.Run(outage.String(), func(t *testing.T) {
			var until time.Time
			s, faults := faultsOn(t, "breaker#", true, func(s *local.Stack) bool { return s.Executor.Now().Before(until) })
			until = s.Executor.Now().Add(outage)
			trickle(s, "unavailable", 50)
			drain(t, s)
			assert.Positive(t, faults.failed, "the fault fired")
			out := accountFor(t, s)
			assert.Len(t, out.delivered, 50, "every message delivered once the table is back")
			assert.Empty(t, out.parked, "none parked")
		})
	}
}

// dyingAfterCall is the attempt's target with a fault: its first call
// reaches the consumer, and then the Attempt dies (a panic) before it
// learns the outcome, as an invocation killed mid-call would.
type dyingAfterCall struct {
	target.Target
	died atomic.Bool
}

func (d *dyingAfterCall) Deliver(ctx context.Context, doc message.Document) target.Result {
	res := d.Target.Deliver(ctx, doc)
	if d.died.CompareAndSwap(false, true) {
		panic("injected: the Attempt died with its consumer call in flight")
	}
	return res
}

// An Attempt dies while its consumer call is in flight: the outcome is
// truly unknown. When its delivery record's lease ends, the retried
// Attempt takes the record over and does what UNKNOWN_OUTCOME says:
// redeliver (the consumer sees the message twice, under the same
// idempotency key, the origin id) or park it for a person (once).
func TestAnUnknownOutcomeIsRedeliveredOrParkedAsConfigured(t *testing.T) {
	for _, choice := range []string{attempt.Redeliver, attempt.Park} {
		t.Run(choice, func(t *testing.T) {
			fault := &dyingAfterCall{}
			s := start(t, local.Options{
				Attempt: attempt.Config{UnknownOutcome: choice},
				WrapTarget: func(tg target.Target) target.Target {
					fault.Target = tg
					return fault
				},
			})
			ids := send(t, s, bodies("unknown", 1)...)
			drain(t, s)
			require.True(t, fault.died.Load(), "the fault fired")

			id := ids[0]
			calls := s.Target.Ledger().Deliveries()[id]
			parked, err := s.ReceiveParked(t.Context())
			require.NoError(t, err)
			if choice == attempt.Redeliver {
				assert.Equal(t, 2, calls, "at least once: the consumer saw it twice")
				assert.Empty(t, parked)
				return
			}
			assert.Equal(t, 1, calls, "at most once")
			require.Len(t, parked, 1)
			assert.Equal(t, id, parked[0].Record.OriginID)
			assert.True(t, strings.HasPrefix(parked[0].Record.Reason, "unknown outcome: "), parked[0].Record.Reason)
		})
	}
}

// The breaker row stays unavailable past TABLE_RETRY_BUDGET: the messages
// wait it out five minutes at a time in the room (an execution per try),
// then are parked with that reason, never delivered (the breaker could
// not admit them).
func TestATableUnavailablePastItsBudgetParksWithThatReason(t *testing.T) {
	var s *local.Stack
	f := &tableFaults{prefix: "breaker#", reads: true, failing: func() bool { return true }}
	s = start(t, local.Options{
		Attempt: attempt.Config{TableRetryBudget: 30 * time.Minute},
		WrapDynamoDB: func(db wire.DynamoDB) wire.DynamoDB {
			f.DynamoDB = db
			return f
		},
	})
	trickle(s, "budget", 5)
	drain(t, s)
	out := accountFor(t, s)
	assert.Empty(t, out.delivered)
	require.Len(t, out.parked, 5)
	for _, p := range out.parked {
		assert.True(t, strings.HasPrefix(p.Record.Reason, "table unavailable: "), p.Record.Reason)
		assert.Contains(t, p.Record.Reason, "TABLE_RETRY_BUDGET (30m0s)")
	}
	for id, tries := range triesByOrigin(t, s) {
		require.GreaterOrEqual(t, len(tries), 2, "message %s waited in the room between its tries", id)
		for _, tr := range tries[:len(tries)-1] {
			assert.Equal(t, endQueued, tr.End, "message %s: %s", id, tr.Name)
		}
		last := tries[len(tries)-1]
		assert.Equal(t, endParked, last.End, "message %s", id)
		waited := last.StopDate.Sub(tries[0].StartDate)
		assert.GreaterOrEqual(t, waited, 30*time.Minute, "message %s waited out the budget", id)
		assert.Less(t, waited, 40*time.Minute, "and not much longer")
	}
}

// A breaker row written by a newer version (an unknown state) cannot be
// read: its messages wait, none is parked; admin status shows the row as
// stored, admin reset replaces it, and the messages are delivered.
func TestAnUnreadableBreakerRowIsRepairedNotParkedOn(t *testing.T) {
	s := start(t, local.Options{})
	_, err := s.DynamoDB.PutItem(t.Context(), &dynamodb.PutItemInput{TableName: aws.String(s.Table), Item: map[string]types.AttributeValue{
		"pk":      &types.AttributeValueMemberS{Value: "breaker#orders"},
		"state":   &types.AttributeValueMemberS{Value: "HALF_CLOSED"},
		"version": &types.AttributeValueMemberN{Value: "41"},
	}})
	require.NoError(t, err)
	trickle(s, "unreadable", 5)
	runUntil(t, s, s.Executor.Now().Add(20*time.Minute))

	assert.Empty(t, s.Target.Ledger().Calls(), "nothing admitted by a row nobody can read")
	parked, err := s.ReceiveParked(t.Context())
	require.NoError(t, err)
	assert.Empty(t, parked, "and nothing parked")

	status, err := s.Admin(t.Context(), map[string]string{"command": "status", "breaker": "orders"})
	require.NoError(t, err)
	assert.Contains(t, status.Unreadable, `unknown state "HALF_CLOSED"`)
	assert.Equal(t, map[string]any{"N": "41"}, status.Raw["version"])
	reset, err := s.Admin(t.Context(), map[string]string{"command": "reset", "breaker": "orders", "reason": "row from a newer version"})
	require.NoError(t, err)
	assert.Equal(t, "CLOSED", reset.After.State)

	drain(t, s)
	out := accountFor(t, s)
	assert.Len(t, out.delivered, 5, "delivered once the row was repaired")
	assert.Empty(t, out.parked)
}

// An Attempt dies after Begin with the longest delivery lease allowed
// (attempt.MaxDeliveryLease): the lease still ends before the state
// machine's DeliveryInProgress retries run out, so the record is taken
// over and the message redelivered, not parked undelivered.
func TestTheLongestDeliveryLeaseEndsBeforeItsRetriesRunOut(t *testing.T) {
	fault := &dyingAfterCall{}
	s := start(t, local.Options{
		AttemptTimeout: 15 * time.Minute,
		Attempt:        attempt.Config{DeliveryLease: attempt.MaxDeliveryLease},
		WrapTarget: func(tg target.Target) target.Target {
			fault.Target = tg
			return fault
		},
	})
	ids := send(t, s, bodies("longest-lease", 1)...)
	drain(t, s)
	require.True(t, fault.died.Load(), "the fault fired")
	assert.Equal(t, 2, s.Target.Ledger().Deliveries()[ids[0]], "taken over and redelivered (at least once)")
	parked, err := s.ReceiveParked(t.Context())
	require.NoError(t, err)
	assert.Empty(t, parked, "not parked")
}
