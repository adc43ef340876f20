package room_test

import (
	"context"
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

	"github.com/redrive/redrive/room"
	"github.com/redrive/redrive/test/roomtest"
)

// t0 is when the tests' first entry enters.
var t0 = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

// ttl is the tests' room item lifetime.
const ttl = 2 * time.Hour

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

// entry is message id's entry under key, joining the line and entering at
// t0 plus after.
func entry(key, id string, after time.Duration) room.Entry {
	return room.Entry{Key: key, MessageID: id, Token: "token-" + id, EnteredAt: t0.Add(after), Since: t0.Add(after)}
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

func TestOldestListsOneKeyOldestFirst(t *testing.T) {
	e := newEnv(t)
	// Entered out of order, on two keys.
	e.enter(t, entry("orders", "c#1", 3*time.Second), entry("orders", "a#1", time.Second),
		entry("payments", "p#1", 0), entry("orders", "b#1", 2*time.Second))

	got, err := e.room.Oldest(t.Context(), "orders", 10)
	require.NoError(t, err)
	assert.Equal(t, []string{"a#1", "b#1", "c#1"}, ids(got))
	assert.Equal(t, entry("orders", "a#1", time.Second), got[0], "an entry reads back as it entered")

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
	got, err := e.room.Oldest(t.Context(), "orders", 5)
	require.NoError(t, err)
	assert.Equal(t, []string{"m-1#1", "m-2#1"}, ids(got))
}

func TestEnterAgainReplacesTheMessagesEntryAndKeepsItsPlace(t *testing.T) {
	e := newEnv(t)
	first := entry("orders", "m-1#1", 0)
	again := first
	again.Token, again.EnteredAt = "token-second-wait", t0.Add(time.Hour)
	e.enter(t, first, entry("orders", "m-2#1", 30*time.Second), again)

	got, err := e.room.Oldest(t.Context(), "orders", 5)
	require.NoError(t, err)
	assert.Equal(t, []room.Entry{again, entry("orders", "m-2#1", 30*time.Second)}, got,
		"one entry per message, still first in line: its wait timed out, it did not arrive later")

	taken, err := e.room.Take(t.Context(), first)
	require.NoError(t, err)
	assert.False(t, taken, "the old token no longer takes the entry")
	taken, err = e.room.Take(t.Context(), again)
	require.NoError(t, err)
	assert.True(t, taken)
}

func TestEnterWithoutSinceJoinsTheLineWhenItEnters(t *testing.T) {
	e := newEnv(t)
	late := room.Entry{Key: "orders", MessageID: "m-1#1", Token: "token-m-1#1", EnteredAt: t0.Add(time.Minute)}
	e.enter(t, late, entry("orders", "m-2#1", 30*time.Second))
	// An item an earlier version stored has no since: its entry time stands in.
	old := entry("orders", "m-3#1", 45*time.Second)
	e.enter(t, old)
	item := e.raw(t, "orders", "m-3#1")
	delete(item, "since")
	_, err := e.client.PutItem(t.Context(), &dynamodb.PutItemInput{TableName: aws.String(e.table), Item: item})
	require.NoError(t, err)

	got, err := e.room.Oldest(t.Context(), "orders", 5)
	require.NoError(t, err)
	late.Since = late.EnteredAt
	assert.Equal(t, []room.Entry{entry("orders", "m-2#1", 30*time.Second), old, late}, got)
}

func TestEnterStoresTheExpiry(t *testing.T) {
	e := newEnv(t)
	e.enter(t, entry("orders", "m-1#1", 0))
	item := e.raw(t, "orders", "m-1#1")
	require.NotNil(t, item)
	assert.Equal(t, &types.AttributeValueMemberN{Value: strconv.FormatInt(t0.Add(ttl).Unix(), 10)}, item["ttl"], "the table's TTL attribute, shared with the delivery records")
	assert.Equal(t, &types.AttributeValueMemberS{Value: "orders"}, item[room.AttrRoom])
}

func TestEnterRefusesAnIncompleteEntry(t *testing.T) {
	e := newEnv(t)
	for name, tt := range map[string]struct {
		change func(*room.Entry)
		want   string
	}{
		"no key":     {func(en *room.Entry) { en.Key = "" }, "empty breaker key"},
		"no message": {func(en *room.Entry) { en.MessageID = "" }, "empty message id"},
		"no token":   {func(en *room.Entry) { en.Token = "" }, "empty task token"},
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

func TestTakeExactlyOnceUnderRacingReleasers(t *testing.T) {
	e := newEnv(t)
	en := entry("orders", "m-1#1", 0)
	e.enter(t, en)
	const goroutines = 64
	var wins, losses atomic.Int32
	var wg sync.WaitGroup
	start := make(chan struct{})
	for range goroutines {
		wg.Go(func() {
			<-start
			taken, err := e.room.Take(context.Background(), en)
			if !assert.NoError(t, err) {
				return
			}
			if taken {
				wins.Add(1)
			} else {
				losses.Add(1)
			}
		})
	}
	close(start)
	wg.Wait()
	assert.Equal(t, int32(1), wins.Load(), "exactly one releaser takes the entry")
	assert.Equal(t, int32(goroutines-1), losses.Load())
	assert.Nil(t, e.raw(t, "orders", "m-1#1"), "the entry is gone")
}

func TestOldestReportsAMalformedItem(t *testing.T) {
	e := newEnv(t)
	e.enter(t, entry("orders", "m-1#1", 0))
	item := e.raw(t, "orders", "m-1#1")
	for name, tt := range map[string]struct {
		change func(map[string]types.AttributeValue)
		want   string
	}{
		"no token":      {func(it map[string]types.AttributeValue) { delete(it, "token") }, `attribute "token": missing`},
		"numeric token": {func(it map[string]types.AttributeValue) { it["token"] = &types.AttributeValueMemberN{Value: "7"} }, `attribute "token"`},
		"no message id": {func(it map[string]types.AttributeValue) { delete(it, "message_id") }, `attribute "message_id"`},
		"bad entry time": {func(it map[string]types.AttributeValue) {
			it["entered_at"] = &types.AttributeValueMemberS{Value: "noon"}
		}, `malformed item m-1#1: attribute "entered_at": want an RFC 3339 time, got "noon"`},
		"bad line time": {func(it map[string]types.AttributeValue) {
			it["since"] = &types.AttributeValueMemberS{Value: "noon"}
		}, `malformed item m-1#1: attribute "since": want an RFC 3339 time, got "noon"`},
		"numeric line time": {func(it map[string]types.AttributeValue) { it["since"] = &types.AttributeValueMemberN{Value: "7"} }, `attribute "since"`},
	} {
		t.Run(name, func(t *testing.T) {
			bad := map[string]types.AttributeValue{}
			for k, v := range item {
				bad[k] = v
			}
			tt.change(bad)
			_, err := e.client.PutItem(t.Context(), &dynamodb.PutItemInput{TableName: aws.String(e.table), Item: bad})
			require.NoError(t, err)
			_, err = e.room.Oldest(t.Context(), "orders", 5)
			require.Error(t, err)
			assert.ErrorContains(t, err, `room "orders": malformed item`)
			assert.ErrorContains(t, err, tt.want)
		})
	}
}

func TestWatchHasOneWatcherAtATimePerRoom(t *testing.T) {
	e := newEnv(t)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	watch := func(key, message string, now time.Time) bool {
		t.Helper()
		took, err := e.room.Watch(t.Context(), key, message, now, time.Hour)
		require.NoError(t, err)
		return took
	}
	assert.True(t, watch("orders", "a#1", t0), "an unwatched room")
	assert.False(t, watch("orders", "b#1", t0.Add(59*time.Minute)), "watched by a#1 until t0+1h")
	assert.True(t, watch("billing", "b#1", t0), "each room has its own watch")
	assert.True(t, watch("orders", "c#1", t0.Add(time.Hour)), "the watch ended")
	assert.False(t, watch("orders", "a#1", t0.Add(90*time.Minute)), "watched by c#1 until t0+2h")
	assert.True(t, watch("orders", "c#1", t0.Add(100*time.Minute)), "the watcher, back in the room, watches on")
	assert.False(t, watch("orders", "a#1", t0.Add(150*time.Minute)), "until t0+2h40m")
}

func TestWatchPicksOneOfManyRacingCallers(t *testing.T) {
	e := newEnv(t)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	const goroutines = 64
	var watchers atomic.Int32
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range goroutines {
		wg.Go(func() {
			<-start
			took, err := e.room.Watch(context.Background(), "orders", fmt.Sprintf("m-%d#1", i), now, time.Hour)
			if assert.NoError(t, err) && took {
				watchers.Add(1)
			}
		})
	}
	close(start)
	wg.Wait()
	assert.Equal(t, int32(1), watchers.Load(), "exactly one caller watches the room")
	depth, err := e.room.Depth(t.Context(), "orders")
	require.NoError(t, err)
	assert.Zero(t, depth, "the watch is not in line")
}

// countingGets is a room API that counts its GetItem calls.
type countingGets struct {
	room.API
	gets atomic.Int32
}

func (c *countingGets) GetItem(ctx context.Context, in *dynamodb.GetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	c.gets.Add(1)
	return c.API.GetItem(ctx, in, opts...)
}

// While a Room knows its room's watch is live, others' calls skip the
// table; its watcher's, and any once the watch ended, read it.
func TestWatchSkipsTheTableWhileItKnowsTheWatchIsLive(t *testing.T) {
	e := newEnv(t)
	api := &countingGets{API: e.client}
	r := room.New(api, e.table, ttl)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	watch := func(message string, now time.Time) bool {
		t.Helper()
		took, err := r.Watch(t.Context(), "orders", message, now, time.Hour)
		require.NoError(t, err)
		return took
	}
	require.True(t, watch("a#1", t0))
	require.Equal(t, int32(1), api.gets.Load())
	assert.False(t, watch("b#1", t0.Add(time.Minute)))
	assert.False(t, watch("c#1", t0.Add(59*time.Minute)))
	assert.Equal(t, int32(1), api.gets.Load(), "known live: no read")
	assert.True(t, watch("a#1", t0.Add(30*time.Minute)), "the watcher reads and takes it again")
	assert.Equal(t, int32(2), api.gets.Load())
	assert.True(t, watch("d#1", t0.Add(90*time.Minute)), "ended: read, and taken")
	assert.Equal(t, int32(3), api.gets.Load())

	other := room.New(e.client, e.table, ttl) // another process: it has seen nothing
	took, err := other.Watch(t.Context(), "orders", "e#1", t0.Add(91*time.Minute), time.Hour)
	require.NoError(t, err)
	assert.False(t, took, "d#1 watches, as the table says")
}
