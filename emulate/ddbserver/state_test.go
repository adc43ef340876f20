package ddbserver_test

import (
	"bytes"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/breaker/breakertest"
	"github.com/redrive/redrive/dynamo"
	"github.com/redrive/redrive/emulate/ddbserver"
)

// putTTL writes an item pk expiring at the Unix second ttl.
func (e *env) putTTL(pk string, ttl int64) {
	e.t.Helper()
	_, err := e.client.PutItem(e.t.Context(), &dynamodb.PutItemInput{TableName: aws.String(table), Item: map[string]types.AttributeValue{
		"pk":  &types.AttributeValueMemberS{Value: pk},
		"ttl": &types.AttributeValueMemberN{Value: strconv.FormatInt(ttl, 10)},
	}})
	require.NoError(e.t, err)
}

// keys lists the partition keys in the table.
func (e *env) keys() []string {
	e.t.Helper()
	out, err := e.client.Scan(e.t.Context(), &dynamodb.ScanInput{TableName: aws.String(table)})
	require.NoError(e.t, err)
	var pks []string
	for _, item := range out.Items {
		pks = append(pks, item["pk"].(*types.AttributeValueMemberS).Value)
	}
	return pks
}

// enableTTL turns the table's TTL on, on "ttl".
func (e *env) enableTTL() {
	e.t.Helper()
	_, err := e.client.UpdateTimeToLive(e.t.Context(), &dynamodb.UpdateTimeToLiveInput{TableName: aws.String(table),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("ttl"), Enabled: aws.Bool(true)}})
	require.NoError(e.t, err)
}

func TestSweepDeletesExpiredItems(t *testing.T) {
	clock := breakertest.NewClock(time.Unix(1_000_000, 0))
	e := newEnvAt(t, clock)
	e.createTable(table)
	e.enableTTL()
	e.putTTL("expired", 999_999)
	e.putTTL("due-now", 1_000_000)
	e.putTTL("later", 1_000_100)
	e.put("no-ttl")
	require.NoError(t, e.handler.Sweep())
	assert.ElementsMatch(t, []string{"due-now", "later", "no-ttl"}, e.keys(), "only items whose TTL has passed go")

	clock.Advance(200 * time.Second)
	for i := range 1000 { // the 1000th write starts a sweep on its own
		e.put("filler-" + strconv.Itoa(i))
	}
	assert.Eventually(t, func() bool { return !slices.Contains(e.keys(), "later") }, 5*time.Second, 10*time.Millisecond,
		"swept after enough writes")
	assert.Contains(t, e.keys(), "no-ttl")
}

func TestSweepWithoutAClockKeepsEverything(t *testing.T) {
	e := newEnv(t)
	e.createTable(table)
	e.enableTTL()
	e.putTTL("expired", 1)
	require.NoError(t, e.handler.Sweep())
	assert.Equal(t, []string{"expired"}, e.keys())
}

func TestSnapshotRestoresTablesItemsAndTTL(t *testing.T) {
	e := newEnv(t)
	e.createTable(table)
	e.enableTTL()
	e.put("a", "state", "CLOSED")
	e.putTTL("b", 42)
	var snap bytes.Buffer
	require.NoError(t, e.handler.Snapshot(&snap))

	restored := newEnv(t)
	require.NoError(t, restored.handler.Restore(bytes.NewReader(snap.Bytes())))
	assert.ElementsMatch(t, []string{"a", "b"}, restored.keys())
	got, err := restored.client.GetItem(t.Context(), &dynamodb.GetItemInput{TableName: aws.String(table),
		Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "a"}}})
	require.NoError(t, err)
	assert.Equal(t, &types.AttributeValueMemberS{Value: "CLOSED"}, got.Item["state"])
	ttl, err := restored.client.DescribeTimeToLive(t.Context(), &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(table)})
	require.NoError(t, err)
	assert.Equal(t, types.TimeToLiveStatusEnabled, ttl.TimeToLiveDescription.TimeToLiveStatus)
	_, err = restored.client.Query(t.Context(), &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String(dynamo.RoomIndex),
		KeyConditionExpression: aws.String("room = :r"), ExpressionAttributeValues: map[string]types.AttributeValue{":r": &types.AttributeValueMemberS{Value: "x"}}})
	assert.NoError(t, err, "the table's index came back with it")
}

func TestRestoreRefusesWhatIsNotASnapshot(t *testing.T) {
	for name, tt := range map[string]struct{ in, want string }{
		"not JSON":       {"{", "not a snapshot"},
		"another format": {`{"format":2}`, "snapshot format 2, want 1"},
		"no table name":  {`{"format":1,"tables":[{"create":{}}]}`, "without a TableName"},
	} {
		t.Run(name, func(t *testing.T) {
			err := ddbserver.New(nil).Restore(bytes.NewReader([]byte(tt.in)))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}
