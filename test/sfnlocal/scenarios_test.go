package sfnlocal

import (
	"encoding/json"
	"fmt"
	"slices"
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

func TestShortOutageTripsWaitsAndClosesThroughACanary(t *testing.T) {
	s := setup(t)
	const outage = 15 * time.Second // on the handlers' clock
	consumer, err := s.e.UseConsumer(simtarget.Behaviour{Health: simtarget.Down, For: outage}, false)
	require.NoError(t, err)

	ids := s.send(t, "outage", `{"order": 5}`, `{"order": 6}`, `{"order": 7}`)
	var all []message.Document
	for _, id := range ids {
		arn := s.executionOf(id)
		ex := s.await(t, arn)
		require.Equal(t, sfntypes.ExecutionStatusSucceeded, ex.Status, "%s: %s", aws.ToString(ex.Error), aws.ToString(ex.Cause))
		events := s.history(t, arn)
		docs := attempts(t, events)
		require.NotEmpty(t, docs)
		last := docs[len(docs)-1]
		assert.Equal(t, "SUCCESS", last.Outcome, "message %s delivered in the end", id)
		// A cooldown's Wait ends when the breaker's cooldown does, so a
		// message needs a handful of cycles; were the handlers' clock out
		// of step with the scaled Waits, a 10s cooldown would take a
		// cycle per second of it.
		assert.LessOrEqual(t, len(docs), 8, "Attempt cycles of %s: %s", id, cycles(docs))
		t.Logf("%s: %d transitions, cycles %s", id, transitions(events), cycles(docs))
		all = append(all, docs...)
	}
	for _, id := range ids {
		assert.Equal(t, 1, consumer.Ledger().Deliveries()[id], "message %s delivered once", id)
	}

	assert.True(t, has(all, "WAIT", "", "OPEN"), "a message waited out an OPEN cooldown: %s", cycles(all))
	assert.True(t, has(all, "CANARY", "TRANSIENT", "OPEN"), "a canary failed while the consumer was down: %s", cycles(all))
	assert.True(t, has(all, "CANARY", "SUCCESS", "CLOSED"), "a canary closed the breaker: %s", cycles(all))
	// Calls that reached the consumer while it was down: each message's
	// first try (the breaker trips after 2) and one canary per cooldown
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

	id := s.send(t, key, `{"order": 8}`)[0]
	arn := s.executionOf(id)
	s.waitFor(t, "the message to wait in the forced-open breaker's room", func() bool {
		events := s.history(t, arn)
		docs := attempts(t, events)
		return len(docs) > 0 && docs[0].Decision == "QUEUE" && docs[0].BreakerState == "FORCED_OPEN" &&
			slices.Contains(entered(events), "WaitingRoom")
	})
	assert.Zero(t, consumer.Ledger().Deliveries()[id], "nothing reaches the consumer while forced open")

	out = s.command(t, req("close", "let it through"))
	assert.Equal(t, "FORCED_OPEN", out.Before.State)
	assert.Equal(t, "FORCED_CLOSED", out.After.State)
	ex := s.await(t, arn)
	require.Equal(t, sfntypes.ExecutionStatusSucceeded, ex.Status, "%s: %s", aws.ToString(ex.Error), aws.ToString(ex.Cause))
	assert.Equal(t, 1, consumer.Ledger().Deliveries()[id], "delivered once after the close")

	out = s.command(t, req("reset", "back to normal"))
	assert.Equal(t, "FORCED_CLOSED", out.Before.State)
	assert.Equal(t, "CLOSED", out.After.State)
	assert.True(t, out.Changed)

	ex = s.admin(t, admin.Request{Command: "purge", Breaker: key})
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
