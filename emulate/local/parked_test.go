package local_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/emulate/local"
	"github.com/redrive/redrive/emulate/simtarget"
	"github.com/redrive/redrive/message"
)

func TestReceiveParkedDecodesRecordsAndEnvelopes(t *testing.T) {
	s := start(t, local.Options{Target: simtarget.Options{Poison: simtarget.BodyContains("bad")}})
	full := message.Message{Body: "bad, and every attribute taken", MessageAttributes: map[string]message.Attribute{}}
	for i := range message.MaxAttributes {
		full.MessageAttributes[fmt.Sprint("a", i)] = message.StringAttribute(fmt.Sprint(i))
	}
	ids, err := s.SendToDLQ(t.Context(), message.Message{Body: "bad"}, full, message.Message{Body: "good"})
	require.NoError(t, err)
	run(t, s)

	parked, err := s.ReceiveParked(t.Context())
	require.NoError(t, err)
	require.Len(t, parked, 2)
	byOrigin := map[string]local.Parked{}
	for _, p := range parked {
		byOrigin[p.Record.OriginID] = p
	}
	plain, wrapped := byOrigin[ids[0]], byOrigin[ids[1]]
	assert.False(t, plain.Enveloped)
	assert.Equal(t, "bad", plain.Message.Body)
	assert.True(t, wrapped.Enveloped, "no attribute left for the record")
	assert.Equal(t, full.Body, wrapped.Message.Body)
	for name, a := range full.MessageAttributes {
		assert.Equal(t, a.StringValue, wrapped.Message.MessageAttributes[name].StringValue, "attribute %s", name)
	}
	for _, p := range parked {
		assert.Contains(t, p.Record.Reason, "poison: PoisonMessage")
		assert.Contains(t, p.Message.MessageAttributes, message.AttributeName)
	}

	again, err := s.ReceiveParked(t.Context())
	require.NoError(t, err)
	assert.Empty(t, again, "received messages are deleted")
}
