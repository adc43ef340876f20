package wire_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/dynamo"
	"github.com/redrive/redrive/emulate/ddbtest"
	"github.com/redrive/redrive/lambda/wire"
)

// newTable returns a DynamoDB client and a fresh table of breaker rows and
// delivery records on the test endpoint (minidyn, or DDB_ENDPOINT).
func newTable(t *testing.T) (*dynamodb.Client, string) {
	t.Helper()
	client, _ := ddbtest.Client(t)
	table := ddbtest.CreateTable(t, client, func(ctx context.Context, name string) error {
		return dynamo.CreateTable(ctx, client, name)
	})
	return client, table
}

// consumer is a hand-written Lambda client standing in for the consumer:
// it fails every invocation while failing is set, and keeps the function
// names it was asked to invoke.
type consumer struct {
	mu      sync.Mutex
	failing bool
	calls   []string
}

func (c *consumer) Invoke(_ context.Context, in *lambda.InvokeInput, _ ...func(*lambda.Options)) (*lambda.InvokeOutput, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls = append(c.calls, aws.ToString(in.FunctionName))
	if c.failing {
		return &lambda.InvokeOutput{StatusCode: 200, FunctionError: aws.String("Unhandled"),
			Payload: []byte(`{"errorType":"Downstream503","errorMessage":"orders service down"}`)}, nil
	}
	return &lambda.InvokeOutput{StatusCode: 200}, nil
}

// countingStore counts the loads through the store it wraps.
type countingStore struct {
	breaker.Store
	loads atomic.Int64
}

func (s *countingStore) Load(ctx context.Context, key string) (breaker.Row, error) {
	s.loads.Add(1)
	return s.Store.Load(ctx, key)
}

// unusedSFN, unusedSQS and unusedDynamoDB stand in for clients a test
// builds with but never calls; a call fails the test's handler.
type (
	unusedSFN      struct{}
	unusedSQS      struct{}
	unusedDynamoDB struct{}
)

func (unusedSFN) StartExecution(context.Context, *sfn.StartExecutionInput, ...func(*sfn.Options)) (*sfn.StartExecutionOutput, error) {
	return nil, errUnused
}

func (unusedSQS) SendMessage(context.Context, *sqs.SendMessageInput, ...func(*sqs.Options)) (*sqs.SendMessageOutput, error) {
	return nil, errUnused
}

func (unusedDynamoDB) GetItem(context.Context, *dynamodb.GetItemInput, ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	return nil, errUnused
}

func (unusedDynamoDB) PutItem(context.Context, *dynamodb.PutItemInput, ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	return nil, errUnused
}

func (unusedDynamoDB) UpdateItem(context.Context, *dynamodb.UpdateItemInput, ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	return nil, errUnused
}

func (unusedDynamoDB) DeleteItem(context.Context, *dynamodb.DeleteItemInput, ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	return nil, errUnused
}

func (unusedDynamoDB) Query(context.Context, *dynamodb.QueryInput, ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	return nil, errUnused
}

var (
	_ wire.DynamoDB      = unusedDynamoDB{}
	_ wire.StepFunctions = unusedSFN{}
)

// releaseARN is the release state machine of the tests' room settings.
const releaseARN = "arn:aws:states:us-east-1:123456789012:stateMachine:redrive-release"

// roomConfig is a valid waiting room on table with the default pace.
func roomConfig(table string) wire.RoomConfig {
	return wire.RoomConfig{Table: table, ReleaseStateMachineARN: releaseARN}
}

// startedExecution is one StartExecution a startRecorder got.
type startedExecution struct {
	// Machine is the state machine's ARN; Name the execution's name.
	Machine, Name string
}

// startRecorder is a Step Functions client that starts every execution
// and keeps their state machines and names.
type startRecorder struct {
	mu    sync.Mutex
	execs []startedExecution
}

func (s *startRecorder) StartExecution(_ context.Context, in *sfn.StartExecutionInput, _ ...func(*sfn.Options)) (*sfn.StartExecutionOutput, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.execs = append(s.execs, startedExecution{Machine: aws.ToString(in.StateMachineArn), Name: aws.ToString(in.Name)})
	return &sfn.StartExecutionOutput{ExecutionArn: aws.String("arn:execution:" + aws.ToString(in.Name))}, nil
}

// started is the executions started so far, in order.
func (s *startRecorder) started() []startedExecution {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]startedExecution(nil), s.execs...)
}

// errUnused is what the unused clients return.
var errUnused = errors.New("assemble_test: this client is not meant to be called")

// metricNames returns the metric names in the EMF lines of out, in order.
func metricNames(t *testing.T, out *bytes.Buffer) []string {
	t.Helper()
	var names []string
	scanner := bufio.NewScanner(bytes.NewReader(out.Bytes()))
	for scanner.Scan() {
		var line struct {
			AWS struct {
				CloudWatchMetrics []struct {
					Metrics []struct{ Name string }
				}
			} `json:"_aws"`
		}
		require.NoError(t, json.Unmarshal(scanner.Bytes(), &line), "line %q", scanner.Text())
		for _, d := range line.AWS.CloudWatchMetrics {
			for _, m := range d.Metrics {
				names = append(names, m.Name)
			}
		}
	}
	return names
}
