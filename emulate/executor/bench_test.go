package executor

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// benchMachine is a 10-state machine shaped like the redrive flow: two
// in-process Task states (lambda:invoke and a plain function ARN), two
// Choices, a Wait, Passes with paths and templates.
const benchMachine = `{
  "StartAt": "Init",
  "States": {
    "Init": {"Type": "Pass", "Parameters": {"id.$": "$.id", "attempt": 1}, "ResultPath": "$.meta", "Next": "Attempt"},
    "Attempt": {"Type": "Task", "Resource": "arn:aws:states:::lambda:invoke",
      "Parameters": {"FunctionName": "attempt", "Payload": {"id.$": "$.id", "retry.$": "$$.State.RetryCount"}},
      "ResultSelector": {"next.$": "$.Payload.next"}, "ResultPath": "$.result",
      "Retry": [{"ErrorEquals": ["Transient"], "MaxAttempts": 2}], "Next": "Route"},
    "Route": {"Type": "Choice", "Choices": [
        {"Variable": "$.result.next", "StringEquals": "DONE", "Next": "Record"},
        {"Variable": "$.result.next", "StringEquals": "PARK", "Next": "Park"}],
      "Default": "Cooldown"},
    "Cooldown": {"Type": "Wait", "Seconds": 1, "Next": "Park"},
    "Record": {"Type": "Pass", "Result": {"recorded": true}, "ResultPath": "$.record", "Next": "Park"},
    "Park": {"Type": "Task", "Resource": "arn:aws:lambda:us-east-1:123456789012:function:park",
      "ResultPath": "$.park", "Next": "Check"},
    "Check": {"Type": "Choice", "Choices": [{"Variable": "$.park.ok", "BooleanEquals": true, "Next": "Shape"}], "Default": "Failed"},
    "Shape": {"Type": "Pass", "InputPath": "$.meta", "ResultPath": "$.shaped", "Next": "Final"},
    "Final": {"Type": "Pass", "OutputPath": "$.shaped", "Next": "Done"},
    "Failed": {"Type": "Fail", "Error": "ParkFailed"},
    "Done": {"Type": "Succeed"}
  }
}`

// benchInvoker answers the bench machine's two functions.
func benchInvoker() funcInvoker {
	return funcInvoker{
		"attempt": func(context.Context, []byte) (Invocation, error) {
			return Invocation{Payload: []byte(`{"next":"DONE"}`)}, nil
		},
		"park": func(context.Context, []byte) (Invocation, error) {
			return Invocation{Payload: []byte(`{"ok":true}`)}, nil
		},
	}
}

// benchRegistry hosts the bench machine's two functions as Go Lambda
// handlers in the Registry, as aws-lambda-go would run them.
func benchRegistry(b *testing.B) *Registry {
	r := NewRegistry()
	require.NoError(b, r.Register("attempt", func(ctx context.Context, in struct{ ID string }) (map[string]string, error) {
		return map[string]string{"next": "DONE"}, nil
	}))
	require.NoError(b, r.Register("park", func(ctx context.Context, in map[string]any) (map[string]bool, error) {
		return map[string]bool{"ok": true}, nil
	}))
	return r
}

// BenchmarkTransitions runs the 10-state machine (every execution takes 9
// transitions: Init, Attempt, Route, Record, Park, Check, Shape, Final,
// Done) in batches of executions started together, and reports state
// transitions per wall second and heap allocations per transition; once
// with a minimal Invoker (the engine alone) and once with the handlers in
// the Registry.
func BenchmarkTransitions(b *testing.B) {
	b.Run("invoker=func", func(b *testing.B) { benchTransitions(b, benchInvoker()) })
	b.Run("invoker=Registry", func(b *testing.B) { benchTransitions(b, benchRegistry(b)) })
}

func benchTransitions(b *testing.B, inv Invoker) {
	const batch = 1000
	ctx := context.Background()
	var transitions int
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	b.ResetTimer()
	for done := 0; done < b.N; {
		e := New(Options{Invoker: inv})
		arn, err := e.CreateStateMachine(ctx, "bench", benchMachine, "")
		require.NoError(b, err)
		n := min(batch, b.N-done)
		arns := make([]string, n)
		for i := range n {
			x, err := e.StartExecution(ctx, arn, "", fmt.Sprintf(`{"id":"m-%d","body":"hello"}`, i))
			require.NoError(b, err)
			arns[i] = x.ARN
		}
		require.NoError(b, e.Run(ctx))
		for _, a := range arns {
			x, err := e.DescribeExecution(ctx, a)
			require.NoError(b, err)
			require.Equal(b, Succeeded, x.Status, x.Cause)
			transitions += x.Transitions
		}
		done += n
	}
	b.StopTimer()
	runtime.ReadMemStats(&ms1)
	b.ReportMetric(float64(transitions)/b.Elapsed().Seconds(), "transitions/s")
	b.ReportMetric(float64(ms1.Mallocs-ms0.Mallocs)/float64(transitions), "allocs/transition")
}

// BenchmarkManyWaits runs 10,000 concurrent executions that each wait 15
// minutes three times (started a millisecond apart), and reports simulated
// seconds per wall second.
func BenchmarkManyWaits(b *testing.B) {
	const executions = 10000
	const def = `{"StartAt": "W1", "States": {
		"W1": {"Type": "Wait", "Seconds": 900, "Next": "W2"},
		"W2": {"Type": "Wait", "Seconds": 900, "Next": "W3"},
		"W3": {"Type": "Wait", "Seconds": 900, "Next": "Done"},
		"Done": {"Type": "Succeed"}}}`
	ctx := context.Background()
	var simulated time.Duration
	b.ResetTimer()
	for range b.N {
		e := New(Options{})
		arn, err := e.CreateStateMachine(ctx, "waits", def, "")
		require.NoError(b, err)
		start := e.Now()
		for i := range executions {
			e.At(start.Add(time.Duration(i)*time.Millisecond), func(ctx context.Context) {
				_, err := e.StartExecution(ctx, arn, "", `{}`)
				require.NoError(b, err)
			})
		}
		require.NoError(b, e.Run(ctx))
		simulated += e.Now().Sub(start)
		list, err := e.ListExecutions(ctx, arn, Succeeded)
		require.NoError(b, err)
		require.Len(b, list, executions)
	}
	b.StopTimer()
	b.ReportMetric(simulated.Seconds()/b.Elapsed().Seconds(), "sim-s/wall-s")
	b.ReportMetric(float64(b.N*executions*4)/b.Elapsed().Seconds(), "transitions/s")
}
