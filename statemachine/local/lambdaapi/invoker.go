package lambdaapi

import (
	"cmp"
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/aws/smithy-go"
	"github.com/redrive/redrive/statemachine/local"
)

// InvokeAPI is the one lambda.Client call the Invoker makes.
type InvokeAPI interface {
	Invoke(ctx context.Context, params *lambda.InvokeInput, optFns ...func(*lambda.Options)) (*lambda.InvokeOutput, error)
}

// Invoker runs Task resources on a Lambda Invoke API endpoint (AWS, or a
// Server) through the SDK client. It implements local.Invoker.
type Invoker struct {
	client InvokeAPI
}

var (
	_ local.Invoker = (*Invoker)(nil)
	_ InvokeAPI     = (*lambda.Client)(nil)
)

// NewInvoker returns an Invoker calling client.
func NewInvoker(client InvokeAPI) *Invoker {
	return &Invoker{client: client}
}

// Invoke invokes function (a name or ARN, optionally ":qualifier")
// synchronously. A function error is an Invocation with FunctionError set;
// a service error keeps its SDK type (e.g.
// *lambdatypes.ResourceNotFoundException) under the returned error, which
// reads as the cause Step Functions records for it (see serviceError).
func (i *Invoker) Invoke(ctx context.Context, function string, payload []byte) (local.Invocation, error) {
	out, err := i.client.Invoke(ctx, &lambda.InvokeInput{
		FunctionName: aws.String(function),
		Payload:      payload,
	})
	var apiErr smithy.APIError
	var respErr *awshttp.ResponseError
	switch {
	case errors.As(err, &apiErr) && errors.As(err, &respErr):
		return local.Invocation{}, &serviceError{err: err, cause: fmt.Sprintf(
			"%s (Service: AWSLambda; Status Code: %d; Error Code: %s; Request ID: %s; Proxy: null)",
			apiErr.ErrorMessage(), respErr.HTTPStatusCode(), apiErr.ErrorCode(), cmp.Or(respErr.ServiceRequestID(), "null"))}
	case err != nil:
		return local.Invocation{}, fmt.Errorf("invoke lambda %q: %w", function, err)
	}
	return local.Invocation{
		Payload:         out.Payload,
		FunctionError:   aws.ToString(out.FunctionError),
		ExecutedVersion: aws.ToString(out.ExecutedVersion),
	}, nil
}

// serviceError is a Lambda service error answered over HTTP (the function
// could not be invoked: not found, throttled, ...), reading as the cause
// Step Functions records for it in a Task state's failure: Lambda's
// message followed by the AWS SDK for Java's summary, e.g. "Rate
// Exceeded. (Service: AWSLambda; Status Code: 429; Error Code:
// TooManyRequestsException; Request ID: ...; Proxy: null)", with "null"
// for a response without x-amzn-RequestId, as Java prints it. It unwraps to
// the SDK's error, whose ErrorCode names the task error.
type serviceError struct {
	err   error
	cause string
}

// Error returns the cause.
func (e *serviceError) Error() string { return e.cause }

// Unwrap returns the SDK's error.
func (e *serviceError) Unwrap() error { return e.err }
