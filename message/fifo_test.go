package message_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/message"
)

func TestADocumentOfAFIFOMessageKeepsItsPlace(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	msg := message.Message{ID: "m-1", Body: "x", Attributes: map[string]string{
		message.AttrMessageGroupID: "account-7", message.AttrMessageDeduplicationID: "d-1", message.AttrSequenceNumber: "18849496460467696128",
	}}
	doc, err := message.NewDocument(msg, at)
	require.NoError(t, err)
	assert.Equal(t, &message.FIFO{GroupID: "account-7", DeduplicationID: "d-1", SequenceNumber: "18849496460467696128"}, doc.FIFO)

	msg.Attributes = map[string]string{message.AttrMessageGroupID: "fair-queue-tenant"}
	doc, err = message.NewDocument(msg, at)
	require.NoError(t, err)
	assert.Nil(t, doc.FIFO, "a fair queue's group without a sequence number is no FIFO message")
}

func TestValidateChecksTheFIFOPlace(t *testing.T) {
	doc := message.Document{Message: message.Message{ID: "m-1"}, OriginID: "m-1", Attempt: 1, BreakerKey: "orders",
		ReceivedAt: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	for _, tt := range []struct {
		fifo  message.FIFO
		field string
	}{
		{message.FIFO{SequenceNumber: "1"}, "fifo.groupId"},
		{message.FIFO{GroupID: strings.Repeat("g", 129), SequenceNumber: "1"}, "fifo.groupId"},
		{message.FIFO{GroupID: "g", SequenceNumber: "1a"}, "fifo.sequenceNumber"},
		{message.FIFO{GroupID: "g", SequenceNumber: strings.Repeat("1", 41)}, "fifo.sequenceNumber"},
		{message.FIFO{GroupID: "g", SequenceNumber: "2", Prev: "x"}, "fifo.prev"},
	} {
		d := doc
		d.FIFO = &tt.fifo
		err := d.Validate()
		var fe *message.FieldError
		require.ErrorAs(t, err, &fe, "%+v", tt.fifo)
		assert.Equal(t, tt.field, fe.Field)
	}
	doc.FIFO = &message.FIFO{GroupID: "g", SequenceNumber: "2", Prev: "1"}
	assert.NoError(t, doc.Validate())
}
