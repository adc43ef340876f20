package sfnapi_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	sfntypes "github.com/aws/aws-sdk-go-v2/service/sfn/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/emulate/executor"
)

// approvalDef waits for its token, which it hands to the park function.
const approvalDef = `{
  "StartAt": "Approve",
  "States": {
    "Approve": {
      "Type": "Task",
      "Resource": "arn:aws:states:::lambda:invoke.waitForTaskToken",
      "Parameters": {"FunctionName": "park", "Payload": {"token.$": "$$.Task.Token"}},
      "TimeoutSeconds": 3600,
      "HeartbeatSeconds": 600,
      "ResultPath": "$.approval",
      "End": true
    }
  }
}`

// releaseDef calls release with the token in its input.
const releaseDef = `{
  "StartAt": "Release",
  "States": {
    "Release": {
      "Type": "Task",
      "Resource": "arn:aws:states:::lambda:invoke",
      "Parameters": {"FunctionName": "release", "Payload.$": "$"},
      "End": true
    }
  }
}`

// callbackEnv is an env whose park function records the tokens it is
// given and whose release function calls back through the sfn client from
// inside its invocation: a heartbeat, then SendTaskSuccess or, with a
// "error" member, SendTaskFailure.
type callbackEnv struct {
	*env
	mu     sync.Mutex
	parked []string
}

func newCallbackEnv(t *testing.T) *callbackEnv {
	t.Helper()
	v := &callbackEnv{}
	reg := executor.NewRegistry()
	require.NoError(t, reg.Register("park", func(in struct{ Token string }) (string, error) {
		v.mu.Lock()
		v.parked = append(v.parked, in.Token)
		v.mu.Unlock()
		return "parked", nil
	}))
	require.NoError(t, reg.Register("release", func(ctx context.Context, in struct{ Token, Error string }) (string, error) {
		if _, err := v.client.SendTaskHeartbeat(ctx, &sfn.SendTaskHeartbeatInput{TaskToken: aws.String(in.Token)}); err != nil {
			return "", err
		}
		if in.Error != "" {
			_, err := v.client.SendTaskFailure(ctx, &sfn.SendTaskFailureInput{TaskToken: aws.String(in.Token), Error: aws.String(in.Error), Cause: aws.String("declined")})
			return "failed it", err
		}
		_, err := v.client.SendTaskSuccess(ctx, &sfn.SendTaskSuccessInput{TaskToken: aws.String(in.Token), Output: aws.String(`{"approved":true}`)})
		return "released", err
	}))
	v.env = newEnvWith(t, reg)
	return v
}

// token returns the latest parked token.
func (v *callbackEnv) token(t *testing.T) string {
	t.Helper()
	v.mu.Lock()
	defer v.mu.Unlock()
	require.NotEmpty(t, v.parked)
	return v.parked[len(v.parked)-1]
}

// release runs the release machine on token (and errName) to its end.
func (v *callbackEnv) release(t *testing.T, token, errName string) {
	t.Helper()
	sm := v.create(t, "release", releaseDef)
	v.start(t, sm, "", `{"Token":"`+token+`","Error":"`+errName+`"}`)
	v.run(t)
}

// park runs the executor for a minute of virtual time: callback tasks
// started then are waiting for their tokens, well before their timeouts.
func (v *callbackEnv) park(t *testing.T) {
	t.Helper()
	require.NoError(t, v.e.RunUntil(context.Background(), v.e.Now().Add(time.Minute)))
}

func (v *callbackEnv) describe(t *testing.T, arn string) *sfn.DescribeExecutionOutput {
	t.Helper()
	out, err := v.client.DescribeExecution(context.Background(), &sfn.DescribeExecutionInput{ExecutionArn: aws.String(arn)})
	require.NoError(t, err)
	return out
}

// A handler of one execution completes another's callback task through
// the sfn client, while the executor is running it.
func TestSendTaskFromInsideAHandler(t *testing.T) {
	for _, tt := range []struct {
		name, errName string
		status        sfntypes.ExecutionStatus
	}{
		{"success", "", sfntypes.ExecutionStatusSucceeded},
		{"failure", "Declined", sfntypes.ExecutionStatusFailed},
	} {
		t.Run(tt.name, func(t *testing.T) {
			v := newCallbackEnv(t)
			waiting := v.start(t, v.create(t, "approval", approvalDef), "order-1", `{"order":1}`)
			v.park(t)
			require.Equal(t, sfntypes.ExecutionStatusRunning, v.describe(t, waiting).Status)

			v.release(t, v.token(t), tt.errName)
			got := v.describe(t, waiting)
			require.Equal(t, tt.status, got.Status, aws.ToString(got.Cause))
			if tt.errName == "" {
				assert.JSONEq(t, `{"order":1,"approval":{"approved":true}}`, aws.ToString(got.Output))
				return
			}
			assert.Equal(t, tt.errName, aws.ToString(got.Error))
			assert.Equal(t, "declined", aws.ToString(got.Cause))
		})
	}
}

// The callback's history, through GetExecutionHistory.
func TestCallbackHistoryThroughClient(t *testing.T) {
	v := newCallbackEnv(t)
	waiting := v.start(t, v.create(t, "approval", approvalDef), "order-1", `{}`)
	v.park(t)
	v.release(t, v.token(t), "")
	out, err := v.client.GetExecutionHistory(context.Background(), &sfn.GetExecutionHistoryInput{ExecutionArn: aws.String(waiting)})
	require.NoError(t, err)
	var types []sfntypes.HistoryEventType
	for _, ev := range out.Events {
		types = append(types, ev.Type)
	}
	assert.Equal(t, []sfntypes.HistoryEventType{"ExecutionStarted", "TaskStateEntered", "TaskScheduled", "TaskStarted", "TaskSubmitted", "TaskSucceeded", "TaskStateExited", "ExecutionSucceeded"}, types)
	scheduled := out.Events[2].TaskScheduledEventDetails
	require.NotNil(t, scheduled)
	assert.Equal(t, "invoke.waitForTaskToken", aws.ToString(scheduled.Resource))
	assert.Equal(t, int64(600), aws.ToInt64(scheduled.HeartbeatInSeconds))
	assert.Equal(t, int64(3600), aws.ToInt64(scheduled.TimeoutInSeconds))
	submitted := out.Events[4].TaskSubmittedEventDetails
	require.NotNil(t, submitted)
	assert.Contains(t, aws.ToString(submitted.Output), `"Payload":"parked"`)
	succeeded := out.Events[5].TaskSucceededEventDetails
	require.NotNil(t, succeeded)
	assert.JSONEq(t, `{"approved":true}`, aws.ToString(succeeded.Output))
}

// Every SendTask* error, through the real client.
func TestSendTaskErrors(t *testing.T) {
	v := newCallbackEnv(t)
	sm := v.create(t, "approval", approvalDef)
	v.start(t, sm, "done", `{}`)
	v.park(t)
	closed := v.token(t)
	v.release(t, closed, "")
	v.start(t, sm, "open", `{}`)
	v.park(t)
	open := v.token(t)
	// A token another executor with the same seed issued, for an
	// execution (its fourth) this one does not have.
	w := newCallbackEnv(t)
	other := w.create(t, "other", approvalDef)
	for range 4 {
		w.start(t, other, "", `{}`)
	}
	w.park(t)
	foreign := w.token(t)

	success := func(token, output string) func(context.Context) error {
		return func(ctx context.Context) error {
			_, err := v.client.SendTaskSuccess(ctx, &sfn.SendTaskSuccessInput{TaskToken: aws.String(token), Output: aws.String(output)})
			return err
		}
	}
	failure := func(token, errName, cause string) func(context.Context) error {
		return func(ctx context.Context) error {
			_, err := v.client.SendTaskFailure(ctx, &sfn.SendTaskFailureInput{TaskToken: aws.String(token), Error: aws.String(errName), Cause: aws.String(cause)})
			return err
		}
	}
	heartbeat := func(token string) func(context.Context) error {
		return func(ctx context.Context) error {
			_, err := v.client.SendTaskHeartbeat(ctx, &sfn.SendTaskHeartbeatInput{TaskToken: aws.String(token)})
			return err
		}
	}
	tests := []struct {
		name string
		call func(context.Context) error
		code string
	}{
		{"malformed token", success("not-a-token", `{}`), "InvalidToken"},
		{"malformed token to fail", failure("not-a-token", "E", ""), "InvalidToken"},
		{"malformed token heartbeat", heartbeat("not-a-token"), "InvalidToken"},
		{"token of a closed task", success(closed, `{}`), "TaskTimedOut"},
		{"token of a closed task to fail", failure(closed, "E", ""), "TaskTimedOut"},
		{"token of a closed task heartbeat", heartbeat(closed), "TaskTimedOut"},
		{"token of another executor", success(foreign, `{}`), "TaskDoesNotExist"},
		{"output not JSON", success(open, `{"a":`), "InvalidOutput"},
		{"empty token", success("", `{}`), "ValidationException"},
		{"token over 2048 characters", heartbeat(strings.Repeat("t", 2049)), "ValidationException"},
		{"output over 256 KiB", success(open, `"`+strings.Repeat("x", 256<<10)+`"`), "ValidationException"},
		{"error over 256 characters", failure(open, strings.Repeat("e", 257), ""), "ValidationException"},
		{"cause over 32768 characters", failure(open, "E", strings.Repeat("c", 32769)), "ValidationException"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			requireAPIError(t, tt.call(context.Background()), tt.code, tt.code != "ValidationException")
		})
	}
	t.Run("the open task is still open", func(t *testing.T) {
		require.NoError(t, heartbeat(open)(context.Background()))
		require.NoError(t, success(open, `{}`)(context.Background()))
	})
}
