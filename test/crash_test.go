package test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/internal/localrun"
	"github.com/redrive/redrive/statemachine/local"
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
	var s *localrun.Stack
	fault := &crashAfterDelivery{delivered: func() bool { return len(s.Target.Ledger().Deliveries()) > 0 }}
	s = start(t, localrun.Options{WrapStore: func(st breaker.Store) breaker.Store {
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
	assert.Equal(t, local.Succeeded, c.Execution.Status)
	assert.Equal(t, []string{"Attempt", "Route", "Delivered"}, c.States)
	assert.Equal(t, 4, c.Transitions, "the CLOSED path plus one retry of Attempt")
	assert.Equal(t, c.Execution.Transitions, c.Transitions)
	st := s.Stats()
	assert.EqualValues(t, 2, st.Invocations[localrun.FunctionAttempt], "the Attempt ran twice")
	assert.EqualValues(t, 1, st.Invocations[localrun.FunctionConsumer], "the consumer once")

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
