package test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/emulate/local"
	"github.com/redrive/redrive/emulate/simtarget"
	"github.com/redrive/redrive/message"
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
