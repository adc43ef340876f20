package room_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/lambda/telemetry"
	"github.com/redrive/redrive/room"
	"github.com/redrive/redrive/test/roomtest"
)

// t0 is when the tests' first entry enters.
var t0 = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

// ttl is the tests' room item lifetime.
const ttl = 2 * time.Hour

// lease is the tests' claim lease.
const lease = time.Minute

// env is a room on a fresh table of the test backend, with the raw client
// to write and read items behind its back.
type env struct {
	room   *room.Room
	client *dynamodb.Client
	table  string
}

func newEnv(t *testing.T) env {
	t.Helper()
	client, table := roomtest.Table(t)
	return env{room: room.New(client, table, ttl), client: client, table: table}
}

// document is message id's stand-in execution document.
func document(id string) json.RawMessage {
	return json.RawMessage(`{"id":"` + id + `"}`)
}

// entry is message id's entry under key, joining the line and entering at
// t0 plus after, to go at once.
func entry(key, id string, after time.Duration) room.Entry {
	return room.Entry{Key: key, MessageID: id, Document: document(id), EnteredAt: t0.Add(after), Since: t0.Add(after)}
}

// notBefore is e to go no sooner than t0 plus at.
func notBefore(e room.Entry, at time.Duration) room.Entry {
	e.NotBefore = t0.Add(at)
	return e
}

// enter puts every entry in the room.
func (e env) enter(t *testing.T, entries ...room.Entry) {
	t.Helper()
	for _, en := range entries {
		require.NoError(t, e.room.Enter(t.Context(), en))
	}
}

// ids is the message ids of entries, in order.
func ids(entries []room.Entry) []string {
	out := make([]string, len(entries))
	for i, en := range entries {
		out[i] = en.MessageID
	}
	return out
}

// plain is e's exported fields but its document, as the room lists an
// entry (a listed or claimed entry also carries its sequence and claim;
// the index holds no document).
func plain(e room.Entry) room.Entry {
	return room.Entry{Key: e.Key, MessageID: e.MessageID, EnteredAt: e.EnteredAt, Since: e.Since, NotBefore: e.NotBefore}
}

// documents is the documents of key's entries in line, read from their
// items.
func (e env) documents(t *testing.T, key string) []string {
	t.Helper()
	var out []string
	for _, en := range roomtest.Waiting(t, e.client, e.table, e.room, key, 100) {
		out = append(out, string(en.Document))
	}
	return out
}

// plains is plain of every entry.
func plains(entries []room.Entry) []room.Entry {
	out := make([]room.Entry, len(entries))
	for i, en := range entries {
		out[i] = plain(en)
	}
	return out
}

// raw reads the stored item of key's message id.
func (e env) raw(t *testing.T, key, id string) map[string]types.AttributeValue {
	t.Helper()
	out, err := e.client.GetItem(t.Context(), &dynamodb.GetItemInput{
		TableName: aws.String(e.table), ConsistentRead: aws.Bool(true),
		Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "room#" + key + "#" + id}},
	})
	require.NoError(t, err)
	return out.Item
}

// listed is key's only entry named id, as the room lists it (with its
// sequence, for a claim).
func (e env) listed(t *testing.T, key, id string) room.Entry {
	t.Helper()
	got, err := e.room.Oldest(t.Context(), key, 100)
	require.NoError(t, err)
	for _, en := range got {
		if en.MessageID == id {
			return en
		}
	}
	require.FailNow(t, "not in the room", "%s in %s: %v", id, key, ids(got))
	return room.Entry{}
}

// left is the message ids left in key's room, in line.
func (e env) left(t *testing.T, key string) []string {
	t.Helper()
	got, err := e.room.Oldest(t.Context(), key, 100)
	require.NoError(t, err)
	return ids(got)
}

func TestOldestListsOneKeyInLine(t *testing.T) {
	e := newEnv(t)
	// Entered out of order, on two keys.
	e.enter(t, entry("orders", "c#1", 3*time.Second), entry("orders", "a#1", time.Second),
		entry("payments", "p#1", 0), entry("orders", "b#1", 2*time.Second))

	got, err := e.room.Oldest(t.Context(), "orders", 10)
	require.NoError(t, err)
	assert.Equal(t, []string{"a#1", "b#1", "c#1"}, ids(got))
	assert.Equal(t, plain(entry("orders", "a#1", time.Second)), plain(got[0]), "an entry reads back as it entered")
	assert.Empty(t, got[0].Document, "listed without its document, which the index does not hold")
	assert.Equal(t, []string{`{"id":"a#1"}`, `{"id":"b#1"}`, `{"id":"c#1"}`}, e.documents(t, "orders"), "kept in the item")

	got, err = e.room.Oldest(t.Context(), "orders", 2)
	require.NoError(t, err)
	assert.Equal(t, []string{"a#1", "b#1"}, ids(got), "at most n")

	got, err = e.room.Oldest(t.Context(), "orders", 0)
	require.NoError(t, err)
	assert.Empty(t, got)

	got, err = e.room.Oldest(t.Context(), "nobody", 5)
	require.NoError(t, err)
	assert.Empty(t, got)

	for key, want := range map[string]int{"orders": 3, "payments": 1, "nobody": 0} {
		n, err := e.room.Depth(t.Context(), key)
		require.NoError(t, err)
		assert.Equal(t, want, n, key)
	}
}

func TestOldestOrdersEntriesOfTheSameInstantByMessage(t *testing.T) {
	e := newEnv(t)
	e.enter(t, entry("orders", "m-2#1", 0), entry("orders", "m-1#1", 0))
	assert.Equal(t, []string{"m-1#1", "m-2#1"}, e.left(t, "orders"))
}

func TestEntryDue(t *testing.T) {
	en := entry("orders", "m-1#1", time.Minute)
	assert.Equal(t, t0.Add(time.Minute), en.Due(), "no NotBefore: when it joined the line")
	assert.Equal(t, t0.Add(time.Minute), notBefore(en, 30*time.Second).Due(), "a NotBefore already past when it joined")
	assert.Equal(t, t0.Add(time.Minute), notBefore(en, time.Minute).Due())
	assert.Equal(t, t0.Add(5*time.Minute), notBefore(en, 5*time.Minute).Due(), "a backoff")
}

// The line is by when each entry may go (NotBefore if later than Since,
// else Since), then by Since; Due lists only those that may go at now.
func TestDueOrdersByNotBeforeThenSince(t *testing.T) {
	e := newEnv(t)
	e.enter(t,
		notBefore(entry("orders", "late-backoff#1", 0), 10*time.Minute), // joined first, may go last
		entry("orders", "fresh#1", 2*time.Minute),
		notBefore(entry("orders", "backoff-b#1", 20*time.Second), 5*time.Minute),
		notBefore(entry("orders", "backoff-a#1", 10*time.Second), 5*time.Minute), // same due, joined earlier
		notBefore(entry("orders", "past#1", 3*time.Minute), time.Minute),         // NotBefore before Since: goes at Since
		entry("orders", "first#1", time.Second),
		entry("payments", "other#1", 0),
	)
	assert.Equal(t, []string{"first#1", "fresh#1", "past#1", "backoff-a#1", "backoff-b#1", "late-backoff#1"}, e.left(t, "orders"),
		"Oldest lists all, in line")

	due := func(now time.Duration, n int) []string {
		t.Helper()
		got, err := e.room.Due(t.Context(), "orders", n, t0.Add(now))
		require.NoError(t, err)
		return ids(got)
	}
	assert.Empty(t, due(0, 10), "nothing had joined the line yet")
	assert.Equal(t, []string{"first#1"}, due(time.Second, 10), "due at its instant")
	assert.Equal(t, []string{"first#1", "fresh#1", "past#1"}, due(4*time.Minute, 10), "the backoffs are not due")
	assert.Equal(t, []string{"first#1", "fresh#1"}, due(4*time.Minute, 2), "at most n")
	assert.Equal(t, []string{"first#1", "fresh#1", "past#1", "backoff-a#1", "backoff-b#1"}, due(5*time.Minute, 10))
	assert.Equal(t, []string{"first#1", "fresh#1", "past#1", "backoff-a#1", "backoff-b#1", "late-backoff#1"}, due(time.Hour, 10))
	assert.Empty(t, due(time.Hour, 0))

	got, err := e.room.Due(t.Context(), "orders", 10, t0.Add(time.Hour))
	require.NoError(t, err)
	back := plain(got[len(got)-1])
	assert.Equal(t, plain(notBefore(entry("orders", "late-backoff#1", 0), 10*time.Minute)), back, "NotBefore reads back")
	back = plain(got[2])
	assert.Equal(t, plain(entry("orders", "past#1", 3*time.Minute)), back, "a NotBefore before Since reads back as none")
}

func TestDuePagesThroughALongLine(t *testing.T) {
	e := newEnv(t)
	for i := range 30 {
		e.enter(t, entry("orders", fmt.Sprintf("m-%02d#1", i), time.Duration(i)*time.Millisecond))
	}
	got, err := e.room.Due(t.Context(), "orders", 25, t0.Add(time.Hour))
	require.NoError(t, err)
	require.Len(t, got, 25)
	assert.Equal(t, "m-00#1", got[0].MessageID)
	assert.Equal(t, "m-24#1", got[24].MessageID)
}

func TestEnterAgainReplacesTheMessagesEntry(t *testing.T) {
	e := newEnv(t)
	first := entry("orders", "m-1#1", 0)
	e.enter(t, first, entry("orders", "m-2#1", 30*time.Second))
	claimed, ok, err := e.room.Claim(t.Context(), e.listed(t, "orders", "m-1#1"), "r1", t0, lease)
	require.NoError(t, err)
	require.True(t, ok)

	// The message is back (its release's try failed again), with a newer
	// document and a backoff.
	again := first
	again.Document, again.EnteredAt = document("m-1#1, run 2"), t0.Add(time.Hour)
	again.NotBefore = t0.Add(time.Hour + time.Minute)
	e.enter(t, again)

	got, err := e.room.Oldest(t.Context(), "orders", 5)
	require.NoError(t, err)
	assert.Equal(t, plains([]room.Entry{entry("orders", "m-2#1", 30*time.Second), again}), plains(got),
		"one entry per message, in line by when it may go")
	assert.Equal(t, []string{`{"id":"m-2#1"}`, `{"id":"m-1#1, run 2"}`}, e.documents(t, "orders"), "with its newer document")

	taken, err := e.room.Take(t.Context(), claimed)
	require.NoError(t, err)
	assert.False(t, taken, "the old claim no longer takes the entry: the message is back")
	require.NoError(t, e.room.Unclaim(t.Context(), claimed), "an old claim's unclaim is a no-op")
	assert.Equal(t, []string{"m-2#1", "m-1#1"}, e.left(t, "orders"))

	_, ok, err = e.room.Claim(t.Context(), claimed, "r2", t0.Add(2*time.Hour), lease)
	require.NoError(t, err)
	assert.False(t, ok, "an entry as listed before it was replaced is not claimed")
	renewed, ok, err := e.room.Claim(t.Context(), e.listed(t, "orders", "m-1#1"), "r2", t0.Add(2*time.Hour), lease)
	require.NoError(t, err)
	require.True(t, ok, "no claim holds the new entry")
	assert.JSONEq(t, `{"id":"m-1#1, run 2"}`, string(renewed.Document))
}

func TestEnterWithoutSinceJoinsTheLineWhenItEnters(t *testing.T) {
	e := newEnv(t)
	late := room.Entry{Key: "orders", MessageID: "m-1#1", Document: document("m-1#1"), EnteredAt: t0.Add(time.Minute)}
	e.enter(t, late, entry("orders", "m-2#1", 30*time.Second))
	got, err := e.room.Oldest(t.Context(), "orders", 5)
	require.NoError(t, err)
	late.Since = late.EnteredAt
	assert.Equal(t, plains([]room.Entry{entry("orders", "m-2#1", 30*time.Second), late}), plains(got))
}

func TestEnterStoresTheExpiry(t *testing.T) {
	e := newEnv(t)
	e.enter(t, entry("orders", "m-1#1", 0))
	item := e.raw(t, "orders", "m-1#1")
	require.NotNil(t, item)
	assert.Equal(t, &types.AttributeValueMemberN{Value: strconv.FormatInt(t0.Add(ttl).Unix(), 10)}, item["ttl"], "the table's TTL attribute, shared with the delivery records")
	assert.Equal(t, &types.AttributeValueMemberS{Value: "orders"}, item[room.AttrRoom])
	assert.Equal(t, &types.AttributeValueMemberS{Value: `{"id":"m-1#1"}`}, item["doc"])
}

func TestEnterRefusesAnIncompleteEntry(t *testing.T) {
	e := newEnv(t)
	for name, tt := range map[string]struct {
		change func(*room.Entry)
		want   string
	}{
		"no key":      {func(en *room.Entry) { en.Key = "" }, "empty breaker key"},
		"no message":  {func(en *room.Entry) { en.MessageID = "" }, "empty message id"},
		"no document": {func(en *room.Entry) { en.Document = nil }, "empty document"},
	} {
		t.Run(name, func(t *testing.T) {
			en := entry("orders", "m-1#1", 0)
			tt.change(&en)
			assert.ErrorContains(t, e.room.Enter(t.Context(), en), tt.want)
		})
	}
	n, err := e.room.Depth(t.Context(), "orders")
	require.NoError(t, err)
	assert.Zero(t, n)
}

func TestClaimTakeAndUnclaim(t *testing.T) {
	e := newEnv(t)
	e.enter(t, entry("orders", "m-1#1", 0))
	listed := e.listed(t, "orders", "m-1#1")

	claimed, ok, err := e.room.Claim(t.Context(), listed, "r1", t0, lease)
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, plain(entry("orders", "m-1#1", 0)), plain(claimed), "the entry as stored")
	assert.Equal(t, document("m-1#1"), claimed.Document, "with its document, which the claim reads")
	_, ok, err = e.room.Claim(t.Context(), listed, "r2", t0.Add(lease-time.Millisecond), lease)
	require.NoError(t, err)
	assert.False(t, ok, "a live claim holds it")

	require.NoError(t, e.room.Unclaim(t.Context(), claimed))
	assert.Equal(t, []string{"m-1#1"}, e.left(t, "orders"), "an unclaimed entry stays in line")
	taken, err := e.room.Take(t.Context(), claimed)
	require.NoError(t, err)
	assert.False(t, taken, "a claim given up takes nothing")

	again, ok, err := e.room.Claim(t.Context(), listed, "r2", t0.Add(time.Second), lease)
	require.NoError(t, err)
	require.True(t, ok, "unclaimed: the next release claims it at once")
	taken, err = e.room.Take(t.Context(), again)
	require.NoError(t, err)
	assert.True(t, taken)
	assert.Nil(t, e.raw(t, "orders", "m-1#1"), "the entry is gone")
	taken, err = e.room.Take(t.Context(), again)
	require.NoError(t, err)
	assert.False(t, taken, "taken once")
	_, ok, err = e.room.Claim(t.Context(), listed, "r3", t0.Add(time.Hour), lease)
	require.NoError(t, err)
	assert.False(t, ok, "a taken entry is not claimed")
}

// A release that dies after its claim leaves a claim that expires: the
// entry goes with a later release, and the dead one's claim no longer
// takes it.
func TestAnExpiredClaimIsTakenOver(t *testing.T) {
	e := newEnv(t)
	e.enter(t, entry("orders", "m-1#1", 0))
	listed := e.listed(t, "orders", "m-1#1")
	dead, ok, err := e.room.Claim(t.Context(), listed, "dead", t0, lease)
	require.NoError(t, err)
	require.True(t, ok)

	next, ok, err := e.room.Claim(t.Context(), listed, "next", t0.Add(lease), lease)
	require.NoError(t, err)
	require.True(t, ok, "the claim expired")
	taken, err := e.room.Take(t.Context(), dead)
	require.NoError(t, err)
	assert.False(t, taken, "the dead release's claim is over")
	assert.Equal(t, []string{"m-1#1"}, e.left(t, "orders"))
	taken, err = e.room.Take(t.Context(), next)
	require.NoError(t, err)
	assert.True(t, taken)
	assert.Empty(t, e.left(t, "orders"))
}

// Many releases claim one entry at once: exactly one claim holds, and
// only it takes the entry.
func TestClaimHasExactlyOneWinnerUnderRacingReleases(t *testing.T) {
	e := newEnv(t)
	e.enter(t, entry("orders", "m-1#1", 0))
	listed := e.listed(t, "orders", "m-1#1")
	const goroutines = 64
	var mu sync.Mutex
	var winners, losers []room.Entry
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range goroutines {
		wg.Go(func() {
			<-start
			claimed, ok, err := e.room.Claim(context.Background(), listed, fmt.Sprintf("r%d", i), t0, lease)
			if !assert.NoError(t, err) {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			if ok {
				winners = append(winners, claimed)
			} else {
				losers = append(losers, claimed)
			}
		})
	}
	close(start)
	wg.Wait()
	require.Len(t, winners, 1, "exactly one release claims the entry")
	assert.Len(t, losers, goroutines-1)

	// Every release takes what it claimed, at once: only the winner's
	// take removes the entry.
	var takes atomic.Int32
	for _, c := range append(losers, winners[0]) {
		wg.Go(func() {
			taken, err := e.room.Take(context.Background(), c)
			if assert.NoError(t, err) && taken {
				takes.Add(1)
			}
		})
	}
	wg.Wait()
	assert.Equal(t, int32(1), takes.Load())
	assert.Nil(t, e.raw(t, "orders", "m-1#1"), "the entry is gone")
}

// Racing releases over a line of entries: every entry is claimed by
// exactly one of them.
func TestRacingClaimsShareALineWithoutOverlap(t *testing.T) {
	e := newEnv(t)
	const entries, releases = 20, 8
	for i := range entries {
		e.enter(t, entry("orders", fmt.Sprintf("m-%02d#1", i), time.Duration(i)*time.Millisecond))
	}
	line, err := e.room.Due(t.Context(), "orders", entries, t0.Add(time.Hour))
	require.NoError(t, err)
	require.Len(t, line, entries)
	claims := make([]atomic.Int32, entries)
	var wg sync.WaitGroup
	for r := range releases {
		wg.Go(func() {
			for i, en := range line {
				c, ok, err := e.room.Claim(context.Background(), en, fmt.Sprintf("r%d", r), t0, lease)
				if !assert.NoError(t, err) || !ok {
					continue
				}
				claims[i].Add(1)
				taken, err := e.room.Take(context.Background(), c)
				assert.NoError(t, err)
				assert.True(t, taken)
			}
		})
	}
	wg.Wait()
	for i := range claims {
		assert.Equal(t, int32(1), claims[i].Load(), line[i].MessageID)
	}
	assert.Empty(t, e.left(t, "orders"))
}

// An item the room cannot read (written by hand, or by a newer version)
// does not hold the room behind it: it is passed over, and still counted.
// One whose listed attributes read is listed; a document it cannot read
// fails its claim, saying why, and the rest of the line goes.
func TestAMalformedItemDoesNotHoldTheRoom(t *testing.T) {
	e := newEnv(t)
	e.enter(t, entry("orders", "m-1#1", 0), entry("orders", "m-2#1", time.Second))
	item := e.raw(t, "orders", "m-1#1")
	claims := 0
	for name, tt := range map[string]struct {
		change func(map[string]types.AttributeValue)
		want   string
		listed bool // the index's attributes read: only the claim fails
	}{
		"no document":      {func(it map[string]types.AttributeValue) { delete(it, "doc") }, `attribute "doc": missing`, true},
		"numeric document": {func(it map[string]types.AttributeValue) { it["doc"] = &types.AttributeValueMemberN{Value: "7"} }, `attribute "doc"`, true},
		"no message id":    {func(it map[string]types.AttributeValue) { delete(it, "message_id") }, `attribute "message_id"`, false},
		"bad entry time": {func(it map[string]types.AttributeValue) {
			it["entered_at"] = &types.AttributeValueMemberS{Value: "noon"}
		}, `malformed item m-1#1: attribute "entered_at": want an RFC 3339 time, got "noon"`, false},
		"bad line time": {func(it map[string]types.AttributeValue) {
			it["since"] = &types.AttributeValueMemberS{Value: "noon"}
		}, `malformed item m-1#1: attribute "since": want an RFC 3339 time, got "noon"`, false},
		"numeric line time": {func(it map[string]types.AttributeValue) { it["since"] = &types.AttributeValueMemberN{Value: "7"} }, `attribute "since"`, false},
	} {
		t.Run(name, func(t *testing.T) {
			bad := map[string]types.AttributeValue{}
			for k, v := range item {
				bad[k] = v
			}
			tt.change(bad)
			_, err := e.client.PutItem(t.Context(), &dynamodb.PutItemInput{TableName: aws.String(e.table), Item: bad})
			require.NoError(t, err)
			if tt.listed {
				assert.Equal(t, []string{"m-1#1", "m-2#1"}, e.left(t, "orders"))
				_, ok, err := e.room.Claim(t.Context(), e.listed(t, "orders", "m-1#1"), "r", t0, lease)
				require.ErrorContains(t, err, tt.want)
				assert.False(t, ok)
				claims++ // each case's claim of m-2 after the last one's lease
				_, ok, err = e.room.Claim(t.Context(), e.listed(t, "orders", "m-2#1"), "r", t0.Add(time.Duration(claims)*lease), lease)
				require.NoError(t, err)
				assert.True(t, ok, "the rest of the line goes")
			} else {
				assert.Equal(t, []string{"m-2#1"}, e.left(t, "orders"), "passed over: %s", tt.want)
			}
			depth, err := e.room.Depth(t.Context(), "orders")
			require.NoError(t, err)
			assert.Equal(t, 2, depth, "still counted, for a person")
		})
	}
}

func TestGauges(t *testing.T) {
	e := newEnv(t)
	gauges, err := e.room.Gauges(t.Context(), "orders", t0, true)
	require.NoError(t, err)
	assert.Equal(t, []telemetry.Gauge{
		{Name: telemetry.OldestWaitingSeconds, Value: 0, Unit: telemetry.UnitSeconds},
		{Name: telemetry.RoomDepth, Value: 0, Unit: telemetry.UnitCount},
	}, gauges, "an empty room")

	e.enter(t, notBefore(entry("orders", "a#1", 0), time.Hour), entry("orders", "b#1", 30*time.Second), entry("orders", "c#1", time.Minute))
	gauges, err = e.room.Gauges(t.Context(), "orders", t0.Add(2*time.Minute), true)
	require.NoError(t, err)
	assert.Equal(t, []telemetry.Gauge{
		{Name: telemetry.OldestWaitingSeconds, Value: 90, Unit: telemetry.UnitSeconds},
		{Name: telemetry.RoomDepth, Value: 3, Unit: telemetry.UnitCount},
	}, gauges, "the age of the entry next in line, not of the one that joined first")
	gauges, err = e.room.Gauges(t.Context(), "orders", t0.Add(2*time.Minute), false)
	require.NoError(t, err)
	assert.Len(t, gauges, 1, "no depth unless asked")
}
