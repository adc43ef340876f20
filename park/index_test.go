package park_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/dynamo"
	"github.com/redrive/redrive/emulate/ddbtest"
	"github.com/redrive/redrive/lambda/telemetry"
	"github.com/redrive/redrive/message"
	"github.com/redrive/redrive/park"
	"github.com/redrive/redrive/park/lotindex"
)

// withIndex gives e's lot an index on a fresh table of the test backend
// and returns it.
func (e *lotEnv) withIndex(t *testing.T) *lotindex.Index {
	t.Helper()
	client, backend := ddbtest.Client(t)
	table := ddbtest.CreateTable(t, client, func(ctx context.Context, name string) error {
		return dynamo.CreateTable(ctx, client, name)
	})
	t.Logf("DynamoDB backend %s, table %s", backend, table)
	idx := lotindex.New(client, table)
	e.lot.Index = idx
	return idx
}

// indexed is every entry of idx parked in the two weeks up to t0.
func indexed(t *testing.T, idx *lotindex.Index) []lotindex.Entry {
	t.Helper()
	var out []lotindex.Entry
	for en, err := range idx.Entries(t.Context(), lotindex.Filter{Since: t0.Add(-lotindex.MaxRetention), Until: t0.Add(time.Second), Now: t0}) {
		require.NoError(t, err)
		out = append(out, en)
	}
	return out
}

func TestHandleIndexesWhatItParks(t *testing.T) {
	tests := []struct {
		name  string
		input string
		want  lotindex.Entry
	}{
		{
			name:  "exhausted: the newest failure's error type",
			input: "input.json",
			want: lotindex.Entry{Breaker: "acme", Reason: "exhausted", ErrorType: "Timeout", OriginID: "059f36b4-87a3-44ab-83d2-661975830a7d",
				Attempt: 2, Tag: "mb067b4d3", Size: len(`{"tenant":{"id":"acme"},"order":42}`)},
		},
		{
			name:  "caught: the task error's name",
			input: "input-caught.json",
			want: lotindex.Entry{Breaker: "globex", Reason: "task failed", ErrorType: "BreakerContention",
				OriginID: "5d41402a-bc4b-4a76-b971-9d911017c592", Attempt: 1, Size: len("order 7")},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newLotEnv(t, 0)
			idx := e.withIndex(t)
			out, err := handle(t, e, golden(t, tt.input))
			require.NoError(t, err)

			want := tt.want
			want.ParkedAt, want.MessageID, want.Expires = t0, out.MessageID, t0.Add(14*24*time.Hour)
			assert.Equal(t, []lotindex.Entry{want}, indexed(t, idx))
			assert.Equal(t, out.MessageID, e.receiveOne(t).ID, "naming the parked message's id in the lot")
			assert.Zero(t, e.metrics.Total(telemetry.ParkIndexFailed))
		})
	}
}

// The entry is made from the whole Record, though the parked message
// carries a shortened one: the last failure is known even when the
// history did not fit. Its expiry is the lot's retention.
func TestTheIndexHasTheWholeRecord(t *testing.T) {
	e := newLotEnv(t, 4<<10)
	e.lot.Config.Retention = 4 * 24 * time.Hour
	idx := e.withIndex(t)
	msg := message.Message{ID: "m-1", Body: strings.Repeat("b", 4<<10-200)}
	history := failures(3)
	history[2].ErrorType = "Downstream503"
	rec := park.Record{Lineage: message.Lineage{OriginID: "o-1", Attempt: 3, History: history}, BreakerKey: "orders",
		Reason: "exhausted: 3 attempts, last error Downstream503", ParkedAt: t0}
	out, err := e.lot.Park(t.Context(), msg, rec)
	require.NoError(t, err)
	require.True(t, out.Truncated, "precondition: the history did not fit")
	_, parked, _ := recordOf(t, e.receiveOne(t))
	assert.Empty(t, parked.History)

	assert.Equal(t, []lotindex.Entry{{
		Breaker: "orders", Reason: "exhausted", ErrorType: "Downstream503", OriginID: "o-1", Attempt: 3,
		ParkedAt: t0, MessageID: out.MessageID, Size: len(msg.Body), Expires: t0.Add(4 * 24 * time.Hour),
	}}, indexed(t, idx))
}

// indexer is a hand-written Indexer that answers err and keeps the
// deadline of the context it was called with.
type indexer struct {
	err      error
	deadline time.Time
	entries  []lotindex.Entry
}

func (x *indexer) Put(ctx context.Context, e lotindex.Entry) error {
	x.deadline, _ = ctx.Deadline()
	x.entries = append(x.entries, e)
	return x.err
}

// A message in the lot is parked, whatever the index does: an index that
// fails is logged and counted, and Park succeeds, so nothing parks the
// message again.
func TestAnIndexThatFailsDoesNotFailThePark(t *testing.T) {
	e := newLotEnv(t, 0)
	var log bytes.Buffer
	e.lot.Logger = telemetry.JSONLogger(&log)
	x := &indexer{err: errors.New("table unreachable")}
	e.lot.Index = x
	rec := park.Record{Lineage: message.Lineage{OriginID: "o-2", Attempt: 1}, BreakerKey: "orders", Reason: "poison: bad", ParkedAt: t0}
	start := time.Now()
	out, err := e.lot.Park(t.Context(), message.Message{ID: "m-2", Body: "x"}, rec)
	require.NoError(t, err)

	assert.Equal(t, out.MessageID, e.receiveOne(t).ID, "parked")
	require.Len(t, x.entries, 1, "one try: the SDK client retries")
	assert.Equal(t, int64(1), e.metrics.Get("orders", telemetry.ParkIndexFailed))
	assert.Equal(t, int64(1), e.metrics.Get("orders", telemetry.Parked))
	assert.WithinDuration(t, start.Add(3*time.Second), x.deadline, time.Second, "the index gets a few seconds, not the invocation's")

	var lines []map[string]any
	for line := range strings.SplitSeq(strings.TrimSpace(log.String()), "\n") {
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &m), line)
		lines = append(lines, m)
	}
	require.Len(t, lines, 2, "parked, then not indexed: %s", log.String())
	assert.Equal(t, "message parked", lines[0]["message"])
	assert.Equal(t, "ERROR", lines[1]["level"])
	assert.Contains(t, lines[1]["message"], "parked message not indexed")
	assert.Equal(t, out.MessageID, lines[1]["parkedMessageId"])
	assert.Equal(t, "o-2", lines[1]["originId"])
	assert.Contains(t, lines[1]["error"], "table unreachable")
}

// Nothing is indexed for a message that was not parked.
func TestAFailedParkIndexesNothing(t *testing.T) {
	e := newLotEnv(t, 0)
	x := &indexer{}
	e.lot.Index = x
	e.lot.Config.QueueURL = e.queue.URL + "-missing"
	_, err := e.lot.Park(t.Context(), message.Message{ID: "m-3", Body: "x"},
		park.Record{Lineage: message.Lineage{OriginID: "o-3", Attempt: 1}, Reason: "poison: bad", ParkedAt: t0})
	require.Error(t, err)
	assert.Empty(t, x.entries)
}
