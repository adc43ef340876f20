package local

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// funcInvoker is a hand-written test Invoker: a map of functions by name
// (the last element of a function ARN, qualifier removed).
type funcInvoker map[string]func(ctx context.Context, payload []byte) (Invocation, error)

func (f funcInvoker) Invoke(ctx context.Context, function string, payload []byte) (Invocation, error) {
	name := functionShortName(function)
	fn, ok := f[name]
	if !ok {
		return Invocation{}, &codedError{code: "ResourceNotFoundException", msg: "Function not found: " + function}
	}
	return fn(ctx, payload)
}

// codedError is an error with an ErrorCode, like aws-sdk-go-v2's.
type codedError struct{ code, msg string }

func (e *codedError) Error() string     { return e.msg }
func (e *codedError) ErrorCode() string { return e.code }

// functionShortName returns the function name of a name or ARN.
func functionShortName(s string) string {
	parts := splitColon(s)
	if len(parts) >= 7 && parts[0] == "arn" {
		return parts[6]
	}
	return parts[0]
}

func splitColon(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == ':' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// respond returns a function that answers with v.
func respond(v any) func(context.Context, []byte) (Invocation, error) {
	return func(context.Context, []byte) (Invocation, error) {
		b, err := json.Marshal(v)
		return Invocation{Payload: b}, err
	}
}

// fnError returns a function that fails with a function error.
func fnError(errType, msg string) func(context.Context, []byte) (Invocation, error) {
	return func(context.Context, []byte) (Invocation, error) {
		b, _ := json.Marshal(map[string]string{"errorType": errType, "errorMessage": msg})
		return Invocation{Payload: b, FunctionError: "Unhandled"}, nil
	}
}

// runMachine creates definition, runs one execution with input to the
// end and returns it with its history.
func runMachine(t testing.TB, e *Executor, definition, input string) (Execution, []Event) {
	t.Helper()
	ctx := context.Background()
	arn, err := e.CreateStateMachine(ctx, fmt.Sprintf("sm-%d", len(e.machines)), definition, "arn:aws:iam::123456789012:role/test")
	require.NoError(t, err)
	x, err := e.StartExecution(ctx, arn, "", input)
	require.NoError(t, err)
	require.NoError(t, e.Run(ctx))
	got, err := e.DescribeExecution(ctx, x.ARN)
	require.NoError(t, err)
	h, err := e.History(ctx, x.ARN)
	require.NoError(t, err)
	return got, h
}

// eventTypes lists the types of events.
func eventTypes(h []Event) []string {
	out := make([]string, len(h))
	for i, ev := range h {
		out[i] = ev.Type
	}
	return out
}

func TestPassSucceedFail(t *testing.T) {
	e := New(Options{})
	x, h := runMachine(t, e, `{"StartAt":"A","States":{
		"A":{"Type":"Pass","Result":{"x":1},"ResultPath":"$.r","Next":"B"},
		"B":{"Type":"Succeed","OutputPath":"$.r"}}}`, `{"in":true}`)
	assert.Equal(t, Succeeded, x.Status)
	assert.JSONEq(t, `{"x":1}`, string(x.Output))
	assert.Equal(t, 2, x.Transitions)
	assert.Equal(t, []string{"ExecutionStarted", "PassStateEntered", "PassStateExited", "SucceedStateEntered", "SucceedStateExited", "ExecutionSucceeded"}, eventTypes(h))

	x, h = runMachine(t, e, `{"StartAt":"F","States":{"F":{"Type":"Fail","Error":"E","Cause":"C"}}}`, "")
	assert.Equal(t, Failed, x.Status)
	assert.Equal(t, "E", x.Error)
	assert.Equal(t, "C", x.Cause)
	assert.Equal(t, []string{"ExecutionStarted", "FailStateEntered", "ExecutionFailed"}, eventTypes(h))
}

func TestTaskLambdaInvoke(t *testing.T) {
	e := New(Options{Invoker: funcInvoker{
		"echo": func(ctx context.Context, p []byte) (Invocation, error) {
			Delay(ctx, 3*time.Second)
			return Invocation{Payload: p}, nil
		},
	}})
	x, h := runMachine(t, e, `{"StartAt":"T","States":{
		"T":{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke","Parameters":{"FunctionName":"echo","Payload.$":"$"},"ResultSelector":{"p.$":"$.Payload","code.$":"$.StatusCode"},"End":true}}}`, `{"a":1}`)
	require.Equal(t, Succeeded, x.Status, x.Cause)
	assert.JSONEq(t, `{"p":{"a":1},"code":200}`, string(x.Output))
	assert.Equal(t, 3*time.Second, x.StopDate.Sub(x.StartDate))
	b, err := json.Marshal(h)
	require.NoError(t, err)
	t.Log(string(b))
}
