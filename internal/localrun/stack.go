package localrun

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/internal/simtarget"
	"github.com/redrive/redrive/internal/sqslocal"
	"github.com/redrive/redrive/statemachine/local"
	"github.com/redrive/redrive/statemachine/local/lambdaapi"
	"github.com/redrive/redrive/statemachine/local/sfnapi"
	"github.com/redrive/redrive/tasks/assemble"
)

// The functions a Stack hosts in its Registry, by name.
const (
	FunctionStarter   = assemble.FunctionStarter
	FunctionAttempt   = assemble.FunctionAttempt
	FunctionPark      = assemble.FunctionPark
	FunctionContinuer = assemble.FunctionContinuer
	FunctionAdmin     = assemble.FunctionAdmin
	FunctionWaitRoom  = assemble.FunctionWaitRoom
	FunctionRelease   = assemble.FunctionRelease
	// FunctionConsumer is the simulated consumer, the attempt's target.
	FunctionConsumer = "consumer"
)

// The names of the state machines and queues a Stack creates.
const (
	RedriveStateMachine = "redrive"
	AdminStateMachine   = "redrive-admin"
	ReleaseStateMachine = "redrive-release"
	DLQName             = "orders-dlq"
	ParkingLotName      = "orders-parking-lot"
	SourceQueueName     = "orders"
)

// account and roleARN are the local account and the state machines' role.
const (
	account = "123456789012"
	roleARN = "arn:aws:iam::" + account + ":role/redrive"
)

// functionARN is the ARN of a hosted function.
func functionARN(name string) string {
	return assemble.FunctionARN(region, account, name)
}

// Stack is the orchestrator assembled in one process. Its exported fields
// are for inspection; drive it with SendToDLQ, RunUntilDrained, RunUntil
// and Admin. Close it when done.
type Stack struct {
	// Executor runs the state machines; its Now is every component's clock.
	Executor *local.Executor
	// Registry hosts the handlers and the consumer.
	Registry *local.Registry
	// Target is the simulated consumer.
	Target *simtarget.Target
	// Handlers are the task handlers hosted in Registry.
	Handlers Handlers

	// SFN is a Step Functions client of the executor's API facade.
	SFN *sfn.Client
	// RedriveARN, AdminARN and ReleaseARN are the state machines.
	RedriveARN, AdminARN, ReleaseARN string

	// SQS is a client of the embedded SQS server SQSServer.
	SQS       *sqs.Client
	SQSServer *sqslocal.Server
	// DLQURL, ParkingLotURL and SourceQueueURL are the queues.
	DLQURL, ParkingLotURL, SourceQueueURL string

	// DynamoDB is a client of the DynamoDB endpoint, Table the table the
	// breaker rows and delivery records live in, and DynamoDBBackend
	// "minidyn" or "DDB_ENDPOINT=<url>".
	DynamoDB        *dynamodb.Client
	Table           string
	DynamoDBBackend string

	opts     Options
	invoker  *countingInvoker
	db       *countingDB
	breakers []*breaker.Breaker
	rows     breaker.Store // uncounted reads for BreakerRow
	source   *eventSource
	throttle *startThrottle
	dynamo   *dynamoBackend

	mu      sync.Mutex
	errs    []error
	sent    []Sent
	changes []breaker.Transition
}

// Start assembles a Stack: backends, servers, clients, queues, state
// machines, handlers and the DLQ event source. On error, whatever was
// started is stopped.
func Start(ctx context.Context, opts Options) (_ *Stack, err error) {
	opts, err = opts.withDefaults()
	if err != nil {
		return nil, err
	}
	s := &Stack{opts: opts, Registry: local.NewRegistry()}
	defer func() {
		if err != nil {
			err = errors.Join(err, s.Close())
		}
	}()
	s.invoker = &countingInvoker{next: s.Registry}
	s.Executor = local.New(local.Options{Invoker: s.invoker, Seed: opts.Seed, Workers: opts.Workers, Start: opts.Start,
		FinishedHistories: opts.FinishedHistories})

	if s.dynamo, err = startDynamo(ctx, opts.DynamoDBEndpoint); err != nil {
		return nil, err
	}
	s.DynamoDB, s.Table, s.DynamoDBBackend = s.dynamo.client, s.dynamo.table, s.dynamo.name
	s.db = &countingDB{next: s.DynamoDB}

	if err = s.startSQS(ctx); err != nil {
		return nil, err
	}
	if err = s.startSFN(ctx); err != nil {
		return nil, err
	}
	targetOpts := opts.Target
	targetOpts.Now = s.Executor.Now
	if s.Target, err = simtarget.New(targetOpts); err != nil {
		return nil, fmt.Errorf("localrun: %w", err)
	}
	if err = s.register(); err != nil {
		return nil, err
	}
	s.source = &eventSource{
		exec: s.Executor, sqs: s.SQS, server: s.SQSServer,
		queueName: DLQName, queueURL: s.DLQURL, queueARN: queueARN(DLQName),
		invoker: s.invoker, function: functionARN(FunctionStarter), batchSize: opts.BatchSize,
		fail: s.fail,
	}
	return s, nil
}

// startSQS starts the embedded SQS server and creates the queues.
func (s *Stack) startSQS(ctx context.Context) error {
	srv, err := newSQSServer(s.Executor, s.opts.Seed)
	if err != nil {
		return fmt.Errorf("localrun: %w", err)
	}
	s.SQSServer = srv
	s.SQS = sqs.New(sqs.Options{
		Region: region, BaseEndpoint: aws.String("http://sqs.localrun"), Credentials: credentialsProvider,
		HTTPClient: inProcess(srv), Retryer: aws.NopRetryer{},
	})
	return s.createQueues(ctx)
}

// startSFN serves the executor's Step Functions API (behind the
// StartExecution throttle) and creates both state machines through it.
func (s *Stack) startSFN(ctx context.Context) error {
	s.throttle = &startThrottle{next: sfnapi.NewServer(s.Executor), now: s.Executor.Now}
	s.SFN = sfn.New(sfn.Options{
		Region: region, BaseEndpoint: aws.String("http://states.localrun"), Credentials: credentialsProvider,
		HTTPClient: inProcess(s.throttle), Retryer: aws.NopRetryer{},
	})
	return s.createStateMachines(ctx)
}

// lambdaClient is the lambda client the attempt's target invokes the
// consumer with, through the Lambda Invoke API server.
func (s *Stack) lambdaClient() *lambda.Client {
	return lambda.New(lambda.Options{
		Region: region, BaseEndpoint: aws.String("http://lambda.localrun"), Credentials: credentialsProvider,
		HTTPClient: inProcess(lambdaapi.NewServer(s.invoker)), Retryer: aws.NopRetryer{},
	})
}

// fail records an error that happened on the executor's timeline, for
// RunUntilDrained and RunUntil to return.
func (s *Stack) fail(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.errs = append(s.errs, err)
}

// takeErrors returns and clears the recorded errors.
func (s *Stack) takeErrors() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	err := errors.Join(s.errs...)
	s.errs = nil
	return err
}

// observe records a breaker state change.
func (s *Stack) observe(t breaker.Transition) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.changes = append(s.changes, t)
}

// BreakerChanges lists every breaker state change the tasks made, in the
// order they were saved.
func (s *Stack) BreakerChanges() []breaker.Transition {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]breaker.Transition(nil), s.changes...)
}

// Close ends the SQS server's long polls and deletes a table made on an
// external DynamoDB endpoint.
func (s *Stack) Close() error {
	if s.SQSServer != nil {
		s.SQSServer.Close()
	}
	if s.dynamo == nil {
		return nil
	}
	err := s.dynamo.close(context.Background())
	s.dynamo = nil
	return err
}
