package ddbmem_test

import (
	"context"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/dynamo"
	"github.com/redrive/redrive/emulate/ddbmem"
	"github.com/redrive/redrive/emulate/liveheap"
	"github.com/redrive/redrive/emulate/racecheck"
)

// maxBytesPerItem bounds the heap an item like a waiting room's holds in
// a DB, its strings and index entry included: measured at 999 bytes, plus
// 25%. It was 1,486 when items were kept in the SDK's form, and 2,526 in
// minidyn's.
const maxBytesPerItem = 1250

// tokenLength is the length of a task token, as Step Functions makes them.
const tokenLength = 672

// roomItem is a waiting-room item (as room writes one) of message i
// in room key: seven string and number attributes, the token unique.
func roomItem(key string, i int) map[string]types.AttributeValue {
	msg := "m" + strconv.Itoa(i)
	seq := fmt.Sprintf("2026-01-01T00:00:00.%09dZ#%s", i, msg)
	token := strconv.Itoa(i) + strings.Repeat("t", tokenLength-len(strconv.Itoa(i)))
	return map[string]types.AttributeValue{
		"pk":               s("room#" + key + "#" + msg),
		dynamo.RoomAttr:    s(key),
		dynamo.RoomSeqAttr: s(seq),
		"token":            s(token),
		"message_id":       s(msg),
		"entered_at":       s(seq[:len("2006-01-02T15:04:05.000000000Z")]),
		"ttl":              &types.AttributeValueMemberN{Value: strconv.Itoa(1767225600 + i)},
	}
}

// maxBytesPerRoomItem bounds the heap a room-shaped item (roomShaped)
// holds in a DB, as maxBytesPerItem does for roomItem: measured at 423
// bytes, plus 25%. It was 1,007 when items were kept in the SDK's form.
const maxBytesPerRoomItem = 530

// roomShaped is a waiting-room item of message i as a simulation makes
// them: uuid message ids, a 40-character (version 3) task token, every
// item in one room.
func roomShaped(i int) map[string]types.AttributeValue {
	msg := fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x#1", i*2654435761%(1<<32), i%0x10000, i%0x1000, (i*7)%0x1000, i*40503)
	at := time.Date(2026, 1, 1, 0, 12, 34, 123456789, time.UTC).Add(time.Duration(i) * time.Microsecond)
	return map[string]types.AttributeValue{
		"pk":               s("room#tenant-3#" + msg),
		dynamo.RoomAttr:    s("tenant-3"),
		dynamo.RoomSeqAttr: s(at.Format("2006-01-02T15:04:05.000000000Z") + "#" + msg),
		"token":            s(fmt.Sprintf("v3.%037x", i)),
		"message_id":       s(msg),
		"entered_at":       s(at.Format(time.RFC3339Nano)),
		"ttl":              &types.AttributeValueMemberN{Value: strconv.Itoa(1767226354 + i/1000000)},
	}
}

// TestBytesPerStoredItem holds the heap a stored waiting-room item costs
// (its index entry included) under a bound, for roomItem and roomShaped:
// a simulation keeps a million of them.
func TestBytesPerStoredItem(t *testing.T) {
	if racecheck.Enabled {
		t.Skip("the race detector changes what the heap holds")
	}
	for _, c := range []struct {
		name string
		item func(int) map[string]types.AttributeValue
		max  float64
	}{
		{"roomItem", func(i int) map[string]types.AttributeValue { return roomItem("orders", i) }, maxBytesPerItem},
		{"roomShaped", roomShaped, maxBytesPerRoomItem},
	} {
		t.Run(c.name, func(t *testing.T) {
			const n = 20000
			ctx := context.Background()
			db := newDB(t)
			before := liveheap.Bytes()
			for i := range n {
				_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: c.item(i)})
				require.NoError(t, err)
			}
			perItem := float64(liveheap.Bytes()-before) / n
			runtime.KeepAlive(db)
			t.Logf("%.0f bytes per stored item", perItem)
			require.LessOrEqual(t, perItem, c.max, "heap bytes per stored waiting-room item")
		})
	}
}

// TestReplacedItemsFreed replaces every stored item, by a put of another
// token and by an update, and expects the heap to hold no more than
// before: nothing the table keeps still points into a replaced item.
func TestReplacedItemsFreed(t *testing.T) {
	if racecheck.Enabled {
		t.Skip("the race detector changes what the heap holds")
	}
	const n = 20000
	ctx := context.Background()
	db := newDB(t)
	before := liveheap.Bytes()
	for i := range n {
		_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: roomShaped(i)})
		require.NoError(t, err)
	}
	stored := liveheap.Bytes() - before
	for i := range n {
		item := roomShaped(i)
		item["token"] = s(fmt.Sprintf("v3.%037x", n+i))
		_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: item})
		require.NoError(t, err)
		_, err = db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: map[string]types.AttributeValue{"pk": item["pk"]},
			UpdateExpression:          aws.String("SET #ttl = :ttl"),
			ExpressionAttributeNames:  map[string]string{"#ttl": "ttl"},
			ExpressionAttributeValues: map[string]types.AttributeValue{":ttl": &types.AttributeValueMemberN{Value: "1767230000"}}})
		require.NoError(t, err)
	}
	replaced := liveheap.Bytes() - before
	runtime.KeepAlive(db)
	t.Logf("%.0f bytes per stored item, %.0f once replaced", float64(stored)/n, float64(replaced)/n)
	require.Less(t, float64(replaced), 1.1*float64(stored), "heap after replacing every item")
}

// BenchmarkPutGetQuery measures the waiting room's operations on a DB
// holding 10,000 room items: enter (PutItem), read back (GetItem), list
// the oldest ten (Query with Limit), take (DeleteItem with a condition,
// then the PutItem that puts the item back) and a conditional update
// (UpdateItem returning the new item).
func BenchmarkPutGetQuery(b *testing.B) {
	ctx := context.Background()
	const n = 10000
	items := make([]map[string]types.AttributeValue, n)
	for i := range items {
		items[i] = roomItem("orders", i)
	}
	db, putAll := roomDB(b, items)
	putAll()
	key := func(i int) map[string]types.AttributeValue {
		return map[string]types.AttributeValue{"pk": items[i%n]["pk"]}
	}
	b.Run("put", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: items[i%n]})
			require.NoError(b, err)
		}
	})
	b.Run("get", func(b *testing.B) { benchGet(b, db, key) })
	b.Run("query", func(b *testing.B) { benchQuery(b, db, "orders") })
	b.Run("take", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			_, err := db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: key(i),
				ConditionExpression:       aws.String("#token = :token"),
				ExpressionAttributeNames:  map[string]string{"#token": "token"},
				ExpressionAttributeValues: map[string]types.AttributeValue{":token": items[i%n]["token"]}})
			require.NoError(b, err)
			_, err = db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: items[i%n]})
			require.NoError(b, err)
		}
	})
	b.Run("update", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			_, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: key(i),
				UpdateExpression:          aws.String("SET #ttl = #ttl + :one"),
				ConditionExpression:       aws.String("attribute_exists(#ttl)"),
				ExpressionAttributeNames:  map[string]string{"#ttl": "ttl"},
				ExpressionAttributeValues: map[string]types.AttributeValue{":one": &types.AttributeValueMemberN{Value: "1"}},
				ReturnValues:              types.ReturnValueAllNew})
			require.NoError(b, err)
		}
	})
}

// BenchmarkRoomShaped measures the hot operations on a DB holding 10,000
// room-shaped items in one room: PutItem (replacing an item by one with
// another token), GetItem, UpdateItem with a condition, DeleteItem with a
// condition, and a Query of the room's index with a Limit.
func BenchmarkRoomShaped(b *testing.B) {
	ctx := context.Background()
	const n = 10000
	items := make([]map[string]types.AttributeValue, n)
	db, putAll := roomDB(b, items)
	retokened := make([]map[string]types.AttributeValue, n)
	for i := range items {
		items[i] = roomShaped(i)
		retokened[i] = roomShaped(i)
		retokened[i]["token"] = s(fmt.Sprintf("v3.%037x", n+i))
	}
	putAll()
	key := func(i int) map[string]types.AttributeValue {
		return map[string]types.AttributeValue{"pk": items[i%n]["pk"]}
	}
	b.Run("put", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			item := items[i%n]
			if i/n%2 == 0 {
				item = retokened[i%n]
			}
			_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: item})
			require.NoError(b, err)
		}
		b.StopTimer()
		putAll()
	})
	b.Run("get", func(b *testing.B) { benchGet(b, db, key) })
	b.Run("update", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			_, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: key(i),
				UpdateExpression:          aws.String("SET #ttl = :ttl"),
				ConditionExpression:       aws.String("#token = :token"),
				ExpressionAttributeNames:  map[string]string{"#ttl": "ttl", "#token": "token"},
				ExpressionAttributeValues: map[string]types.AttributeValue{":ttl": &types.AttributeValueMemberN{Value: "1767230000"}, ":token": items[i%n]["token"]}})
			require.NoError(b, err)
		}
	})
	b.Run("delete", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			if i > 0 && i%n == 0 {
				b.StopTimer()
				putAll()
				b.StartTimer()
			}
			_, err := db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: key(i),
				ConditionExpression:       aws.String("#token = :token"),
				ExpressionAttributeNames:  map[string]string{"#token": "token"},
				ExpressionAttributeValues: map[string]types.AttributeValue{":token": items[i%n]["token"]}})
			require.NoError(b, err)
		}
		b.StopTimer()
		putAll()
	})
	b.Run("query", func(b *testing.B) { benchQuery(b, db, "tenant-3") })
}

// roomDB is a DB with the room's table, and putAll, which puts items (as
// they are when it is called) into it.
func roomDB(b *testing.B, items []map[string]types.AttributeValue) (db *ddbmem.DB, putAll func()) {
	db = ddbmem.New()
	_, err := db.CreateTable(b.Context(), dynamo.TableInput(table))
	require.NoError(b, err)
	return db, func() {
		for _, item := range items {
			_, err := db.PutItem(b.Context(), &dynamodb.PutItemInput{TableName: aws.String(table), Item: item})
			require.NoError(b, err)
		}
	}
}

// benchGet measures GetItem of db's room items by key(i).
func benchGet(b *testing.B, db *ddbmem.DB, key func(i int) map[string]types.AttributeValue) {
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		out, err := db.GetItem(b.Context(), &dynamodb.GetItemInput{TableName: aws.String(table), Key: key(i)})
		require.NoError(b, err)
		require.Len(b, out.Item, 7)
	}
}

// benchQuery measures a Query of the oldest ten items of db's room.
func benchQuery(b *testing.B, db *ddbmem.DB, room string) {
	b.ReportAllocs()
	for b.Loop() {
		out, err := db.Query(b.Context(), &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String(dynamo.RoomIndex),
			KeyConditionExpression:    aws.String("#room = :key"),
			ExpressionAttributeNames:  map[string]string{"#room": dynamo.RoomAttr},
			ExpressionAttributeValues: map[string]types.AttributeValue{":key": s(room)},
			Limit:                     aws.Int32(10)})
		require.NoError(b, err)
		require.Len(b, out.Items, 10)
	}
}
