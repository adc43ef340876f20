package attempt_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/attempt"
	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/delivery/target"
	"github.com/redrive/redrive/lambda/telemetry"
	"github.com/redrive/redrive/message"
	"github.com/redrive/redrive/rules"
)

// noJitter is a Random that always returns 0: equal jitter then waits
// half the backoff step, exactly.
type noJitter struct{}

func (noJitter) Float64() float64 { return 0 }

// A wait is the execution's own (WAIT, the Backoff state) only when it is
// at most attempt.MaxInlineWait and the execution is in its first cycle
// (attempt.InlineCycles); any other wait is the document's, in the room
// (ROOM, with notBefore at its end), so no Express execution waits long.
func TestAWaitIsInlineOnlyWhenShortAndInTheFirstCycle(t *testing.T) {
	tests := []struct {
		name string
		// backoff is the wait after the first transient failure (half of
		// BackoffBase without jitter); cycles the document's before the
		// Attempt.
		backoff time.Duration
		cycles  int
		inline  bool
	}{
		{"a 4 s backoff in the first cycle", 4 * time.Second, 0, true},
		{"a backoff of MaxInlineWait in the first cycle", attempt.MaxInlineWait, 0, true},
		{"a backoff a second past MaxInlineWait", attempt.MaxInlineWait + time.Second, 0, false},
		{"a 2 m backoff in the first cycle", 2 * time.Minute, 0, false},
		{"a 4 s backoff in the second cycle", 4 * time.Second, attempt.InlineCycles - 1, false},
		{"a 1 s backoff in the third cycle", time.Second, 2, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := testConfig
			cfg.BackoffBase, cfg.BackoffMax = 2*tt.backoff, 2*tt.backoff
			f := newFixture(t, options{policy: neverTrips, config: cfg}, transient("busy"))
			f.handler.Rand = noJitter{}
			in := newDocument("orders")
			in.Cycles = tt.cycles

			doc, err := f.run(t, in)
			require.NoError(t, err)
			assert.Equal(t, tt.cycles+1, doc.Cycles)
			assert.Equal(t, "TRANSIENT", doc.Outcome)
			assert.Equal(t, 1, doc.Tries)
			if tt.inline {
				assert.Equal(t, message.NextWait, doc.Next)
				assert.Equal(t, int(tt.backoff/time.Second), doc.WaitSeconds)
				assert.True(t, doc.NotBefore.IsZero())
			} else {
				assert.Equal(t, message.NextRoom, doc.Next)
				assert.Equal(t, t0.Add(tt.backoff), doc.NotBefore, "the backoff's end")
				assert.Zero(t, doc.WaitSeconds)
			}
			assert.Equal(t, map[telemetry.Name]int64{telemetry.Transient: 1, telemetry.Waits: 1}, f.counts(t),
				"a wait, not a queue, wherever it waits")
		})
	}
}

// A message released from the room starts a new execution whose cycles
// count afresh: its next short wait is inline again, and the execution is
// named after its run.
func TestAReleasedMessageWaitsInlineAgainInItsFirstCycle(t *testing.T) {
	cfg := testConfig
	cfg.BackoffBase, cfg.BackoffMax = 8*time.Second, 8*time.Second // 4 s without jitter
	f := newFixture(t, options{policy: neverTrips, config: cfg}, transient("busy"), transient("busy"), transient("busy"))
	f.handler.Rand = noJitter{}

	doc, err := f.run(t, newDocument("orders"))
	require.NoError(t, err)
	require.Equal(t, message.NextWait, doc.Next, "cycle 1: inline")
	doc, err = f.run(t, f.passOn(t, doc))
	require.NoError(t, err)
	require.Equal(t, message.NextRoom, doc.Next, "cycle 2: the room")
	assert.Equal(t, t0.Add(8*time.Second), doc.NotBefore)

	released := f.passOn(t, doc)
	assert.Zero(t, released.Cycles)
	assert.Equal(t, 1, released.Runs)
	assert.Equal(t, "m-1-a1-r1", released.ExecutionName())
	assert.True(t, released.NotBefore.IsZero(), "cleared for the next execution")
	doc, err = f.run(t, released)
	require.NoError(t, err)
	assert.Equal(t, message.NextWait, doc.Next, "cycle 1 of the new execution: inline again")
	assert.Equal(t, 4, doc.WaitSeconds)
	assert.Equal(t, 3, doc.Tries)
}

// delayRule delays every message of the breaker "orders" by d.
func delayRule(d string) rules.Rule {
	return rules.Rule{ID: "r3", Spec: rules.Spec{On: "breaker", Equals: "orders", Action: rules.Delay, Delay: d}}
}

// A delay rule's wait goes the same way: a short one inline, a long one
// in the room.
func TestADelayWaitsInTheRoomWhenLong(t *testing.T) {
	f := newFixture(t, options{policy: neverTrips, config: testConfig}, target.Delivered())
	f.handler.Rules = ruleSet(delayRule("4s"))
	in := newDocument("orders")
	in.ReceivedAt = t0
	doc, err := f.run(t, in)
	require.NoError(t, err)
	assert.Equal(t, message.NextWait, doc.Next, "4 s after its arrival, inline")
	assert.Equal(t, 4, doc.WaitSeconds)
	assert.Equal(t, message.DecisionDelay, doc.Decision)

	f.handler.Rules = ruleSet(delayRule("5m"))
	doc, err = f.run(t, newDocument("orders")) // received a minute ago
	require.NoError(t, err)
	assert.Equal(t, message.NextRoom, doc.Next)
	assert.Equal(t, message.DecisionDelay, doc.Decision)
	assert.Equal(t, t0.Add(time.Minute), doc.NotBefore, "looked at again in a minute (the delay ends four minutes on), so that a removed delay takes effect within it")
	assert.Zero(t, f.target.calls(), "held back before any delivery")

	f.handler.Rules = ruleSet()
	f.clock.Set(doc.NotBefore)
	doc, err = f.run(t, f.passOn(t, doc))
	require.NoError(t, err)
	assert.Equal(t, message.NextDone, doc.Next, "the delay removed, it goes at its next look")
}

// A cooldown is never waited in the execution, however short: the message
// waits in the room without a time of its own, and the controller waits the
// cooldown out and releases it as the probe.
func TestACooldownIsNeverWaitedInTheExecution(t *testing.T) {
	policy := tripping
	policy.CooldownBase = 10 * time.Second
	f := newFixture(t, options{policy: policy, config: testConfig}, target.Delivered())
	f.trip(t, "orders")
	doc, err := f.run(t, newDocument("orders"))
	require.NoError(t, err)
	assert.Equal(t, message.NextRoom, doc.Next, "ten seconds would fit an inline wait; it goes to the room all the same")
	assert.Zero(t, doc.WaitSeconds)
	assert.True(t, doc.NotBefore.IsZero())
	assert.Equal(t, breaker.Queue.String(), doc.Decision)

	doc, err = f.run(t, f.releaseProbe(t, doc, "orders"))
	require.NoError(t, err)
	assert.Equal(t, t0.Add(10*time.Second), f.clock.Now())
	assert.Equal(t, "CANARY", doc.Decision)
	assert.Equal(t, message.NextDone, doc.Next)
}

// An Attempt late in its execution (retries, a slow try) does not call the
// consumer: the document goes to the room, so that the execution ends
// within Express's five minutes; a wait that would end past the budget is
// not waited in the execution either.
func TestALateAttemptSendsTheDocumentToTheRoom(t *testing.T) {
	f := newFixture(t, options{config: testConfig}, target.Delivered())
	doc := newDocument("orders")
	doc.Execution = &message.Execution{StartTime: f.clock.Now().Add(-attempt.ExecutionBudget + time.Second)}
	out, err := f.run(t, doc)
	require.NoError(t, err)
	assert.Equal(t, message.NextRoom, out.Next)
	assert.Zero(t, f.target.calls(), "too late to call the consumer")

	doc.Execution = &message.Execution{StartTime: f.clock.Now()}
	out, err = f.run(t, doc)
	require.NoError(t, err)
	assert.Equal(t, message.NextDone, out.Next, "a young execution delivers")
}
