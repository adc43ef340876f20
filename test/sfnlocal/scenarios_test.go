package sfnlocal

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	sfntypes "github.com/aws/aws-sdk-go-v2/service/sfn/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/admin"
	"github.com/redrive/redrive/emulate/simtarget"
	"github.com/redrive/redrive/message"
	"github.com/redrive/redrive/park"
)

func TestHealthyDeliveryTakesThreeTransitions(t *testing.T) {
	s := setup(t)
	consumer, err := s.e.UseConsumer(simtarget.Behaviour{}, false)
	require.NoError(t, err)

	ids := s.send(t, "healthy", `{"order": 1}`, `{"order": 2}`, `{"order": 3}`)
	for _, id := range ids {
		arn := s.executionOf(id)
		ex := s.await(t, arn)
		require.Equal(t, sfntypes.ExecutionStatusSucceeded, ex.Status, "%s: %s", aws.ToString(ex.Error), aws.ToString(ex.Cause))
		events := s.history(t, arn)
		assert.Equal(t, []string{"Attempt", "Route", "Delivered"}, entered(events))
		assert.Equal(t, 3, transitions(events), "the CLOSED path")
		docs := attempts(t, events)
		require.Len(t, docs, 1)
		assert.Equal(t, "PROCEED", docs[0].Decision)
		assert.Equal(t, "SUCCESS", docs[0].Outcome)
		assert.Equal(t, "CLOSED", docs[0].BreakerState)
	}
	for _, id := range ids {
		assert.Equal(t, 1, consumer.Ledger().Deliveries()[id], "message %s delivered once", id)
	}
}

func TestPoisonMessageIsParkedWithItsHistory(t *testing.T) {
	s := setup(t)
	_, err := s.e.UseConsumer(simtarget.Behaviour{}, false)
	require.NoError(t, err)

	body := `{"order": 4, "note": "` + simtarget.PoisonMarker + `"}`
	id := s.send(t, "poison", body)[0]
	arn := s.executionOf(id)
	ex := s.await(t, arn)
	require.Equal(t, sfntypes.ExecutionStatusSucceeded, ex.Status, "%s: %s", aws.ToString(ex.Error), aws.ToString(ex.Cause))
	events := s.history(t, arn)
	assert.Equal(t, []string{"Attempt", "Route", "Park", "Parked"}, entered(events), "parked at once, no retry")

	m := s.parked(t, body)
	attr, ok := m.MessageAttributes[message.AttributeName]
	require.True(t, ok, "the parked message carries the %q attribute", message.AttributeName)
	var rec park.Record
	require.NoError(t, json.Unmarshal([]byte(aws.ToString(attr.StringValue)), &rec))
	assert.Equal(t, id, rec.OriginID)
	assert.Equal(t, arn, rec.ExecutionARN)
	assert.True(t, strings.HasPrefix(rec.Reason, "poison: PoisonMessage"), "reason %q", rec.Reason)
	require.Len(t, rec.History, 1)
	assert.Equal(t, "POISON", rec.History[0].Outcome)

	st := s.status(t, "poison")
	assert.Equal(t, "CLOSED", st.State, "poison does not count toward tripping")
	assert.Zero(t, st.WindowFailures)
	assert.Zero(t, st.ConsecutiveFailures)
}

// A short outage trips the breaker: the messages it turns away wait in
// the room as documents (their executions end Queued), the breaker's
// controller waits out the cooldown and releases a probe, the probe's
// success and a canary close the breaker, and the room is released: each
// message is delivered once, each try an execution of its own.
func TestShortOutageTripsWaitsAndClosesThroughACanary(t *testing.T) {
	s := setup(t)
	const outage = 15 * time.Second // on the handlers' clock
	consumer, err := s.e.UseConsumer(simtarget.Behaviour{Health: simtarget.Down, For: outage}, false)
	require.NoError(t, err)

	ids := s.send(t, "outage", `{"order": 5}`, `{"order": 6}`, `{"order": 7}`)
	var all []message.Document
	for _, id := range ids {
		tries := s.tries(t, id)
		require.NotEmpty(t, tries)
		var docs []message.Document
		for i, tr := range tries {
			require.Equal(t, sfntypes.ExecutionStatusSucceeded, tr.Status, "%s", tr.ARN)
			if i > 0 {
				assert.Greater(t, tr.Run, tries[i-1].Run, "each try of %s is a later run", id)
			}
			docs = append(docs, attempts(t, tr.Events)...)
		}
		last := tries[len(tries)-1]
		assert.False(t, last.Queued)
		lastDocs := attempts(t, last.Events)
		require.NotEmpty(t, lastDocs)
		assert.Equal(t, "SUCCESS", lastDocs[len(lastDocs)-1].Outcome, "message %s delivered in the end", id)
		// The controller releases the probe when the cooldown ends (its
		// Wait, scaled as the handlers' clock is), so a message needs a
		// handful of tries; were the clocks out of step, a 10s cooldown
		// would take a try per second of it.
		assert.LessOrEqual(t, len(tries), 8, "executions of %s: %s", id, cycles(docs))
		t.Logf("%s: %d executions, cycles %s", id, len(tries), cycles(docs))
		all = append(all, docs...)
	}
	for _, id := range ids {
		assert.Equal(t, 1, consumer.Ledger().Deliveries()[id], "message %s delivered once", id)
	}

	// A message the OPEN breaker turned away waited out the cooldown in the
	// room (its execution ended Queued): no execution waits it out.
	assert.True(t, has(all, "QUEUE", "", "OPEN"), "a message waited out an OPEN cooldown in the room: %s", cycles(all))
	assert.True(t, has(all, "CANARY", "TRANSIENT", "OPEN"), "a probe failed while the consumer was down: %s", cycles(all))
	assert.True(t, has(all, "CANARY", "SUCCESS", "HALF_OPEN") || has(all, "CANARY", "SUCCESS", "CLOSED"),
		"a probe or canary succeeded once the consumer was back: %s", cycles(all))
	// Calls that reached the consumer while it was down: each message's
	// first try (the breaker trips after 2) and one probe per cooldown
	// (10s, then 20s) that started within the outage.
	bound := len(ids) + int(outage/(10*time.Second)) + 1
	assert.LessOrEqual(t, consumer.Ledger().CallsWhile(simtarget.Down), bound, "amplification")
	assert.Equal(t, "CLOSED", s.status(t, "outage").State)
}

func TestAdminCommands(t *testing.T) {
	s := setup(t)
	consumer, err := s.e.UseConsumer(simtarget.Behaviour{}, false)
	require.NoError(t, err)
	const key = "admin"
	req := func(command, reason string) admin.Request {
		return admin.Request{Command: command, Breaker: key, Reason: reason, Actor: "sfnlocal"}
	}

	out := s.command(t, req("open", "maintenance"))
	assert.Equal(t, "FORCED_OPEN", out.After.State)
	assert.Equal(t, "maintenance", out.After.Reason)

	// While forced open, the starter puts the message straight in the
	// room: no execution waits for the operator.
	id := s.send(t, key, `{"order": 8}`)[0]
	s.waitFor(t, "the message to wait in the forced-open breaker's room", func() bool { return s.inRoom(t, key, id) })
	assert.Empty(t, s.history(t, s.executionOf(id)), "no execution of the waiting message")
	assert.Zero(t, consumer.Ledger().Deliveries()[id], "nothing reaches the consumer while forced open")

	out = s.command(t, req("close", "let it through"))
	assert.Equal(t, "FORCED_OPEN", out.Before.State)
	assert.Equal(t, "FORCED_CLOSED", out.After.State)
	// The close starts the breaker's controller, which releases the
	// message as its next run.
	tries := s.tries(t, id)
	require.Len(t, tries, 1)
	assert.Equal(t, 1, tries[0].Run, "released from the room")
	require.Equal(t, sfntypes.ExecutionStatusSucceeded, tries[0].Status)
	assert.Equal(t, []string{"Attempt", "Route", "Delivered"}, entered(tries[0].Events))
	assert.Equal(t, 1, consumer.Ledger().Deliveries()[id], "delivered once after the close")

	out = s.command(t, req("reset", "back to normal"))
	assert.Equal(t, "FORCED_CLOSED", out.Before.State)
	assert.Equal(t, "CLOSED", out.After.State)
	assert.True(t, out.Changed)

	ex := s.admin(t, admin.Request{Command: "purge", Breaker: key})
	assert.Equal(t, sfntypes.ExecutionStatusFailed, ex.Status)
	assert.Equal(t, "InvalidCommand", aws.ToString(ex.Error))
	assert.Contains(t, aws.ToString(ex.Cause), `unknown command \"purge\"`)
}

// has reports whether one of docs has the decision, outcome and breaker
// state given.
func has(docs []message.Document, decision, outcome, state string) bool {
	for _, d := range docs {
		if d.Decision == decision && d.Outcome == outcome && d.BreakerState == state {
			return true
		}
	}
	return false
}

// cycles renders docs' decisions for a failure message.
func cycles(docs []message.Document) string {
	parts := make([]string, len(docs))
	for i, d := range docs {
		parts[i] = fmt.Sprintf("%s/%s/%s+%ds", d.Decision, d.Outcome, d.BreakerState, d.WaitSeconds)
	}
	return strings.Join(parts, " ")
}
