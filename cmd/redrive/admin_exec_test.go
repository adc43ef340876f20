package main

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	sfntypes "github.com/aws/aws-sdk-go-v2/service/sfn/types"
	"github.com/stretchr/testify/assert"

	"github.com/redrive/redrive/admin"
)

// describedSFN is an adminAPI whose executions are always described as
// described.
type describedSFN struct {
	described sfn.DescribeExecutionOutput
	input     string
}

func (f *describedSFN) StartExecution(_ context.Context, in *sfn.StartExecutionInput, _ ...func(*sfn.Options)) (*sfn.StartExecutionOutput, error) {
	f.input = aws.ToString(in.Input)
	return &sfn.StartExecutionOutput{ExecutionArn: aws.String("arn:aws:states:us-east-1:123456789012:execution:redrive-admin:x")}, nil
}

func (f *describedSFN) DescribeExecution(context.Context, *sfn.DescribeExecutionInput, ...func(*sfn.Options)) (*sfn.DescribeExecutionOutput, error) {
	out := f.described
	return &out, nil
}

func TestExecAdmin(t *testing.T) {
	call := adminCall{
		request:         admin.Request{Command: "open", Breaker: "orders", Reason: "maintenance", Until: "2026-01-02T15:30:00Z", Actor: "alice@box"},
		stateMachineARN: testARN, timeout: 200 * time.Millisecond,
	}
	tests := []struct {
		name           string
		described      sfn.DescribeExecutionOutput
		code           int
		stdout, stderr string
	}{
		{
			name:      "succeeded",
			described: sfn.DescribeExecutionOutput{Status: sfntypes.ExecutionStatusSucceeded, Output: aws.String(`{"breaker":"orders","changed":true}`)},
			code:      exitOK,
			stdout:    "{\n  \"breaker\": \"orders\",\n  \"changed\": true\n}\n",
		},
		{
			name:      "still running at the timeout",
			described: sfn.DescribeExecutionOutput{Status: sfntypes.ExecutionStatusRunning},
			code:      exitFailure,
			stderr:    "redrive admin: execution arn:aws:states:us-east-1:123456789012:execution:redrive-admin:x: still RUNNING: context deadline exceeded\n",
		},
		{
			name: "failed with a function error",
			described: sfn.DescribeExecutionOutput{Status: sfntypes.ExecutionStatusFailed, Error: aws.String("BreakerContention"),
				Cause: aws.String(`{"errorMessage":"admin: open lost every conditional write","errorType":"BreakerContention"}`)},
			code:   exitFailure,
			stderr: "FAILED: BreakerContention: admin: open lost every conditional write\n",
		},
		{
			name: "status of a key no breaker has",
			described: sfn.DescribeExecutionOutput{Status: sfntypes.ExecutionStatusFailed, Error: aws.String("UnknownBreaker"),
				Cause: aws.String(`{"errorMessage":"admin: no breaker has the key \"ordrs\"","errorType":"UnknownBreaker"}`)},
			code:   exitUnknownBreaker,
			stderr: `FAILED: UnknownBreaker: admin: no breaker has the key "ordrs"` + "\n",
		},
		{
			name:      "aborted without a cause",
			described: sfn.DescribeExecutionOutput{Status: sfntypes.ExecutionStatusAborted, Error: aws.String("Stopped")},
			code:      exitFailure,
			stderr:    "ABORTED: Stopped\n",
		},
		{
			name:      "timed out with a plain cause",
			described: sfn.DescribeExecutionOutput{Status: sfntypes.ExecutionStatusTimedOut, Cause: aws.String("execution timed out")},
			code:      exitFailure,
			stderr:    "TIMED_OUT: execution timed out\n",
		},
		{
			name:      "succeeded with output that is not JSON",
			described: sfn.DescribeExecutionOutput{Status: sfntypes.ExecutionStatusSucceeded, Output: aws.String("done")},
			code:      exitFailure,
			stderr:    "succeeded with output that is not JSON",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			api := &describedSFN{described: tt.described}
			var stdout, stderr bytes.Buffer
			code := execAdmin(t.Context(), api, call, &stdout, &stderr)
			assert.Equal(t, tt.code, code)
			assert.Equal(t, tt.stdout, stdout.String())
			if tt.stderr == "" {
				assert.Empty(t, stderr.String())
			} else {
				assert.Contains(t, stderr.String(), tt.stderr)
			}
			assert.JSONEq(t, `{"command":"open","breaker":"orders","reason":"maintenance","until":"2026-01-02T15:30:00Z","actor":"alice@box"}`, api.input,
				"the admin state machine's input")
		})
	}
}
