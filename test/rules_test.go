package test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/admin"
	"github.com/redrive/redrive/attempt"
	"github.com/redrive/redrive/emulate/local"
	"github.com/redrive/redrive/emulate/simtarget"
	"github.com/redrive/redrive/message"
	"github.com/redrive/redrive/room/pace"
	"github.com/redrive/redrive/rules"
)

// tenantMessages returns n messages of tenant, in its attribute and body.
func tenantMessages(tenant string, n int) []message.Message {
	msgs := bodies(tenant, n)
	for i := range msgs {
		msgs[i].MessageAttributes = map[string]message.Attribute{"tenant": message.StringAttribute(tenant)}
	}
	return msgs
}

// callsOf counts the consumer's calls for the origin ids in ids from at on.
func callsOf(s *local.Stack, ids []string, from time.Time) int {
	want := map[string]bool{}
	for _, id := range ids {
		want[id] = true
	}
	n := 0
	for _, c := range s.Target.Ledger().Calls() {
		for _, r := range c.Records {
			if want[r.OriginID] && !c.At.Before(from) {
				n++
			}
		}
	}
	return n
}

// A tenant ships a broken client mid-outage: a quarantine rule on its
// attribute, added from the console, parks its messages (the waiting ones
// when the room releases them, new ones at the starter once the cache has
// read the rule) with the rule in the park reason, while the other
// tenant's messages are redriven as usual.
func TestAQuarantineAddedMidOutageParksATenant(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := start(t, local.Options{
		Start:               t0,
		BreakerKeyAttribute: "tenant",
		Attempt:             attempt.Config{MaxAttempts: 10},
		Target:              simtarget.Options{Schedule: simtarget.Outage(t0.Add(time.Minute), 20*time.Minute)},
	})
	runUntil(t, s, t0.Add(2*time.Minute))
	waiting := send(t, s, tenantMessages("acme", 8)...)
	others := send(t, s, tenantMessages("globex", 8)...)
	runUntil(t, s, t0.Add(5*time.Minute))

	ruleAt := s.Executor.Now()
	out := runAdmin(t, s, admin.Request{Command: admin.CommandRuleAdd, Reason: "broken client", Actor: "alice",
		Rule: &rules.Spec{On: "attribute:tenant", Equals: "acme", Action: rules.Quarantine}})
	require.NotNil(t, out.Rule)
	assert.Empty(t, out.Notes, "a rule on an attribute names no breaker")
	// Once the cache has read the rule, new messages are parked by the
	// starter, without an execution.
	runUntil(t, s, ruleAt.Add(rules.CacheTTL+time.Second))
	late := send(t, s, tenantMessages("acme", 3)...)
	drain(t, s)

	acme := append(append([]string{}, waiting...), late...)
	assert.Zero(t, callsOf(s, acme, ruleAt.Add(rules.CacheTTL)), "no call for a quarantined message once the caches read the rule")
	byOrigin := triesByOrigin(t, s)
	for _, id := range late {
		assert.Empty(t, byOrigin[id], "message %s was parked by the starter: no execution", id)
	}
	result := accountFor(t, s)
	for _, id := range acme {
		p, ok := result.parked[id]
		if assert.True(t, ok, "acme message %s is parked", id) {
			assert.Equal(t, "quarantined: rule r1 (attribute:tenant equals acme): broken client", p.Record.Reason)
		}
	}
	for _, id := range others {
		assert.True(t, result.delivered[id], "globex message %s is delivered", id)
	}
}

// A hold keeps a breaker's messages in its room, without a call, while
// the others flow: each is looked at again every minute. Once the hold is
// removed (the command says when they go), they go within a minute and
// are delivered once each. A hold with an end lets its messages go at the
// end by itself.
func TestAHoldKeepsMessagesUntilRemovedOrEnded(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := start(t, local.Options{Start: t0, BreakerKeyAttribute: "tenant"})

	out := runAdmin(t, s, admin.Request{Command: admin.CommandRuleAdd, Reason: "tenant migration", Actor: "alice",
		Rule: &rules.Spec{On: "breaker", Equals: "acme", Action: rules.Hold}})
	assert.Equal(t, []string{`no breaker has the key "acme" yet; the rule applies to its messages when they arrive`}, out.Notes)
	runUntil(t, s, t0.Add(rules.CacheTTL))
	held := send(t, s, tenantMessages("acme", 6)...)
	others := send(t, s, tenantMessages("globex", 6)...)
	runUntil(t, s, t0.Add(2*time.Hour)) // looked at again every minute, and held again
	assert.Zero(t, callsOf(s, held, t0), "no call while held")
	assertWaiting(t, s, "acme", held)
	for _, id := range others {
		assert.Equal(t, 1, s.Target.Ledger().Deliveries()[id], "globex message %s is delivered", id)
	}

	removedAt := s.Executor.Now()
	removed := runAdmin(t, s, admin.Request{Command: admin.CommandRuleRemove, ID: out.Rule.ID, Reason: "migrated", Actor: "alice"})
	require.Len(t, removed.Notes, 1)
	assert.Contains(t, removed.Notes[0], "looked at again every minute", "the remove says when the held messages go")
	drain(t, s)
	for _, id := range held {
		assert.Equal(t, 1, s.Target.Ledger().Deliveries()[id], "held message %s is delivered once", id)
	}
	for _, c := range s.Target.Ledger().Calls() {
		if c.At.After(removedAt) {
			assert.LessOrEqual(t, c.At.Sub(removedAt), time.Minute+pace.Policy{}.WithDefaults().Tick,
				"a held message is delivered within a minute of the remove (its next look, and the controller's tick)")
		}
	}

	// A hold that ends by itself.
	until := s.Executor.Now().Add(20 * time.Minute).Truncate(time.Second)
	runAdmin(t, s, admin.Request{Command: admin.CommandRuleAdd, Reason: "window", Actor: "alice", Until: until.Format(time.RFC3339),
		Rule: &rules.Spec{On: "breaker", Equals: "acme", Action: rules.Hold}})
	runUntil(t, s, s.Executor.Now().Add(rules.CacheTTL))
	timed := send(t, s, tenantMessages("acme", 4)...)
	drain(t, s)
	for _, c := range s.Target.Ledger().Calls() {
		for _, r := range c.Records {
			if !strings.Contains(strings.Join(timed, " "), r.OriginID) {
				continue
			}
			assert.False(t, c.At.Before(until), "call at %s before the hold ended at %s", c.At, until)
			assert.LessOrEqual(t, c.At.Sub(until), time.Minute+pace.Policy{}.WithDefaults().Tick, "released within a minute of the hold's end")
		}
	}
	result := accountFor(t, s)
	assert.Len(t, result.delivered, len(s.Sent()))
}

// A delay rule spaces a matching message's tries at least its delay
// apart, its first try included, and leaves other messages alone.
func TestADelayRuleSpacesTries(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := start(t, local.Options{
		Start:   t0,
		Attempt: attempt.Config{MaxAttempts: 3},
		Target:  simtarget.Options{Reject: simtarget.BodyContains("SLOW")},
	})
	runAdmin(t, s, admin.Request{Command: admin.CommandRuleAdd, Reason: "downstream needs time", Actor: "alice",
		Rule: &rules.Spec{On: "body:/order", Prefix: "SLOW", Action: rules.Delay, Delay: "10m"}})
	runUntil(t, s, t0.Add(rules.CacheTTL))
	arrived := s.Executor.Now()
	slow := send(t, s, message.Message{Body: `{"order":"SLOW-1"}`})
	fast := send(t, s, bodies("fast", 3)...)
	drain(t, s)

	var tries []time.Time
	for _, c := range s.Target.Ledger().Calls() {
		if c.Records[0].OriginID == slow[0] {
			tries = append(tries, c.At)
		}
	}
	require.Len(t, tries, 3, "MaxAttempts tries")
	assert.GreaterOrEqual(t, tries[0].Sub(arrived), 10*time.Minute, "the first try waits the delay after the arrival")
	for i := 1; i < len(tries); i++ {
		assert.GreaterOrEqual(t, tries[i].Sub(tries[i-1]), 10*time.Minute, "try %d is the delay after the one before", i+1)
	}
	result := accountFor(t, s)
	assert.Contains(t, result.parked[slow[0]].Record.Reason, "exhausted: 3 attempts")
	for _, id := range fast {
		assert.True(t, result.delivered[id])
	}
	assert.Less(t, s.Target.Ledger().Calls()[0].At.Sub(arrived), time.Minute, "other messages go at once")
}
