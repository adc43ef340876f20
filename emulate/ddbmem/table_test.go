package ddbmem_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http/httptest"
	"sort"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/breaker/breakertest"
	"github.com/redrive/redrive/dynamo"
	"github.com/redrive/redrive/emulate/ddbmem"
	"github.com/redrive/redrive/emulate/ddbserver"
	"github.com/redrive/redrive/emulate/loopback"
	"github.com/redrive/redrive/room"
)

const table = "redrive"

// newDB is a DB with the stack's table.
func newDB(t *testing.T) *ddbmem.DB {
	t.Helper()
	db := ddbmem.New()
	_, err := db.CreateTable(context.Background(), dynamo.TableInput(table))
	require.NoError(t, err)
	return db
}

// newMinidyn is a client of the embedded endpoint (ddbserver over minidyn)
// with the stack's table.
func newMinidyn(t *testing.T) *dynamodb.Client {
	t.Helper()
	srv := httptest.NewServer(ddbserver.New(nil))
	t.Cleanup(srv.Close)
	client := dynamodb.New(dynamodb.Options{
		Region: "us-east-1", BaseEndpoint: aws.String(srv.URL),
		Credentials: credentials.NewStaticCredentialsProvider("test", "test", ""),
		HTTPClient:  loopback.NewHTTPClient(), Retryer: aws.NopRetryer{},
	})
	require.NoError(t, dynamo.CreateTable(context.Background(), client, table))
	return client
}

func s(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }

// TestUpdateKeepsWhatItDoesNotName: an update leaves the attributes its
// expressions do not name as they were put, where minidyn's interpreter
// passed every attribute of the item through its own objects, turning a
// number of more digits than a float64 holds into another, and failing on
// one it cannot read; and a simple SET keeps the digits of the number it
// sets.
func TestUpdateKeepsWhatItDoesNotName(t *testing.T) {
	ctx := context.Background()
	db := newDB(t)
	key := map[string]types.AttributeValue{"pk": s("k")}
	big := &types.AttributeValueMemberN{Value: "12345678901234567890123"}
	odd := &types.AttributeValueMemberNULL{Value: false} // which the interpreter cannot read
	_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: map[string]types.AttributeValue{
		"pk": s("k"), "big": big, "odd": odd, "version": &types.AttributeValueMemberN{Value: "1"}}})
	require.NoError(t, err)
	out, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(table), Key: key,
		UpdateExpression:          aws.String("SET #v = :two"),
		ConditionExpression:       aws.String("#v = :one"),
		ExpressionAttributeNames:  map[string]string{"#v": "version"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":one": &types.AttributeValueMemberN{Value: "1"}, ":two": &types.AttributeValueMemberN{Value: "2"}},
		ReturnValues:              types.ReturnValueAllNew,
	})
	require.NoError(t, err, "the update does not name the attribute the interpreter cannot read")
	assert.Equal(t, big, out.Attributes["big"])
	assert.Equal(t, odd, out.Attributes["odd"])
	assert.Equal(t, &types.AttributeValueMemberN{Value: "2"}, out.Attributes["version"])
	got, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: key})
	require.NoError(t, err)
	assert.Equal(t, big, got.Item["big"])

	// A number set by a simple update keeps its digits too.
	_, err = db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(table), Key: key,
		UpdateExpression:          aws.String("SET #c = :big"),
		ExpressionAttributeNames:  map[string]string{"#c": "copy"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":big": big},
	})
	require.NoError(t, err)
	got, err = db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: key})
	require.NoError(t, err)
	assert.Equal(t, big, got.Item["copy"])
	assert.Equal(t, big, got.Item["big"])
}

func TestConditionalWrites(t *testing.T) {
	ctx := context.Background()
	db := newDB(t)
	put := func(version string, cond string) error {
		in := &dynamodb.PutItemInput{TableName: aws.String(table), Item: map[string]types.AttributeValue{
			"pk": s("k"), "version": &types.AttributeValueMemberN{Value: version}}}
		if cond != "" {
			in.ConditionExpression = aws.String(cond)
		}
		_, err := db.PutItem(ctx, in)
		return err
	}
	require.NoError(t, put("1", "attribute_not_exists(pk)"))
	assert.True(t, failedCondition(put("2", "attribute_not_exists(pk)")), "the item exists")

	update := func(from string) (*dynamodb.UpdateItemOutput, error) {
		return db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
			TableName: aws.String(table), Key: map[string]types.AttributeValue{"pk": s("k")},
			UpdateExpression:          aws.String("SET #v = :next"),
			ConditionExpression:       aws.String("#v = :from"),
			ExpressionAttributeNames:  map[string]string{"#v": "version"},
			ExpressionAttributeValues: map[string]types.AttributeValue{":from": &types.AttributeValueMemberN{Value: from}, ":next": &types.AttributeValueMemberN{Value: from + "0"}},
			ReturnValues:              types.ReturnValueAllNew,
		})
	}
	out, err := update("1")
	require.NoError(t, err)
	assert.Equal(t, &types.AttributeValueMemberN{Value: "10"}, out.Attributes["version"])
	_, err = update("1")
	assert.True(t, failedCondition(err), "a stale version loses")

	got, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: map[string]types.AttributeValue{"pk": s("k")}})
	require.NoError(t, err)
	assert.Equal(t, &types.AttributeValueMemberN{Value: "10"}, got.Item["version"], "the failed write changed nothing")

	del := func(v string) error {
		_, err := db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: map[string]types.AttributeValue{"pk": s("k")},
			ConditionExpression: aws.String("version = :v"), ExpressionAttributeValues: map[string]types.AttributeValue{":v": &types.AttributeValueMemberN{Value: v}}})
		return err
	}
	assert.True(t, failedCondition(del("1")))
	require.NoError(t, del("10"))
	got, err = db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: map[string]types.AttributeValue{"pk": s("k")}})
	require.NoError(t, err)
	assert.Nil(t, got.Item)

	_, err = db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("nope"), Key: map[string]types.AttributeValue{"pk": s("k")}})
	var missing *types.ResourceNotFoundException
	assert.ErrorAs(t, err, &missing)
}

// failedCondition reports whether err is a failed condition.
func failedCondition(err error) bool {
	_, failed := errors.AsType[*types.ConditionalCheckFailedException](err)
	return failed
}

// TestBreakerOverStore holds the breaker on dynamo on a DB to the
// concurrency invariants breakertest checks on every store: conditional
// writes with no lost update, one probe per cooldown, never more canaries
// than permits.
func TestBreakerOverStore(t *testing.T) {
	clock := breakertest.NewClock(time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC))
	b, err := breaker.New(dynamo.New(newDB(t), table), breaker.Policy{HalfOpenPermits: 3}, breaker.Options{Clock: clock, Random: breaker.NewRandom(7)})
	require.NoError(t, err)
	t.Run("mixed outcomes", func(t *testing.T) {
		breakertest.Hammer(t, b, "hammer", breakertest.HammerConfig{Goroutines: 32, Calls: 10, Seed: 7})
	})
	t.Run("canary permits", func(t *testing.T) { breakertest.HammerCanaries(t, b, clock, "canaries", 32) })
	t.Run("one probe per cooldown", func(t *testing.T) { breakertest.HammerProbe(t, b, clock, "probe", 32) })
}

// TestRoomLikeMinidyn plays the same random waiting-room traffic (enter,
// re-enter, list the oldest and the due in pages, count, claim then take,
// claim then unclaim, claim and let the lease run out) on a DB and on the
// embedded minidyn endpoint, and expects the same answers.
func TestRoomLikeMinidyn(t *testing.T) {
	ctx := context.Background()
	rooms := map[string]*room.Room{
		"mem":     room.New(newDB(t), table, time.Hour),
		"minidyn": room.New(newMinidyn(t), table, time.Hour),
	}
	rnd := rand.New(rand.NewPCG(13, 0))
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	keys := []string{"orders", "orders-b", "x"}
	for step := range 600 {
		at = at.Add(time.Duration(rnd.IntN(3)) * time.Millisecond) // ties happen
		key := keys[rnd.IntN(len(keys))]
		op := rnd.IntN(12)
		msg := fmt.Sprintf("m%d", rnd.IntN(80))
		var notBefore time.Time
		if rnd.IntN(2) == 0 {
			notBefore = at.Add(time.Duration(rnd.IntN(20)) * time.Millisecond) // some wait, some are due
		}
		claimOp := rnd.IntN(3)
		answers := map[string]string{}
		for name, r := range rooms {
			var got string
			switch {
			case op < 5:
				err := r.Enter(ctx, room.Entry{Key: key, MessageID: msg, Document: json.RawMessage(fmt.Sprintf(`{"step":%d}`, step)),
					EnteredAt: at, NotBefore: notBefore})
				got = fmt.Sprint(err)
			case op < 7:
				entries, err := r.Oldest(ctx, key, 1+step%7)
				got = fmt.Sprint(entries, err)
			case op < 8:
				entries, err := r.Due(ctx, key, 1+step%7, at)
				got = fmt.Sprint(entries, err)
			case op < 9:
				n, err := r.Depth(ctx, key)
				got = fmt.Sprint(n, err)
			default:
				entries, err := r.Oldest(ctx, key, 2)
				require.NoError(t, err)
				var settled []string
				for i, e := range entries {
					claimed, ok, err := r.Claim(ctx, e, fmt.Sprintf("c%d.%d", step, i), at, 5*time.Millisecond)
					require.NoError(t, err)
					result := fmt.Sprint(claimed, ok)
					if ok {
						switch claimOp {
						case 0:
							taken, err := r.Take(ctx, claimed)
							require.NoError(t, err)
							result += fmt.Sprint(" taken ", taken)
						case 1:
							require.NoError(t, r.Unclaim(ctx, claimed))
							result += " unclaimed"
						default: // left to its lease
						}
					}
					settled = append(settled, result)
				}
				got = fmt.Sprint(entries, settled)
			}
			answers[name] = got
		}
		require.Equal(t, answers["minidyn"], answers["mem"], "step %d (op %d on %q)", step, op, key)
	}
}

// TestQueryPagesInOrder checks a GSI Query's order, its Limit and
// LastEvaluatedKey, Select COUNT, and a sparse index.
func TestQueryPagesInOrder(t *testing.T) {
	ctx := context.Background()
	db := newDB(t)
	want := make([]string, 0, 2500)
	for i := range 2500 {
		seq := fmt.Sprintf("%05d", (i*7919)%2500)
		_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: map[string]types.AttributeValue{
			"pk": s("room#" + seq), dynamo.RoomAttr: s("orders"), dynamo.RoomSeqAttr: s(seq)}})
		require.NoError(t, err)
		want = append(want, seq)
	}
	_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: map[string]types.AttributeValue{"pk": s("breaker#orders")}})
	require.NoError(t, err)
	sort.Strings(want)
	var got []string
	var start map[string]types.AttributeValue
	pages := 0
	for {
		out, err := db.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String(dynamo.RoomIndex),
			KeyConditionExpression:    aws.String("#room = :key"),
			ExpressionAttributeNames:  map[string]string{"#room": dynamo.RoomAttr},
			ExpressionAttributeValues: map[string]types.AttributeValue{":key": s("orders")},
			Limit:                     aws.Int32(1000), ExclusiveStartKey: start})
		require.NoError(t, err)
		pages++
		for _, it := range out.Items {
			got = append(got, it[dynamo.RoomSeqAttr].(*types.AttributeValueMemberS).Value)
		}
		if start = out.LastEvaluatedKey; start == nil {
			break
		}
	}
	assert.Equal(t, want, got)
	assert.Equal(t, 3, pages)
	out, err := db.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String(dynamo.RoomIndex),
		KeyConditionExpression:    aws.String("#room = :key AND #seq BETWEEN :lo AND :hi"),
		ExpressionAttributeNames:  map[string]string{"#room": dynamo.RoomAttr, "#seq": dynamo.RoomSeqAttr},
		ExpressionAttributeValues: map[string]types.AttributeValue{":key": s("orders"), ":lo": s("00010"), ":hi": s("00019")},
		ScanIndexForward:          aws.Bool(false), Select: types.SelectCount})
	require.NoError(t, err)
	assert.EqualValues(t, 10, out.Count)
	assert.Empty(t, out.Items)
}

// TestQueryNumberOrder checks a Query's order on an index with a number
// sort key: by value, whatever the text, ties by primary key.
func TestQueryNumberOrder(t *testing.T) {
	ctx := context.Background()
	db := ddbmem.New()
	_, err := db.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String("nums"),
		KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{IndexName: aws.String("byN"), KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String("g"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("n"), KeyType: types.KeyTypeRange}}}}})
	require.NoError(t, err)
	nums := map[string]string{"a": "10", "b": "-2.5", "c": "1e1", "d": "0", "e": "-0", "f": "3", "g": "-100", "h": "0.5"}
	for pk, n := range nums {
		_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("nums"), Item: map[string]types.AttributeValue{
			"pk": s(pk), "g": s("all"), "n": &types.AttributeValueMemberN{Value: n}}})
		require.NoError(t, err)
	}
	out, err := db.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("nums"), IndexName: aws.String("byN"),
		KeyConditionExpression:    aws.String("g = :g"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":g": s("all")}})
	require.NoError(t, err)
	var got []string
	for _, it := range out.Items {
		got = append(got, it["pk"].(*types.AttributeValueMemberS).Value)
	}
	assert.Equal(t, []string{"g", "b", "d", "e", "h", "f", "a", "c"}, got)
}

// UpdateItem's UPDATED_NEW and UPDATED_OLD return the attributes whose
// value changed, nested values compared whole, as minidyn does. (DynamoDB
// is reported to return every attribute the update sets, changed or not;
// nothing in the project reads UPDATED_NEW or UPDATED_OLD.)
func TestUpdateReturnsTheUpdatedAttributes(t *testing.T) {
	ctx := context.Background()
	n := func(v string) types.AttributeValue { return &types.AttributeValueMemberN{Value: v} }
	m := func(l ...types.AttributeValue) types.AttributeValue {
		return &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"l": &types.AttributeValueMemberL{Value: l}}}
	}
	key := map[string]types.AttributeValue{"pk": s("u")}
	for name, api := range map[string]interface {
		PutItem(context.Context, *dynamodb.PutItemInput, ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error)
		UpdateItem(context.Context, *dynamodb.UpdateItemInput, ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error)
	}{"ddbmem": newDB(t), "minidyn": newMinidyn(t)} {
		_, err := api.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table),
			Item: map[string]types.AttributeValue{"pk": s("u"), "a": n("1"), "m": m(n("1"), s("x")), "z": s("same")}})
		require.NoError(t, err, name)
		update := func(rv types.ReturnValue) map[string]types.AttributeValue {
			out, err := api.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: key,
				UpdateExpression:          aws.String("SET a = a + :one, m = :m"),
				ExpressionAttributeValues: map[string]types.AttributeValue{":one": n("1"), ":m": m(n("1"), s("y"))},
				ReturnValues:              rv})
			require.NoError(t, err, name)
			return out.Attributes
		}
		assert.Equal(t, map[string]types.AttributeValue{"a": n("2"), "m": m(n("1"), s("y"))}, update(types.ReturnValueUpdatedNew), name)
		assert.Equal(t, map[string]types.AttributeValue{"a": n("2")}, update(types.ReturnValueUpdatedOld), name,
			"m was set to what it held: not an updated attribute")
	}
}
