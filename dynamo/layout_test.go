package dynamo_test

import (
	"reflect"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/dynamo"
)

// TestFullRowSetsEveryField keeps TestRoundTrip honest: when breaker.Row
// gains a field, fullRow must set it, and the round trip then fails until
// the store persists it.
func TestFullRowSetsEveryField(t *testing.T) {
	var zeroFields func(path string, v reflect.Value) []string
	zeroFields = func(path string, v reflect.Value) []string {
		if v.Kind() != reflect.Struct || v.Type().PkgPath() != reflect.TypeFor[breaker.Row]().PkgPath() {
			if v.IsZero() {
				return []string{path}
			}
			return nil
		}
		var zero []string
		for i := range v.NumField() {
			zero = append(zero, zeroFields(path+"."+v.Type().Field(i).Name, v.Field(i))...)
		}
		return zero
	}
	assert.Empty(t, zeroFields("Row", reflect.ValueOf(fullRow("k"))))
}

// getRaw reads key's item as stored, bypassing the store's decoding.
func getRaw(t *testing.T, e env, key string) map[string]types.AttributeValue {
	t.Helper()
	out, err := e.client.GetItem(t.Context(), &dynamodb.GetItemInput{
		TableName:      aws.String(e.table),
		Key:            map[string]types.AttributeValue{"pk": s(dynamo.BreakerPrefix + key)},
		ConsistentRead: aws.Bool(true),
	})
	require.NoError(t, err)
	require.NotEmpty(t, out.Item, "item %q", key)
	return out.Item
}

func TestItemLayout(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	row := fullRow("layout")
	row.Window.Failures = 1<<63 | 1
	require.NoError(t, e.store.Save(ctx, 0, row))

	item := getRaw(t, e, "layout")
	assert.Equal(t, s("breaker#layout"), item["pk"])
	assert.Equal(t, s("FORCED_OPEN"), item["state"])
	assert.Equal(t, n("1"), item["version"])
	assert.Equal(t, s("8000000000000001"), item["window_failures"])
	assert.Equal(t, s("2025-03-14T15:09:26.535897932Z"), item["changed_at"])
	assert.Equal(t, s("alice@example.com"), item["actor"])
	assert.Equal(t, s("2025-03-14T15:08:26.535897932Z"), item["last_trip_at"])
	assert.Equal(t, s("3 consecutive failures"), item["last_trip_cause"])
	require.IsType(t, &types.AttributeValueMemberM{}, item["totals"])
	assert.Equal(t, n("22"), item["totals"].(*types.AttributeValueMemberM).Value["failures"])

	// Zero times, empty strings and no leases overwrite the old values with
	// NULL rather than placeholders such as year 1.
	cleared := breaker.Row{Key: "layout", State: breaker.Closed, Version: 2}
	require.NoError(t, e.store.Save(ctx, 1, cleared))
	item = getRaw(t, e, "layout")
	for _, name := range []string{"open_until", "closed_at", "throttled_until", "changed_at", "forced_until", "cause", "actor", "reason", "leases",
		"last_trip_at", "last_trip_cause"} {
		assert.Equal(t, &types.AttributeValueMemberNULL{Value: true}, item[name], name)
	}
	assert.Equal(t, s("CLOSED"), item["state"])
	assert.Equal(t, s("0000000000000000"), item["window_failures"])
}

func TestCreateTable(t *testing.T) {
	e := newEnv(t)
	// Creating a table that exists is accepted, so `redrive local` and
	// tests can call it on every start.
	require.NoError(t, dynamo.CreateTable(t.Context(), e.client, e.table))

	in := dynamo.TableInput("breakers")
	assert.Equal(t, "breakers", aws.ToString(in.TableName))
	assert.Equal(t, types.BillingModePayPerRequest, in.BillingMode)
	require.Len(t, in.KeySchema, 1, "partition key only: delivery records share the table")
	assert.Equal(t, "pk", aws.ToString(in.KeySchema[0].AttributeName))
	assert.Equal(t, types.KeyTypeHash, in.KeySchema[0].KeyType)
	attrs := map[string]types.ScalarAttributeType{}
	for _, a := range in.AttributeDefinitions {
		attrs[aws.ToString(a.AttributeName)] = a.AttributeType
	}
	assert.Equal(t, map[string]types.ScalarAttributeType{"pk": types.ScalarAttributeTypeS,
		dynamo.RoomAttr: types.ScalarAttributeTypeS, dynamo.RoomSeqAttr: types.ScalarAttributeTypeS,
		dynamo.ParkedDayAttr: types.ScalarAttributeTypeS, dynamo.ParkedSeqAttr: types.ScalarAttributeTypeS}, attrs,
		"the key attributes of the table and of its two indexes, nothing else")

	index := func(name, partition, sort string, p types.Projection) types.GlobalSecondaryIndex {
		return types.GlobalSecondaryIndex{
			IndexName: aws.String(name),
			KeySchema: []types.KeySchemaElement{
				{AttributeName: aws.String(partition), KeyType: types.KeyTypeHash},
				{AttributeName: aws.String(sort), KeyType: types.KeyTypeRange},
			},
			Projection: &p,
		}
	}
	assert.Equal(t, []types.GlobalSecondaryIndex{
		index(dynamo.RoomIndex, dynamo.RoomAttr, dynamo.RoomSeqAttr, types.Projection{ProjectionType: types.ProjectionTypeInclude,
			NonKeyAttributes: []string{"message_id", "entered_at", "since"}}),
		index(dynamo.ParkedIndex, dynamo.ParkedDayAttr, dynamo.ParkedSeqAttr, types.Projection{ProjectionType: types.ProjectionTypeAll}),
	}, in.GlobalSecondaryIndexes, "the waiting room's sparse index, without the documents, and the parking lot's")
}
