package ddbmem_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/emulate/ddbmem"
)

// indexed is a DB whose table "t" has an index "byG" (partition g, sort
// n) projecting p.
func indexed(t *testing.T, p *types.Projection) *ddbmem.DB {
	t.Helper()
	db := ddbmem.New()
	_, err := db.CreateTable(context.Background(), &dynamodb.CreateTableInput{TableName: aws.String("t"),
		KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{IndexName: aws.String("byG"), Projection: p, KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String("g"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("n"), KeyType: types.KeyTypeRange}}}}})
	require.NoError(t, err)
	return db
}

// TestQueryOnAnIndexReturnsWhatItProjects: ALL returns the whole item,
// KEYS_ONLY the table's and the index's keys, INCLUDE those and its
// NonKeyAttributes; a ProjectionExpression keeps of that what it names.
func TestQueryOnAnIndexReturnsWhatItProjects(t *testing.T) {
	ctx := context.Background()
	item := map[string]types.AttributeValue{"pk": s("a"), "g": s("all"), "n": s("1"), "small": s("x"), "doc": s("a large document")}
	for _, c := range []struct {
		name string
		p    *types.Projection
		want []string
	}{
		{"none given", nil, []string{"pk", "g", "n", "small", "doc"}},
		{"all", &types.Projection{ProjectionType: types.ProjectionTypeAll}, []string{"pk", "g", "n", "small", "doc"}},
		{"keys only", &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}, []string{"pk", "g", "n"}},
		{"include", &types.Projection{ProjectionType: types.ProjectionTypeInclude, NonKeyAttributes: []string{"small"}}, []string{"pk", "g", "n", "small"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			db := indexed(t, c.p)
			_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("t"), Item: item})
			require.NoError(t, err)
			q := &dynamodb.QueryInput{TableName: aws.String("t"), IndexName: aws.String("byG"),
				KeyConditionExpression: aws.String("g = :g"), ExpressionAttributeValues: map[string]types.AttributeValue{":g": s("all")}}
			out, err := db.Query(ctx, q)
			require.NoError(t, err)
			require.Len(t, out.Items, 1)
			var got []string
			for name := range out.Items[0] {
				got = append(got, name)
			}
			assert.ElementsMatch(t, c.want, got)

			q.ProjectionExpression = aws.String("pk, doc")
			out, err = db.Query(ctx, q)
			require.NoError(t, err)
			_, hasDoc := out.Items[0]["doc"]
			assert.Equal(t, len(c.want) == 5, hasDoc, "a ProjectionExpression reads only what the index holds")
			whole, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("t"), Key: map[string]types.AttributeValue{"pk": s("a")}})
			require.NoError(t, err)
			assert.Len(t, whole.Item, 5, "the table keeps the whole item")
		})
	}
}

// TestIndexWritesAreCountedAsDynamoDBBillsThem: an item entering or
// leaving an index is one index write, a changed index key two (REMOVE of
// a top-level attribute, which minidyn's interpreter ignores, is not
// tried), a change
// to an attribute the index projects one, any other change (or an item
// the sparse index does not hold) none.
func TestIndexWritesAreCountedAsDynamoDBBillsThem(t *testing.T) {
	ctx := context.Background()
	db := indexed(t, &types.Projection{ProjectionType: types.ProjectionTypeInclude, NonKeyAttributes: []string{"small"}})
	key := map[string]types.AttributeValue{"pk": s("a")}
	update := func(expr string, values map[string]types.AttributeValue) {
		t.Helper()
		_, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("t"), Key: key,
			UpdateExpression: aws.String(expr), ExpressionAttributeValues: values})
		require.NoError(t, err)
	}
	steps := []struct {
		name string
		do   func()
		want int64
	}{
		{"a put outside the index", func() {
			_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("t"), Item: map[string]types.AttributeValue{"pk": s("b"), "doc": s("d")}})
			require.NoError(t, err)
		}, 0},
		{"a put into the index", func() {
			_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("t"), Item: map[string]types.AttributeValue{"pk": s("a"), "g": s("all"), "n": s("1"), "doc": s("d")}})
			require.NoError(t, err)
		}, 1},
		{"an attribute the index does not project", func() { update("SET doc = :v", map[string]types.AttributeValue{":v": s("e")}) }, 0},
		{"an attribute it projects", func() { update("SET small = :v", map[string]types.AttributeValue{":v": s("x")}) }, 1},
		{"its sort key", func() { update("SET n = :v", map[string]types.AttributeValue{":v": s("2")}) }, 2},
		{"another partition", func() { update("SET g = :v", map[string]types.AttributeValue{":v": s("other")}) }, 2},
		{"a delete", func() {
			_, err := db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("t"), Key: key})
			require.NoError(t, err)
		}, 1},
	}
	for _, step := range steps {
		before := db.IndexWrites()
		step.do()
		assert.Equal(t, step.want, db.IndexWrites()-before, step.name)
	}

	all := indexed(t, nil)
	_, err := all.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("t"), Item: map[string]types.AttributeValue{"pk": s("a"), "g": s("all"), "n": s("1")}})
	require.NoError(t, err)
	_, err = all.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("t"), Key: key,
		UpdateExpression: aws.String("SET doc = :v"), ExpressionAttributeValues: map[string]types.AttributeValue{":v": s("e")}})
	require.NoError(t, err)
	assert.Equal(t, int64(2), all.IndexWrites(), "an index projecting ALL takes every change of its items")
}
