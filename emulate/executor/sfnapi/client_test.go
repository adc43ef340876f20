package sfnapi_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/emulate/executor/sfnapi"
)

// taskAPI is what the tasks call; both clients have it.
type taskAPI interface {
	StartExecution(ctx context.Context, params *sfn.StartExecutionInput, optFns ...func(*sfn.Options)) (*sfn.StartExecutionOutput, error)
	SendTaskSuccess(ctx context.Context, params *sfn.SendTaskSuccessInput, optFns ...func(*sfn.Options)) (*sfn.SendTaskSuccessOutput, error)
	SendTaskFailure(ctx context.Context, params *sfn.SendTaskFailureInput, optFns ...func(*sfn.Options)) (*sfn.SendTaskFailureOutput, error)
	SendTaskHeartbeat(ctx context.Context, params *sfn.SendTaskHeartbeatInput, optFns ...func(*sfn.Options)) (*sfn.SendTaskHeartbeatOutput, error)
}

var (
	_ taskAPI = (*sfn.Client)(nil)
	_ taskAPI = (*sfnapi.Client)(nil)
)

// The in-process client answers every call as the SDK over the server
// does: the same outputs, and errors of the same type, code and message.
func TestClientAnswersAsTheServer(t *testing.T) {
	wire := newCallbackEnv(t)
	direct := newCallbackEnv(t)
	apis := []taskAPI{wire.client, sfnapi.NewClient(direct.e)}
	envs := []*callbackEnv{wire, direct}
	sms := make([]string, 2)
	for i, v := range envs {
		sms[i] = v.create(t, "approval", approvalDef)
	}
	// play runs one call on both sides and requires the same answer; it
	// returns the wire side's answer.
	play := func(t *testing.T, call func(i int, api taskAPI) (string, error)) string {
		t.Helper()
		var got [2]string
		for i, api := range apis {
			out, err := call(i, api)
			got[i] = describe(out, err)
		}
		require.Equal(t, got[0], got[1])
		return got[0]
	}
	start := func(name, input string) func(int, taskAPI) (string, error) {
		return func(i int, api taskAPI) (string, error) {
			in := &sfn.StartExecutionInput{StateMachineArn: aws.String(sms[i]), Name: aws.String(name)}
			if input != "" {
				in.Input = aws.String(input)
			}
			out, err := api.StartExecution(context.Background(), in)
			if err != nil {
				return "", err
			}
			return aws.ToString(out.ExecutionArn) + " at " + out.StartDate.UTC().String(), nil
		}
	}
	for _, c := range []struct{ name, start, input, want string }{
		{"started", "first", `{"n":1}`, "arn:"},
		{"same name and input while running: idempotent", "first", `{"n":1}`, "arn:"},
		{"same name, other input", "first", `{"n":2}`, "ExecutionAlreadyExists"},
		{"no input is {}", "second", "", "arn:"},
		{"generated name", "", `{}`, "arn:"},
		{"input not JSON", "third", `{"n":`, "InvalidExecutionInput"},
		{"input over 256 KiB", "fourth", `"` + strings.Repeat("x", 256<<10) + `"`, "ValidationException"},
		{"invalid name", "has space", `{}`, "InvalidName"},
	} {
		t.Run(c.name, func(t *testing.T) {
			assert.Contains(t, play(t, start(c.start, c.input)), c.want)
		})
	}
	t.Run("no such state machine", func(t *testing.T) {
		got := play(t, func(i int, api taskAPI) (string, error) {
			_, err := api.StartExecution(context.Background(), &sfn.StartExecutionInput{StateMachineArn: aws.String(sms[i] + "-gone")})
			return "", err
		})
		assert.Contains(t, got, "StateMachineDoesNotExist")
	})
	t.Run("not an ARN", func(t *testing.T) {
		got := play(t, func(_ int, api taskAPI) (string, error) {
			_, err := api.StartExecution(context.Background(), &sfn.StartExecutionInput{StateMachineArn: aws.String("approval")})
			return "", err
		})
		assert.Contains(t, got, "InvalidArn")
	})

	for _, v := range envs {
		v.park(t)
	}
	token := func(i int) string { return envs[i].token(t) }
	success := func(output string) func(int, taskAPI) (string, error) {
		return func(i int, api taskAPI) (string, error) {
			_, err := api.SendTaskSuccess(context.Background(), &sfn.SendTaskSuccessInput{TaskToken: aws.String(token(i)), Output: aws.String(output)})
			return "ok", err
		}
	}
	failure := func(errName string) func(int, taskAPI) (string, error) {
		return func(i int, api taskAPI) (string, error) {
			_, err := api.SendTaskFailure(context.Background(), &sfn.SendTaskFailureInput{TaskToken: aws.String(token(i)), Error: aws.String(errName)})
			return "ok", err
		}
	}
	heartbeat := func(tok string) func(int, taskAPI) (string, error) {
		return func(i int, api taskAPI) (string, error) {
			if tok == "" {
				tok = token(i)
			}
			_, err := api.SendTaskHeartbeat(context.Background(), &sfn.SendTaskHeartbeatInput{TaskToken: aws.String(tok)})
			return "ok", err
		}
	}
	for _, c := range []struct {
		name string
		call func(int, taskAPI) (string, error)
		want string
	}{
		{"heartbeat", heartbeat(""), "ok"},
		{"malformed token", heartbeat("not-a-token"), "InvalidToken"},
		{"token over 2048 characters", heartbeat(strings.Repeat("t", 2049)), "ValidationException"},
		{"output not JSON", success(`{"a":`), "InvalidOutput"},
		{"error over 256 characters", failure(strings.Repeat("e", 257)), "ValidationException"},
		{"success", success(`{"approved":true}`), "ok"},
		{"success again", success(`{}`), "TaskTimedOut"},
		{"failure after success", failure("E"), "TaskTimedOut"},
	} {
		t.Run(c.name, func(t *testing.T) {
			assert.Contains(t, play(t, c.call), c.want)
		})
	}
}

// describe writes a call's outcome for comparison: its output, or its
// error's HTTP status, request id, SDK type, code and message.
func describe(out string, err error) string {
	if err == nil {
		return out
	}
	var apiErr smithy.APIError
	if !errors.As(err, &apiErr) {
		return "not an API error: " + err.Error()
	}
	var op *smithy.OperationError
	if !errors.As(err, &op) {
		return "not an operation error: " + err.Error()
	}
	var resp *awshttp.ResponseError
	if !errors.As(err, &resp) {
		return "not a response error: " + err.Error()
	}
	return fmt.Sprintf("%s HTTP %d request id %q %T %s: %s", op.Operation(), resp.HTTPStatusCode(), resp.ServiceRequestID(),
		apiErr, apiErr.ErrorCode(), apiErr.ErrorMessage())
}
