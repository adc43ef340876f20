package emulator

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/aws/aws-sdk-go-v2/service/sfn"

	"github.com/redrive/redrive/internal/clock"
	"github.com/redrive/redrive/internal/loopback"
	"github.com/redrive/redrive/internal/simtarget"
	"github.com/redrive/redrive/statemachine/local"
	"github.com/redrive/redrive/statemachine/local/lambdaapi"
	"github.com/redrive/redrive/statemachine/local/sfnapi"
	"github.com/redrive/redrive/tasks/telemetry"
)

// Emulator is the orchestrator served on local ports. Its exported fields
// say where everything is; Close stops it.
type Emulator struct {
	// LambdaURL, SFNURL, DynamoDBURL and SQSURL are the endpoints, as a
	// client on this machine reaches them. SFNURL is
	// Options.StepFunctionsEndpoint when set, DynamoDBURL
	// Options.DynamoDBEndpoint when set.
	LambdaURL, SFNURL, DynamoDBURL, SQSURL string
	// LambdaAddr is the address the Lambda server listens on, with its
	// port (what Step Functions Local's LAMBDA_ENDPOINT must reach).
	LambdaAddr string
	// RedriveARN, AdminARN and ReleaseARN are the state machines: the
	// redrive, the admin commands, and the waiting room's releaser.
	RedriveARN, AdminARN, ReleaseARN string
	// DLQURL, ParkingLotURL and SourceQueueURL are the queues.
	DLQURL, ParkingLotURL, SourceQueueURL string
	// Table is the DynamoDB table of breaker rows and delivery records.
	Table string
	// Clock is the handlers' clock, and the executor's.
	Clock *clock.Scaled

	consumer *switchTarget
	servers  []*server
	dynamo   *dynamoBackend
	sqs      *sqsBackend
	stop     context.CancelFunc
	running  sync.WaitGroup
}

// Start serves the emulator as opts says and returns once the table, the
// queues and the state machines exist and messages sent to the DLQ start
// executions. ctx bounds the setup only; the emulator runs until Close.
// On error, whatever was started is stopped.
func Start(ctx context.Context, opts Options) (_ *Emulator, err error) {
	opts, err = opts.withDefaults()
	if err != nil {
		return nil, err
	}
	clk, err := clock.NewScaled(opts.TimeScale, nil)
	if err != nil {
		return nil, fmt.Errorf("emulator: %w", err)
	}
	runCtx, stop := context.WithCancel(context.Background())
	e := &Emulator{Clock: clk, stop: stop, consumer: &switchTarget{now: clk.Now}}
	defer func() {
		if err != nil {
			err = errors.Join(err, e.Close())
		}
	}()

	reg := local.NewRegistry()
	lambdaSrv, err := e.listen("the Lambda Invoke API", opts.LambdaAddr, lambdaapi.NewServer(reg))
	if err != nil {
		return nil, err
	}
	e.LambdaURL, e.LambdaAddr = lambdaSrv.URL, lambdaSrv.Addr
	c := clients{lambda: lambda.New(lambda.Options{HTTPClient: loopback.NewHTTPClient(), Region: Region, BaseEndpoint: aws.String(e.LambdaURL), Credentials: credentialsProvider})}
	invoker := lambdaapi.NewInvoker(c.lambda)

	if e.dynamo, err = startDynamo(ctx, opts.DynamoDBAddr, opts.DynamoDBEndpoint); err != nil {
		return nil, err
	}
	c.dynamo, e.DynamoDBURL, e.Table = e.dynamo.client, e.dynamo.url, e.dynamo.table
	if e.sqs, err = startSQS(ctx, opts.SQSAddr); err != nil {
		return nil, err
	}
	c.sqs, e.SQSURL = e.sqs.client, e.sqs.server.URL
	e.DLQURL, e.ParkingLotURL, e.SourceQueueURL = e.sqs.dlqURL, e.sqs.parkingLotURL, e.sqs.sourceQueueURL

	e.SFNURL = opts.StepFunctionsEndpoint
	if e.SFNURL == "" {
		if e.SFNURL, err = e.serveExecutor(runCtx, opts, invoker); err != nil {
			return nil, err
		}
	}
	c.sfn = sfn.New(sfn.Options{HTTPClient: loopback.NewHTTPClient(), Region: Region, BaseEndpoint: aws.String(e.SFNURL), Credentials: credentialsProvider})
	arns, err := createStateMachines(ctx, c.sfn, opts.NameSuffix)
	if err != nil {
		return nil, err
	}
	e.RedriveARN, e.AdminARN, e.ReleaseARN = arns.redrive, arns.admin, arns.release

	if _, err = e.consumer.use(opts.Target); err != nil {
		return nil, err
	}
	w := wiring{table: e.Table, redriveARN: e.RedriveARN, releaseARN: e.ReleaseARN, parkingLotURL: e.ParkingLotURL}
	if err = register(reg, c, w.env(opts.Getenv), clk, e.consumer, opts.Logs); err != nil {
		return nil, err
	}
	source := &eventSource{
		sqs: c.sqs, queueURL: e.DLQURL, queueARN: queueARN(DLQName),
		invoker: invoker, function: FunctionARN(FunctionStarter), logger: telemetry.JSONLogger(opts.Logs),
	}
	e.running.Go(func() { source.run(runCtx) })
	return e, nil
}

// serveExecutor runs the project's executor on the emulator's scaled
// clock, invoking the functions through invoker, and serves its Step
// Functions API; it returns the API's URL.
func (e *Emulator) serveExecutor(ctx context.Context, opts Options, invoker local.Invoker) (string, error) {
	exec := local.New(local.Options{Invoker: invoker, Scaled: e.Clock, Region: Region, Account: Account})
	srv, err := e.listen("the Step Functions API", opts.SFNAddr, sfnapi.NewServer(exec))
	if err != nil {
		return "", err
	}
	e.running.Go(func() { _ = exec.Run(ctx) }) // returns ctx's error when Close cancels it
	return srv.URL, nil
}

// listen serves h on addr until Close.
func (e *Emulator) listen(what, addr string, h http.Handler) (*server, error) {
	srv, err := listen(what, addr, h)
	if err != nil {
		return nil, err
	}
	e.servers = append(e.servers, srv)
	return srv, nil
}

// Consumer is the simulated consumer the attempt task delivers to, with
// its ledger of calls.
func (e *Emulator) Consumer() *simtarget.Target { return e.consumer.target() }

// UseConsumer replaces the simulated consumer by a new one behaving as b
// from now on the handlers' clock, with an empty ledger, and returns it.
func (e *Emulator) UseConsumer(b Behaviour) (*simtarget.Target, error) {
	return e.consumer.use(b)
}

// Close stops the event source and the executor, the servers and the
// backends, and deletes a table made on an external DynamoDB endpoint.
// Executions still running on the executor stop where they are.
func (e *Emulator) Close() error {
	e.stop()
	e.running.Wait()
	var errs []error
	for _, s := range e.servers {
		errs = append(errs, s.close())
	}
	e.servers = nil
	if e.sqs != nil {
		errs = append(errs, e.sqs.close())
		e.sqs = nil
	}
	if e.dynamo != nil {
		errs = append(errs, e.dynamo.close(context.Background()))
		e.dynamo = nil
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("emulator: close: %w", err)
	}
	return nil
}
