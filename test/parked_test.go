package test

import (
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/attempt"
	"github.com/redrive/redrive/emulate/local"
	"github.com/redrive/redrive/emulate/simtarget"
	"github.com/redrive/redrive/message"
	"github.com/redrive/redrive/park/lotindex"
)

// The parking lot's index, which `redrive parked` reads, holds every
// message in the lot with its breaker, reason and error type, and reading
// it leaves the queue alone: a lot of poison messages of two breakers, an
// exhausted one and lineages out of bounds parked by the starter, against
// what the lot itself holds.
func TestTheParkingLotIndexMatchesTheLot(t *testing.T) {
	s := start(t, local.Options{
		BreakerKeyAttribute: "tenant",
		Attempt:             attempt.Config{MaxAttempts: 2},
		Target:              simtarget.Options{Poison: simtarget.BodyContains("POISON"), Reject: simtarget.BodyContains("FLAKY")},
	})
	tenant := func(name string) map[string]message.Attribute {
		return map[string]message.Attribute{"tenant": message.StringAttribute(name)}
	}
	msgs := bodies("lot", 6)
	for i := range 3 {
		msgs = append(msgs, message.Message{Body: `{"order":"POISON-acme-` + strconv.Itoa(i) + `"}`, MessageAttributes: tenant("acme")})
	}
	msgs = append(msgs,
		message.Message{Body: `{"order":"POISON-globex"}`, MessageAttributes: tenant("globex")},
		message.Message{Body: `{"order":"FLAKY"}`, MessageAttributes: tenant("acme")},
	)
	for _, lin := range []message.Lineage{
		{OriginID: strings.Repeat("o", message.MaxOriginID+1), Attempt: 1},
		{OriginID: "origin-huge", Attempt: math.MaxInt64},
	} {
		m := withLineage(t, `{"order":"lineage"}`, lin)
		m.MessageAttributes["tenant"] = message.StringAttribute("globex")
		msgs = append(msgs, m)
	}
	started := s.Executor.Now()
	send(t, s, msgs...)
	drain(t, s)

	// Read the index as `redrive parked` does, before anything receives
	// from the lot.
	idx := lotindex.New(s.DynamoDB, s.Table)
	now := s.Executor.Now()
	window := lotindex.Filter{Since: started.Add(-time.Hour), Until: now.Add(time.Hour), Now: now}
	var listed []lotindex.Entry
	for e, err := range idx.Entries(t.Context(), window) {
		require.NoError(t, err)
		listed = append(listed, e)
	}
	summary, err := lotindex.Summarize(idx.Entries(t.Context(), window))
	require.NoError(t, err)
	acme := window
	acme.Breaker, acme.Reason = "acme", "poison"
	var acmePoison []string
	for e, err := range idx.Entries(t.Context(), acme) {
		require.NoError(t, err)
		acmePoison = append(acmePoison, e.OriginID)
	}
	assertAllVisible(t, s, 7)

	out := accountFor(t, s)
	require.Len(t, out.parked, 7, "3 + 1 poison, 1 exhausted, 2 lineages out of bounds")
	require.Len(t, listed, len(out.parked), "one entry per parked message")
	byOrigin := map[string]lotindex.Entry{}
	for i, e := range listed {
		byOrigin[e.OriginID] = e
		if i > 0 {
			assert.False(t, e.ParkedAt.Before(listed[i-1].ParkedAt), "oldest first")
		}
	}
	type group struct{ breaker, reason, errorType string }
	counts := map[group]int{}
	var wantAcmePoison []string
	for id, p := range out.parked {
		rec := p.Record
		e, ok := byOrigin[id]
		require.True(t, ok, "parked message %s is indexed", id)
		errorType := ""
		if n := len(rec.History); n > 0 {
			errorType = rec.History[n-1].ErrorType
		}
		assert.Equal(t, lotindex.Entry{
			Breaker: rec.BreakerKey, Reason: lotindex.ReasonClass(rec.Reason), ErrorType: errorType, OriginID: id, Attempt: rec.Attempt,
			ParkedAt: rec.ParkedAt, MessageID: p.Message.ID, Size: len(p.Message.Body), Expires: rec.ParkedAt.Add(14 * 24 * time.Hour).Truncate(time.Second),
		}, e, "message %s", id)
		counts[group{rec.BreakerKey, e.Reason, errorType}]++
		if rec.BreakerKey == "acme" && e.Reason == "poison" {
			wantAcmePoison = append(wantAcmePoison, id)
		}
	}
	assert.Equal(t, map[group]int{
		{"acme", "poison", "PoisonMessage"}:   3,
		{"acme", "exhausted", "Rejected"}:     1,
		{"globex", "poison", "PoisonMessage"}: 1,
		{"globex", "poison", ""}:              2, // the starter's: no delivery was tried
	}, counts)
	assert.ElementsMatch(t, wantAcmePoison, acmePoison, "a filtered list")

	assert.Equal(t, len(out.parked), summary.Total.N)
	assert.Equal(t, listed[0].ParkedAt, summary.Total.Oldest)
	got := map[group]int{}
	for _, g := range summary.Groups {
		got[group{g.Breaker, g.Reason, g.ErrorType}] = g.N
		oldest := time.Time{}
		for _, e := range listed {
			if e.Breaker == g.Breaker && e.Reason == g.Reason && e.ErrorType == g.ErrorType && (oldest.IsZero() || e.ParkedAt.Before(oldest)) {
				oldest = e.ParkedAt
			}
		}
		assert.Equal(t, oldest, g.Oldest, "group %+v", g)
	}
	assert.Equal(t, counts, got, "the summary counts what the lot holds")
}

// assertAllVisible checks that the parking lot holds n messages, every one
// visible: none received (in flight) or delayed.
func assertAllVisible(t *testing.T, s *local.Stack, n int) {
	t.Helper()
	out, err := s.SQS.GetQueueAttributes(t.Context(), &sqs.GetQueueAttributesInput{
		QueueUrl: aws.String(s.ParkingLotURL),
		AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameApproximateNumberOfMessages,
			sqstypes.QueueAttributeNameApproximateNumberOfMessagesNotVisible, sqstypes.QueueAttributeNameApproximateNumberOfMessagesDelayed},
	})
	require.NoError(t, err)
	assert.Equal(t, map[string]string{
		"ApproximateNumberOfMessages": strconv.Itoa(n), "ApproximateNumberOfMessagesNotVisible": "0", "ApproximateNumberOfMessagesDelayed": "0",
	}, out.Attributes)
}
