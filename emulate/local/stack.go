package local

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/emulate/executor"
	"github.com/redrive/redrive/emulate/executor/lambdaapi"
	"github.com/redrive/redrive/emulate/executor/sfnapi"
	"github.com/redrive/redrive/emulate/loopback"
	"github.com/redrive/redrive/emulate/quota"
	"github.com/redrive/redrive/emulate/s3local"
	"github.com/redrive/redrive/emulate/simtarget"
	"github.com/redrive/redrive/emulate/sqslocal"
	"github.com/redrive/redrive/lambda/wire"
	"github.com/redrive/redrive/park/replay"
	"github.com/redrive/redrive/room/pace"
)

// The functions a Stack hosts in its Registry, by name.
const (
	FunctionStarter  = wire.FunctionStarter
	FunctionAttempt  = wire.FunctionAttempt
	FunctionPark     = wire.FunctionPark
	FunctionAdmin    = wire.FunctionAdmin
	FunctionWaitRoom = wire.FunctionWaitRoom
	FunctionRelease  = wire.FunctionRelease
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

// QueueName is the name of the stack's queue called name: name, or
// name.fifo on a FIFO stack (Options.FIFO).
func (s *Stack) QueueName(name string) string {
	if s.opts.FIFO {
		return name + ".fifo"
	}
	return name
}

// queueAPI is the SQS calls of the tasks (the parking lot, the replay),
// the DLQ's event source and SendToDLQ.
type queueAPI interface {
	replay.SQSAPI
	DeleteMessageBatch(ctx context.Context, params *sqs.DeleteMessageBatchInput, optFns ...func(*sqs.Options)) (*sqs.DeleteMessageBatchOutput, error)
}

var (
	_ queueAPI = (*sqs.Client)(nil)
	_ queueAPI = (*sqslocal.Client)(nil)
)

// account and roleARN are the local account and the state machines' role.
const (
	account = "123456789012"
	roleARN = "arn:aws:iam::" + account + ":role/redrive"
)

// functionARN is the ARN of a hosted function.
func functionARN(name string) string {
	return wire.FunctionARN(region, account, name)
}

// Stack is the orchestrator assembled in one process. Its exported fields
// are for inspection; drive it with SendToDLQ, RunUntilDrained, RunUntil
// and Admin on the virtual clock, or through Endpoints as a service
// (Options.Scaled and Serve). Close it when done.
type Stack struct {
	// Executor runs the state machines; it is every component's clock.
	Executor *executor.Executor
	// Quotas is the account whose quotas the stack is held to
	// (Options.Quotas); nil without.
	Quotas *quota.Account
	// Registry hosts the handlers and the consumer.
	Registry *executor.Registry
	// Target is the simulated consumer (see UseConsumer).
	Target *simtarget.Target
	// Handlers are the task handlers hosted in Registry.
	Handlers Handlers
	// Endpoints are the APIs' URLs.
	Endpoints Endpoints

	// SFN is a Step Functions client of the executor's API facade (or of
	// Options.StepFunctionsEndpoint).
	SFN *sfn.Client
	// tasksSFN is the tasks' Step Functions: SFN, or with
	// Options.InProcess an sfnapi.Client behind the same throttle.
	tasksSFN wire.StepFunctions
	// duplicated counts the starts Options.DuplicateStarts doubled.
	duplicated atomic.Int64
	// RedriveARN, AdminARN and ReleaseARN are the state machines.
	RedriveARN, AdminARN, ReleaseARN string

	// S3 is a client of the embedded S3, which holds BodyBucket.
	S3 *s3.Client
	// bodies is the tasks' S3: S3, counting requests.
	bodies *countingS3
	// SQS is a client of the embedded SQS server SQSServer.
	SQS       *sqs.Client
	SQSServer *sqslocal.Server
	// queues is what the tasks, the event source and SendToDLQ call SQS
	// with: SQS, or with Options.InProcess an sqslocal.Client.
	queues queueAPI
	// DLQURL, ParkingLotURL and SourceQueueURL are the queues.
	DLQURL, ParkingLotURL, SourceQueueURL string

	// DynamoDB is a client of the DynamoDB endpoint, Table the table the
	// breaker rows and delivery records live in, and DynamoDBBackend
	// "minidyn" or "DynamoDBEndpoint=<url>".
	DynamoDB        *dynamodb.Client
	Table           string
	DynamoDBBackend string

	opts     Options
	invoker  *countingInvoker
	db       *countingDB
	breakers []*breaker.Breaker
	rows     breaker.Store // uncounted reads for BreakerRow
	source   *eventSource
	sweeps   *sweepSchedule
	throttle *startThrottle
	dynamo   *dynamoBackend
	lambda   *lambda.Client // the attempt's client of the consumer
	servers  []*server
	stop     context.CancelFunc // ends the background work of a service
	running  sync.WaitGroup

	closeOnce sync.Once
	closeErr  error

	mu      sync.Mutex
	errs    []error
	sent    []Sent
	changes []breaker.Transition
}

// Endpoints are where a Stack's APIs are: sockets with Options.Serve,
// in-process names otherwise.
type Endpoints struct {
	// Lambda, StepFunctions, DynamoDB, SQS and S3 are the URLs a client
	// on this machine uses.
	Lambda, StepFunctions, DynamoDB, SQS, S3 string
	// LambdaAddr is the address the Lambda server listens on (what Step
	// Functions Local's LAMBDA_ENDPOINT must reach); empty in process.
	LambdaAddr string
}

// Start assembles a Stack: backends, servers, clients, queues, state
// machines, handlers and the DLQ event source; on a scaled clock it also
// starts the executor and the event source, which run until Close. On
// error, whatever was started is stopped.
func Start(ctx context.Context, opts Options) (_ *Stack, err error) {
	opts, err = opts.withDefaults()
	if err != nil {
		return nil, err
	}
	s := &Stack{opts: opts, Registry: executor.NewRegistry(), stop: func() {}}
	defer func() {
		if err != nil {
			err = errors.Join(err, s.Close())
		}
	}()
	var functions executor.Invoker = s.Registry
	if opts.Quotas != nil {
		s.Quotas = quota.NewAccount(*opts.Quotas)
		if s.Quotas.Has(quota.LambdaConcurrency) {
			functions = executor.LimitConcurrency(functions, s.Quotas)
		}
	}
	s.invoker = &countingInvoker{next: functions}
	if s.Executor, err = s.newExecutor(executor.Options{Invoker: s.invoker, Seed: opts.Seed, Workers: opts.Workers, Start: opts.Start,
		FinishedHistories: opts.FinishedHistories, Compact: opts.Compact, Finished: opts.Finished,
		RunningHistories: opts.RunningHistories, Retention: opts.Retention, Scaled: opts.Scaled, Region: region, Account: account,
		Quotas: s.Quotas}); err != nil {
		return nil, err
	}
	s.invoker.clock = s.Executor

	if err = s.startLambda(); err != nil {
		return nil, err
	}
	if s.dynamo, err = s.startDynamo(ctx); err != nil {
		return nil, err
	}
	s.DynamoDB, s.Table, s.DynamoDBBackend, s.Endpoints.DynamoDB = s.dynamo.client, s.dynamo.table, s.dynamo.name, s.dynamo.url
	s.db = &countingDB{next: s.dynamo.api}
	if s.Quotas != nil && (s.Quotas.Has(quota.PartitionRead) || s.Quotas.Has(quota.PartitionWrite)) {
		s.db.next = partitionThroughput{next: s.dynamo.api, account: s.Quotas, clock: s.Executor}
	}

	if err = s.startSQS(ctx); err != nil {
		return nil, err
	}
	if err = s.startS3(ctx); err != nil {
		return nil, err
	}
	if err = s.startSFN(ctx); err != nil {
		return nil, err
	}
	targetOpts := opts.Target
	targetOpts.Clock = s.Executor
	if s.Target, err = simtarget.New(targetOpts); err != nil {
		return nil, fmt.Errorf("local: %w", err)
	}
	if err = s.register(); err != nil {
		return nil, err
	}
	s.source = &eventSource{
		exec: s.Executor, sqs: s.queues, server: s.SQSServer,
		queueName: s.QueueName(DLQName), queueURL: s.DLQURL, queueARN: QueueARN(s.QueueName(DLQName)),
		invoker: s.invoker, function: functionARN(FunctionStarter), batchSize: opts.BatchSize, window: opts.BatchWindow,
		fail: s.fail, logger: logger(opts.Logs, s.Executor), service: opts.Scaled != nil,
	}
	s.sweeps = &sweepSchedule{exec: s.Executor, invoker: s.invoker, pace: pace.NewStore(s.dynamo.api, s.Table),
		logger: logger(opts.Logs, s.Executor)}
	if opts.Scaled == nil {
		s.db.stalled = s.sweeps.arm
	}
	if opts.Scaled != nil {
		s.serve()
	}
	return s, nil
}

// serve starts a service's background work: the executor (unless Step
// Functions is elsewhere), the DLQ's long-polling event source and the
// sweep schedule.
func (s *Stack) serve() {
	ctx, stop := context.WithCancel(context.Background())
	s.stop = stop
	if s.opts.StepFunctionsEndpoint == "" {
		s.running.Go(func() { _ = s.Executor.Run(ctx) }) // returns ctx's error when Close cancels it
	}
	s.running.Go(func() { s.source.run(ctx) })
	s.running.Go(func() { s.sweeps.run(ctx) })
}

// startLambda serves the Lambda Invoke API over the Registry.
func (s *Stack) startLambda() error {
	url, client, err := s.endpoint("the Lambda Invoke API", "lambda", s.addr(func(a *Addresses) string { return a.Lambda }), lambdaapi.NewServer(s.invoker))
	if err != nil {
		return err
	}
	s.Endpoints.Lambda = url
	if n := len(s.servers); n > 0 {
		s.Endpoints.LambdaAddr = s.servers[n-1].Addr
	}
	s.lambda = lambda.New(lambda.Options{
		Region: region, BaseEndpoint: aws.String(url), Credentials: credentialsProvider,
		HTTPClient: client, Retryer: aws.NopRetryer{},
	})
	return nil
}

// startSQS starts the embedded SQS server and creates the queues.
func (s *Stack) startSQS(ctx context.Context) error {
	srv, err := s.newSQSServer()
	if err != nil {
		return fmt.Errorf("local: %w", err)
	}
	s.SQSServer = srv
	url, client, err := s.endpoint("SQS", "sqs", s.addr(func(a *Addresses) string { return a.SQS }), srv)
	if err != nil {
		return err
	}
	s.Endpoints.SQS = url
	s.SQS = sqs.New(sqs.Options{
		Region: region, BaseEndpoint: aws.String(url), Credentials: credentialsProvider,
		HTTPClient: client, Retryer: aws.NopRetryer{},
	})
	s.queues = s.SQS
	if s.opts.InProcess {
		s.queues = srv.Client(url)
	}
	return s.createQueues(ctx)
}

// BodyBucket is the claim-check bucket a Stack creates in its embedded S3.
const BodyBucket = "redrive-bodies"

// startS3 serves the embedded S3 and creates the claim-check bucket.
func (s *Stack) startS3(ctx context.Context) error {
	url, client, err := s.endpoint("S3", "s3", s.addr(func(a *Addresses) string { return a.S3 }), s3local.New())
	if err != nil {
		return err
	}
	s.Endpoints.S3 = url
	s.S3 = s3local.Client(url, client, region, credentialsProvider)
	s.bodies = &countingS3{next: s.S3}
	return s3local.CreateBucket(ctx, s.S3, BodyBucket)
}

// startSFN serves the executor's Step Functions API (behind the
// StartExecution throttle), or uses Options.StepFunctionsEndpoint, and
// creates the state machines through it.
func (s *Stack) startSFN(ctx context.Context) error {
	s.throttle = &startThrottle{next: sfnapi.NewServer(s.Executor), clock: s.Executor}
	url, client := s.opts.StepFunctionsEndpoint, aws.HTTPClient(loopback.NewHTTPClient())
	if url == "" {
		var err error
		if url, client, err = s.endpoint("the Step Functions API", "states", s.addr(func(a *Addresses) string { return a.StepFunctions }), s.throttle); err != nil {
			return err
		}
	}
	s.Endpoints.StepFunctions = url
	s.SFN = sfn.New(sfn.Options{
		Region: region, BaseEndpoint: aws.String(url), Credentials: credentialsProvider,
		HTTPClient: client, Retryer: aws.NopRetryer{},
	})
	var tasks wire.StepFunctions = s.SFN
	if s.opts.InProcess {
		tasks = throttledClient{Client: sfnapi.NewClient(s.Executor), throttle: s.throttle}
	}
	if s.opts.DuplicateStarts > 0 {
		tasks = &duplicatingSFN{StepFunctions: tasks, arn: &s.RedriveARN, every: int64(s.opts.DuplicateStarts), doubled: &s.duplicated}
	}
	s.tasksSFN = tasks
	return s.createStateMachines(ctx)
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

// Close stops a service's executor loop and event source, stops the
// servers (so no client's request lands after the state is taken), saves
// the executions, the queues and the table into Options.State, ends every
// goroutine of the executor, and deletes a table made on an external
// DynamoDB endpoint. Executions still running stop where they are: a
// handler's call still in flight is made again after a restore. Close
// may be called more than once; later calls return the first's error.
func (s *Stack) Close() error {
	s.closeOnce.Do(func() { s.closeErr = s.close() })
	return s.closeErr
}

// close is Close, once.
func (s *Stack) close() error {
	s.stop()
	if s.SQSServer != nil {
		s.SQSServer.Close()
	}
	s.running.Wait()
	var errs []error
	for _, srv := range s.servers {
		errs = append(errs, srv.close())
	}
	s.servers = nil
	if s.SQSServer != nil {
		errs = append(errs, s.save())
	}
	if s.Executor != nil {
		s.Executor.Close()
	}
	if s.dynamo != nil {
		errs = append(errs, s.dynamo.close(context.Background()))
		s.dynamo = nil
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("local: close: %w", err)
	}
	return nil
}

// ExpressAttempts reports whether the attempt state machine is an Express
// one (the default; Options.StandardAttempts makes it Standard).
func (s *Stack) ExpressAttempts() bool { return !s.opts.StandardAttempts }
