package attempt_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/attempt"
	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/delivery"
	"github.com/redrive/redrive/delivery/target"
	"github.com/redrive/redrive/lambda/telemetry"
	"github.com/redrive/redrive/message"
	"github.com/redrive/redrive/park/lotindex"
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

// TestTimedOutCallsParkApart times out every try: the message is parked
// as "timed out", not "exhausted", saying the consumer may have processed
// it, so a person checks before replaying it (the lot's index and replay
// group by that class).
func TestTimedOutCallsParkApart(t *testing.T) {
	timeout := target.Result{Outcome: breaker.Transient, ErrorType: target.ErrorTimeout, Message: "context deadline exceeded"}
	f := newFixture(t, options{policy: neverTrips, config: testConfig}, timeout)
	doc := newDocument("orders")
	for {
		var err error
		doc, err = f.run(t, doc)
		require.NoError(t, err)
		if doc.Next == message.NextPark {
			break
		}
		doc = f.passOn(t, doc)
	}
	assert.Equal(t, "timed out: 5 attempts, the last past its deadline, so the consumer may have processed it: "+
		"check before replaying; last error Timeout: context deadline exceeded", doc.ParkReason)
	assert.Equal(t, "timed out", lotindex.ReasonClass(doc.ParkReason))
	assert.Equal(t, 5, f.target.calls())
}

func TestTransientBacksOffThenParksExhausted(t *testing.T) {
	f := newFixture(t, options{policy: neverTrips, config: testConfig}, transient("slow down"))
	doc := newDocument("orders")
	// BackoffBase 30s doubling, capped at 2m; equal jitter at 0.5 waits
	// 3/4 of each step: every one is longer than MaxInlineWait, so each
	// waits in the room, each release a new execution.
	wants := []struct {
		next message.Next
		wait time.Duration
	}{
		{message.NextRoom, 22500 * time.Millisecond},
		{message.NextRoom, 45 * time.Second},
		{message.NextRoom, 90 * time.Second},
		{message.NextRoom, 90 * time.Second},
	}
	for i, want := range wants {
		var err error
		doc, err = f.run(t, doc)
		require.NoError(t, err, "try %d", i+1)
		assert.Equal(t, want.next, doc.Next, "try %d", i+1)
		if want.next == message.NextWait {
			assert.Equal(t, int(want.wait/time.Second), doc.WaitSeconds, "try %d", i+1)
		} else {
			assert.Equal(t, f.clock.Now().Add(want.wait), doc.NotBefore, "try %d", i+1)
		}
		assert.Equal(t, "TRANSIENT", doc.Outcome)
		assert.Equal(t, "PROCEED", doc.Decision)
		assert.Equal(t, i+1, doc.Tries)
		doc = f.passOn(t, doc)
	}

	doc, err := f.run(t, doc)
	require.NoError(t, err)
	assert.Equal(t, message.NextPark, doc.Next)
	assert.Equal(t, "exhausted: 5 attempts, last error TooManyRequestsException: slow down", doc.ParkReason)
	assert.Equal(t, 5, doc.Tries)
	assert.Equal(t, 1, doc.Cycles, "the first cycle of its fifth execution")
	assert.Equal(t, 4, doc.Runs)
	assert.Equal(t, 5, f.target.calls())
	require.Len(t, doc.History, 5)
	for i, failure := range doc.History {
		assert.Equal(t, i+1, failure.Try)
		assert.Equal(t, message.OutcomeTransient, failure.Outcome)
		assert.Equal(t, "TooManyRequestsException", failure.ErrorType)
		assert.Equal(t, "slow down", failure.Message)
		assert.Equal(t, "CLOSED", failure.BreakerState)
	}
	assert.Equal(t, t0.Add(22500*time.Millisecond+time.Duration(45+90+90)*time.Second), doc.History[4].At)
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
		var wait time.Duration
		switch doc.Next {
		case message.NextWait:
			wait = time.Duration(doc.WaitSeconds) * time.Second
			assert.Equal(t, 1, doc.Cycles, "inline only in the first cycle")
			assert.LessOrEqual(t, wait, attempt.MaxInlineWait)
		case message.NextRoom:
			wait = doc.NotBefore.Sub(f.clock.Now())
			assert.True(t, wait > attempt.MaxInlineWait || doc.Cycles >= attempt.InlineCycles,
				"a short wait in the first cycle is inline: %s in cycle %d", wait, doc.Cycles)
		default:
			t.Fatalf("next %q", doc.Next)
		}
		waits = append(waits, int(math.Ceil(wait.Seconds())))
		doc = f.passOn(t, doc)
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
			map[telemetry.Name]int64{telemetry.Queued: 1, telemetry.Canaries: 1, telemetry.Delivered: 1, telemetry.Trips: 1, telemetry.Closes: 1}},
		// The failed probe keeps the breaker OPEN (no second trip) and
		// sends its message to the room: the controller releases the next
		// probe when the longer cooldown ends.
		{"canary failure keeps it open and queues", transient("still down"), message.NextRoom, "CANARY", "OPEN",
			map[telemetry.Name]int64{telemetry.Queued: 2, telemetry.Canaries: 1, telemetry.Transient: 1, telemetry.Trips: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, options{policy: tripping, config: testConfig}, tt.canary)
			f.trip(t, "orders")

			saves := f.breaker.Stats().Saves
			doc, err := f.run(t, newDocument("orders"))
			require.NoError(t, err)
			assert.Equal(t, message.NextRoom, doc.Next, "it waits in the room, not in its execution")
			assert.True(t, doc.NotBefore.IsZero(), "without a time of its own: the controller releases it")
			assert.Zero(t, doc.WaitSeconds)
			assert.Equal(t, "QUEUE", doc.Decision)
			assert.Equal(t, "OPEN", doc.BreakerState)
			assert.Empty(t, doc.Outcome)
			assert.Zero(t, doc.Tries, "no delivery, no try")
			assert.Zero(t, f.target.calls(), "nothing reaches a target behind an open breaker")
			assert.Equal(t, saves, f.breaker.Stats().Saves, "turning it away writes nothing")

			doc, err = f.run(t, f.releaseProbe(t, doc, "orders"))
			require.NoError(t, err)
			assert.Equal(t, t0.Add(time.Minute), f.clock.Now(), "released at the cooldown's end")
			assert.Equal(t, tt.wantDecision, doc.Decision)
			assert.Equal(t, tt.wantNext, doc.Next)
			assert.Equal(t, tt.wantState, doc.BreakerState)
			assert.Equal(t, 1, doc.Tries)
			assert.Equal(t, 1, doc.Cycles, "the first cycle of the execution its release started")
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

func TestAnOutcomeTheBreakerCannotRecordStillRoutesTheMessage(t *testing.T) {
	tests := []struct {
		name     string
		conflict bool
		fails    int
		// recorded says the outcome reached the breaker row in the end.
		recorded bool
	}{
		{"a write that fails once is tried again", false, 1, true},
		{"conflicts that end are tried again", true, 3, true},
		{"a row that cannot be written", false, 100, false},
		{"a row that every write loses", true, 100, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fails := 0
			f := newFixture(t, options{
				policy:    breaker.Policy{ConsecutiveFailures: 3, FailureRateThreshold: -1},
				config:    shortBackoff,
				wrapStore: func(s breaker.Store) breaker.Store { return failingSaves{Store: s, n: &fails, conflict: tt.conflict} },
			}, transient("down"))
			// The delivery fails; then recording it does.
			f.target.during = func() { fails = tt.fails }
			out, err := f.run(t, newDocument("orders"))
			require.NoError(t, err, "a known outcome never fails the Attempt: a retry would deliver again")
			assert.Equal(t, 1, f.target.calls())
			assert.Equal(t, message.NextWait, out.Next, "the message's own backoff, as the outcome says")
			assert.Equal(t, "TRANSIENT", out.Outcome)
			assert.Equal(t, 1, out.Tries)
			require.Len(t, out.History, 1)
			row := f.row(t, "orders")
			if tt.recorded {
				assert.Equal(t, 1, row.ConsecutiveFailures, "recorded once, within the invocation")
				assert.Zero(t, f.counts(t)[telemetry.UnrecordedOutcomes])
				return
			}
			assert.Zero(t, row.ConsecutiveFailures)
			assert.Equal(t, int64(1), f.counts(t)[telemetry.UnrecordedOutcomes])
			assert.Contains(t, f.log.String(), "could not store a known outcome in the breaker row")
		})
	}
}

func TestADeliveredMessageIsDeliveredWhenItsRecordCannotBeCompleted(t *testing.T) {
	for _, fails := range []int{1, 100} {
		t.Run(fmt.Sprintf("%d failures", fails), func(t *testing.T) {
			left := fails
			f := newFixture(t, options{policy: tripping, config: testConfig,
				wrapLedger: func(l attempt.Ledger) attempt.Ledger { return failingCompletes{Ledger: l, n: &left} },
			}, target.Delivered())
			in := newDocument("orders")
			out, err := f.run(t, in)
			require.NoError(t, err)
			assert.Equal(t, message.NextDone, out.Next, "delivered means Delivered")
			assert.Equal(t, 1, f.target.calls())
			stored, found, err := f.ledger.Get(t.Context(), delivery.ID{OriginID: in.OriginID, Attempt: in.Attempt, Try: 1})
			require.NoError(t, err)
			require.True(t, found)
			if fails < 4 {
				assert.Equal(t, delivery.Completed, stored.Status, "completed by a later try within the invocation")
				assert.Zero(t, f.counts(t)[telemetry.UnrecordedOutcomes])
				return
			}
			assert.Equal(t, delivery.InProgress, stored.Status, "never completed")
			assert.Equal(t, int64(1), f.counts(t)[telemetry.UnrecordedOutcomes])
			assert.Equal(t, int64(1), f.counts(t)[telemetry.Delivered])
			assert.Contains(t, f.log.String(), "could not store a known outcome in the delivery record")
		})
	}
}

// failingCompletes is a ledger whose next n Completes fail, as a table
// that is briefly unavailable would.
type failingCompletes struct {
	attempt.Ledger
	n *int
}

func (l failingCompletes) Complete(ctx context.Context, held delivery.Record, o breaker.Outcome, errorType, msg string) (delivery.Record, error) {
	if *l.n > 0 {
		*l.n--
		return delivery.Record{}, errors.New("ProvisionedThroughputExceededException: rate of requests exceeds the allowed throughput")
	}
	return l.Ledger.Complete(ctx, held, o, errorType, msg)
}

func TestARetriedAttemptRecordsItsOutcomeOnce(t *testing.T) {
	f := newFixture(t, options{policy: breaker.Policy{ConsecutiveFailures: 3, FailureRateThreshold: -1}, config: testConfig},
		transient("down"))
	in := newDocument("orders")
	_, err := f.run(t, in)
	require.NoError(t, err)
	require.Equal(t, 1, f.row(t, "orders").ConsecutiveFailures)

	// The invocation died after recording, before the state machine saw
	// its result: the state machine runs it again with the same input.
	f.clock.Advance(2 * time.Second)
	out, err := f.run(t, in)
	require.NoError(t, err)
	assert.Equal(t, 1, f.target.calls(), "not delivered again")
	assert.Equal(t, "TRANSIENT", out.Outcome)
	assert.Equal(t, 1, f.row(t, "orders").ConsecutiveFailures, "not counted again")
}

// unreadable is a breaker store that cannot be read, as a throttled or
// unreachable table, or a row this version cannot decode.
type unreadable struct{ breaker.Store }

func (unreadable) Load(context.Context, string) (breaker.Row, error) {
	return breaker.Row{}, errors.New("ThrottlingException: rate of requests exceeds the allowed throughput")
}

func TestATableThatFailsBeforeTheDeliveryIsTableUnavailable(t *testing.T) {
	f := newFixture(t, options{policy: tripping, config: testConfig,
		wrapStore: func(s breaker.Store) breaker.Store { return unreadable{s} }}, target.Delivered())
	_, err := f.run(t, newDocument("orders"))
	require.Error(t, err)
	unavailable, ok := err.(*attempt.TableUnavailable) // unwrapped: the ASL retries it by name
	require.True(t, ok, "error %T %v", err, err)
	assert.Equal(t, "orders", unavailable.Breaker)
	assert.Equal(t, "admit", unavailable.Op)
	assert.Contains(t, unavailable.Cause, "ThrottlingException")
	assert.Zero(t, f.target.calls(), "nothing delivered")
	assert.Equal(t, int64(1), f.counts(t)[telemetry.TableUnavailable])
}

// hangingTarget is a consumer that answers only when its call's deadline
// passes, as the Lambda target does: a transient "Timeout".
type hangingTarget struct{ deadline chan time.Time }

func (h hangingTarget) Deliver(ctx context.Context, _ message.Document) target.Result {
	d, _ := ctx.Deadline()
	h.deadline <- d
	<-ctx.Done()
	return target.Result{Outcome: breaker.Transient, ErrorType: "Timeout", Message: ctx.Err().Error()}
}

func TestAConsumerThatHangsTimesOutBeforeTheAttemptDoes(t *testing.T) {
	f := newFixture(t, options{policy: breaker.Policy{ConsecutiveFailures: 3, FailureRateThreshold: -1}, config: testConfig}, target.Delivered())
	hang := hangingTarget{deadline: make(chan time.Time, 1)}
	f.handler.Target = hang
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second)
	defer cancel()
	own, _ := ctx.Deadline()
	event, err := json.Marshal(newDocument("orders"))
	require.NoError(t, err)

	out, err := f.handler.Handle(ctx, event)
	require.NoError(t, err, "the Attempt returns the outcome before its own deadline")
	assert.NoError(t, ctx.Err(), "with time to spare")
	assert.Equal(t, "TRANSIENT", out.Outcome)
	require.Len(t, out.History, 1)
	assert.Equal(t, "Timeout", out.History[0].ErrorType)
	assert.Equal(t, 1, f.row(t, "orders").ConsecutiveFailures, "the breaker counts a hanging consumer")
	// The fixture's manual clock maps its deadlines to the wall clock's
	// as it reads them, so a busy machine moves this one by a few ms.
	assert.WithinDuration(t, own.Add(-time.Second), <-hang.deadline, 200*time.Millisecond,
		"the delivery's deadline leaves the Attempt time to record (half of 2 s here, 5 s before a longer one)")
}

func TestADeliveryWhoseOutcomeIsUnknown(t *testing.T) {
	for _, choice := range []string{attempt.Redeliver, attempt.Park} {
		t.Run(choice, func(t *testing.T) {
			cfg := testConfig
			cfg.UnknownOutcome = choice
			f := newFixture(t, options{policy: tripping, config: cfg}, target.Delivered())
			in := newDocument("orders")
			// An Attempt took the record and died with its consumer call in
			// flight; its lease has ended.
			_, began, err := f.ledger.Begin(t.Context(), delivery.ID{OriginID: in.OriginID, Attempt: in.Attempt, Try: 1}, breaker.Ticket{}, time.Minute)
			require.NoError(t, err)
			require.True(t, began)
			f.clock.Advance(time.Minute)

			out, err := f.run(t, in)
			require.NoError(t, err)
			assert.Equal(t, int64(1), f.counts(t)[telemetry.UnknownOutcomes])
			if choice == attempt.Redeliver {
				assert.Equal(t, 1, f.target.calls(), "at least once: delivered again")
				assert.Equal(t, message.NextDone, out.Next)
				return
			}
			assert.Zero(t, f.target.calls(), "at most once: not delivered again")
			assert.Equal(t, message.NextPark, out.Next)
			assert.True(t, strings.HasPrefix(out.ParkReason, "unknown outcome: the Attempt that made delivery "), out.ParkReason)
			assert.Zero(t, f.row(t, "orders").Totals.Poison, "nothing the target said: the breaker does not count it")
			assert.Zero(t, f.counts(t)[telemetry.Poison])
		})
	}
}

// A canary whose consumer hangs fails as a Timeout before its lease ends,
// so the breaker counts it (the probe failed: OPEN again, a longer
// cooldown) instead of dropping an outcome that came too late.
func TestACanaryThatHangsFailsWithinItsLease(t *testing.T) {
	policy := tripping
	policy.CanaryLease = 2 * time.Second
	f := newFixture(t, options{policy: policy, config: testConfig}, target.Delivered())
	f.trip(t, "orders")
	queued, err := f.run(t, newDocument("orders"))
	require.NoError(t, err)
	require.Equal(t, message.NextRoom, queued.Next)
	require.Equal(t, "QUEUE", queued.Decision)
	tripsBefore := f.row(t, "orders").Trips
	released := f.releaseProbe(t, queued, "orders") // at the cooldown's end

	hang := hangingTarget{deadline: make(chan time.Time, 1)}
	f.handler.Target = hang
	start := time.Now()
	probe, err := f.run(t, released)
	require.NoError(t, err)
	assert.Less(t, time.Since(start), 2*time.Second, "cut at half the lease (the lease is short here)")
	assert.Equal(t, "CANARY", probe.Decision)
	assert.Equal(t, "TRANSIENT", probe.Outcome)
	require.Len(t, probe.History, 1)
	assert.Equal(t, "Timeout", probe.History[0].ErrorType)
	assert.Equal(t, message.NextRoom, probe.Next, "it waits in the room; the controller releases the next probe")
	row := f.row(t, "orders")
	assert.Equal(t, breaker.Open, row.State)
	assert.Equal(t, tripsBefore+1, row.Trips, "the failed probe counted: the next cooldown is longer")
	assert.Empty(t, row.Leases, "the probe's lease is freed, not left to expire")
}
