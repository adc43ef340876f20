package ddbmem_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/dynamo"
)

// everyType is an item with a value of every attribute type, nested ones
// included.
func everyType() map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		"pk":               s("k"),
		dynamo.RoomAttr:    s("orders"),
		dynamo.RoomSeqAttr: s("0001"),
		"n":                &types.AttributeValueMemberN{Value: "7"},
		"b":                &types.AttributeValueMemberB{Value: []byte("bytes")},
		"bool":             &types.AttributeValueMemberBOOL{Value: true},
		"null":             &types.AttributeValueMemberNULL{Value: true},
		"ss":               &types.AttributeValueMemberSS{Value: []string{"a", "b"}},
		"ns":               &types.AttributeValueMemberNS{Value: []string{"1", "2"}},
		"bs":               &types.AttributeValueMemberBS{Value: [][]byte{[]byte("x")}},
		"l":                &types.AttributeValueMemberL{Value: []types.AttributeValue{s("e"), &types.AttributeValueMemberB{Value: []byte("y")}}},
		"m":                &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"inner": s("v"), "list": &types.AttributeValueMemberL{Value: []types.AttributeValue{s("z")}}}},
	}
}

// scribble changes every value of an item in place, nested ones included,
// and adds attributes, as a careless caller might.
func scribble(item map[string]types.AttributeValue) {
	for _, v := range item {
		scribbleValue(v)
	}
	item["added"] = s("added")
}

// scribbleValue changes a value in place (see scribble).
func scribbleValue(v types.AttributeValue) {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		v.Value = "changed"
	case *types.AttributeValueMemberN:
		v.Value = "99"
	case *types.AttributeValueMemberB:
		v.Value[0] = '!'
	case *types.AttributeValueMemberBOOL:
		v.Value = false
	case *types.AttributeValueMemberNULL:
		v.Value = false
	case *types.AttributeValueMemberSS:
		v.Value[0] = "changed"
	case *types.AttributeValueMemberNS:
		v.Value[0] = "99"
	case *types.AttributeValueMemberBS:
		v.Value[0][0] = '!'
	case *types.AttributeValueMemberL:
		for _, e := range v.Value {
			scribbleValue(e)
		}
		v.Value[0] = s("replaced")
	case *types.AttributeValueMemberM:
		scribble(v.Value)
	}
}

// TestStoredItemsShareNothing changes what a caller passed and what it got
// back from every read, and expects the stored item unchanged.
func TestStoredItemsShareNothing(t *testing.T) {
	ctx := context.Background()
	db := newDB(t)
	key := map[string]types.AttributeValue{"pk": s("k")}
	get := func() map[string]types.AttributeValue {
		out, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: key})
		require.NoError(t, err)
		return out.Item
	}
	in := everyType()
	_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: in})
	require.NoError(t, err)
	scribble(in)
	require.Equal(t, everyType(), get(), "changing the item put")

	scribble(get())
	require.Equal(t, everyType(), get(), "changing an item read")

	q, err := db.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String(dynamo.RoomIndex),
		KeyConditionExpression:    aws.String("#room = :key"),
		ExpressionAttributeNames:  map[string]string{"#room": dynamo.RoomAttr},
		ExpressionAttributeValues: map[string]types.AttributeValue{":key": s("orders")},
		Limit:                     aws.Int32(1)})
	require.NoError(t, err)
	require.Len(t, q.Items, 1)
	scribble(q.Items[0])
	scribble(q.LastEvaluatedKey)
	require.Equal(t, everyType(), get(), "changing a Query's items")

	u, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: key,
		UpdateExpression: aws.String("SET n = n + :one"), ExpressionAttributeValues: map[string]types.AttributeValue{":one": &types.AttributeValueMemberN{Value: "1"}},
		ReturnValues: types.ReturnValueAllNew})
	require.NoError(t, err)
	want := everyType()
	want["n"] = &types.AttributeValueMemberN{Value: "8"}
	scribble(u.Attributes)
	got := get()
	assert.ElementsMatch(t, want["ss"].(*types.AttributeValueMemberSS).Value, got["ss"].(*types.AttributeValueMemberSS).Value)
	assert.ElementsMatch(t, want["ns"].(*types.AttributeValueMemberNS).Value, got["ns"].(*types.AttributeValueMemberNS).Value)
	delete(want, "ss")
	delete(want, "ns")
	delete(got, "ss")
	delete(got, "ns")
	require.Equal(t, want, got, "changing what an update returned")
}
