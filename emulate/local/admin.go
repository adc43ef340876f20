package local

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn"

	"github.com/redrive/redrive/admin"
	"github.com/redrive/redrive/emulate/executor"
)

// ExecutionFailed reports an execution that ended other than SUCCEEDED,
// with the error and cause Step Functions shows for it.
type ExecutionFailed struct {
	// ARN is the execution.
	ARN string
	// Status is how it ended: FAILED, TIMED_OUT or ABORTED.
	Status executor.Status
	// ErrorName and Cause are the execution's error and cause.
	ErrorName, Cause string
}

// Error implements error.
func (e *ExecutionFailed) Error() string {
	return fmt.Sprintf("local: execution %s %s: %s: %s", e.ARN, e.Status, e.ErrorName, e.Cause)
}

// Admin starts an execution of the admin state machine with request as its
// input, as an operator does from the console, runs the executor until it
// ends, and returns its output. request is marshalled to JSON, except a
// string, []byte or json.RawMessage, which is the input as it is. An
// execution that fails is an *ExecutionFailed (an invalid command fails
// with Error "InvalidCommand"). Admin must not be called while the
// executor runs (from inside a handler or an event); the executor runs
// everything else due meanwhile too.
func (s *Stack) Admin(ctx context.Context, request any) (admin.Output, error) {
	input, err := inputText(request)
	if err != nil {
		return admin.Output{}, err
	}
	out, err := s.SFN.StartExecution(ctx, &sfn.StartExecutionInput{StateMachineArn: aws.String(s.AdminARN), Input: aws.String(input)})
	if err != nil {
		return admin.Output{}, fmt.Errorf("local: start admin execution: %w", err)
	}
	arn := aws.ToString(out.ExecutionArn)
	x, err := s.runUntilEnded(ctx, arn)
	if err != nil {
		return admin.Output{}, err
	}
	if x.Status != executor.Succeeded {
		return admin.Output{}, &ExecutionFailed{ARN: arn, Status: x.Status, ErrorName: x.Error, Cause: x.Cause}
	}
	var result admin.Output
	if err := json.Unmarshal(x.Output, &result); err != nil {
		return admin.Output{}, fmt.Errorf("local: admin execution %s output %s: %w", arn, x.Output, err)
	}
	return result, nil
}

// runUntilEnded runs the executor, a second of executor time at a time,
// until the execution arn has ended.
func (s *Stack) runUntilEnded(ctx context.Context, arn string) (executor.Execution, error) {
	for next := s.Executor.Now(); ; next = next.Add(time.Second) {
		if err := s.RunUntil(ctx, next); err != nil {
			return executor.Execution{}, err
		}
		x, err := s.Executor.DescribeExecution(ctx, arn)
		if err != nil {
			return executor.Execution{}, fmt.Errorf("local: %w", err)
		}
		if x.Status != executor.Running {
			return x, nil
		}
	}
}

// inputText is an execution input: request's JSON, or request itself when
// it is already JSON text.
func inputText(request any) (string, error) {
	switch r := request.(type) {
	case string:
		return r, nil
	case []byte:
		return string(r), nil
	case json.RawMessage:
		return string(r), nil
	}
	b, err := json.Marshal(request)
	if err != nil {
		return "", fmt.Errorf("local: encode admin request: %w", err)
	}
	return string(b), nil
}
