package attempt_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/attempt"
	"github.com/redrive/redrive/delivery/target"
	"github.com/redrive/redrive/lambda/telemetry"
	"github.com/redrive/redrive/message"
	"github.com/redrive/redrive/rules"
)

// fixedRules is a rules.Source with fixed rules, or a failure.
type fixedRules struct {
	set rules.Set
	err error
}

func (r fixedRules) Rules(context.Context) (rules.Set, error) { return r.set, r.err }

func ruleSet(specs ...rules.Rule) fixedRules { return fixedRules{set: rules.NewSet(specs)} }

// Rules that cannot be read are the table failing: the message waits it
// out like any table failure, and is neither delivered nor parked.
func TestUnreadableRulesAreTableUnavailable(t *testing.T) {
	f := newFixture(t, options{policy: tripping, config: testConfig}, target.Delivered())
	f.handler.Rules = fixedRules{err: errors.New("ThrottlingException")}
	_, err := f.run(t, newDocument("orders"))
	unavailable, ok := err.(*attempt.TableUnavailable)
	require.True(t, ok, "error %T %v", err, err)
	assert.Equal(t, "read the routing rules", unavailable.Op)
	assert.Zero(t, f.target.calls())
}

// A held message waits in its breaker's room and is looked at again
// every minute (or at the rule's end, if sooner); once its hold ended it
// queues behind its breaker's room, so the controller paces it.
func TestAHoldIsLookedAtEveryMinuteUntilItsEndThenQueues(t *testing.T) {
	f := newFixture(t, options{policy: tripping, config: testConfig}, target.Delivered())
	hold := rules.Rule{ID: "r4", Spec: rules.Spec{On: "breaker", Equals: "orders", Action: rules.Hold}, Until: t0.Add(90 * time.Second)}
	f.handler.Rules = ruleSet(hold)
	doc, err := f.run(t, newDocument("orders"))
	require.NoError(t, err)
	assert.Equal(t, message.NextRoom, doc.Next)
	assert.Equal(t, message.DecisionHold, doc.Decision)
	assert.Equal(t, "r4", doc.HeldBy)
	assert.Equal(t, t0.Add(time.Minute), doc.NotBefore, "looked at again in a minute")
	assert.Zero(t, doc.WaitSeconds, "never inline")

	doc, err = f.run(t, f.passOn(t, doc))
	require.NoError(t, err)
	assert.Equal(t, message.NextRoom, doc.Next)
	assert.Equal(t, "r4", doc.HeldBy)
	assert.Equal(t, t0.Add(90*time.Second), doc.NotBefore, "the rule's end, sooner than the next minute")

	doc, err = f.run(t, f.passOn(t, doc))
	require.NoError(t, err)
	assert.Equal(t, message.NextRoom, doc.Next)
	assert.Equal(t, "QUEUE", doc.Decision, "behind the breaker's room, paced by its controller")
	assert.Empty(t, doc.HeldBy)
	assert.True(t, doc.NotBefore.IsZero())
	assert.Zero(t, f.target.calls())
	assert.Equal(t, int64(2), f.counts(t)[telemetry.Held])
}

// A hold without an end holds until it is removed: the removal takes
// effect on the messages it held at their next look, within a minute.
func TestARemovedHoldLetsItsMessagesGoWithinAMinute(t *testing.T) {
	f := newFixture(t, options{policy: tripping, config: testConfig}, target.Delivered())
	f.handler.Rules = ruleSet(rules.Rule{ID: "r5", Spec: rules.Spec{On: "breaker", Equals: "orders", Action: rules.Hold}})
	doc, err := f.run(t, newDocument("orders"))
	require.NoError(t, err)
	assert.Equal(t, message.NextRoom, doc.Next)
	assert.Equal(t, t0.Add(time.Minute), doc.NotBefore)

	f.handler.Rules = ruleSet() // an operator's rule-remove
	doc, err = f.run(t, f.passOn(t, doc))
	require.NoError(t, err)
	assert.Equal(t, "QUEUE", doc.Decision, "its hold is gone: it goes at the breaker's pace")
	assert.Empty(t, doc.HeldBy)
	doc, err = f.run(t, f.passOn(t, doc))
	require.NoError(t, err)
	assert.Equal(t, message.NextDone, doc.Next)
	assert.Equal(t, 1, f.target.calls())
}

// A quarantine parks without a call; a delay applies to the backoff after
// a failure too.
func TestQuarantineParksAndDelayLengthensTheBackoff(t *testing.T) {
	f := newFixture(t, options{policy: neverTrips, config: testConfig}, transient("busy"))
	f.handler.Rules = ruleSet(rules.Rule{ID: "r1", Reason: "broken client",
		Spec: rules.Spec{On: "body:/order", Equals: "42", Action: rules.Quarantine}})
	doc, err := f.run(t, newDocument("orders"))
	require.NoError(t, err)
	assert.Equal(t, message.NextPark, doc.Next)
	assert.Equal(t, "quarantined: rule r1 (body:/order equals 42): broken client", doc.ParkReason)
	assert.Zero(t, f.target.calls())

	f.handler.Rules = ruleSet(rules.Rule{ID: "r2", Spec: rules.Spec{On: "breaker", Equals: "orders", Action: rules.Delay, Delay: "1h"}})
	in := newDocument("orders")
	in.ReceivedAt = t0.Add(-2 * time.Hour) // the first try is not held back
	doc, err = f.run(t, in)
	require.NoError(t, err)
	assert.Equal(t, message.NextRoom, doc.Next, "an hour is waited in the room")
	assert.Equal(t, t0.Add(time.Hour), doc.NotBefore, "the rule's hour, not the backoff's seconds")
	assert.Equal(t, 1, f.target.calls())
}

// TestAQuarantineOfTheLargestRuleKeepsTheDocumentSmall quarantines by a
// rule at its documented limits (rules.MaxValues values of rules.MaxText
// bytes, about 50 KB when described): the park reason is cut to
// message.MaxParkReason and says so, so the Attempt's output stays far
// inside Step Functions' payload limit.
func TestAQuarantineOfTheLargestRuleKeepsTheDocumentSmall(t *testing.T) {
	f := newFixture(t, options{policy: tripping, config: testConfig}, target.Delivered())
	values := []string{"orders"}
	for i := len(values); i < rules.MaxValues; i++ {
		values = append(values, fmt.Sprintf("%03d", i)+strings.Repeat("v", rules.MaxText-3))
	}
	big := rules.Rule{ID: "r9", Spec: rules.Spec{On: "breaker", In: values, Action: rules.Quarantine}}
	require.Greater(t, len(big.Describe()), 40<<10, "the rule described is large")
	f.handler.Rules = ruleSet(big)
	doc, err := f.run(t, newDocument("orders"))
	require.NoError(t, err)
	assert.Equal(t, message.NextPark, doc.Next)
	assert.LessOrEqual(t, len(doc.ParkReason), message.MaxParkReason)
	assert.True(t, strings.HasPrefix(doc.ParkReason, "quarantined: "), doc.ParkReason[:40])
	assert.True(t, strings.HasSuffix(doc.ParkReason, "(truncated)"), "marked as cut")
	assert.Zero(t, f.target.calls())
}
