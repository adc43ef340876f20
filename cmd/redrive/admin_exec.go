package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	sfntypes "github.com/aws/aws-sdk-go-v2/service/sfn/types"

	"github.com/redrive/redrive/admin"
)

// adminAPI is the part of the Step Functions client the admin command
// calls, with the SDK's signatures.
type adminAPI interface {
	StartExecution(ctx context.Context, params *sfn.StartExecutionInput, optFns ...func(*sfn.Options)) (*sfn.StartExecutionOutput, error)
	DescribeExecution(ctx context.Context, params *sfn.DescribeExecutionInput, optFns ...func(*sfn.Options)) (*sfn.DescribeExecutionOutput, error)
}

var _ adminAPI = (*sfn.Client)(nil)

// exitUnknownBreaker is the exit code of a status of a key no breaker has
// (the execution failed with admin.UnknownBreaker): a mistyped key, told
// apart from a command that failed.
const exitUnknownBreaker = 3

// unknownBreaker is the error an execution fails with on a status of a key
// no breaker has: the type's name, as Step Functions reports it.
var unknownBreaker = reflect.TypeFor[admin.UnknownBreaker]().Name()

// Polling of a running admin execution: the first look is soon (the
// command takes one Lambda invocation), later ones back off.
const (
	firstPoll = 50 * time.Millisecond
	maxPoll   = time.Second
)

// execAdmin starts the admin execution for call, waits for it to end and
// prints its output (pretty JSON) to stdout, or its error and cause to
// stderr (execute). It returns the exit code. A rule-list runs an
// execution per page (listRules).
func execAdmin(ctx context.Context, api adminAPI, call adminCall, stdout, stderr io.Writer) int {
	if call.request.Command == admin.CommandRuleList {
		return listRules(ctx, api, call, stdout, stderr)
	}
	out, code := execute(ctx, api, call, call.request, stderr)
	if code != exitOK {
		return code
	}
	if _, err := stdout.Write(out); err != nil {
		fmt.Fprintf(stderr, "redrive admin: write the output: %v\n", err)
		return exitFailure
	}
	return exitOK
}

// execute starts an admin execution of request, waits up to call.timeout
// for it to end and returns its output, pretty JSON and a newline; or it
// prints its error and cause to stderr and returns the exit code:
// exitUnknownBreaker when the execution failed with admin.UnknownBreaker.
func execute(ctx context.Context, api adminAPI, call adminCall, request admin.Request, stderr io.Writer) ([]byte, int) {
	ctx, cancel := context.WithTimeout(ctx, call.timeout)
	defer cancel()
	input, err := json.Marshal(request)
	if err != nil {
		fmt.Fprintf(stderr, "redrive admin: encode the request: %v\n", err)
		return nil, exitFailure
	}
	started, err := api.StartExecution(ctx, &sfn.StartExecutionInput{
		StateMachineArn: aws.String(call.stateMachineARN),
		Input:           aws.String(string(input)),
	})
	if err != nil {
		fmt.Fprintf(stderr, "redrive admin: start %s on %s: %v\n", request.Command, call.stateMachineARN, err)
		return nil, exitFailure
	}
	arn := aws.ToString(started.ExecutionArn)
	ex, err := awaitExecution(ctx, api, arn)
	if err != nil {
		fmt.Fprintf(stderr, "redrive admin: execution %s: %v\n", arn, err)
		return nil, exitFailure
	}
	if ex.Status != sfntypes.ExecutionStatusSucceeded {
		fmt.Fprintf(stderr, "redrive admin: execution %s %s: %s\n", arn, ex.Status, describeFailure(aws.ToString(ex.Error), aws.ToString(ex.Cause)))
		if aws.ToString(ex.Error) == unknownBreaker {
			return nil, exitUnknownBreaker
		}
		return nil, exitFailure
	}
	var out bytes.Buffer
	if err := json.Indent(&out, []byte(aws.ToString(ex.Output)), "", "  "); err != nil {
		fmt.Fprintf(stderr, "redrive admin: execution %s succeeded with output that is not JSON: %v\n", arn, err)
		return nil, exitFailure
	}
	out.WriteByte('\n')
	return out.Bytes(), exitOK
}

// awaitExecution describes the execution until it is no longer RUNNING or
// ctx ends.
func awaitExecution(ctx context.Context, api adminAPI, arn string) (*sfn.DescribeExecutionOutput, error) {
	wait := firstPoll
	for {
		ex, err := api.DescribeExecution(ctx, &sfn.DescribeExecutionInput{ExecutionArn: aws.String(arn)})
		if err != nil {
			return nil, fmt.Errorf("describe: %w", err)
		}
		if ex.Status != sfntypes.ExecutionStatusRunning {
			return ex, nil
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, fmt.Errorf("still RUNNING: %w", ctx.Err())
		case <-t.C:
		}
		wait = min(2*wait, maxPoll)
	}
}

// describeFailure renders an execution's error and cause. A Lambda
// function error's cause is its error document; its message is shown.
func describeFailure(name, cause string) string {
	var doc struct {
		ErrorMessage string `json:"errorMessage"`
	}
	if json.Unmarshal([]byte(cause), &doc) == nil && doc.ErrorMessage != "" {
		cause = doc.ErrorMessage
	}
	switch {
	case name == "":
		return cause
	case cause == "":
		return name
	}
	return name + ": " + cause
}
