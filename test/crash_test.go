package test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/emulate/executor"
	"github.com/redrive/redrive/emulate/local"
	"github.com/redrive/redrive/emulate/simtarget"
)

// crashAfterDelivery is the attempt task's breaker store with a fault: the
// first write of the row after the consumer delivered the message crashes
// the invocation (a panic: the Lambda runtime reports the invocation
// failed), as if it died between delivery and recording the outcome.
// (Record starts from the row Admit read, so recording an outcome reads
// nothing: its write is the first touch of the row after the delivery. A
// new breaker writes its first WindowSize outcomes.) A failed write is
// not a crash: the Attempt tries it again itself.
type crashAfterDelivery struct {
	breaker.Store
	delivered func() bool
	crashed   atomic.Bool
}

// errInjected is the injected crash.
var errInjected = errors.New("injected crash between delivery and record")

func (c *crashAfterDelivery) Save(ctx context.Context, prevVersion int64, next breaker.Row) error {
	if c.delivered() && c.crashed.CompareAndSwap(false, true) {
		panic(errInjected)
	}
	return c.Store.Save(ctx, prevVersion, next)
}

// The Attempt crashes after the delivery and before recording it: the
// state machine's Retry runs it again, the delivery ledger shows the
// delivery done, and the outcome is recorded without delivering twice.
func TestCrashAfterDeliveryDoesNotDeliverTwice(t *testing.T) {
	var s *local.Stack
	fault := &crashAfterDelivery{delivered: func() bool { return len(s.Target.Ledger().Deliveries()) > 0 }}
	// Standard attempts, for the execution's history (the state machine
	// is the same).
	s = start(t, local.Options{StandardAttempts: true, WrapStore: func(st breaker.Store) breaker.Store {
		fault.Store = st
		return fault
	}})
	ids := send(t, s, bodies("crash", 1)...)
	drain(t, s)

	require.True(t, fault.crashed.Load(), "the fault fired")
	out := accountFor(t, s)
	assert.Equal(t, map[string]bool{ids[0]: true}, out.delivered)
	assert.Equal(t, 1, s.Target.Ledger().Deliveries()[ids[0]])

	costs := costsByOrigin(t, s)[ids[0]]
	require.Len(t, costs, 1)
	c := costs[0]
	assert.Equal(t, executor.Succeeded, c.Execution.Status)
	assert.Equal(t, []string{"Attempt", "Route", "Delivered"}, c.States)
	assert.Equal(t, 4, c.Transitions, "the CLOSED path plus one retry of Attempt")
	assert.Equal(t, c.Execution.Transitions, c.Transitions)
	st := s.Stats()
	assert.EqualValues(t, 2, st.Invocations[local.FunctionAttempt], "the Attempt ran twice")
	assert.EqualValues(t, 1, st.Invocations[local.FunctionConsumer], "the consumer once")

	history, err := s.Executor.History(t.Context(), c.Execution.ARN)
	require.NoError(t, err)
	failed := 0
	for _, ev := range history {
		if ev.Type == "TaskFailed" {
			failed++
		}
	}
	assert.Equal(t, 1, failed, "one failed Attempt in the history, retried by the state machine")
}

// crashAfterRecord is the attempt task's breaker store with a fault: the
// first write of the row after a delivery goes through, and then the
// invocation crashes (a panic) before it returns, as if it died after
// recording the outcome.
type crashAfterRecord struct {
	breaker.Store
	delivered func() bool
	crashed   atomic.Bool
}

func (c *crashAfterRecord) Save(ctx context.Context, prevVersion int64, next breaker.Row) error {
	if err := c.Store.Save(ctx, prevVersion, next); err != nil {
		return err
	}
	if c.delivered() && c.crashed.CompareAndSwap(false, true) {
		panic("injected crash after the outcome was recorded")
	}
	return nil
}

// The Attempt crashes after recording a failed delivery's outcome: the
// retried Attempt finds the delivery record COMPLETED and the delivery
// listed on the breaker row (RecordOnce),
// so it neither delivers again nor counts the failure twice.
func TestCrashAfterRecordCountsTheOutcomeOnce(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var s *local.Stack
	fault := &crashAfterRecord{delivered: func() bool { return len(s.Target.Ledger().Calls()) > 0 }}
	s = start(t, local.Options{
		Start:  t0,
		Target: simtarget.Options{Schedule: simtarget.Outage(t0, time.Hour)},
		WrapStore: func(st breaker.Store) breaker.Store {
			fault.Store = st
			return fault
		},
	})
	send(t, s, bodies("crash-after-record", 1)...)
	runUntil(t, s, t0.Add(10*time.Second))

	require.True(t, fault.crashed.Load(), "the fault fired")
	assert.Len(t, s.Target.Ledger().Calls(), 1, "delivered once, not again by the retry")
	row, err := s.BreakerRow(t.Context(), "orders")
	require.NoError(t, err)
	assert.Equal(t, 1, row.ConsecutiveFailures, "the failure counted once")
	assert.EqualValues(t, 2, s.Stats().Invocations[local.FunctionAttempt], "the Attempt ran twice")
}
