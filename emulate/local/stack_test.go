package local_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/attempt"
	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/clock"
	"github.com/redrive/redrive/dynamo"
	"github.com/redrive/redrive/emulate/ddbtest"
	"github.com/redrive/redrive/emulate/executor"
	"github.com/redrive/redrive/emulate/local"
	"github.com/redrive/redrive/emulate/simtarget"
	"github.com/redrive/redrive/message"
)

func TestStartRejectsBadOptions(t *testing.T) {
	tests := []struct {
		name string
		opts local.Options
		want string
	}{
		{"workers", local.Options{Workers: -2}, "Workers -2: want at least 1"},
		{"batch size", local.Options{BatchSize: 11}, "BatchSize 11: want 1 to 10"},
		{"visibility timeout", local.Options{VisibilityTimeout: time.Millisecond}, "VisibilityTimeout 1ms"},
		{"policy", local.Options{Policy: breaker.Policy{WindowSize: 65}}, "WindowSize"},
		{"attempt", local.Options{Attempt: attempt.Config{DeliveryLease: attempt.MaxDeliveryLease + time.Second}}, "DELIVERY_LEASE"},
		{"key pointer", local.Options{BreakerKeyPointer: "tenant"}, "BREAKER_KEY_POINTER"},
		{"two key sources", local.Options{BreakerKey: "orders", BreakerKeyAttribute: "tenant"}, "set at most one of"},
		{"target", local.Options{Target: simtarget.Options{Capacity: -1}}, "Capacity -1"},
		{"poison types", local.Options{PoisonErrorTypes: []string{"BatchItemFailure"}}, "POISON_ERROR_TYPES"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := local.Start(context.Background(), tt.opts)
			require.Error(t, err)
			assert.Nil(t, s)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestStackWiring(t *testing.T) {
	s := start(t, local.Options{})
	if endpoint := ddbtest.Endpoint(); endpoint != "" {
		assert.Equal(t, "DynamoDBEndpoint="+endpoint, s.DynamoDBBackend)
		assert.Regexp(t, `^redrive-local-`, s.Table, "a table of its own on a shared endpoint")
	} else {
		assert.Equal(t, "minidyn", s.DynamoDBBackend)
		assert.Equal(t, "redrive", s.Table)
	}
	assert.Equal(t, "arn:aws:states:us-east-1:123456789012:stateMachine:redrive", s.RedriveARN)
	assert.Equal(t, "arn:aws:states:us-east-1:123456789012:stateMachine:redrive-admin", s.AdminARN)
	sm, err := s.Executor.DescribeStateMachine(t.Context(), s.RedriveARN)
	require.NoError(t, err)
	assert.Contains(t, sm.Definition, "arn:aws:lambda:us-east-1:123456789012:function:attempt", "rendered with the hosted functions")
	assert.NotContains(t, sm.Definition, "${")
	assert.Equal(t, executor.Express, sm.Type, "one Express execution per delivery try")
	for _, arn := range []string{s.AdminARN, s.ReleaseARN} {
		sm, err := s.Executor.DescribeStateMachine(t.Context(), arn)
		require.NoError(t, err)
		assert.Equal(t, executor.Standard, sm.Type, "%s", arn)
	}
	assert.True(t, s.ExpressAttempts())
	for _, url := range []string{s.DLQURL, s.ParkingLotURL, s.SourceQueueURL} {
		assert.Regexp(t, `^http://sqs\.local/123456789012/orders`, url)
	}
	assert.Equal(t, t0, s.Executor.Now())
}

func TestStandardAttemptsDeploysAStandardAttemptMachine(t *testing.T) {
	s := start(t, local.Options{StandardAttempts: true})
	assert.False(t, s.ExpressAttempts())
	sm, err := s.Executor.DescribeStateMachine(t.Context(), s.RedriveARN)
	require.NoError(t, err)
	assert.Equal(t, executor.Standard, sm.Type)
	assert.Contains(t, s.RedriveARN, ":stateMachine:redrive")
}

func TestCostsNeedsStandardAttempts(t *testing.T) {
	s := start(t, local.Options{})
	_, err := s.SendToDLQ(t.Context(), messages(1)...)
	require.NoError(t, err)
	run(t, s)
	_, err = s.Costs(t.Context())
	assert.ErrorContains(t, err, "StandardAttempts", "an Express execution keeps no history to read")
}

func TestCloseDeletesTheTableOfAnExternalEndpoint(t *testing.T) {
	if ddbtest.Endpoint() == "" {
		t.Skip(ddbtest.EndpointEnv + " is unset: minidyn's tables go with the stack")
	}
	s, err := local.Start(t.Context(), local.Options{DynamoDBEndpoint: ddbtest.Endpoint()})
	require.NoError(t, err)
	_, err = s.DynamoDB.DescribeTable(t.Context(), &dynamodb.DescribeTableInput{TableName: aws.String(s.Table)})
	require.NoError(t, err)
	require.NoError(t, s.Close())
	out, err := s.DynamoDB.DescribeTable(t.Context(), &dynamodb.DescribeTableInput{TableName: aws.String(s.Table)})
	if err == nil {
		assert.Equal(t, types.TableStatusDeleting, out.Table.TableStatus)
		return
	}
	assert.ErrorAs(t, err, new(*types.ResourceNotFoundException))
	assert.NoError(t, s.Close(), "a second Close does nothing")
}

func TestHealthyRunCountsEveryCall(t *testing.T) {
	const n = 25
	s := start(t, local.Options{})
	// Five a second, under the pace's 10/s: every message goes straight
	// to the target.
	for i, m := range messages(n) {
		s.SendToDLQAt(t0.Add(time.Duration(i)*200*time.Millisecond), m)
	}
	run(t, s)

	sent := s.Sent()
	require.Len(t, sent, n)
	deliveries := s.Target.Ledger().Deliveries()
	for _, m := range sent {
		assert.Equal(t, 1, deliveries[m.ID], "message %s", m.ID)
	}
	st := s.Stats()
	assert.Equal(t, int64(n), st.Invocations[local.FunctionAttempt], "one Attempt per message")
	assert.Equal(t, int64(n), st.Invocations[local.FunctionConsumer], "one consumer call per message")
	assert.Zero(t, st.Invocations[local.FunctionWaitRoom], "nobody waits in the room")
	assert.Zero(t, st.Invocations[local.FunctionRelease], "no releaser runs")
	assert.Equal(t, int64(n), st.Source.Records)
	assert.Equal(t, int64(n), st.Source.Deleted)
	// Two counters of the same reads, one in the breaker, one on the wire.
	assert.Equal(t, st.Breaker.Loads, st.BreakerRows.Reads)
	assert.Equal(t, st.Breaker.Saves, st.BreakerRows.Writes)
	// The starter reads the row once a second (starter.StatesMaxAge) over
	// the five seconds of arrivals: at 0, 1, 2, 3 and 4 s. The Attempt
	// admits on its cached CLOSED row for a second
	// (wire.AttemptClosedRowMaxAge), each save refreshing it: it reads
	// the row for the first admission, and for the last one (4.8 s), a
	// second after the last save (3.8 s, the window's 20th outcome).
	assert.EqualValues(t, 5+2, st.BreakerRows.Reads,
		"a healthy key's row is read at most once a second per function, not once per delivery")
	assert.EqualValues(t, breaker.Policy{}.WithDefaults().WindowSize, st.BreakerRows.Writes,
		"a new row's first WindowSize successes fill its window; a full healthy window writes nothing")
	assert.Zero(t, st.DeliveryRecords.Reads, "Begin's conditional put reads nothing when the record is new")
	assert.EqualValues(t, 2*n, st.DeliveryRecords.Writes, "Begin and Complete")
	assert.Zero(t, st.BreakerRows.Conflicts)

	xs := executions(t, s)
	require.Len(t, xs, n)
	for i, x := range xs {
		assert.Equal(t, message.ExecutionName(sent[i].ID, 1, 0), x.Name, "oldest first")
		assert.Equal(t, executor.Succeeded, x.Status)
		assert.Equal(t, 3, x.Transitions, "Attempt, Route, Delivered")
	}
	counts, err := s.Executor.Counts(t.Context(), s.RedriveARN)
	require.NoError(t, err)
	assert.Equal(t, map[string]int64{"Task": n, "Choice": n, "Succeed": n}, counts.TransitionsByType)
	assert.Equal(t, time.Duration(n)*100*time.Millisecond, counts.BilledDuration,
		"each Express execution billed its 100 ms minimum: the consumer answers at once")
}

func TestStandardAttemptsRecordEachTry(t *testing.T) {
	const n = 5
	s := start(t, local.Options{StandardAttempts: true})
	for i, m := range messages(n) {
		s.SendToDLQAt(t0.Add(time.Duration(i)*200*time.Millisecond), m)
	}
	run(t, s)
	sent := s.Sent()
	costs, err := s.Costs(t.Context())
	require.NoError(t, err)
	require.Len(t, costs, n)
	for i, c := range costs {
		assert.Equal(t, message.ExecutionName(sent[i].ID, 1, 0), c.Execution.Name, "oldest first")
		assert.Equal(t, []string{"Attempt", "Route", "Delivered"}, c.States)
		assert.Equal(t, 3, c.Transitions)
		assert.Equal(t, c.Execution.Transitions, c.Transitions, "history count agrees with the executor's")
	}
	counts, err := s.Executor.Counts(t.Context(), s.RedriveARN)
	require.NoError(t, err)
	assert.Zero(t, counts.BilledDuration, "Standard is billed per transition")
}

func TestBurstBeyondThePaceWaitsInTheRoom(t *testing.T) {
	const n = 25
	s := start(t, local.Options{})
	ids, err := s.SendToDLQ(t.Context(), messages(n)...)
	require.NoError(t, err)
	run(t, s)

	deliveries := s.Target.Ledger().Deliveries()
	for _, id := range ids {
		assert.Equal(t, 1, deliveries[id], "message %s", id)
	}
	xs := executions(t, s)
	require.Len(t, xs, n, "one execution per message: a paced one starts only when released")
	straight, released := 0, 0
	releasedInFirstTick := 0
	for _, x := range xs {
		assert.Equal(t, executor.Succeeded, x.Status, x.Name)
		assert.Equal(t, 3, x.Transitions, "%s: Attempt, Route, Delivered", x.Name)
		switch {
		case strings.HasSuffix(x.Name, "-a1"):
			straight++
			assert.Equal(t, t0, x.StartDate, "started by the starter")
		case strings.HasSuffix(x.Name, "-a1-r1"):
			released++
			if x.StartDate.Before(t0.Add(time.Second)) {
				releasedInFirstTick++
			}
		default:
			t.Errorf("%s: neither started nor released", x.Name)
		}
	}
	assert.Equal(t, 10, straight, "the pace's first second (RELEASE_START_RATE 10/s) goes straight")
	assert.Equal(t, n-10, released, "the rest wait in the room and are released, each its first run (-r1)")
	assert.Equal(t, 10, releasedInFirstTick, "the controller's first tick releases at RELEASE_START_RATE")
	st := s.Stats()
	assert.Zero(t, st.Invocations[local.FunctionWaitRoom], "the starter puts the burst's rest in the room itself: no execution is started only to wait")
	assert.Equal(t, int64(n), st.Invocations[local.FunctionAttempt], "one Attempt per message")
	assert.Positive(t, st.Invocations[local.FunctionRelease], "a controller drained the room")
	depth, left := s.Room()
	assert.Zero(t, depth)
	assert.Equal(t, int64(n-10), left)
	controllers, err := s.Executor.ListExecutions(t.Context(), s.ReleaseARN, "")
	require.NoError(t, err)
	require.Len(t, controllers, 1, "one controller for the breaker")
	assert.Equal(t, executor.Succeeded, controllers[0].Status, "it stopped once the room was empty")
}

func TestSendToDLQAtStartsLater(t *testing.T) {
	s := start(t, local.Options{})
	s.SendToDLQAt(t0.Add(5*time.Minute), messages(2)...)
	run(t, s)
	sent := s.Sent()
	require.Len(t, sent, 2)
	for _, m := range sent {
		assert.Equal(t, t0.Add(5*time.Minute), m.At)
	}
	xs := executions(t, s)
	require.Len(t, xs, 2)
	for _, x := range xs {
		assert.Equal(t, t0.Add(5*time.Minute), x.StartDate)
	}
}

// outageRun runs a small outage and returns what can be compared across
// runs: each execution of the attempt machine and of the controller (its
// name with its Express id, status, start and stop, transitions, and with
// Options.StandardAttempts the attempt's states and waits), and each
// consumer call.
func outageRun(t *testing.T, opts local.Options) (costs []string, calls []simtarget.Call) {
	t.Helper()
	opts.Target.Schedule = simtarget.Outage(t0, 10*time.Minute)
	s := start(t, opts)
	ids, err := s.SendToDLQ(t.Context(), messages(12)...)
	require.NoError(t, err)
	run(t, s)
	for _, arn := range []string{s.RedriveARN, s.ReleaseARN} {
		xs, err := s.Executor.ListExecutions(t.Context(), arn, "")
		require.NoError(t, err)
		for _, x := range slices.Backward(xs) {
			b, err := json.Marshal([]any{x.Name, x.Status, x.StartDate, x.StopDate, x.Transitions})
			require.NoError(t, err)
			costs = append(costs, string(b))
		}
	}
	if !s.ExpressAttempts() {
		cs, err := s.Costs(t.Context())
		require.NoError(t, err)
		for _, c := range cs {
			assert.Equal(t, c.Execution.Transitions, c.Transitions, "history count agrees with the executor's")
			b, err := json.Marshal([]any{c.Execution.Name, c.States, c.Waits})
			require.NoError(t, err)
			costs = append(costs, string(b))
		}
	}
	deliveries := s.Target.Ledger().Deliveries()
	parked, err := s.ReceiveParked(t.Context())
	require.NoError(t, err)
	ends := map[string]int{}
	for _, p := range parked {
		ends[p.Record.Lineage.OriginID]++
	}
	for _, id := range ids {
		assert.Equal(t, 1, deliveries[id]+ends[id], "%s delivered or parked, once: none lost, none twice", id)
	}
	return costs, s.Target.Ledger().Calls()
}

func TestOneWorkerReplaysASeed(t *testing.T) {
	for _, standard := range []bool{false, true} {
		t.Run(fmt.Sprintf("StandardAttempts=%v", standard), func(t *testing.T) {
			costs1, calls1 := outageRun(t, local.Options{Seed: 7, StandardAttempts: standard})
			costs2, calls2 := outageRun(t, local.Options{Seed: 7, StandardAttempts: standard})
			assert.Equal(t, costs1, costs2, "same seed, same executions")
			assert.Equal(t, calls1, calls2, "same seed, same calls")
			costs3, _ := outageRun(t, local.Options{Seed: 8, StandardAttempts: standard})
			assert.NotEqual(t, costs1, costs3, "another seed, other ids and jitter")
		})
	}
}

func TestDirectInvokeBehavesAsTheInvokeAPI(t *testing.T) {
	opts := local.Options{Target: simtarget.Options{Poison: simtarget.BodyContains(`"n":3}`)}}
	costsAPI, callsAPI := outageRun(t, opts)
	opts.DirectInvoke = true
	costsDirect, callsDirect := outageRun(t, opts)
	assert.Equal(t, costsAPI, costsDirect)
	assert.Equal(t, callsAPI, callsDirect)
}

func TestConsumerLatencyIsExecutorTime(t *testing.T) {
	s := start(t, local.Options{Target: simtarget.Options{Latency: 40 * time.Second}})
	_, err := s.SendToDLQ(t.Context(), messages(1)...)
	require.NoError(t, err)
	wall := time.Now()
	run(t, s)
	assert.Less(t, time.Since(wall), 40*time.Second)
	xs := executions(t, s)
	require.Len(t, xs, 1)
	x := xs[0]
	assert.Equal(t, executor.Succeeded, x.Status)
	assert.Equal(t, 40*time.Second, x.StopDate.Sub(x.StartDate), "the Invoke API call took the consumer's latency")
}

func TestAdminReturnsTheOutput(t *testing.T) {
	s := start(t, local.Options{})
	_, err := s.Admin(t.Context(), map[string]string{"command": "open", "breaker": "orders", "reason": "a breaker to show", "actor": "test"})
	require.NoError(t, err, "status is of a breaker that exists")
	for _, req := range []any{
		`{"command":"status","breaker":"orders"}`,
		[]byte(`{"command":"status","breaker":"orders"}`),
		json.RawMessage(`{"command":"status","breaker":"orders"}`),
		map[string]string{"command": "status", "breaker": "orders"},
	} {
		out, err := s.Admin(t.Context(), req)
		require.NoError(t, err, "%T", req)
		assert.Equal(t, "orders", out.Breaker)
		assert.Equal(t, "status", out.Command)
		assert.Equal(t, "FORCED_OPEN", out.After.State)
	}
	_, err = s.Admin(t.Context(), func() {})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "encode admin request")
}

func TestAConsumerSlowerThanTheAttemptsDeadlineTimesOut(t *testing.T) {
	s := start(t, local.Options{AttemptTimeout: time.Minute, Target: simtarget.Options{Latency: 90 * time.Second},
		Attempt: attempt.Config{MaxAttempts: 2}})
	_, err := s.SendToDLQ(t.Context(), messages(1)...)
	require.NoError(t, err)
	run(t, s)
	parked, err := s.ReceiveParked(t.Context())
	require.NoError(t, err)
	require.Len(t, parked, 1, "each try timed out, then the message was parked")
	history := parked[0].Record.History
	require.NotEmpty(t, history)
	assert.Equal(t, "Timeout", history[len(history)-1].ErrorType, "cut off 5 s before the Attempt's own deadline")
}

func TestStateKeepsExecutionsQueuesAndTableAcrossARestart(t *testing.T) {
	dir := t.TempDir()
	// 100x, not faster: a minute's lease (the controller's, a claim's) is
	// then 600 ms of wall time, which a loaded machine does not overrun.
	clk, err := clock.NewScaled(100, nil)
	require.NoError(t, err)
	// Tries enough that the message is still waiting, in the room between
	// its tries, when the stack stops.
	opts := local.Options{Scaled: clk, State: dir, Attempt: attempt.Config{MaxAttempts: 50},
		Target: simtarget.Options{Schedule: simtarget.Outage(time.Now(), 24*time.Hour)}}
	s, err := local.Start(t.Context(), opts)
	require.NoError(t, err)
	for _, body := range []string{"one", "two", "three"} {
		_, err := s.SQS.SendMessage(t.Context(), &sqs.SendMessageInput{QueueUrl: aws.String(s.SourceQueueURL), MessageBody: aws.String(body)})
		require.NoError(t, err)
	}
	_, err = s.DynamoDB.PutItem(t.Context(), &dynamodb.PutItemInput{TableName: aws.String(s.Table), Item: map[string]types.AttributeValue{
		"pk": &types.AttributeValueMemberS{Value: "kept"}}})
	require.NoError(t, err)
	ids, err := s.SendToDLQ(t.Context(), messages(1)...)
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		depth, _ := s.Room()
		return depth == 1 && s.Pending(t.Context()).Executions == 0
	}, 30*time.Second, time.Millisecond, "the redrive waits out the consumer's outage in the room, between its tries")
	stopped := s.Executor.Now()
	require.NoError(t, s.Close())
	require.NoError(t, s.Close(), "a second Close changes nothing")
	assert.Zero(t, s.Target.Ledger().Deliveries()[ids[0]])

	opts.Target = simtarget.Options{} // healthy after the restart
	again, err := local.Start(t.Context(), opts)
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, again.Close()) })
	assert.False(t, again.Executor.Now().Before(stopped), "the clock continues where it was")
	depth, err := again.SQSServer.Depth(local.SourceQueueName)
	require.NoError(t, err)
	assert.Equal(t, 3, depth.Total(), "the queued messages are kept")
	got, err := again.DynamoDB.GetItem(t.Context(), &dynamodb.GetItemInput{TableName: aws.String(again.Table), Key: map[string]types.AttributeValue{
		"pk": &types.AttributeValueMemberS{Value: "kept"}}})
	require.NoError(t, err)
	assert.NotEmpty(t, got.Item, "the table's items are kept")
	require.Eventually(t, func() bool { return again.Target.Ledger().Deliveries()[ids[0]] == 1 }, 60*time.Second, 10*time.Millisecond,
		"the breaker's controller carries on: it releases the waiting message, which delivers")
	require.Eventually(t, func() bool {
		running, err := again.Executor.ListExecutions(t.Context(), again.ReleaseARN, executor.Running)
		return err == nil && len(running) == 0
	}, 60*time.Second, 10*time.Millisecond, "the controller stops once its room is empty")
	assert.Equal(t, 1, again.Target.Ledger().Deliveries()[ids[0]], "delivered once")
	parked, err := again.ReceiveParked(t.Context())
	require.NoError(t, err)
	assert.Empty(t, parked)
}

// A state saved by a version whose table had the room's legacy index
// (every attribute projected, named room) and not room_line is refused,
// saying so, rather than restored into a stack whose controllers could
// not list a room.
func TestStateOfATableWithoutTheRoomIndexIsRefused(t *testing.T) {
	dir := t.TempDir()
	clk, err := clock.NewScaled(100, nil)
	require.NoError(t, err)
	opts := local.Options{Scaled: clk, State: dir}
	s, err := local.Start(t.Context(), opts)
	require.NoError(t, err)
	require.NoError(t, s.Close())

	again, err := local.Start(t.Context(), opts)
	require.NoError(t, err, "this version's state restores")
	require.NoError(t, again.Close())

	path := filepath.Join(dir, "dynamodb.json")
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	var snap map[string]any
	require.NoError(t, json.Unmarshal(raw, &snap))
	legacy, err := json.Marshal(dynamo.LegacyRoomIndexSpec())
	require.NoError(t, err)
	var legacyIndex any
	require.NoError(t, json.Unmarshal(legacy, &legacyIndex))
	replaced := 0
	for _, tb := range snap["tables"].([]any) {
		create := tb.(map[string]any)["create"].(map[string]any)
		indexes := create["GlobalSecondaryIndexes"].([]any)
		for i, ix := range indexes {
			if ix.(map[string]any)["IndexName"] == dynamo.RoomIndex {
				indexes[i] = legacyIndex
				replaced++
			}
		}
	}
	require.Equal(t, 1, replaced, "the table's room index, as an older version made it")
	raw, err = json.Marshal(snap)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, raw, 0o600))

	_, err = local.Start(t.Context(), opts)
	require.ErrorContains(t, err, "its table has no index room_line, the waiting room's")
	assert.ErrorContains(t, err, "start with a new state directory")
}

func TestStateNeedsAServiceOnTheEmbeddedTable(t *testing.T) {
	_, err := local.Start(t.Context(), local.Options{State: t.TempDir()})
	assert.ErrorContains(t, err, "State needs Scaled, the executor and the embedded DynamoDB")
}

func TestAMessageWaitsOutAnOutageInTheRoom(t *testing.T) {
	// Tries at 0 and 30 s (a backoff within the execution), then at 1m30s
	// and 3m30s (backoffs in the room): the last after the outage.
	s := start(t, local.Options{Target: simtarget.Options{Schedule: simtarget.Outage(t0, 3*time.Minute)}})
	ids, err := s.SendToDLQ(t.Context(), messages(1)...)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	require.NoError(t, s.RunUntil(ctx, t0.Add(time.Minute)))
	assert.Equal(t, []string{"room#" + local.DefaultBreakerKey + "#" + ids[0] + "#1"}, s.Waiting(),
		"its document waits in its breaker's room")
	assert.Zero(t, s.Pending(t.Context()).Executions, "no execution waits")
	depth, _ := s.Room()
	assert.Equal(t, 1, depth)

	run(t, s)
	assert.Equal(t, 1, s.Target.Ledger().Deliveries()[ids[0]], "released once the consumer is back, and delivered")
	assert.Empty(t, s.Waiting())
	xs := executions(t, s)
	require.NotEmpty(t, xs)
	for i, x := range xs {
		assert.Equal(t, executor.Succeeded, x.Status, x.Name)
		assert.LessOrEqual(t, x.StopDate.Sub(x.StartDate), executor.ExpressMaxDuration, "%s: within Express's five minutes", x.Name)
		if i > 0 {
			assert.Regexp(t, `-a1-r\d+$`, x.Name, "each release is a run of its own")
		}
	}
}
