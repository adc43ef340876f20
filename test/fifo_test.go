package test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/admin"
	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/delivery/target"
	"github.com/redrive/redrive/emulate/local"
	"github.com/redrive/redrive/emulate/simtarget"
	"github.com/redrive/redrive/message"
	"github.com/redrive/redrive/rules"
)

// fifoMessages are perGroup messages of each of groups groups, sent
// round-robin (g0-0, g1-0, ..., g0-1, ...); poison, when it returns true
// for a group and index, marks that message poison.
func fifoMessages(groups, perGroup int, poison func(g, i int) bool) []message.Message {
	var msgs []message.Message
	for i := range perGroup {
		for g := range groups {
			body := fmt.Sprintf(`{"group":"g%d","n":%d}`, g, i)
			if poison != nil && poison(g, i) {
				body = `{"POISON":true,` + body[1:]
			}
			msgs = append(msgs, message.Message{Body: body, Attributes: map[string]string{message.AttrMessageGroupID: fmt.Sprintf("g%d", g)}})
		}
	}
	return msgs
}

// deliveredByGroup is, per group, the bodies the consumer processed, in
// the order it processed them.
func deliveredByGroup(t *testing.T, s *local.Stack) map[string][]string {
	t.Helper()
	body := map[string]string{}
	for _, m := range s.Sent() {
		body[m.ID] = m.Body
	}
	out := map[string][]string{}
	for _, c := range s.Target.Ledger().Calls() {
		for _, r := range c.Records {
			if r.Outcome != simtarget.OutcomeDelivered {
				continue
			}
			b := body[r.OriginID]
			require.NotEmpty(t, b, "a delivery of a message never sent: %s", r.OriginID)
			g := b[strings.Index(b, `"group":"`)+9:]
			g = g[:strings.Index(g, `"`)]
			out[g] = append(out[g], b)
		}
	}
	return out
}

// inOrder is what each group's delivered bodies must be: every message of
// the group that is not skipped, in the order sent.
func inOrder(msgs []message.Message, skip func(body string) bool) map[string][]string {
	out := map[string][]string{}
	for _, m := range msgs {
		if skip != nil && skip(m.Body) {
			continue
		}
		g := m.Attributes[message.AttrMessageGroupID]
		out[g] = append(out[g], m.Body)
	}
	return out
}

// A FIFO DLQ through an outage: every message waits in the room in its
// group's line, the breaker trips, recovers and the room drains, and each
// group is delivered in its order, once each, at most one message of a
// group in flight at a time.
func TestFIFOOrderThroughAnOutage(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := start(t, local.Options{
		Start:  t0,
		FIFO:   true,
		Target: simtarget.Options{Capacity: 20, Schedule: simtarget.Outage(t0, 10*time.Minute)},
	})
	msgs := fifoMessages(5, 20, nil)
	send(t, s, msgs...)
	drain(t, s)

	out := accountFor(t, s)
	assert.Len(t, out.delivered, len(msgs), "every message delivered")
	assert.Empty(t, out.parked)
	assert.Equal(t, inOrder(msgs, nil), deliveredByGroup(t, s), "each group in its order")
	assert.Positive(t, s.Target.Ledger().Count(simtarget.OutcomeUnavailable), "the outage was met")
}

// A poison message is parked and its group goes on behind it (as SQS's
// own dead-letter queue does), in order; a group whose head fails
// transiently waits behind it.
func TestFIFOPoisonIsParkedAndItsGroupGoesOn(t *testing.T) {
	poison := func(g, i int) bool { return g == 1 && i == 2 }
	s := start(t, local.Options{
		FIFO:   true,
		Target: simtarget.Options{Poison: simtarget.BodyContains("POISON")},
	})
	msgs := fifoMessages(3, 6, poison)
	send(t, s, msgs...)
	drain(t, s)

	out := accountFor(t, s)
	require.Len(t, out.parked, 1)
	for _, p := range out.parked {
		assert.Contains(t, p.Message.Body, "POISON")
		assert.Equal(t, "g1", p.Record.MessageGroupID, "the lot keeps its group")
	}
	isPoison := func(body string) bool { return strings.Contains(body, "POISON") }
	assert.Equal(t, inOrder(msgs, isPoison), deliveredByGroup(t, s), "the rest of g1 after it, in order")
}

// A flaky target fails a share of the tries, of any message of a group:
// each failed message keeps its group behind it until it is delivered
// (or parked, its tries used up), so every group is still delivered in
// its order.
func TestFIFOOrderUnderAFlakyTarget(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	flaky := simtarget.Behaviour{Health: simtarget.Degraded, ErrorRate: 0.3, For: 10 * time.Minute}
	s := start(t, local.Options{Start: t0, FIFO: true, Target: simtarget.Options{Schedule: flaky.Schedule(t0), Seed: 7}})
	msgs := fifoMessages(4, 15, nil)
	send(t, s, msgs...)
	drain(t, s)

	out := accountFor(t, s)
	assert.Len(t, out.delivered, len(msgs)-len(out.parked))
	parked := map[string]bool{}
	for _, p := range out.parked {
		parked[p.Message.Body] = true
	}
	assert.Equal(t, inOrder(msgs, func(body string) bool { return parked[body] }), deliveredByGroup(t, s), "each group in its order")
	failedLater := 0
	for _, doc := range triesByOrigin(t, s) {
		failedLater += len(doc) - 1
	}
	assert.Positive(t, failedLater, "messages failed tries and went again")
}

// failingHead fails the first tries of one message with a transient
// error, then passes it and every other to the consumer.
type failingHead struct {
	target.Target
	body  string
	tries int
	mu    sync.Mutex
	calls int
}

func (f *failingHead) Deliver(ctx context.Context, doc message.Document) target.Result {
	f.mu.Lock()
	fail := doc.Message.Body == f.body && f.calls < f.tries
	if doc.Message.Body == f.body {
		f.calls++
	}
	f.mu.Unlock()
	if fail {
		return target.Result{Outcome: breaker.Transient, ErrorType: "Unavailable", Message: "not yet"}
	}
	return f.Target.Deliver(ctx, doc)
}

// A consumer that fails one group's head three times: the group waits
// behind it, its backoffs and all, and the other groups go on; then it is
// delivered, and its group after it, in order.
func TestFIFOAGroupWaitsBehindAHeadThatFails(t *testing.T) {
	msgs := fifoMessages(3, 5, nil)
	head := &failingHead{body: msgs[1].Body, tries: 3} // g1's first
	s := start(t, local.Options{FIFO: true, WrapTarget: func(tg target.Target) target.Target {
		head.Target = tg
		return head
	}})
	send(t, s, msgs...)
	drain(t, s)

	out := accountFor(t, s)
	assert.Len(t, out.delivered, len(msgs))
	assert.Equal(t, 4, head.calls, "three failed tries, then delivered")
	byGroup := deliveredByGroup(t, s)
	assert.Equal(t, inOrder(msgs, nil), byGroup, "each group in its order")
	at := deliveredAt(s)
	body := map[string]string{}
	for _, m := range s.Sent() {
		body[m.Body] = m.ID
	}
	assert.True(t, at[body[msgs[0].Body]].Before(at[body[msgs[1].Body]]) && at[body[msgs[3].Body]].Before(at[body[msgs[1].Body]]),
		"g0 went on while g1's head backed off")
}

// The breaker trips again while the room is being released: the groups'
// heads wait again, and every group is still delivered in its order.
func TestFIFOOrderThroughARetripDuringTheRelease(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	schedule := simtarget.Schedule{
		{From: t0, Health: simtarget.Down},
		{From: t0.Add(5 * time.Minute), Health: simtarget.Healthy},
		{From: t0.Add(7 * time.Minute), Health: simtarget.Down},
		{From: t0.Add(10 * time.Minute), Health: simtarget.Healthy},
	}
	s := start(t, local.Options{Start: t0, FIFO: true, Target: simtarget.Options{Capacity: 2, Schedule: schedule}})
	msgs := fifoMessages(6, 30, nil)
	send(t, s, msgs...)
	drain(t, s)

	trips := 0
	for _, c := range s.BreakerChanges() {
		if c.To == breaker.Open && c.From == breaker.Closed {
			trips++
		}
	}
	assert.GreaterOrEqual(t, trips, 2, "tripped, closed, tripped again mid-release: %v", s.BreakerChanges())
	out := accountFor(t, s)
	parked := map[string]bool{}
	for _, p := range out.parked {
		parked[p.Message.Body] = true
	}
	assert.Equal(t, inOrder(msgs, func(b string) bool { return parked[b] }), deliveredByGroup(t, s), "each group in its order")
	assert.Len(t, out.delivered, len(msgs)-len(parked))
}

// The starter's batch comes back (it crashed after entering the room):
// each message enters its group's line once, and each group is delivered
// in its order, once each.
func TestFIFOAStarterRetryOfABatchEntersEachMessageOnce(t *testing.T) {
	s := start(t, local.Options{FIFO: true})
	crashStarterOnce(t, s)
	msgs := fifoMessages(2, 4, nil)
	send(t, s, msgs...)
	drain(t, s)

	assert.EqualValues(t, 1, s.Stats().Source.FunctionErrors, "the batch came back once")
	out := accountFor(t, s)
	assert.Len(t, out.delivered, len(msgs))
	for id, n := range s.Target.Ledger().Deliveries() {
		assert.Equal(t, 1, n, "once: %s", id)
	}
	assert.Equal(t, inOrder(msgs, nil), deliveredByGroup(t, s))
}

// A group's poison head is parked, fixed and replayed: it comes back to
// the FIFO DLQ in its group and is delivered.
func TestFIFOParkedAndReplayed(t *testing.T) {
	s := start(t, local.Options{FIFO: true, Target: simtarget.Options{Poison: simtarget.BodyContains("POISON")}})
	msgs := fifoMessages(2, 3, func(g, i int) bool { return g == 0 && i == 0 })
	send(t, s, msgs...)
	drain(t, s)
	require.Len(t, s.Target.Ledger().Deliveries(), len(msgs)-1)

	require.NoError(t, s.Target.Reset(simtarget.Options{Clock: s.Executor})) // the consumer is fixed
	out := runAdmin(t, s, admin.Request{Command: admin.CommandReplay, Actor: "ops", Replay: &admin.ReplayRequest{Rate: 10}})
	require.Equal(t, 1, out.Replay.Counts.Moved)
	wakeDLQ(t.Context(), s)
	drain(t, s)
	calls := s.Target.Ledger().Calls()
	require.Len(t, calls, 1, "the replayed head, delivered once")
	assert.Equal(t, simtarget.OutcomeDelivered, calls[0].Records[0].Outcome)
	assert.Equal(t, "g0", calls[0].Records[0].Group, "in its group")
}

// FIFO_ON_PARK=hold: a parked message holds the rest of its group behind
// a hold rule on the group, the other groups drain; once a person removes
// the rule, the rest of the group is delivered, in its order.
func TestFIFOHoldKeepsAGroupBehindItsParkedMessageUntilLifted(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := start(t, local.Options{Start: t0, FIFO: true, FIFOOnPark: "hold", Target: simtarget.Options{Poison: simtarget.BodyContains("POISON")}})
	msgs := fifoMessages(2, 4, func(g, i int) bool { return g == 0 && i == 1 })
	send(t, s, msgs...)
	runUntil(t, s, t0.Add(10*time.Minute))

	got := deliveredByGroup(t, s)
	assert.Equal(t, []string{msgs[0].Body}, got["g0"], "g0 held behind its parked second message")
	assert.Equal(t, inOrder(msgs, nil)["g1"], got["g1"], "g1 drained")
	listed := runAdmin(t, s, admin.Request{Command: admin.CommandRuleList, Actor: "ops"})
	require.Len(t, listed.Rules, 1, "one hold rule, on the group")
	hold := listed.Rules[0]
	assert.Equal(t, rules.Spec{On: rules.OnGroup, Equals: "g0", Action: rules.Hold}, hold.Spec)
	assert.Contains(t, hold.Reason, "remove this rule")

	runAdmin(t, s, admin.Request{Command: admin.CommandRuleRemove, ID: hold.ID, Reason: "looked at it", Actor: "ops"})
	drain(t, s)
	out := accountFor(t, s)
	require.Len(t, out.parked, 1)
	isPoison := func(body string) bool { return strings.Contains(body, "POISON") }
	assert.Equal(t, inOrder(msgs, isPoison), deliveredByGroup(t, s), "lifted: the rest of g0, in its order")
}

// Express may run an execution twice: a duplicate of a FIFO message's
// try goes back to the room and, once the first delivered it, finds it
// done; nothing is delivered twice or out of order, and the room drains.
func TestFIFODuplicatedExpressStartsDeliverNothingTwice(t *testing.T) {
	s := start(t, local.Options{FIFO: true, DuplicateStarts: 2})
	msgs := fifoMessages(3, 6, nil)
	send(t, s, msgs...)
	drain(t, s)

	require.Positive(t, s.Stats().DuplicatedStarts)
	for id, n := range s.Target.Ledger().Deliveries() {
		assert.Equal(t, 1, n, "once: %s", id)
	}
	assert.Equal(t, inOrder(msgs, nil), deliveredByGroup(t, s))
	depth, _ := s.Room()
	assert.Zero(t, depth, "no duplicate left in the room")
}
