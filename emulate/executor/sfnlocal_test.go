package executor_test

// TestConformanceStepFunctionsLocal runs the conformance cases
// (testdata/conformance, format in conformance_test.go) against Step
// Functions Local, to check the cases and the local executor against
// Amazon's own emulator. It is gated: without SFN_LOCAL_ENDPOINT it skips.
//
// The test functions are served by lambdaapi.NewServer on
// LAMBDA_SERVER_ADDR (default 127.0.0.1:9001); Step Functions Local's
// LAMBDA_ENDPOINT must point there, e.g.
//
//	docker run -p 8083:8083 -e LAMBDA_ENDPOINT=http://host.docker.internal:9001 \
//	    --add-host host.docker.internal:host-gateway amazon/aws-stepfunctions-local
//	SFN_LOCAL_ENDPOINT=http://localhost:8083 LAMBDA_SERVER_ADDR=0.0.0.0:9001 \
//	    go test ./emulate/executor/ -run TestConformanceStepFunctionsLocal
//
// Skipped there: load-error cases (their messages are the local
// executor's), cases asserting virtual-time durations or reading the
// virtual clock through the context object, and cases whose functions
// consume virtual time with executor.Delay. Step Functions Local does not
// report billed transitions, so expectTransitions is not checked.

import (
	"bytes"
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	sfntypes "github.com/aws/aws-sdk-go-v2/service/sfn/types"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/emulate/executor"
	"github.com/redrive/redrive/emulate/executor/lambdaapi"
)

const defaultLambdaServerAddr = "127.0.0.1:9001"

// sfnLocalPoll is how often a running execution is described.
const sfnLocalPoll = 100 * time.Millisecond

// delayFunctions are the test functions that call executor.Delay.
var delayFunctions = []string{"function:sleep10"}

// virtualClockPaths are context object fields whose values come from the
// executor's clock.
var virtualClockPaths = []string{"$$.Execution.StartTime", "$$.State.EnteredTime"}

func TestConformanceStepFunctionsLocal(t *testing.T) {
	endpoint := os.Getenv("SFN_LOCAL_ENDPOINT")
	if endpoint == "" {
		t.Skip("SFN_LOCAL_ENDPOINT not set: no Step Functions Local to run the conformance cases against")
	}
	addr := os.Getenv("LAMBDA_SERVER_ADDR")
	if addr == "" {
		addr = defaultLambdaServerAddr
	}
	cases := loadConformanceCases(t)

	inv := &caseInvoker{}
	ln, err := net.Listen("tcp", addr)
	require.NoError(t, err, "listen for Step Functions Local's Lambda calls on LAMBDA_SERVER_ADDR %s", addr)
	srv := &http.Server{Handler: lambdaapi.NewServer(inv), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })

	client := sfn.New(sfn.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(endpoint),
		Credentials:  credentials.NewStaticCredentialsProvider("local", "local", ""),
	})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if reason := c.virtualOnly(); reason != "" {
				t.Skip(reason)
			}
			reg, fns := newConformanceRegistry(t)
			inv.set(reg)
			runSFNLocalCase(t, client, c, fns)
		})
	}
}

// virtualOnly says why a case cannot run on Step Functions Local, or "".
func (c conformanceCase) virtualOnly() string {
	switch {
	case len(c.LoadError) > 0:
		return "load-error messages are the local executor's own"
	case c.ExpectDurationSeconds != nil || c.ExpectDurationBelowSeconds != nil:
		return "asserts a virtual-time duration"
	case len(c.Callbacks) > 0:
		return "sends task tokens at virtual times"
	}
	for _, fn := range delayFunctions {
		if bytes.Contains(c.Definition, []byte(fn)) {
			return "its function consumes virtual time with executor.Delay"
		}
	}
	for _, p := range virtualClockPaths {
		if bytes.Contains(c.Definition, []byte(p)) {
			return "reads the virtual clock through " + p
		}
	}
	return ""
}

// runSFNLocalCase runs c through the sfn API and checks it as the local
// executor's run is checked.
func runSFNLocalCase(t *testing.T, client *sfn.Client, c conformanceCase, fns *conformanceFunctions) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	smARN := createSFNLocalStateMachine(ctx, t, client, string(c.Definition))
	started, err := client.StartExecution(ctx, &sfn.StartExecutionInput{
		StateMachineArn: aws.String(smARN),
		Name:            aws.String(conformanceExecution),
		Input:           aws.String(c.input()),
	})
	require.NoError(t, err, "StartExecution")

	var ex *sfn.DescribeExecutionOutput
	for {
		ex, err = client.DescribeExecution(ctx, &sfn.DescribeExecutionInput{ExecutionArn: started.ExecutionArn})
		require.NoError(t, err, "DescribeExecution")
		if ex.Status != sfntypes.ExecutionStatusRunning {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("execution still RUNNING: %v", ctx.Err())
		case <-time.After(sfnLocalPoll):
		}
	}
	states, err := sfnLocalEnteredStates(ctx, client, aws.ToString(started.ExecutionArn))
	require.NoError(t, err, "GetExecutionHistory")
	c.check(t, outcome{
		Status:      executor.Status(ex.Status),
		Output:      aws.ToString(ex.Output),
		Error:       aws.ToString(ex.Error),
		Cause:       aws.ToString(ex.Cause),
		States:      states,
		Transitions: -1,
		Invocations: fns.invocationCounts(),
	})
}

// createSFNLocalStateMachine creates the case's state machine under the
// fixed conformance name (so the context object matches the local run),
// replacing one a previous case or run left, and deletes it afterwards.
func createSFNLocalStateMachine(ctx context.Context, t *testing.T, client *sfn.Client, definition string) string {
	t.Helper()
	in := &sfn.CreateStateMachineInput{
		Name:       aws.String(conformanceStateMachine),
		Definition: aws.String(definition),
		RoleArn:    aws.String(conformanceRole),
	}
	out, err := client.CreateStateMachine(ctx, in)
	var exists *sfntypes.StateMachineAlreadyExists
	if errors.As(err, &exists) {
		arn := "arn:aws:states:us-east-1:123456789012:stateMachine:" + conformanceStateMachine
		_, err = client.DeleteStateMachine(ctx, &sfn.DeleteStateMachineInput{StateMachineArn: aws.String(arn)})
		require.NoError(t, err, "delete the leftover state machine %s", arn)
		out, err = client.CreateStateMachine(ctx, in)
	}
	require.NoError(t, err, "CreateStateMachine")
	t.Cleanup(func() {
		_, err := client.DeleteStateMachine(context.Background(), &sfn.DeleteStateMachineInput{StateMachineArn: out.StateMachineArn})
		if err != nil {
			t.Errorf("delete state machine: %v", err)
		}
	})
	return aws.ToString(out.StateMachineArn)
}

// sfnLocalEnteredStates lists the state names of an execution's
// *StateEntered events, oldest first.
func sfnLocalEnteredStates(ctx context.Context, client *sfn.Client, executionARN string) ([]string, error) {
	var names []string
	p := sfn.NewGetExecutionHistoryPaginator(client, &sfn.GetExecutionHistoryInput{ExecutionArn: aws.String(executionARN)})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, err
		}
		for _, ev := range page.Events {
			if strings.HasSuffix(string(ev.Type), "StateEntered") && ev.StateEnteredEventDetails != nil {
				names = append(names, aws.ToString(ev.StateEnteredEventDetails.Name))
			}
		}
	}
	return names, nil
}

// caseInvoker forwards Lambda calls to the current case's registry: the
// server outlives the cases, each case has fresh functions.
type caseInvoker struct {
	mu  sync.Mutex
	reg *executor.Registry
}

var _ executor.Invoker = (*caseInvoker)(nil)

// set makes reg the registry for the following calls.
func (c *caseInvoker) set(reg *executor.Registry) {
	c.mu.Lock()
	c.reg = reg
	c.mu.Unlock()
}

// Invoke implements executor.Invoker.
func (c *caseInvoker) Invoke(ctx context.Context, function string, payload []byte) (executor.Invocation, error) {
	c.mu.Lock()
	reg := c.reg
	c.mu.Unlock()
	if reg == nil {
		return executor.Invocation{}, errors.New("conformance: no case is running")
	}
	return reg.Invoke(ctx, function, payload)
}
