package test

import (
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/attempt"
	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/emulate/local"
	"github.com/redrive/redrive/emulate/simtarget"
	"github.com/redrive/redrive/message"
)

// tenant is the message attribute the per-tenant breakers are keyed by.
const tenant = "tenant"

// withTenant returns msgs with the tenant attribute set to name.
func withTenant(name string, msgs []message.Message) []message.Message {
	for i := range msgs {
		msgs[i].MessageAttributes = map[string]message.Attribute{tenant: message.StringAttribute(name)}
	}
	return msgs
}

// Per-key breakers: one tenant's downstream is out for 20 minutes, and its
// breaker trips; the other tenant's messages are delivered at once, its
// breaker untouched.
func TestOneTenantsOutageDoesNotHoldAnother(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	const n, outage = 30, 20 * time.Minute
	// acme's downstream fails every call until the outage ends.
	var s *local.Stack
	acmeDown := func(m events.SQSMessage) bool {
		a, ok := m.MessageAttributes[tenant]
		return ok && a.StringValue != nil && *a.StringValue == "acme" && s.Executor.Now().Before(t0.Add(outage))
	}
	s = start(t, local.Options{
		Start:               t0,
		BreakerKeyAttribute: tenant,
		Attempt:             attempt.Config{MaxAttempts: 10}, // canaries fall on few messages; none exhausts its tries
		Target:              simtarget.Options{Reject: acmeDown},
	})
	acme := send(t, s, withTenant("acme", bodies("acme", n))...)
	globex := send(t, s, withTenant("globex", bodies("globex", n))...)

	runUntil(t, s, t0.Add(time.Minute))
	ledger := s.Target.Ledger()
	for _, id := range globex {
		assert.Equal(t, 1, ledger.Deliveries()[id], "globex message %s delivered during acme's outage", id)
	}
	acmeRow, err := s.BreakerRow(t.Context(), "acme")
	require.NoError(t, err)
	assert.Equal(t, breaker.Open, acmeRow.State)
	globexRow, err := s.BreakerRow(t.Context(), "globex")
	require.NoError(t, err)
	assert.Equal(t, breaker.Closed, globexRow.State)
	assert.Zero(t, globexRow.Totals.Failures)

	drain(t, s)
	out := accountFor(t, s)
	assert.Len(t, out.delivered, 2*n)
	for _, id := range acme {
		assert.True(t, out.delivered[id])
	}
	for _, c := range s.BreakerChanges() {
		assert.Equal(t, "acme", c.Key, "only acme's breaker changed state")
	}
}
