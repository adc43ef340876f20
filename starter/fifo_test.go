package starter_test

import (
	"context"
	"fmt"
	"strconv"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/lambda/telemetry"
	"github.com/redrive/redrive/message"
	"github.com/redrive/redrive/room"
	"github.com/redrive/redrive/test/roomtest"
)

// fifoRecords are records from a FIFO DLQ, one per group name in groups,
// with sequence numbers 101, 102, ... in the batch's order.
func fifoRecords(groups ...string) []events.SQSMessage {
	out := make([]events.SQSMessage, len(groups))
	for i, g := range groups {
		r := record(fmt.Sprintf("m-%02d", i), fmt.Sprintf(`{"n":%d}`, i), nil)
		r.EventSourceARN += ".fifo"
		r.Attributes[message.AttrMessageGroupID] = g
		r.Attributes[message.AttrMessageDeduplicationID] = "d-" + strconv.Itoa(i)
		r.Attributes[message.AttrSequenceNumber] = strconv.Itoa(101 + i)
		out[i] = r
	}
	return out
}

// inLine returns the room's entries of "orders" with their places, by
// message id.
func (r roomEnv) inLine(t *testing.T) map[string]room.Entry {
	t.Helper()
	out := map[string]room.Entry{}
	for _, e := range roomtest.Waiting(t, r.client, r.table, r.room, "orders", 100) {
		doc, err := message.ParseDocument(e.Document)
		require.NoError(t, err)
		require.NotNil(t, e.Place, doc.Message.ID)
		out[doc.Message.ID] = e
	}
	return out
}

// Every FIFO message goes to the room, even while the breaker is CLOSED,
// in line behind the one of its group before it: only the room keeps a
// group's order.
func TestFIFOMessagesGoInLineBehindTheirGroup(t *testing.T) {
	r := newRoomEnv(t)
	resp := r.handle(t, events.SQSEvent{Records: fifoRecords("a", "b", "a", "b")})
	assert.Empty(t, failures(resp))
	assert.Empty(t, r.sfn.Executions(t), "none started: the room releases them in their order")
	line := r.inLine(t)
	require.Len(t, line, 4)
	assert.Empty(t, line["m-00"].Place.Prev)
	assert.Empty(t, line["m-01"].Place.Prev)
	assert.Equal(t, line["m-00"].Place.Sequence, line["m-02"].Place.Prev, "a: m-02 behind m-00")
	assert.Equal(t, line["m-01"].Place.Sequence, line["m-03"].Place.Prev, "b: m-03 behind m-01")
	doc, err := message.ParseDocument(line["m-02"].Document)
	require.NoError(t, err)
	assert.Equal(t, &message.FIFO{GroupID: "a", DeduplicationID: "d-2", SequenceNumber: "103"}, doc.FIFO)
	assert.Equal(t, []string{"orders"}, r.launcher.Keys())
	assert.Equal(t, int64(4), r.metrics.Get("orders", telemetry.Queued))

	resp = r.handle(t, events.SQSEvent{Records: fifoRecords("a", "b", "a", "b")})
	assert.Empty(t, failures(resp), "a second delivery of the batch")
	assert.Equal(t, int64(4), r.metrics.Get("orders", telemetry.Duplicates), "each a duplicate")
	assert.Len(t, r.inLine(t), 4, "nothing entered twice")
}

// failingInLine fails EnterInLine for one message id and passes the rest
// to the room.
type failingInLine struct {
	*room.Room
	fail string
}

func (f failingInLine) EnterInLine(ctx context.Context, e room.Entry) (bool, error) {
	if e.MessageID == f.fail {
		return false, assert.AnError
	}
	return f.Room.EnterInLine(ctx, e)
}

// A FIFO message that cannot enter the room stays in the DLQ with every
// later message of its group in the batch, unprocessed; other groups go
// on.
func TestAFIFOFailureHoldsBackTheRestOfItsGroupOnly(t *testing.T) {
	r := newRoomEnv(t)
	r.h.Room = failingInLine{Room: r.room, fail: "m-02#1"}
	resp := r.handle(t, events.SQSEvent{Records: fifoRecords("a", "b", "a", "b", "a")})
	assert.Equal(t, []string{"m-02", "m-04"}, failures(resp), "m-02 failed; m-04 after it in group a")
	line := r.inLine(t)
	assert.Len(t, line, 3)
	for _, id := range []string{"m-00", "m-01", "m-03"} {
		assert.Contains(t, line, id)
	}
}
