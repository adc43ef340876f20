package test

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/emulate/local"
	"github.com/redrive/redrive/message"
)

// withLineage is a message with body carrying lin in its "redrive"
// attribute, as a message back in the DLQ does.
func withLineage(t *testing.T, body string, lin message.Lineage) message.Message {
	t.Helper()
	attr, err := json.Marshal(lin)
	require.NoError(t, err)
	return message.Message{Body: body, MessageAttributes: map[string]message.Attribute{
		message.AttributeName: message.StringAttribute(string(attr)),
	}}
}

// Two different messages that carry the same lineage (a client copied the
// attribute) are both redriven: neither passes for a duplicate of the
// other and is deleted unredriven.
func TestTwoMessagesWithTheSameLineageAreBothDelivered(t *testing.T) {
	s := start(t, local.Options{})
	lin := message.Lineage{OriginID: "origin-1", Attempt: 1}
	ids := send(t, s, withLineage(t, `{"order":"a"}`, lin), withLineage(t, `{"order":"b"}`, lin))
	drain(t, s)
	// Both carry origin-1, so count the consumer's calls by DLQ message.
	calls := map[string]int{}
	for _, c := range s.Target.Ledger().Calls() {
		for _, r := range c.Records {
			assert.Equal(t, "origin-1", r.OriginID)
			calls[r.MessageID]++
		}
	}
	assert.Equal(t, map[string]int{ids[0]: 1, ids[1]: 1}, calls, "both delivered, once each")
	parked, err := s.ReceiveParked(t.Context())
	require.NoError(t, err)
	assert.Empty(t, parked)
}

// A body of characters Go's JSON encoder would HTML-escape (each '<' six
// bytes) is measured as Step Functions measures it, one byte each: 40 KiB
// of '<' is delivered, not parked as oversize.
func TestABodyOfEscapableCharactersIsNotOversize(t *testing.T) {
	s := start(t, local.Options{})
	send(t, s, message.Message{Body: strings.Repeat("<", 40<<10)})
	drain(t, s)
	out := accountFor(t, s)
	assert.Len(t, out.delivered, 1)
	assert.Empty(t, out.parked)
}

// A lineage outside its bounds (an origin id past 1,024 bytes, an attempt
// that would overflow) is parked at once by the starter, saying which.
func TestALineageOutOfBoundsIsParkedAtOnce(t *testing.T) {
	s := start(t, local.Options{})
	send(t, s,
		withLineage(t, `{"order":"long"}`, message.Lineage{OriginID: strings.Repeat("o", message.MaxOriginID+1), Attempt: 1}),
		withLineage(t, `{"order":"huge"}`, message.Lineage{OriginID: "origin-2", Attempt: math.MaxInt64}),
	)
	drain(t, s)
	out := accountFor(t, s)
	assert.Empty(t, out.delivered)
	require.Len(t, out.parked, 2)
	reasons := []string{}
	for _, p := range out.parked {
		reasons = append(reasons, p.Record.Reason)
	}
	assert.Len(t, s.Target.Ledger().Calls(), 0, "nothing reached the consumer")
	joined := strings.Join(reasons, "\n")
	assert.Contains(t, joined, "originId of 1025 bytes, want at most 1024")
	assert.Contains(t, joined, "want 1 to 99999")
}

// A breaker key with a trailing space (from a message attribute) is
// refused, as the admin would refuse it: the message goes under the
// default key, which an operator can address, and is delivered.
func TestAKeyTheAdminCannotAddressIsNeverCreated(t *testing.T) {
	s := start(t, local.Options{BreakerKeyAttribute: "tenant"})
	send(t, s, message.Message{Body: `{"order":1}`, MessageAttributes: map[string]message.Attribute{
		"tenant": message.StringAttribute("acme "),
	}})
	drain(t, s)
	out := accountFor(t, s)
	assert.Len(t, out.delivered, 1)
	row, err := s.BreakerRow(t.Context(), "acme ")
	require.NoError(t, err)
	assert.Zero(t, row.Version, "no breaker under the padded key")
	status, err := s.Admin(t.Context(), map[string]string{"command": "status", "breaker": "default"})
	require.NoError(t, err, "the key it went under is one the admin can address")
	assert.Positive(t, status.After.Version)
}
