package ddbmem_test

import (
	"context"
	"strings"
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

// TestIndexWritesAreCountedAsDynamoDBBillsThem: besides the table's own
// unit for each write of a small item, an item entering or leaving an
// index is one index write, a changed index key two (REMOVE of a
// top-level attribute, which minidyn's interpreter ignores, is not
// tried), a change to an attribute the index projects one, any other
// change (or an item the sparse index does not hold) none.
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
		before := db.Capacity().WriteUnits
		step.do()
		assert.Equal(t, 1+step.want, db.Capacity().WriteUnits-before, step.name)
	}

	all := indexed(t, nil)
	_, err := all.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("t"), Item: map[string]types.AttributeValue{"pk": s("a"), "g": s("all"), "n": s("1")}})
	require.NoError(t, err)
	_, err = all.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("t"), Key: key,
		UpdateExpression: aws.String("SET doc = :v"), ExpressionAttributeValues: map[string]types.AttributeValue{":v": s("e")}})
	require.NoError(t, err)
	assert.Equal(t, int64(2+2), all.Capacity().WriteUnits, "an index projecting ALL takes every change of its items")
}

// TestCapacityIsBilledByItemSize: a write bills a unit per KB begun of the
// larger of the item before and after (a failed condition too), a read a
// unit per 4 KB begun, half when eventually consistent, at least one per
// call; a Query bills the items it reads together.
func TestCapacityIsBilledByItemSize(t *testing.T) {
	ctx := context.Background()
	db := indexed(t, &types.Projection{ProjectionType: types.ProjectionTypeInclude, NonKeyAttributes: []string{"small"}})
	key := map[string]types.AttributeValue{"pk": s("a")}
	big := map[string]types.AttributeValue{"pk": s("a"), "doc": s(strings.Repeat("x", 5000))}
	steps := []struct {
		name          string
		do            func() error
		reads, writes float64
	}{
		{"a put of 5 KB", func() error {
			_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("t"), Item: big})
			return err
		}, 0, 5},
		{"a strongly consistent read of it", func() error {
			_, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("t"), Key: key, ConsistentRead: aws.Bool(true)})
			return err
		}, 2, 0},
		{"an eventually consistent read", func() error {
			_, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("t"), Key: key})
			return err
		}, 1, 0},
		{"a read of a missing item", func() error {
			_, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("t"), Key: map[string]types.AttributeValue{"pk": s("none")}})
			return err
		}, 0.5, 0},
		{"a small update: the larger of before and after", func() error {
			_, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("t"), Key: key,
				UpdateExpression: aws.String("SET doc = :v"), ExpressionAttributeValues: map[string]types.AttributeValue{":v": s("d")}})
			return err
		}, 0, 5},
		{"a put whose condition fails", func() error {
			_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("t"), Item: big, ConditionExpression: aws.String("attribute_not_exists(pk)")})
			require.Error(t, err)
			return nil
		}, 0, 1},
		{"a delete", func() error {
			_, err := db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("t"), Key: key})
			return err
		}, 0, 1},
	}
	for _, step := range steps {
		before := db.Capacity()
		require.NoError(t, step.do(), step.name)
		after := db.Capacity()
		assert.Equal(t, step.reads, after.ReadUnits-before.ReadUnits, step.name)
		assert.Equal(t, int64(step.writes), after.WriteUnits-before.WriteUnits, step.name)
	}
}
