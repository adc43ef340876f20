package attempt_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/delivery/target"
	"github.com/redrive/redrive/message"
	"github.com/redrive/redrive/room"
	"github.com/redrive/redrive/room/waitroom"
	"github.com/redrive/redrive/test/roomtest"
)

// fifoDocument is message id of group g, its sequence number seq, as the
// room releases it.
func fifoDocument(id, g, seq string) message.Document {
	doc := newDocument("orders")
	doc.Message.ID, doc.OriginID = id, id
	doc.FIFO = &message.FIFO{GroupID: g, SequenceNumber: seq}
	return doc
}

// A delivered FIFO message ends its turn in its group, so the room
// releases the next one of the group; one that fails a try keeps it.
func TestADeliveredFIFOMessageEndsItsGroupsTurn(t *testing.T) {
	f := newFixture(t, options{}, transient("down"), target.Delivered())
	rm := room.New(f.client, f.table, time.Hour)
	f.handler.Turns = waitroom.Turns{Room: rm}
	first, second := fifoDocument("m-1", "g", "1"), fifoDocument("m-2", "g", "2")
	for _, doc := range []message.Document{first, second} {
		e, err := waitroom.Entry(doc, t0)
		require.NoError(t, err)
		entered, err := rm.EnterInLine(t.Context(), e)
		require.NoError(t, err)
		require.True(t, entered)
	}
	api := &roomtest.SFN{Express: []string{"attempt"}}
	rel := room.Releaser{SFN: api, StateMachineARN: "attempt", Owner: "test", Lease: time.Minute,
		Prepare: func(e room.Entry, _ time.Time) (string, string) { return e.MessageID, string(e.Document) }}
	release := func() []string {
		before := len(api.Started())
		c := rm.ReleaseDue(t.Context(), rel, "orders", 10, f.clock.Now(), 0, nil, nil)
		require.NoError(t, c.Err)
		return api.Started()[before:]
	}
	require.Equal(t, []string{"m-1#1"}, release(), "the group's first")

	out, err := f.run(t, first)
	require.NoError(t, err)
	require.NotEqual(t, message.NextDone, out.Next, "a failed try")
	assert.Empty(t, release(), "m-1 keeps its group's turn: m-2 waits")

	out, err = f.run(t, f.passOn(t, out))
	require.NoError(t, err)
	require.Equal(t, message.NextDone, out.Next)
	assert.Equal(t, []string{"m-2#1"}, release(), "delivered: the group goes on")
}
