package attempt_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/tasks/attempt"
	"github.com/redrive/redrive/tasks/delivery"
	"github.com/redrive/redrive/tasks/message"
	"github.com/redrive/redrive/tasks/target"
	"github.com/redrive/redrive/tasks/taskerr"
	"github.com/redrive/redrive/tasks/telemetry"
)

func TestHealthyDeliveryIsDone(t *testing.T) {
	f := newFixture(t, options{policy: tripping, config: testConfig}, target.Delivered())
	in := newDocument("orders")

	out, err := f.run(t, in)
	require.NoError(t, err)

	assert.Equal(t, message.NextDone, out.Next)
	assert.Equal(t, "PROCEED", out.Decision)
	assert.Equal(t, "SUCCESS", out.Outcome)
	assert.Equal(t, "CLOSED", out.BreakerState)
	assert.Equal(t, 1, out.Tries)
	assert.Equal(t, 1, out.Cycles)
	assert.Empty(t, out.History)
	require.Len(t, f.target.got, 1)
	want := in
	want.Cycles, want.Decision, want.BreakerState = 1, "PROCEED", "CLOSED"
	assert.Equal(t, want, f.target.got[0], "the target gets the document of this cycle, admitted")

	rec, found, err := f.ledger.Get(t.Context(), delivery.ID{OriginID: "m-1", Attempt: 1, Try: 1})
	require.NoError(t, err)
	require.True(t, found)
	assert.Equal(t, delivery.Completed, rec.Status)
	assert.Equal(t, breaker.Success, rec.Outcome)
	assert.Equal(t, map[telemetry.Name]int64{telemetry.Delivered: 1}, f.counts(t))
}

func TestTransientBacksOffThenParksExhausted(t *testing.T) {
	f := newFixture(t, options{policy: neverTrips, config: testConfig}, transient("slow down"))
	doc := newDocument("orders")
	// BackoffBase 30s doubling, capped at 2m; equal jitter at 0.5 waits
	// 3/4 of each step.
	wantWaits := []int{23, 45, 90, 90}
	for i, want := range wantWaits {
		var err error
		doc, err = f.run(t, doc)
		require.NoError(t, err, "try %d", i+1)
		assert.Equal(t, message.NextWait, doc.Next, "try %d", i+1)
		assert.Equal(t, want, doc.WaitSeconds, "try %d", i+1)
		assert.Equal(t, "TRANSIENT", doc.Outcome)
		assert.Equal(t, "PROCEED", doc.Decision)
		assert.Equal(t, i+1, doc.Tries)
		f.clock.Advance(time.Duration(doc.WaitSeconds) * time.Second)
	}

	doc, err := f.run(t, doc)
	require.NoError(t, err)
	assert.Equal(t, message.NextPark, doc.Next)
	assert.Equal(t, "exhausted: 5 attempts, last error TooManyRequestsException: slow down", doc.ParkReason)
	assert.Equal(t, 5, doc.Tries)
	assert.Equal(t, 5, doc.Cycles)
	assert.Equal(t, 5, f.target.calls())
	require.Len(t, doc.History, 5)
	for i, failure := range doc.History {
		assert.Equal(t, i+1, failure.Try)
		assert.Equal(t, message.OutcomeTransient, failure.Outcome)
		assert.Equal(t, "TooManyRequestsException", failure.ErrorType)
		assert.Equal(t, "slow down", failure.Message)
		assert.Equal(t, "CLOSED", failure.BreakerState)
	}
	assert.Equal(t, t0.Add(time.Duration(23+45+90+90)*time.Second), doc.History[4].At)
	assert.Equal(t, map[telemetry.Name]int64{telemetry.Transient: 5, telemetry.Waits: 4}, f.counts(t))
	assert.Equal(t, 5, f.row(t, "orders").ConsecutiveFailures, "every failure counted once")
}

func TestBackoffIsCappedAtBackoffMax(t *testing.T) {
	cfg := attempt.Config{MaxAttempts: 30, BackoffBase: time.Second, BackoffMax: 15 * time.Minute}
	f := newFixture(t, options{policy: neverTrips, config: cfg}, transient("down"))
	doc := newDocument("orders")
	var waits []int
	for range 15 {
		var err error
		doc, err = f.run(t, doc)
		require.NoError(t, err)
		require.Equal(t, message.NextWait, doc.Next)
		waits = append(waits, doc.WaitSeconds)
	}
	// Steps 1s, 2s, 4s ... 512s, then 900s for good; 3/4 of each, rounded up.
	assert.Equal(t, []int{1, 2, 3, 6, 12, 24, 48, 96, 192, 384, 675, 675, 675, 675, 675}, waits)
	assert.Len(t, doc.History, message.MaxHistory, "the history stays capped")
	assert.Equal(t, 15, doc.History[message.MaxHistory-1].Try)
}

func TestPoisonParksAtOnceAndLeavesTheBreakerAlone(t *testing.T) {
	f := newFixture(t, options{policy: tripping, config: testConfig},
		target.Result{Outcome: breaker.Poison, ErrorType: "ValidationError", Message: "order 42 has no customer"})

	out, err := f.run(t, newDocument("orders"))
	require.NoError(t, err)

	assert.Equal(t, message.NextPark, out.Next)
	assert.Equal(t, "poison: ValidationError: order 42 has no customer", out.ParkReason)
	assert.Equal(t, "POISON", out.Outcome)
	require.Len(t, out.History, 1)
	assert.Equal(t, message.Failure{At: t0, Try: 1, Outcome: message.OutcomePoison, ErrorType: "ValidationError",
		Message: "order 42 has no customer", BreakerState: "CLOSED"}, out.History[0])
	row := f.row(t, "orders")
	assert.Equal(t, breaker.Closed, row.State)
	assert.Zero(t, row.Window.Count, "poison is not an outcome the window counts")
	assert.Zero(t, row.ConsecutiveFailures)
	assert.Equal(t, int64(1), row.Totals.Poison)
	assert.Equal(t, map[telemetry.Name]int64{telemetry.Poison: 1}, f.counts(t))
}

func TestOpenBreakerWaitsForItsCooldownThenSendsACanary(t *testing.T) {
	tests := []struct {
		name         string
		canary       target.Result
		wantNext     message.Next
		wantDecision string
		wantState    string
		wantCounts   map[telemetry.Name]int64
	}{
		{"canary success closes", target.Delivered(), message.NextDone, "CANARY", "CLOSED",
			map[telemetry.Name]int64{telemetry.Waits: 1, telemetry.Canaries: 1, telemetry.Delivered: 1, telemetry.Trips: 1, telemetry.Closes: 1}},
		// The failed probe keeps the breaker OPEN (no second trip),
		// reports the room (empty: RoomDepth 0) and, with nobody waiting
		// there, scouts again itself.
		{"canary failure keeps it open and scouts again", transient("still down"), message.NextWait, "WAIT", "OPEN",
			map[telemetry.Name]int64{telemetry.Waits: 2, telemetry.Canaries: 1, telemetry.Transient: 1, telemetry.Trips: 1, telemetry.Queued: 1, telemetry.RoomDepth: 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, options{policy: tripping, config: testConfig}, tt.canary)
			f.trip(t, "orders")

			doc, err := f.run(t, newDocument("orders"))
			require.NoError(t, err)
			assert.Equal(t, message.NextWait, doc.Next)
			assert.Equal(t, 60, doc.WaitSeconds, "the breaker's cooldown")
			assert.Equal(t, "WAIT", doc.Decision)
			assert.Equal(t, "OPEN", doc.BreakerState)
			assert.Empty(t, doc.Outcome)
			assert.Zero(t, doc.Tries, "no delivery, no try")
			assert.Zero(t, f.target.calls(), "nothing reaches a target behind an open breaker")

			f.clock.Advance(time.Duration(doc.WaitSeconds) * time.Second)
			doc, err = f.run(t, doc)
			require.NoError(t, err)
			assert.Equal(t, tt.wantDecision, doc.Decision)
			assert.Equal(t, tt.wantNext, doc.Next)
			assert.Equal(t, tt.wantState, doc.BreakerState)
			assert.Equal(t, 1, doc.Tries)
			assert.Equal(t, 2, doc.Cycles)
			assert.Equal(t, 1, f.target.calls())
			assert.Equal(t, tt.wantCounts, f.counts(t))
		})
	}
}

// failingSaves is a breaker store whose next n Saves fail: with a lost
// race when conflict is set (another writer really wrote first), else
// with an error.
type failingSaves struct {
	breaker.Store
	n        *int
	conflict bool
}

func (s failingSaves) Save(ctx context.Context, prev int64, next breaker.Row) error {
	if *s.n == 0 {
		return s.Store.Save(ctx, prev, next)
	}
	*s.n--
	if !s.conflict {
		return errors.New("RequestError: send request failed: connection reset")
	}
	cur, err := s.Store.Load(ctx, next.Key)
	if err != nil {
		return err
	}
	cur.Version++
	if err := s.Store.Save(ctx, cur.Version-1, cur); err != nil {
		return err
	}
	return s.Store.Save(ctx, prev, next)
}

func TestRetryAfterAFailedRecordDoesNotDeliverAgain(t *testing.T) {
	tests := []struct {
		name     string
		conflict bool
		fails    int
		check    func(t *testing.T, err error)
	}{
		{"record lost every conditional write", true, 3, func(t *testing.T, err error) {
			c, ok := err.(*taskerr.BreakerContention) // unwrapped: the ASL retries it by name
			require.True(t, ok, "error %T %v", err, err)
			assert.Equal(t, &taskerr.BreakerContention{Breaker: "orders", Op: "record TRANSIENT", Attempts: 3}, c)
		}},
		{"record failed", false, 1, func(t *testing.T, err error) {
			assert.ErrorContains(t, err, "attempt: delivery m-1#1#1: record TRANSIENT: ")
			assert.ErrorContains(t, err, "connection reset")
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fails := 0
			f := newFixture(t, options{policy: tripping, config: testConfig,
				wrapStore: func(s breaker.Store) breaker.Store { return failingSaves{Store: s, n: &fails, conflict: tt.conflict} },
			}, transient("down"))
			in := newDocument("orders")
			// The first invocation delivers, then cannot record.
			f.target.during = func() { fails = tt.fails }
			_, err := f.run(t, in)
			require.Error(t, err)
			tt.check(t, err)
			require.Equal(t, 1, f.target.calls())
			before := f.row(t, "orders")

			// The state machine retries the Attempt with the same input.
			f.target.during = nil
			f.clock.Advance(2 * time.Second)
			out, err := f.run(t, in)
			require.NoError(t, err)
			assert.Equal(t, 1, f.target.calls(), "the retry must not deliver again")
			assert.Equal(t, message.NextWait, out.Next)
			assert.Equal(t, "TRANSIENT", out.Outcome)
			assert.Equal(t, 1, out.Tries)
			assert.Equal(t, 1, out.Cycles, "a retry is the same cycle")
			require.Len(t, out.History, 1)
			assert.Equal(t, t0, out.History[0].At, "the failure is dated when it happened")
			after := f.row(t, "orders")
			assert.Equal(t, before.ConsecutiveFailures+1, after.ConsecutiveFailures, "the stored outcome is recorded")
			assert.Equal(t, before.Window.Count+1, after.Window.Count)
		})
	}
}
