package local

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	lambdatypes "github.com/aws/aws-sdk-go-v2/service/lambda/types"

	"github.com/redrive/redrive/delivery/target"
	"github.com/redrive/redrive/emulate/executor"
)

// directInvoke is the lambda client's Invoke over an executor.Invoker, without
// the Invoke API's wire format (Options.DirectInvoke).
type directInvoke struct {
	inv executor.Invoker
}

var _ target.InvokeAPI = directInvoke{}

// Invoke runs the function synchronously, with Invoke's result shape.
func (d directInvoke) Invoke(ctx context.Context, in *lambda.InvokeInput, _ ...func(*lambda.Options)) (*lambda.InvokeOutput, error) {
	if t := in.InvocationType; t != "" && t != lambdatypes.InvocationTypeRequestResponse {
		return nil, fmt.Errorf("local: invoke %s: invocation type %s is not supported; use RequestResponse", aws.ToString(in.FunctionName), t)
	}
	res, err := d.inv.Invoke(ctx, aws.ToString(in.FunctionName), in.Payload)
	if err != nil {
		return nil, err
	}
	out := &lambda.InvokeOutput{StatusCode: 200, Payload: res.Payload, ExecutedVersion: aws.String(res.ExecutedVersion)}
	if res.FunctionError != "" {
		out.FunctionError = aws.String(res.FunctionError)
	}
	return out, nil
}
