// Package sfntest gives the task tests a Step Functions endpoint: the
// project's local executor behind its Step Functions API facade, the real
// sfn client talking to it over HTTP, and the redrive state machine
// created from the embedded ASL.
package sfntest

import (
	"context"
	"errors"
	"net/http/httptest"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	sfntypes "github.com/aws/aws-sdk-go-v2/service/sfn/types"

	"github.com/redrive/redrive/emulate/executor"
	"github.com/redrive/redrive/emulate/executor/sfnapi"
	"github.com/redrive/redrive/emulate/loopback"
	"github.com/redrive/redrive/statemachine"
)

// The function ARNs the redrive definition is rendered with.
const (
	AttemptFunction  = "arn:aws:lambda:us-east-1:123456789012:function:redrive-attempt"
	ParkFunction     = "arn:aws:lambda:us-east-1:123456789012:function:redrive-park"
	WaitRoomFunction = "arn:aws:lambda:us-east-1:123456789012:function:redrive-waitroom"
)

// roleARN is the state machine's role; the executor only records it.
const roleARN = "arn:aws:iam::123456789012:role/redrive"

// Env is a local Step Functions endpoint with the redrive state machine.
type Env struct {
	// Executor runs the executions; nothing runs until a test calls Run.
	Executor *executor.Executor
	// Client is the sfn client for the endpoint; it does not retry.
	Client *sfn.Client
	// StateMachineARN is the redrive state machine.
	StateMachineARN string
	// URL is the endpoint, for a client of a test's own making.
	URL string
}

// Start returns an Env whose Task states invoke the functions of invoker
// (nil: none; executions then stay RUNNING until they are run). The
// endpoint is closed when tb ends.
func Start(tb testing.TB, invoker executor.Invoker) *Env {
	tb.Helper()
	e := executor.New(executor.Options{Invoker: invoker})
	srv := httptest.NewServer(sfnapi.NewServer(e))
	tb.Cleanup(srv.Close)
	client := NewClient(srv.URL)
	definition, err := statemachine.Redrive().Render(map[string]string{
		statemachine.AttemptFunctionArn:     AttemptFunction,
		statemachine.ParkFunctionArn:        ParkFunction,
		statemachine.WaitingRoomFunctionArn: WaitRoomFunction,
	})
	if err != nil {
		tb.Fatalf("sfntest: %v", err)
	}
	created, err := client.CreateStateMachine(context.Background(), &sfn.CreateStateMachineInput{
		Name:       aws.String("redrive"),
		Definition: aws.String(definition),
		RoleArn:    aws.String(roleARN),
	})
	if err != nil {
		tb.Fatalf("sfntest: create the redrive state machine: %v", err)
	}
	return &Env{Executor: e, Client: client, StateMachineARN: aws.ToString(created.StateMachineArn), URL: srv.URL}
}

// NewClient returns an sfn client for endpoint that does not retry, so a
// test sees every error the endpoint returns.
func NewClient(endpoint string) *sfn.Client {
	return sfn.New(sfn.Options{HTTPClient: loopback.NewHTTPClient(),
		Region:       "us-east-1",
		BaseEndpoint: aws.String(endpoint),
		Credentials:  credentials.NewStaticCredentialsProvider("test", "test", ""),
		Retryer:      aws.NopRetryer{},
	})
}

// ExecutionARN is the ARN of the redrive execution called name.
func (e *Env) ExecutionARN(name string) string {
	return "arn:aws:states:us-east-1:123456789012:execution:redrive:" + name
}

// Describe returns the execution called name through the API; ok is false
// when there is none.
func (e *Env) Describe(tb testing.TB, name string) (*sfn.DescribeExecutionOutput, bool) {
	tb.Helper()
	out, err := e.Client.DescribeExecution(context.Background(), &sfn.DescribeExecutionInput{ExecutionArn: aws.String(e.ExecutionARN(name))})
	if _, missing := errors.AsType[*sfntypes.ExecutionDoesNotExist](err); missing {
		return nil, false
	}
	if err != nil {
		tb.Fatalf("sfntest: describe execution %q: %v", name, err)
	}
	return out, true
}

// Executions lists the names of the redrive executions, in the API's
// order.
func (e *Env) Executions(tb testing.TB) []string {
	tb.Helper()
	var names []string
	p := sfn.NewListExecutionsPaginator(e.Client, &sfn.ListExecutionsInput{StateMachineArn: aws.String(e.StateMachineARN)})
	for p.HasMorePages() {
		page, err := p.NextPage(context.Background())
		if err != nil {
			tb.Fatalf("sfntest: list executions: %v", err)
		}
		for _, x := range page.Executions {
			names = append(names, aws.ToString(x.Name))
		}
	}
	return names
}
