package lambdaapi_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	lambdatypes "github.com/aws/aws-sdk-go-v2/service/lambda/types"
	"github.com/redrive/redrive/emulate/executor"
	"github.com/redrive/redrive/emulate/executor/lambdaapi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// callDef invokes the function named in the input through lambda:invoke
// and returns its payload, or the caught error.
const callDef = `{
  "StartAt": "Call",
  "States": {
    "Call": {
      "Type": "Task",
      "Resource": "arn:aws:states:::lambda:invoke",
      "Parameters": {"FunctionName.$": "$.fn", "Payload.$": "$.payload"},
      "ResultSelector": {"payload.$": "$.Payload", "status.$": "$.StatusCode"},
      "Catch": [{"ErrorEquals": ["States.ALL"], "ResultPath": "$.error", "Next": "Caught"}],
      "End": true
    },
    "Caught": {"Type": "Pass", "OutputPath": "$.error", "End": true}
  }
}`

// plainDef invokes greet by its function ARN: the input is the payload and
// the output the function's response.
const plainDef = `{
  "StartAt": "Greet",
  "States": {
    "Greet": {"Type": "Task", "Resource": "arn:aws:lambda:us-east-1:123456789012:function:greet", "End": true}
  }
}`

// The executor reaching in-process handlers through the Invoke API over
// HTTP sees what it sees in process: results, function errors and service
// errors by name.
func TestExecutorThroughHTTP(t *testing.T) {
	client, _ := newClient(t, lambdaapi.NewServer(newRegistry(t)))
	e := executor.New(executor.Options{Invoker: lambdaapi.NewInvoker(client)})
	ctx := context.Background()
	const role = "arn:aws:iam::123456789012:role/redrive-local"
	call, err := e.CreateStateMachine(ctx, "call", callDef, role)
	require.NoError(t, err)
	plain, err := e.CreateStateMachine(ctx, "plain", plainDef, role)
	require.NoError(t, err)

	tests := []struct {
		name, machine, input, want string
	}{
		{
			name:    "lambda:invoke result",
			machine: call,
			input:   `{"fn":"greet","payload":{"name":"ops"}}`,
			want:    `{"payload":{"message":"hello ops","arn":"arn:aws:lambda:us-east-1:123456789012:function:greet"},"status":200}`,
		},
		{
			name:    "plain function ARN",
			machine: plain,
			input:   `{"name":"plain"}`,
			want:    `{"message":"hello plain","arn":"arn:aws:lambda:us-east-1:123456789012:function:greet"}`,
		},
		{
			name:    "function error",
			machine: call,
			input:   `{"fn":"deliver","payload":{"name":"x"}}`,
			want:    `{"Error":"TargetDown","Cause":"{\"errorMessage\":\"target answered 503\",\"errorType\":\"TargetDown\"}"}`,
		},
		{
			name:    "unknown function",
			machine: call,
			input:   `{"fn":"nope","payload":{}}`,
		},
	}
	arns := make([]string, len(tests))
	for i, tt := range tests {
		ex, err := e.StartExecution(ctx, tt.machine, "", tt.input)
		require.NoError(t, err, tt.name)
		arns[i] = ex.ARN
	}
	require.NoError(t, e.Run(ctx))

	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ex, err := e.DescribeExecution(ctx, arns[i])
			require.NoError(t, err)
			require.Equal(t, executor.Succeeded, ex.Status, "%s: %s", ex.Error, ex.Cause)
			if tt.want != "" {
				assert.JSONEq(t, tt.want, string(ex.Output))
				return
			}
			var caught struct{ Error, Cause string }
			require.NoError(t, json.Unmarshal(ex.Output, &caught))
			assert.Equal(t, "Lambda.ResourceNotFoundException", caught.Error)
			assert.Regexp(t, `^Function not found: arn:aws:lambda:us-east-1:123456789012:function:nope `+
				`\(Service: AWSLambda; Status Code: 404; Error Code: ResourceNotFoundException; Request ID: `+uuidPattern+`; Proxy: null\)$`, caught.Cause)
		})
	}
}

// A Lambda service error fails the task with the error and cause Step
// Functions records: Lambda.<Error Code>, and Lambda's message with the
// Java SDK's summary, in the TaskFailed event and the execution's failure.
func TestServiceErrorCauses(t *testing.T) {
	tests := []struct {
		name      string
		err       error
		errName   string
		wantCause string
	}{
		{
			name:    "throttled",
			err:     &lambdatypes.TooManyRequestsException{Type: aws.String("User"), Message: aws.String("Rate Exceeded.")},
			errName: "Lambda.TooManyRequestsException",
			wantCause: "Rate Exceeded. (Service: AWSLambda; Status Code: 429; Error Code: TooManyRequestsException; " +
				"Request ID: 00000000-0000-4000-a000-000000000001; Proxy: null)",
		},
		{
			name:    "service failure",
			err:     errors.New("backend connection reset"),
			errName: "Lambda.ServiceException",
			wantCause: "backend connection reset (Service: AWSLambda; Status Code: 500; Error Code: ServiceException; " +
				"Request ID: 00000000-0000-4000-a000-000000000001; Proxy: null)",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client, _ := newClient(t, lambdaapi.NewServer(failingInvoker{tt.err}))
			e := executor.New(executor.Options{Invoker: lambdaapi.NewInvoker(client)})
			ctx := context.Background()
			sm, err := e.CreateStateMachine(ctx, "plain", plainDef, "arn:aws:iam::123456789012:role/redrive-local")
			require.NoError(t, err)
			ex, err := e.StartExecution(ctx, sm, "", `{}`)
			require.NoError(t, err)
			require.NoError(t, e.Run(ctx))

			got, err := e.DescribeExecution(ctx, ex.ARN)
			require.NoError(t, err)
			assert.Equal(t, executor.Failed, got.Status)
			assert.Equal(t, tt.errName, got.Error)
			assert.Equal(t, tt.wantCause, got.Cause)
			history, err := e.History(ctx, ex.ARN)
			require.NoError(t, err)
			b, err := json.Marshal(history)
			require.NoError(t, err)
			var events []struct {
				Failed *struct{ Error, Cause string } `json:"lambdaFunctionFailedEventDetails"`
			}
			require.NoError(t, json.Unmarshal(b, &events))
			var failed []struct{ Error, Cause string }
			for _, ev := range events {
				if ev.Failed != nil {
					failed = append(failed, *ev.Failed)
				}
			}
			assert.Equal(t, []struct{ Error, Cause string }{{tt.errName, tt.wantCause}}, failed, "the LambdaFunctionFailed event")
		})
	}
}
