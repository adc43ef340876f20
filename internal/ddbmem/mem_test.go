package ddbmem_test

import (
	"context"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/breaker/dynamostore"
	"github.com/redrive/redrive/internal/ddbmem"
	"github.com/redrive/redrive/internal/racecheck"
)

// maxBytesPerItem bounds the heap an item like a waiting room's holds in
// a DB, its strings and index entry included: measured at 1,486 bytes,
// plus 25%. It was 2,526 when items were kept in minidyn's form.
const maxBytesPerItem = 1850

// tokenLength is the length of a task token, as Step Functions makes them.
const tokenLength = 672

// roomItem is a waiting-room item (as tasks/room writes one) of message i
// in room key: seven string and number attributes, the token unique.
func roomItem(key string, i int) map[string]types.AttributeValue {
	msg := "m" + strconv.Itoa(i)
	seq := fmt.Sprintf("2026-01-01T00:00:00.%09dZ#%s", i, msg)
	token := strconv.Itoa(i) + strings.Repeat("t", tokenLength-len(strconv.Itoa(i)))
	return map[string]types.AttributeValue{
		"pk":                    s("room#" + key + "#" + msg),
		dynamostore.RoomAttr:    s(key),
		dynamostore.RoomSeqAttr: s(seq),
		"token":                 s(token),
		"message_id":            s(msg),
		"entered_at":            s(seq[:len("2006-01-02T15:04:05.000000000Z")]),
		"ttl":                   &types.AttributeValueMemberN{Value: strconv.Itoa(1767225600 + i)},
	}
}

// TestBytesPerStoredItem holds the heap a stored waiting-room item costs
// (its index entry included) under maxBytesPerItem: a simulation keeps a
// million of them.
func TestBytesPerStoredItem(t *testing.T) {
	if racecheck.Enabled {
		t.Skip("the race detector changes what the heap holds")
	}
	const n = 20000
	ctx := context.Background()
	db := newDB(t)
	before := heapAlloc()
	for i := range n {
		_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: roomItem("orders", i)})
		require.NoError(t, err)
	}
	perItem := float64(heapAlloc()-before) / n
	runtime.KeepAlive(db)
	t.Logf("%.0f bytes per stored item", perItem)
	require.LessOrEqual(t, perItem, float64(maxBytesPerItem), "heap bytes per stored waiting-room item")
}

// heapAlloc is the live heap, after a collection.
func heapAlloc() int64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// BenchmarkPutGetQuery measures the waiting room's operations on a DB
// holding 10,000 room items: enter (PutItem), read back (GetItem), list
// the oldest ten (Query with Limit), take (DeleteItem with a condition,
// then the PutItem that puts the item back) and a conditional update
// (UpdateItem returning the new item).
func BenchmarkPutGetQuery(b *testing.B) {
	ctx := context.Background()
	db := ddbmem.New()
	_, err := db.CreateTable(ctx, dynamostore.TableInput(table))
	require.NoError(b, err)
	const n = 10000
	items := make([]map[string]types.AttributeValue, n)
	for i := range items {
		items[i] = roomItem("orders", i)
		_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: items[i]})
		require.NoError(b, err)
	}
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
	b.Run("get", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			out, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: key(i)})
			require.NoError(b, err)
			require.Len(b, out.Item, 7)
		}
	})
	b.Run("query", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			out, err := db.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String(dynamostore.RoomIndex),
				KeyConditionExpression:    aws.String("#room = :key"),
				ExpressionAttributeNames:  map[string]string{"#room": dynamostore.RoomAttr},
				ExpressionAttributeValues: map[string]types.AttributeValue{":key": s("orders")},
				Limit:                     aws.Int32(10)})
			require.NoError(b, err)
			require.Len(b, out.Items, 10)
		}
	})
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
