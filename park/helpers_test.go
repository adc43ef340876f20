package park_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/emulate/sqslocal"
	"github.com/redrive/redrive/emulate/sqslocal/sqstest"
	"github.com/redrive/redrive/lambda/telemetry"
	"github.com/redrive/redrive/message"
	"github.com/redrive/redrive/park"
	"github.com/redrive/redrive/test/parktest"
)

// t0 is the parking time of every test.
var t0 = time.Date(2026, 1, 1, 1, 0, 0, 0, time.UTC)

// lotEnv is a parking-lot queue on the test SQS backend and a Lot for it.
type lotEnv struct {
	backend *sqstest.Backend
	queue   sqstest.Queue
	lot     *park.Lot
	metrics *parktest.Counter
}

// newLotEnv makes a fresh parking-lot queue and a Lot sending to it with
// the given size limit (0: the default).
func newLotEnv(t *testing.T, maxSize int) *lotEnv {
	t.Helper()
	b := sqstest.Start(t, sqslocal.Options{})
	q := parktest.CreateQueue(t, b)
	t.Logf("backend %s, parking lot %s", b.Name, q.URL)
	if maxSize == 0 {
		maxSize = park.DefaultMaxMessageSize
	}
	m := &parktest.Counter{}
	lot := &park.Lot{
		SQS:     b.Client,
		Config:  park.LotConfig{QueueURL: q.URL, MaxMessageSize: maxSize},
		Metrics: m,
		Logger:  telemetry.JSONLogger(t.Output()),
	}
	return &lotEnv{backend: b, queue: q, lot: lot, metrics: m}
}

// receiveAll returns every message on the parking lot.
func (e *lotEnv) receiveAll(t *testing.T) []message.Message {
	t.Helper()
	return parktest.Messages(t, e.backend, e.queue)
}

// receiveOne reads the one message on the parking lot.
func (e *lotEnv) receiveOne(t *testing.T) message.Message {
	t.Helper()
	msgs := e.receiveAll(t)
	require.Len(t, msgs, 1, "messages on the parking lot")
	return msgs[0]
}

// recordOf decodes the Record a parked message carries, unwrapping an
// envelope first.
func recordOf(t *testing.T, msg message.Message) (message.Message, park.Record, string) {
	t.Helper()
	inner, _, err := message.Unwrap(msg)
	require.NoError(t, err)
	a, ok := inner.MessageAttributes[message.AttributeName]
	require.True(t, ok, "the %q attribute", message.AttributeName)
	var rec park.Record
	require.NoError(t, json.Unmarshal([]byte(a.StringValue), &rec))
	return inner, rec, a.StringValue
}

// golden reads a file under testdata.
func golden(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	return data
}

// attributes returns n distinct String attributes; nil for none.
func attributes(n int) map[string]message.Attribute {
	if n == 0 {
		return nil
	}
	out := map[string]message.Attribute{}
	for i := range n {
		out[string(rune('a'+i))+"-attr"] = message.StringAttribute(string(rune('A' + i)))
	}
	return out
}
