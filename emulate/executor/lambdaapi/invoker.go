package lambdaapi

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/aws/smithy-go"

	"github.com/redrive/redrive/emulate/executor"
)

// InvokeAPI is the one lambda.Client call the Invoker makes.
type InvokeAPI interface {
	Invoke(ctx context.Context, params *lambda.InvokeInput, optFns ...func(*lambda.Options)) (*lambda.InvokeOutput, error)
}

// Invoker runs Task resources on a Lambda Invoke API endpoint (AWS, or a
// Server) through the SDK client. It implements executor.Invoker.
type Invoker struct {
	client InvokeAPI
}

var (
	_ executor.Invoker = (*Invoker)(nil)
	_ InvokeAPI        = (*lambda.Client)(nil)
)

// NewInvoker returns an Invoker calling client.
func NewInvoker(client InvokeAPI) *Invoker {
	return &Invoker{client: client}
}

// Invoke invokes function (a name or ARN, optionally ":qualifier")
// synchronously. A function error is an Invocation with FunctionError set;
// a service error keeps its SDK type (e.g.
// *lambdatypes.ResourceNotFoundException) under the returned
// *executor.ServiceError, which reads as the cause Step Functions records.
func (i *Invoker) Invoke(ctx context.Context, function string, payload []byte) (executor.Invocation, error) {
	out, err := i.client.Invoke(ctx, &lambda.InvokeInput{
		FunctionName: aws.String(function),
		Payload:      payload,
	})
	var apiErr smithy.APIError
	var respErr *awshttp.ResponseError
	switch {
	case errors.As(err, &apiErr) && errors.As(err, &respErr):
		return executor.Invocation{}, &executor.ServiceError{Err: err, StatusCode: respErr.HTTPStatusCode(), RequestID: respErr.ServiceRequestID()}
	case err != nil:
		return executor.Invocation{}, fmt.Errorf("invoke lambda %q: %w", function, err)
	}
	return executor.Invocation{
		Payload:         out.Payload,
		FunctionError:   aws.ToString(out.FunctionError),
		ExecutedVersion: aws.ToString(out.ExecutedVersion),
	}, nil
}
