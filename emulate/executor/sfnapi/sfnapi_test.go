package sfnapi_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	sfntypes "github.com/aws/aws-sdk-go-v2/service/sfn/types"
	"github.com/aws/smithy-go"
	"github.com/redrive/redrive/emulate/executor"
	"github.com/redrive/redrive/emulate/executor/sfnapi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	roleARN = "arn:aws:iam::123456789012:role/redrive-local"

	// attemptDef invokes the attempt function and succeeds or fails on
	// its verdict.
	attemptDef = `{
  "Comment": "attempt, then succeed or fail on the verdict",
  "StartAt": "Attempt",
  "States": {
    "Attempt": {
      "Type": "Task",
      "Resource": "arn:aws:states:::lambda:invoke",
      "Parameters": {"FunctionName": "arn:aws:lambda:us-east-1:123456789012:function:attempt", "Payload.$": "$"},
      "ResultSelector": {"verdict.$": "$.Payload.verdict"},
      "Next": "Decide"
    },
    "Decide": {
      "Type": "Choice",
      "Choices": [{"Variable": "$.verdict", "StringEquals": "ok", "Next": "Delivered"}],
      "Default": "Broken"
    },
    "Delivered": {"Type": "Succeed"},
    "Broken": {"Type": "Fail", "Error": "Attempt.Failed", "Cause": "the verdict was not ok"}
  }
}`

	// cooldownDef waits 15 minutes, so its executions stay RUNNING until
	// the executor runs.
	cooldownDef = `{
  "StartAt": "Cooldown",
  "States": {
    "Cooldown": {"Type": "Wait", "Seconds": 900, "Next": "Done"},
    "Done": {"Type": "Succeed"}
  }
}`

	// callbackDef waits for a task token: a Standard state machine only.
	callbackDef = `{"StartAt":"Wait","States":{"Wait":{"Type":"Task",
  "Resource":"arn:aws:states:::lambda:invoke.waitForTaskToken",
  "Parameters":{"FunctionName":"attempt","Payload":{"token.$":"$$.Task.Token"}},"End":true}}}`
)

// env is an executor behind the HTTP facade and the real sfn client.
type env struct {
	e      *executor.Executor
	client *sfn.Client
	url    string
}

func newEnv(t testing.TB) *env {
	t.Helper()
	reg := executor.NewRegistry()
	require.NoError(t, reg.Register("attempt", func(in struct{ OK bool }) (map[string]string, error) {
		if in.OK {
			return map[string]string{"verdict": "ok"}, nil
		}
		return map[string]string{"verdict": "bad"}, nil
	}))
	return newEnvWith(t, reg)
}

// newEnvWith serves an executor invoking reg's functions.
func newEnvWith(t testing.TB, reg *executor.Registry) *env {
	t.Helper()
	e := executor.New(executor.Options{Invoker: reg})
	srv := httptest.NewServer(sfnapi.NewServer(e))
	t.Cleanup(srv.Close)
	client := sfn.New(sfn.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(srv.URL),
		Credentials:  credentials.NewStaticCredentialsProvider("AKIDLOCAL", "local-secret", ""),
		HTTPClient:   srv.Client(),
		Retryer:      aws.NopRetryer{},
	})
	return &env{e: e, client: client, url: srv.URL}
}

func (v *env) create(t testing.TB, name, definition string) string {
	t.Helper()
	out, err := v.client.CreateStateMachine(context.Background(), &sfn.CreateStateMachineInput{
		Name: aws.String(name), Definition: aws.String(definition), RoleArn: aws.String(roleARN),
	})
	require.NoError(t, err)
	return aws.ToString(out.StateMachineArn)
}

func (v *env) start(t testing.TB, smARN, name, input string) string {
	t.Helper()
	out, err := v.client.StartExecution(context.Background(), &sfn.StartExecutionInput{
		StateMachineArn: aws.String(smARN), Name: aws.String(name), Input: aws.String(input),
	})
	require.NoError(t, err)
	return aws.ToString(out.ExecutionArn)
}

func (v *env) run(t testing.TB) {
	t.Helper()
	require.NoError(t, v.e.Run(context.Background()))
}

// requireAPIError checks that err is the API error code, decoded by the
// client as its modelled type when modelled is set.
func requireAPIError(t *testing.T, err error, code string, modelled bool) {
	t.Helper()
	var apiErr smithy.APIError
	require.ErrorAs(t, err, &apiErr, "want %s", code)
	assert.Equal(t, code, apiErr.ErrorCode(), apiErr.ErrorMessage())
	assert.NotEmpty(t, apiErr.ErrorMessage())
	var generic *smithy.GenericAPIError
	assert.Equal(t, modelled, !errors.As(err, &generic), "modelled as its own SDK type")
}

func TestCreateAndDescribeStateMachine(t *testing.T) {
	v := newEnv(t)
	ctx := context.Background()
	created, err := v.client.CreateStateMachine(ctx, &sfn.CreateStateMachineInput{
		Name: aws.String("redrive"), Definition: aws.String(attemptDef), RoleArn: aws.String(roleARN),
		Type: sfntypes.StateMachineTypeStandard,
	})
	require.NoError(t, err)
	arn := aws.ToString(created.StateMachineArn)
	assert.Equal(t, "arn:aws:states:us-east-1:123456789012:stateMachine:redrive", arn)
	assert.True(t, created.CreationDate.Equal(v.e.Now()), "created at the executor's clock")

	got, err := v.client.DescribeStateMachine(ctx, &sfn.DescribeStateMachineInput{StateMachineArn: aws.String(arn)})
	require.NoError(t, err)
	assert.Equal(t, arn, aws.ToString(got.StateMachineArn))
	assert.Equal(t, "redrive", aws.ToString(got.Name))
	assert.Equal(t, attemptDef, aws.ToString(got.Definition))
	assert.Equal(t, roleARN, aws.ToString(got.RoleArn))
	assert.Equal(t, sfntypes.StateMachineStatusActive, got.Status)
	assert.Equal(t, sfntypes.StateMachineTypeStandard, got.Type)
	assert.True(t, got.CreationDate.Equal(*created.CreationDate))
	require.NotNil(t, got.LoggingConfiguration)
	assert.Equal(t, sfntypes.LogLevelOff, got.LoggingConfiguration.Level)

	meta, err := v.client.DescribeStateMachine(ctx, &sfn.DescribeStateMachineInput{
		StateMachineArn: aws.String(arn), IncludedData: sfntypes.IncludedDataMetadataOnly,
	})
	require.NoError(t, err)
	assert.Empty(t, aws.ToString(meta.Definition))
	assert.Equal(t, "redrive", aws.ToString(meta.Name))

	again, err := v.client.CreateStateMachine(ctx, &sfn.CreateStateMachineInput{
		Name: aws.String("redrive"), Definition: aws.String(attemptDef), RoleArn: aws.String(roleARN),
	})
	require.NoError(t, err, "the same name, definition and role is idempotent")
	assert.Equal(t, arn, aws.ToString(again.StateMachineArn))

	_, err = v.client.CreateStateMachine(ctx, &sfn.CreateStateMachineInput{
		Name: aws.String("redrive"), Definition: aws.String(cooldownDef), RoleArn: aws.String(roleARN),
	})
	requireAPIError(t, err, "StateMachineAlreadyExists", true)
}

func TestExecutionLifecycle(t *testing.T) {
	v := newEnv(t)
	ctx := context.Background()
	sm := v.create(t, "redrive", attemptDef)

	first, err := v.client.StartExecution(ctx, &sfn.StartExecutionInput{
		StateMachineArn: aws.String(sm), Name: aws.String("msg-1_attempt-1"), Input: aws.String(`{"OK":true}`),
	})
	require.NoError(t, err)
	arn := aws.ToString(first.ExecutionArn)
	assert.Equal(t, "arn:aws:states:us-east-1:123456789012:execution:redrive:msg-1_attempt-1", arn)

	// While it runs, the same name and input is the same execution.
	same, err := v.client.StartExecution(ctx, &sfn.StartExecutionInput{
		StateMachineArn: aws.String(sm), Name: aws.String("msg-1_attempt-1"), Input: aws.String(`{"OK":true}`),
	})
	require.NoError(t, err)
	assert.Equal(t, arn, aws.ToString(same.ExecutionArn))
	assert.True(t, first.StartDate.Equal(*same.StartDate))

	_, err = v.client.StartExecution(ctx, &sfn.StartExecutionInput{
		StateMachineArn: aws.String(sm), Name: aws.String("msg-1_attempt-1"), Input: aws.String(`{"OK":false}`),
	})
	requireAPIError(t, err, "ExecutionAlreadyExists", true)

	running, err := v.client.DescribeExecution(ctx, &sfn.DescribeExecutionInput{ExecutionArn: aws.String(arn)})
	require.NoError(t, err)
	assert.Equal(t, sfntypes.ExecutionStatusRunning, running.Status)
	assert.Nil(t, running.StopDate)
	assert.Nil(t, running.Output)

	failedARN := v.start(t, sm, "msg-2_attempt-1", `{"OK":false}`)
	unnamed, err := v.client.StartExecution(ctx, &sfn.StartExecutionInput{StateMachineArn: aws.String(sm)})
	require.NoError(t, err, "no name and no input: a generated name and {}")
	v.run(t)

	done, err := v.client.DescribeExecution(ctx, &sfn.DescribeExecutionInput{ExecutionArn: aws.String(arn)})
	require.NoError(t, err)
	assert.Equal(t, sfntypes.ExecutionStatusSucceeded, done.Status)
	assert.Equal(t, "msg-1_attempt-1", aws.ToString(done.Name))
	assert.Equal(t, sm, aws.ToString(done.StateMachineArn))
	assert.JSONEq(t, `{"OK":true}`, aws.ToString(done.Input))
	assert.JSONEq(t, `{"verdict":"ok"}`, aws.ToString(done.Output))
	require.NotNil(t, done.InputDetails)
	assert.True(t, done.InputDetails.Included)
	require.NotNil(t, done.StopDate)
	assert.False(t, done.StopDate.Before(*done.StartDate))

	failed, err := v.client.DescribeExecution(ctx, &sfn.DescribeExecutionInput{ExecutionArn: aws.String(failedARN)})
	require.NoError(t, err)
	assert.Equal(t, sfntypes.ExecutionStatusFailed, failed.Status)
	assert.Equal(t, "Attempt.Failed", aws.ToString(failed.Error))
	assert.Equal(t, "the verdict was not ok", aws.ToString(failed.Cause))
	assert.Nil(t, failed.Output)

	generated, err := v.client.DescribeExecution(ctx, &sfn.DescribeExecutionInput{ExecutionArn: unnamed.ExecutionArn})
	require.NoError(t, err)
	assert.Regexp(t, `^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`, aws.ToString(generated.Name))
	assert.JSONEq(t, `{}`, aws.ToString(generated.Input))

	meta, err := v.client.DescribeExecution(ctx, &sfn.DescribeExecutionInput{
		ExecutionArn: aws.String(arn), IncludedData: sfntypes.IncludedDataMetadataOnly,
	})
	require.NoError(t, err)
	assert.Nil(t, meta.Input)
	assert.Nil(t, meta.Output)
	assert.False(t, meta.InputDetails.Included)

	// Once it has ended, the name cannot be reused, even with the same input.
	_, err = v.client.StartExecution(ctx, &sfn.StartExecutionInput{
		StateMachineArn: aws.String(sm), Name: aws.String("msg-1_attempt-1"), Input: aws.String(`{"OK":true}`),
	})
	requireAPIError(t, err, "ExecutionAlreadyExists", true)
}

// The history the client decodes is the executor's history, event for
// event.
func TestExecutionHistoryMatchesExecutor(t *testing.T) {
	v := newEnv(t)
	ctx := context.Background()
	arn := v.start(t, v.create(t, "redrive", attemptDef), "msg-1", `{"OK":true}`)
	v.run(t)

	want, err := v.e.History(ctx, arn)
	require.NoError(t, err)
	out, err := v.client.GetExecutionHistory(ctx, &sfn.GetExecutionHistoryInput{ExecutionArn: aws.String(arn)})
	require.NoError(t, err)
	assert.Nil(t, out.NextToken)
	require.Len(t, out.Events, len(want))
	for i, ev := range out.Events {
		assert.Equal(t, want[i].ID, ev.Id)
		assert.Equal(t, want[i].PreviousEventID, ev.PreviousEventId)
		assert.Equal(t, want[i].Type, string(ev.Type))
		assert.True(t, want[i].Timestamp.Truncate(time.Millisecond).Equal(*ev.Timestamp), "event %d timestamp", ev.Id)
	}

	// AWS's first *StateEntered follows from no event; every other event
	// follows from the one before it.
	for i, ev := range out.Events {
		wantPrevious := ev.Id - 1
		if i == 1 {
			assert.Equal(t, sfntypes.HistoryEventTypeTaskStateEntered, ev.Type)
			wantPrevious = 0
		}
		assert.Equal(t, wantPrevious, ev.PreviousEventId, "event %d", ev.Id)
	}

	first, last := out.Events[0], out.Events[len(out.Events)-1]
	assert.Equal(t, sfntypes.HistoryEventTypeExecutionStarted, first.Type)
	require.NotNil(t, first.ExecutionStartedEventDetails)
	assert.JSONEq(t, `{"OK":true}`, aws.ToString(first.ExecutionStartedEventDetails.Input))
	assert.Equal(t, roleARN, aws.ToString(first.ExecutionStartedEventDetails.RoleArn))
	assert.Equal(t, sfntypes.HistoryEventTypeExecutionSucceeded, last.Type)
	require.NotNil(t, last.ExecutionSucceededEventDetails)
	assert.JSONEq(t, `{"verdict":"ok"}`, aws.ToString(last.ExecutionSucceededEventDetails.Output))

	var entered []string
	for _, ev := range out.Events {
		if ev.StateEnteredEventDetails != nil {
			entered = append(entered, aws.ToString(ev.StateEnteredEventDetails.Name))
		}
	}
	assert.Equal(t, []string{"Attempt", "Decide", "Delivered"}, entered)
}

func TestStopExecution(t *testing.T) {
	v := newEnv(t)
	ctx := context.Background()
	sm := v.create(t, "cooldown", cooldownDef)
	arn := v.start(t, sm, "msg-1", `{}`)

	stopped, err := v.client.StopExecution(ctx, &sfn.StopExecutionInput{
		ExecutionArn: aws.String(arn), Error: aws.String("Operator.Drain"), Cause: aws.String("draining the queue by hand"),
	})
	require.NoError(t, err)
	require.NotNil(t, stopped.StopDate)
	v.run(t)

	got, err := v.client.DescribeExecution(ctx, &sfn.DescribeExecutionInput{ExecutionArn: aws.String(arn)})
	require.NoError(t, err)
	assert.Equal(t, sfntypes.ExecutionStatusAborted, got.Status)
	assert.Equal(t, "Operator.Drain", aws.ToString(got.Error))
	assert.Equal(t, "draining the queue by hand", aws.ToString(got.Cause))
	assert.True(t, got.StopDate.Equal(*stopped.StopDate))

	hist, err := v.client.GetExecutionHistory(ctx, &sfn.GetExecutionHistoryInput{ExecutionArn: aws.String(arn), ReverseOrder: true})
	require.NoError(t, err)
	require.NotEmpty(t, hist.Events)
	assert.Equal(t, sfntypes.HistoryEventTypeExecutionAborted, hist.Events[0].Type)
	require.NotNil(t, hist.Events[0].ExecutionAbortedEventDetails)
	assert.Equal(t, "Operator.Drain", aws.ToString(hist.Events[0].ExecutionAbortedEventDetails.Error))

	again, err := v.client.StopExecution(ctx, &sfn.StopExecutionInput{ExecutionArn: aws.String(arn)})
	require.NoError(t, err, "stopping an ended execution changes nothing")
	assert.True(t, again.StopDate.Equal(*stopped.StopDate))
}

func TestDescribeStateMachineForExecution(t *testing.T) {
	v := newEnv(t)
	ctx := context.Background()
	sm := v.create(t, "redrive", attemptDef)
	v.create(t, "cooldown", cooldownDef)
	arn := v.start(t, sm, "msg-1", `{"OK":true}`)
	described, err := v.client.DescribeStateMachine(ctx, &sfn.DescribeStateMachineInput{StateMachineArn: aws.String(sm)})
	require.NoError(t, err)

	check := func(t *testing.T) {
		got, err := v.client.DescribeStateMachineForExecution(ctx, &sfn.DescribeStateMachineForExecutionInput{ExecutionArn: aws.String(arn)})
		require.NoError(t, err)
		assert.Equal(t, sm, aws.ToString(got.StateMachineArn))
		assert.Equal(t, "redrive", aws.ToString(got.Name))
		assert.Equal(t, attemptDef, aws.ToString(got.Definition))
		assert.Equal(t, roleARN, aws.ToString(got.RoleArn))
		assert.True(t, got.UpdateDate.Equal(*described.CreationDate), "never updated: updated when created")
		require.NotNil(t, got.LoggingConfiguration)
		assert.Equal(t, sfntypes.LogLevelOff, got.LoggingConfiguration.Level)
		require.NotNil(t, got.TracingConfiguration)
		assert.False(t, got.TracingConfiguration.Enabled)
		assert.Nil(t, got.MapRunArn)
	}
	t.Run("while the execution runs", check)
	v.run(t)
	t.Run("after it ended", check)

	meta, err := v.client.DescribeStateMachineForExecution(ctx, &sfn.DescribeStateMachineForExecutionInput{
		ExecutionArn: aws.String(arn), IncludedData: sfntypes.IncludedDataMetadataOnly,
	})
	require.NoError(t, err)
	assert.Empty(t, aws.ToString(meta.Definition))
	assert.Equal(t, "redrive", aws.ToString(meta.Name))
}

// TestExpressThroughTheAPI creates an EXPRESS state machine through the
// API: DescribeStateMachine says so, StartExecution answers an ARN under
// "express:", and DescribeExecution and GetExecutionHistory refuse it, as
// AWS records Express executions only in logs.
func TestExpressThroughTheAPI(t *testing.T) {
	v := newEnv(t)
	ctx := t.Context()
	created, err := v.client.CreateStateMachine(ctx, &sfn.CreateStateMachineInput{Name: aws.String("fast"),
		Definition: aws.String(cooldownDef), RoleArn: aws.String(roleARN), Type: sfntypes.StateMachineTypeExpress})
	require.NoError(t, err)
	sm, err := v.client.DescribeStateMachine(ctx, &sfn.DescribeStateMachineInput{StateMachineArn: created.StateMachineArn})
	require.NoError(t, err)
	assert.Equal(t, sfntypes.StateMachineTypeExpress, sm.Type)
	started, err := v.client.StartExecution(ctx, &sfn.StartExecutionInput{StateMachineArn: created.StateMachineArn, Name: aws.String("x")})
	require.NoError(t, err)
	assert.Contains(t, aws.ToString(started.ExecutionArn), ":express:fast:x:")
	_, err = v.client.DescribeExecution(ctx, &sfn.DescribeExecutionInput{ExecutionArn: started.ExecutionArn})
	assert.ErrorContains(t, err, "DescribeExecution does not support EXPRESS executions")
	_, err = v.client.GetExecutionHistory(ctx, &sfn.GetExecutionHistoryInput{ExecutionArn: started.ExecutionArn})
	assert.ErrorContains(t, err, "GetExecutionHistory does not support EXPRESS executions")
}
