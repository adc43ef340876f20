package sfnapi

import (
	"context"
	"net/http"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	"github.com/aws/aws-sdk-go-v2/service/sfn/types"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/redrive/redrive/emulate/executor"
)

// Client is the Step Functions API over an executor for a caller in the
// same process: the operations the tasks make, with the sfn client's
// method signatures, validated and answered as the server answers them
// (errors included, as the SDK returns them) without the wire format, its
// signing and its middleware, which cost a long simulation most of its
// time. It is safe for concurrent use.
type Client struct {
	s *server
}

// NewClient returns a Client of e.
func NewClient(e *executor.Executor) *Client {
	return &Client{s: &server{e: e, tags: map[string][]tag{}}}
}

// StartExecution starts an execution, as the API's StartExecution.
func (c *Client) StartExecution(ctx context.Context, in *sfn.StartExecutionInput, _ ...func(*sfn.Options)) (*sfn.StartExecutionOutput, error) {
	out, err := c.s.startExecution(ctx, &startExecutionInput{
		StateMachineArn: aws.ToString(in.StateMachineArn), Name: aws.ToString(in.Name), Input: in.Input, TraceHeader: aws.ToString(in.TraceHeader),
	})
	if err != nil {
		return nil, sdkError("StartExecution", err)
	}
	return &sfn.StartExecutionOutput{ExecutionArn: aws.String(out.ExecutionArn), StartDate: aws.Time(out.StartDate.time())}, nil
}

// SendTaskSuccess settles a task token with an output, as the API's
// SendTaskSuccess.
func (c *Client) SendTaskSuccess(ctx context.Context, in *sfn.SendTaskSuccessInput, _ ...func(*sfn.Options)) (*sfn.SendTaskSuccessOutput, error) {
	if _, err := c.s.sendTaskSuccess(ctx, &sendTaskSuccessInput{TaskToken: aws.ToString(in.TaskToken), Output: in.Output}); err != nil {
		return nil, sdkError("SendTaskSuccess", err)
	}
	return &sfn.SendTaskSuccessOutput{}, nil
}

// SendTaskFailure fails a task token, as the API's SendTaskFailure.
func (c *Client) SendTaskFailure(ctx context.Context, in *sfn.SendTaskFailureInput, _ ...func(*sfn.Options)) (*sfn.SendTaskFailureOutput, error) {
	if _, err := c.s.sendTaskFailure(ctx, &sendTaskFailureInput{TaskToken: aws.ToString(in.TaskToken), Error: aws.ToString(in.Error), Cause: aws.ToString(in.Cause)}); err != nil {
		return nil, sdkError("SendTaskFailure", err)
	}
	return &sfn.SendTaskFailureOutput{}, nil
}

// SendTaskHeartbeat reports that a task token's work goes on, as the
// API's SendTaskHeartbeat.
func (c *Client) SendTaskHeartbeat(ctx context.Context, in *sfn.SendTaskHeartbeatInput, _ ...func(*sfn.Options)) (*sfn.SendTaskHeartbeatOutput, error) {
	if _, err := c.s.sendTaskHeartbeat(ctx, &sendTaskHeartbeatInput{TaskToken: aws.ToString(in.TaskToken)}); err != nil {
		return nil, sdkError("SendTaskHeartbeat", err)
	}
	return &sfn.SendTaskHeartbeatOutput{}, nil
}

// modelled lists, per operation, the error codes the SDK decodes into
// their own types (its deserializers' lists, less the KMS ones the local
// API never answers); it decodes any other code as a GenericAPIError.
var modelled = map[string][]string{
	"StartExecution": {"ExecutionAlreadyExists", "ExecutionLimitExceeded", "InvalidArn", "InvalidExecutionInput",
		"InvalidName", "StateMachineDeleting", "StateMachineDoesNotExist", "ValidationException"},
	"SendTaskSuccess":   {"InvalidOutput", "InvalidToken", "TaskDoesNotExist", "TaskTimedOut"},
	"SendTaskFailure":   {"InvalidToken", "TaskDoesNotExist", "TaskTimedOut"},
	"SendTaskHeartbeat": {"InvalidToken", "TaskDoesNotExist", "TaskTimedOut"},
}

// sdkErrors makes the SDK's typed error of each code in modelled.
var sdkErrors = map[string]func(msg *string) error{
	"ExecutionAlreadyExists":   func(m *string) error { return &types.ExecutionAlreadyExists{Message: m} },
	"ExecutionLimitExceeded":   func(m *string) error { return &types.ExecutionLimitExceeded{Message: m} },
	"InvalidArn":               func(m *string) error { return &types.InvalidArn{Message: m} },
	"InvalidExecutionInput":    func(m *string) error { return &types.InvalidExecutionInput{Message: m} },
	"InvalidName":              func(m *string) error { return &types.InvalidName{Message: m} },
	"InvalidOutput":            func(m *string) error { return &types.InvalidOutput{Message: m} },
	"InvalidToken":             func(m *string) error { return &types.InvalidToken{Message: m} },
	"StateMachineDeleting":     func(m *string) error { return &types.StateMachineDeleting{Message: m} },
	"StateMachineDoesNotExist": func(m *string) error { return &types.StateMachineDoesNotExist{Message: m} },
	"TaskDoesNotExist":         func(m *string) error { return &types.TaskDoesNotExist{Message: m} },
	"TaskTimedOut":             func(m *string) error { return &types.TaskTimedOut{Message: m} },
	"ValidationException":      func(m *string) error { return &types.ValidationException{Message: m} },
}

// sdkError is err as the sfn client returns what the server answers for
// it: the operation's modelled type, or a GenericAPIError, in the
// response error that carries the HTTP status, in an operation error
// naming the service and operation (the server sends no request id).
func sdkError(operation string, err error) error {
	ae := classify(err)
	var typed error = &smithy.GenericAPIError{Code: ae.code, Message: ae.message}
	if slices.Contains(modelled[operation], ae.code) {
		typed = sdkErrors[ae.code](aws.String(ae.message))
	}
	resp := &smithyhttp.ResponseError{Response: &smithyhttp.Response{Response: &http.Response{StatusCode: ae.status()}}, Err: typed}
	return &smithy.OperationError{ServiceID: sfn.ServiceID, OperationName: operation, Err: &awshttp.ResponseError{ResponseError: resp}}
}
