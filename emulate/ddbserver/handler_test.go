package ddbserver_test

import (
	"fmt"
	"net/http"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/logging"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/dynamo"
)

func TestDynamostoreCreateTableFindsTheTableActive(t *testing.T) {
	e := newEnv(t)
	e.createTable(table)

	out, err := e.client.DescribeTable(t.Context(), &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	require.NoError(t, err)
	assert.Equal(t, types.TableStatusActive, out.Table.TableStatus)
	require.Len(t, out.Table.GlobalSecondaryIndexes, 2, "the waiting room's and the parking lot's")
	for _, gsi := range out.Table.GlobalSecondaryIndexes {
		assert.Equal(t, types.IndexStatusActive, gsi.IndexStatus, aws.ToString(gsi.IndexName))
	}

	// The second call finds the table there and active.
	e.createTable(table)
}

func TestTableDescriptionLeavesOutUnsetMembers(t *testing.T) {
	e := newEnv(t)
	e.createTable(table)

	r := e.call("DescribeTable", `{"TableName":"redrive"}`)
	require.Equal(t, http.StatusOK, r.status)
	desc := r.body["Table"].(map[string]any)
	assert.Equal(t, "ACTIVE", desc["TableStatus"])
	assert.Equal(t, "redrive", desc["TableName"])
	var walk func(path string, v any)
	walk = func(path string, v any) {
		if v == nil || v == "" {
			t.Errorf("%s is %#v", path, v)
		}
		switch v := v.(type) {
		case map[string]any:
			for k, m := range v {
				walk(path+"."+k, m)
			}
		case []any:
			for i, m := range v {
				walk(fmt.Sprintf("%s[%d]", path, i), m)
			}
		}
	}
	walk("Table", desc)
}

func TestTableExistsWaiterReturnsPromptly(t *testing.T) {
	e := newEnv(t)
	_, err := e.client.CreateTable(t.Context(), dynamo.TableInput(table))
	require.NoError(t, err)

	// The waiter polls every 20 s or more: only a first DescribeTable that
	// finds the table ACTIVE returns this soon.
	start := time.Now()
	err = dynamodb.NewTableExistsWaiter(e.client).Wait(t.Context(), &dynamodb.DescribeTableInput{TableName: aws.String(table)}, time.Minute)
	require.NoError(t, err)
	assert.Less(t, time.Since(start), 5*time.Second)
}

func TestTableOperationsReportTheirStatus(t *testing.T) {
	e := newEnv(t)
	created, err := e.client.CreateTable(t.Context(), dynamo.TableInput(table))
	require.NoError(t, err)
	assert.Equal(t, types.TableStatusActive, created.TableDescription.TableStatus)

	updated, err := e.client.UpdateTable(t.Context(), &dynamodb.UpdateTableInput{TableName: aws.String(table)})
	require.NoError(t, err)
	assert.Equal(t, types.TableStatusActive, updated.TableDescription.TableStatus)

	deleted, err := e.client.DeleteTable(t.Context(), &dynamodb.DeleteTableInput{TableName: aws.String(table)})
	require.NoError(t, err)
	assert.Equal(t, types.TableStatusDeleting, deleted.TableDescription.TableStatus)
	assert.Equal(t, table, aws.ToString(deleted.TableDescription.TableName))

	_, err = e.client.DescribeTable(t.Context(), &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	var notFound *types.ResourceNotFoundException
	require.ErrorAs(t, err, &notFound)
}

func TestListTablesPagesInNameOrder(t *testing.T) {
	e := newEnv(t)
	for _, name := range []string{"ccc", "aaa", "eee", "bbb", "ddd"} {
		e.createTable(name)
	}
	list := func(in *dynamodb.ListTablesInput) ([]string, string) {
		t.Helper()
		out, err := e.client.ListTables(t.Context(), in)
		require.NoError(t, err)
		return out.TableNames, aws.ToString(out.LastEvaluatedTableName)
	}

	names, last := list(&dynamodb.ListTablesInput{})
	assert.Equal(t, []string{"aaa", "bbb", "ccc", "ddd", "eee"}, names)
	assert.Empty(t, last)

	names, last = list(&dynamodb.ListTablesInput{Limit: aws.Int32(2)})
	assert.Equal(t, []string{"aaa", "bbb"}, names)
	assert.Equal(t, "bbb", last)
	names, last = list(&dynamodb.ListTablesInput{Limit: aws.Int32(2), ExclusiveStartTableName: aws.String(last)})
	assert.Equal(t, []string{"ccc", "ddd"}, names)
	assert.Equal(t, "ddd", last)
	names, last = list(&dynamodb.ListTablesInput{Limit: aws.Int32(2), ExclusiveStartTableName: aws.String(last)})
	assert.Equal(t, []string{"eee"}, names)
	assert.Empty(t, last, "no more tables")

	// The start need not name a table; a full last page ends the listing.
	names, last = list(&dynamodb.ListTablesInput{Limit: aws.Int32(3), ExclusiveStartTableName: aws.String("bb")})
	assert.Equal(t, []string{"bbb", "ccc", "ddd"}, names)
	assert.Equal(t, "ddd", last)
	names, last = list(&dynamodb.ListTablesInput{ExclusiveStartTableName: aws.String("ddd"), Limit: aws.Int32(1)})
	assert.Equal(t, []string{"eee"}, names)
	assert.Empty(t, last)

	_, err := e.client.DeleteTable(t.Context(), &dynamodb.DeleteTableInput{TableName: aws.String("ccc")})
	require.NoError(t, err)
	var all []string
	for p := dynamodb.NewListTablesPaginator(e.client, &dynamodb.ListTablesInput{Limit: aws.Int32(2)}); p.HasMorePages(); {
		page, err := p.NextPage(t.Context())
		require.NoError(t, err)
		all = append(all, page.TableNames...)
	}
	assert.Equal(t, []string{"aaa", "bbb", "ddd", "eee"}, all)
}

func TestListTablesWithoutTablesAnswersAnEmptyList(t *testing.T) {
	r := newEnv(t).call("ListTables", `{}`)
	require.Equal(t, http.StatusOK, r.status)
	assert.Equal(t, map[string]any{"TableNames": []any{}}, r.body)
}

func TestListTablesRejectsALimitOutOfRange(t *testing.T) {
	e := newEnv(t)
	for limit, want := range map[int32]string{
		0:   "1 validation error detected: Value '0' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1",
		101: "1 validation error detected: Value '101' at 'limit' failed to satisfy constraint: Member must have value less than or equal to 100",
	} {
		_, err := e.client.ListTables(t.Context(), &dynamodb.ListTablesInput{Limit: aws.Int32(limit)})
		var apiErr smithy.APIError
		require.ErrorAs(t, err, &apiErr, "Limit %d", limit)
		assert.Equal(t, "ValidationException", apiErr.ErrorCode())
		assert.Equal(t, want, apiErr.ErrorMessage())
	}
}

func TestTimeToLiveIsRememberedPerTable(t *testing.T) {
	e := newEnv(t)
	e.createTable(table)
	e.createTable("other")
	describe := func(name string) *types.TimeToLiveDescription {
		t.Helper()
		out, err := e.client.DescribeTimeToLive(t.Context(), &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(name)})
		require.NoError(t, err)
		return out.TimeToLiveDescription
	}
	update := func(name string, enabled bool) (*dynamodb.UpdateTimeToLiveOutput, error) {
		return e.client.UpdateTimeToLive(t.Context(), &dynamodb.UpdateTimeToLiveInput{
			TableName:               aws.String(name),
			TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("expiresAt"), Enabled: aws.Bool(enabled)},
		})
	}
	validation := func(err error, message string) {
		t.Helper()
		var apiErr smithy.APIError
		require.ErrorAs(t, err, &apiErr)
		assert.Equal(t, "ValidationException", apiErr.ErrorCode())
		assert.Equal(t, message, apiErr.ErrorMessage())
	}

	assert.Equal(t, &types.TimeToLiveDescription{TimeToLiveStatus: types.TimeToLiveStatusDisabled}, describe(table))

	out, err := update(table, true)
	require.NoError(t, err)
	assert.Equal(t, &types.TimeToLiveSpecification{AttributeName: aws.String("expiresAt"), Enabled: aws.Bool(true)}, out.TimeToLiveSpecification)
	assert.Equal(t, &types.TimeToLiveDescription{TimeToLiveStatus: types.TimeToLiveStatusEnabled, AttributeName: aws.String("expiresAt")}, describe(table))
	assert.Equal(t, types.TimeToLiveStatusDisabled, describe("other").TimeToLiveStatus)
	_, err = update(table, true)
	validation(err, "TimeToLive is already enabled")

	_, err = update(table, false)
	require.NoError(t, err)
	assert.Equal(t, &types.TimeToLiveDescription{TimeToLiveStatus: types.TimeToLiveStatusDisabled}, describe(table))
	_, err = update(table, false)
	validation(err, "TimeToLive is already disabled")

	// A table made anew starts without TTL.
	_, err = update("other", true)
	require.NoError(t, err)
	_, err = e.client.DeleteTable(t.Context(), &dynamodb.DeleteTableInput{TableName: aws.String("other")})
	require.NoError(t, err)
	var notFound *types.ResourceNotFoundException
	_, err = e.client.DescribeTimeToLive(t.Context(), &dynamodb.DescribeTimeToLiveInput{TableName: aws.String("other")})
	require.ErrorAs(t, err, &notFound)
	assert.Equal(t, "Requested resource not found: Table: other not found", aws.ToString(notFound.Message))
	_, err = update("other", true)
	require.ErrorAs(t, err, &notFound)
	e.createTable("other")
	assert.Equal(t, types.TimeToLiveStatusDisabled, describe("other").TimeToLiveStatus)
}

func TestUpdateTimeToLiveRejectsMissingMembers(t *testing.T) {
	e := newEnv(t)
	for body, want := range map[string]string{
		`{}`: "2 validation errors detected: Value null at 'tableName' failed to satisfy constraint: Member must not be null; " +
			"Value null at 'timeToLiveSpecification' failed to satisfy constraint: Member must not be null",
		`{"TableName":"redrive","TimeToLiveSpecification":{"AttributeName":""}}`: "2 validation errors detected: " +
			"Value '' at 'timeToLiveSpecification.attributeName' failed to satisfy constraint: Member must have length greater than or equal to 1; " +
			"Value null at 'timeToLiveSpecification.enabled' failed to satisfy constraint: Member must not be null",
	} {
		r := e.call("UpdateTimeToLive", body)
		assert.Equal(t, http.StatusBadRequest, r.status, body)
		assert.Equal(t, map[string]any{"__type": "com.amazon.coral.validate#ValidationException", "message": want}, r.body, body)
	}
	r := e.call("DescribeTimeToLive", `{"TableName":7}`)
	assert.Equal(t, http.StatusBadRequest, r.status)
	assert.Equal(t, "com.amazon.coral.service#SerializationException", r.body["__type"])
}

func TestSelectCountAnswersCountsWithoutItems(t *testing.T) {
	e := newEnv(t)
	e.createTable(table)

	// An empty table still answers both counts.
	r := e.call("Scan", `{"TableName":"redrive","Select":"COUNT"}`)
	require.Equal(t, http.StatusOK, r.status)
	assert.Equal(t, map[string]any{"Count": 0.0, "ScannedCount": 0.0}, r.body)

	for i := range 5 {
		e.put(fmt.Sprint("item-", i), "room", []string{"a", "b"}[i%2], "seq", fmt.Sprint(i))
	}
	scan, err := e.client.Scan(t.Context(), &dynamodb.ScanInput{TableName: aws.String(table), Select: types.SelectCount})
	require.NoError(t, err)
	assert.Nil(t, scan.Items)
	assert.Equal(t, int32(5), scan.Count)
	assert.Equal(t, int32(5), scan.ScannedCount)

	filtered, err := e.client.Scan(t.Context(), &dynamodb.ScanInput{
		TableName:                 aws.String(table),
		Select:                    types.SelectCount,
		FilterExpression:          aws.String("room = :r"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":r": &types.AttributeValueMemberS{Value: "a"}},
	})
	require.NoError(t, err)
	assert.Nil(t, filtered.Items)
	assert.Equal(t, int32(3), filtered.Count)

	page, err := e.client.Scan(t.Context(), &dynamodb.ScanInput{TableName: aws.String(table), Select: types.SelectCount, Limit: aws.Int32(2)})
	require.NoError(t, err)
	assert.Nil(t, page.Items)
	assert.Equal(t, int32(2), page.Count)
	assert.NotEmpty(t, page.LastEvaluatedKey)

	query, err := e.client.Query(t.Context(), &dynamodb.QueryInput{
		TableName:                 aws.String(table),
		IndexName:                 aws.String(dynamo.RoomIndex),
		Select:                    types.SelectCount,
		KeyConditionExpression:    aws.String("room = :r"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":r": &types.AttributeValueMemberS{Value: "b"}},
	})
	require.NoError(t, err)
	assert.Nil(t, query.Items)
	assert.Equal(t, int32(2), query.Count)
	assert.Equal(t, int32(2), query.ScannedCount)

	// Without Select COUNT the items come back.
	all, err := e.client.Scan(t.Context(), &dynamodb.ScanInput{TableName: aws.String(table)})
	require.NoError(t, err)
	assert.Len(t, all.Items, 5)
}

func TestSelectSpecificAttributesProjects(t *testing.T) {
	e := newEnv(t)
	e.createTable(table)
	e.put("item", "room", "a", "seq", "1")

	out, err := e.client.Scan(t.Context(), &dynamodb.ScanInput{
		TableName:            aws.String(table),
		Select:               types.SelectSpecificAttributes,
		ProjectionExpression: aws.String("room"),
	})
	require.NoError(t, err)
	assert.Equal(t, []map[string]types.AttributeValue{{"room": &types.AttributeValueMemberS{Value: "a"}}}, out.Items)
}

func TestErrorsCarryANamespacedType(t *testing.T) {
	e := newEnv(t)
	e.createTable(table)
	const (
		dynamo   = "com.amazonaws.dynamodb.v20120810#"
		coral    = "com.amazon.coral.service#"
		validate = "com.amazon.coral.validate#"
	)
	for _, c := range []struct {
		name, method, target, body, want string
	}{
		{"unknown operation", http.MethodPost, "DynamoDB_20120810.DescribeLimits", `{}`, coral + "UnknownOperationException"},
		{"no target", http.MethodPost, "", `{}`, coral + "UnknownOperationException"},
		{"another service's target", http.MethodPost, "AmazonSQS.ListQueues", `{}`, coral + "UnknownOperationException"},
		{"GET", http.MethodGet, "DynamoDB_20120810.ListTables", ``, coral + "UnknownOperationException"},
		{"malformed JSON", http.MethodPost, "DynamoDB_20120810.Scan", `{"TableName":`, coral + "SerializationException"},
		{"not an object", http.MethodPost, "DynamoDB_20120810.Scan", `[]`, coral + "SerializationException"},
		{"empty body", http.MethodPost, "DynamoDB_20120810.ListTables", ``, coral + "SerializationException"},
		{"missing table", http.MethodPost, "DynamoDB_20120810.DescribeTable", `{"TableName":"nope"}`, dynamo + "ResourceNotFoundException"},
		{"get from a missing table", http.MethodPost, "DynamoDB_20120810.GetItem", `{"TableName":"nope","Key":{"pk":{"S":"x"}}}`, dynamo + "ResourceNotFoundException"},
		{"existing table", http.MethodPost, "DynamoDB_20120810.CreateTable", `{"TableName":"redrive","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}]}`, dynamo + "ResourceInUseException"},
		{"wrong key type", http.MethodPost, "DynamoDB_20120810.PutItem", `{"TableName":"redrive","Item":{"pk":{"N":"1"}}}`, validate + "ValidationException"},
		{"failed condition", http.MethodPost, "DynamoDB_20120810.PutItem", `{"TableName":"redrive","Item":{"pk":{"S":"x"}},"ConditionExpression":"attribute_exists(pk)"}`, dynamo + "ConditionalCheckFailedException"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := e.post(c.method, c.target, c.body)
			assert.Equal(t, http.StatusBadRequest, r.status)
			assert.Equal(t, "application/x-amz-json-1.0", r.header.Get("Content-Type"))
			assert.Equal(t, c.want, r.body["__type"])
			assert.NotEmpty(t, r.body["message"])
		})
	}
}

func TestSDKMapsErrorsToTheirTypes(t *testing.T) {
	e := newEnv(t)
	e.createTable(table)

	_, err := e.client.GetItem(t.Context(), &dynamodb.GetItemInput{TableName: aws.String("nope"), Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "x"}}})
	var notFound *types.ResourceNotFoundException
	require.ErrorAs(t, err, &notFound)

	_, err = e.client.CreateTable(t.Context(), dynamo.TableInput(table))
	var inUse *types.ResourceInUseException
	require.ErrorAs(t, err, &inUse)

	_, err = e.client.PutItem(t.Context(), &dynamodb.PutItemInput{
		TableName:           aws.String(table),
		Item:                map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "x"}},
		ConditionExpression: aws.String("attribute_exists(pk)"),
	})
	var failed *types.ConditionalCheckFailedException
	require.ErrorAs(t, err, &failed)

	_, err = e.client.TransactWriteItems(t.Context(), &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{{
		ConditionCheck: &types.ConditionCheck{
			TableName:           aws.String(table),
			Key:                 map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "x"}},
			ConditionExpression: aws.String("attribute_exists(pk)"),
		},
	}}})
	var canceled *types.TransactionCanceledException
	require.ErrorAs(t, err, &canceled)
	require.Len(t, canceled.CancellationReasons, 1)
	assert.Equal(t, "ConditionalCheckFailed", aws.ToString(canceled.CancellationReasons[0].Code))
}

func TestEveryAnswerCarriesARequestID(t *testing.T) {
	e := newEnv(t)
	id := regexp.MustCompile(`^[0-9A-Z]{52}$`)
	seen := map[string]bool{}
	check := func(got string) {
		t.Helper()
		assert.Regexp(t, id, got)
		assert.False(t, seen[got], "request ID %s repeats", got)
		seen[got] = true
	}

	check(e.call("ListTables", `{}`).header.Get("x-amzn-RequestId"))
	check(e.call("Nope", `{}`).header.Get("x-amzn-RequestId"))
	check(e.call("DescribeTable", `{"TableName":"nope"}`).header.Get("x-amzn-RequestId"))

	out, err := e.client.ListTables(t.Context(), &dynamodb.ListTablesInput{})
	require.NoError(t, err)
	got, ok := awsmiddleware.GetRequestIDMetadata(out.ResultMetadata)
	require.True(t, ok)
	check(got)

	_, err = e.client.DescribeTable(t.Context(), &dynamodb.DescribeTableInput{TableName: aws.String("nope")})
	var respErr interface{ ServiceRequestID() string }
	require.ErrorAs(t, err, &respErr)
	check(respErr.ServiceRequestID())
}

// Every answer carries its body's CRC32, as DynamoDB's do: the SDK checks
// it on every response it reads, and logs a warning when it is missing or
// wrong (an SDK client on the default configuration logs to stderr).
func TestEveryAnswerCarriesItsChecksum(t *testing.T) {
	e := newEnv(t)
	var warnings []string
	client := dynamodb.New(e.client.Options(), func(o *dynamodb.Options) {
		o.Logger = logging.LoggerFunc(func(c logging.Classification, format string, v ...any) {
			warnings = append(warnings, fmt.Sprintf(string(c)+" "+format, v...))
		})
	})
	ctx := t.Context()
	require.NoError(t, dynamo.CreateTable(ctx, client, table))    // rewritten by the handler
	_, err := client.ListTables(ctx, &dynamodb.ListTablesInput{}) // the handler's own
	require.NoError(t, err)
	_, err = client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), // minidyn's, relayed
		Item: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "a"}}})
	require.NoError(t, err)
	_, err = client.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(table), Select: types.SelectCount}) // rewritten
	require.NoError(t, err)
	_, err = client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("nope")}) // an error
	require.Error(t, err)
	assert.Empty(t, warnings)

	r := e.call("ListTables", `{}`)
	assert.Regexp(t, `^\d+$`, r.header.Get("X-Amz-Crc32"))
}

// TestTableOperationsRunAlone fails under the race detector should a table
// operation, whose minidyn code takes no lock, run beside an item one.
func TestTableOperationsRunAlone(t *testing.T) {
	e := newEnv(t)
	e.createTable(table)
	var wg sync.WaitGroup
	for i := range 20 {
		// Goroutines other than the test's may not call require.
		wg.Go(func() {
			_, err := e.client.PutItem(t.Context(), &dynamodb.PutItemInput{
				TableName: aws.String(table),
				Item:      map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: fmt.Sprint("item-", i)}},
			})
			assert.NoError(t, err)
		})
		wg.Go(func() {
			_, err := e.client.DescribeTable(t.Context(), &dynamodb.DescribeTableInput{TableName: aws.String(table)})
			assert.NoError(t, err)
		})
		wg.Go(func() {
			name := fmt.Sprint("table-", i)
			assert.NoError(t, dynamo.CreateTable(t.Context(), e.client, name))
			_, err := e.client.DeleteTable(t.Context(), &dynamodb.DeleteTableInput{TableName: aws.String(name)})
			assert.NoError(t, err)
		})
	}
	wg.Wait()
	out, err := e.client.ListTables(t.Context(), &dynamodb.ListTablesInput{})
	require.NoError(t, err)
	assert.Equal(t, []string{table}, out.TableNames)
}
