package test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/emulate/local"
	"github.com/redrive/redrive/emulate/simtarget"
	"github.com/redrive/redrive/message"
)

// Poison messages are parked at once, with the original body, the lineage
// and the failure history, and do not move the breaker, even more of them
// than it takes to trip it; a burst of them paced through the room too.
func TestPoisonMessagesAreParkedAtOnce(t *testing.T) {
	const good, poison = 20, 8
	s := start(t, local.Options{Target: simtarget.Options{Poison: simtarget.BodyContains("POISON")}})
	msgs := bodies("poison", good+poison)
	for i := range poison {
		m := &msgs[i*(good+poison)/poison] // spread among the good ones
		m.Body = `{"order":"POISON"}` + m.Body
		m.MessageAttributes = map[string]message.Attribute{"tenant": message.StringAttribute("acme")}
	}
	send(t, s, msgs...)
	drain(t, s)

	out := accountFor(t, s)
	byOrigin := triesByOrigin(t, s)
	sentBody := map[string]string{}
	for _, m := range s.Sent() {
		sentBody[m.ID] = m.Body
	}
	viaRoom := map[bool]int{}
	require.Equal(t, poison, len(out.parked))
	assert.Equal(t, good, len(out.delivered))
	for id, p := range out.parked {
		assert.Equal(t, sentBody[id], p.Message.Body, "original body, unchanged")
		assert.True(t, strings.Contains(p.Message.Body, "POISON"))
		assert.Equal(t, "acme", p.Message.MessageAttributes["tenant"].StringValue, "original attributes kept")
		rec := p.Record
		assert.Equal(t, id, rec.OriginID)
		assert.Equal(t, 1, rec.Attempt)
		assert.Equal(t, 1, rec.Tries, "parked after its first try")
		assert.True(t, strings.HasPrefix(rec.Reason, "poison: PoisonMessage"), rec.Reason)
		require.Len(t, rec.History, 1)
		assert.Equal(t, message.OutcomePoison, rec.History[0].Outcome)
		assert.Equal(t, "PoisonMessage", rec.History[0].ErrorType)
		assert.Contains(t, rec.LastError, "PoisonMessage")
		assert.Equal(t, "orders", rec.BreakerKey)
		assert.NotEmpty(t, rec.ExecutionARN)

		tries := byOrigin[id]
		require.Len(t, tries, 1)
		// Parked at its first try, without a backoff, by its one
		// execution: the starter's, or, for one of the burst beyond the
		// starting pace (which the starter put straight in the room), the
		// one its release started.
		assert.Equal(t, endParked, tries[0].End, "parked without a wait")
		assert.Equal(t, 4, tries[0].Transitions, "Attempt, Route, Park, Parked")
		viaRoom[tries[0].Runs > 0]++
		assert.Equal(t, tries[0].ARN, rec.ExecutionARN)
	}
	assert.Positive(t, viaRoom[false], "some poison went straight")
	assert.Positive(t, viaRoom[true], "some poison went through the room")

	row, err := s.BreakerRow(t.Context(), "orders")
	require.NoError(t, err)
	assert.Equal(t, breaker.Closed, row.State, "poison never trips the breaker")
	assert.Zero(t, row.ConsecutiveFailures)
	assert.Zero(t, row.Window.Failures, "no failure in the window")
	assert.Zero(t, row.Totals.Trips)
	assert.Empty(t, s.BreakerChanges())
	assert.EqualValues(t, poison, s.Stats().Invocations[local.FunctionPark])
}
