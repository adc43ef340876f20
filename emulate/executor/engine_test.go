package executor

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/emulate/asl"
	"github.com/redrive/redrive/emulate/asl/asltest"
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

// eventsOf returns the events of type typ.
func eventsOf(h []Event, typ string) []Event {
	var out []Event
	for _, ev := range h {
		if ev.Type == typ {
			out = append(out, ev)
		}
	}
	return out
}

func TestWaitStates(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name, wait, input string
		want              time.Duration
	}{
		{"Seconds", `"Seconds":90`, `{}`, 90 * time.Second},
		{"Seconds zero", `"Seconds":0`, `{}`, 0},
		{"SecondsPath", `"SecondsPath":"$.s"`, `{"s":900}`, 15 * time.Minute},
		{"Timestamp", `"Timestamp":"2026-01-01T01:00:00Z"`, `{}`, time.Hour},
		{"Timestamp past", `"Timestamp":"2025-01-01T00:00:00Z"`, `{}`, 0},
		{"TimestampPath offset", `"TimestampPath":"$.at"`, `{"at":"2026-01-01T02:30:00+02:00"}`, 30 * time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := New(Options{Start: start})
			x, h := runMachine(t, e, `{"StartAt":"W","States":{"W":{"Type":"Wait",`+tt.wait+`,"Next":"D"},"D":{"Type":"Succeed"}}}`, tt.input)
			require.Equal(t, Succeeded, x.Status, x.Cause)
			assert.Equal(t, tt.want, x.StopDate.Sub(x.StartDate))
			assert.Equal(t, start.Add(tt.want), e.Now(), "the clock jumps to the end of the wait")
			exited := eventsOf(h, "WaitStateExited")
			require.Len(t, exited, 1)
			assert.Equal(t, start.Add(tt.want), exited[0].Timestamp)
			assert.JSONEq(t, tt.input, string(x.Output))
		})
	}
}

func TestRuntimeErrorsFailTheExecution(t *testing.T) {
	tests := []struct{ name, def, input, wantErr, wantCause string }{
		{"InputPath missing", asltest.Wrap(`{"Type":"Pass","InputPath":"$.nope","End":true}`), `{}`, "States.Runtime", "Invalid path '$.nope'"},
		{"OutputPath missing", asltest.Wrap(`{"Type":"Succeed","OutputPath":"$.nope"}`), `{}`, "States.Runtime", "$.nope"},
		{"Parameters path missing", asltest.Wrap(`{"Type":"Pass","Parameters":{"a.$":"$.nope"},"End":true}`), `{}`, "States.Runtime", "$.nope"},
		{"SecondsPath not a number", asltest.Wrap(`{"Type":"Wait","SecondsPath":"$.s","End":true}`), `{"s":"ten"}`, "States.Runtime", "SecondsPath"},
		{"SecondsPath negative", asltest.Wrap(`{"Type":"Wait","SecondsPath":"$.s","End":true}`), `{"s":-1}`, "States.Runtime", "SecondsPath"},
		{"TimestampPath bad", asltest.Wrap(`{"Type":"Wait","TimestampPath":"$.s","End":true}`), `{"s":"soon"}`, "States.Runtime", "TimestampPath"},
		{"Choice variable missing", asltest.Wrap(`{"Type":"Choice","Choices":[{"Variable":"$.x","NumericEquals":1,"Next":"E"}],"Default":"E"}`, `"E":{"Type":"Succeed"}`), `{}`, "States.Runtime", "$.x"},
		{"no choice matched", asltest.Wrap(`{"Type":"Choice","Choices":[{"Variable":"$.x","NumericEquals":1,"Next":"E"}]}`, `"E":{"Type":"Succeed"}`), `{"x":2}`, "States.Runtime", "No Choice Rule matched"},
		{"ResultPath into a string", asltest.Wrap(`{"Type":"Pass","Result":1,"ResultPath":"$.a.b","End":true}`), `{"a":"s"}`, "States.ResultPathMatchFailure", "$.a.b"},
		{"Fail ErrorPath", asltest.Wrap(`{"Type":"Fail","ErrorPath":"$.e","CausePath":"$.c"}`), `{"e":"Boom","c":"because"}`, "Boom", "because"},
		{"Fail ErrorPath not a string", asltest.Wrap(`{"Type":"Fail","ErrorPath":"$.e"}`), `{"e":5}`, "States.Runtime", "ErrorPath"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x, h := runMachine(t, New(Options{}), tt.def, tt.input)
			assert.Equal(t, Failed, x.Status)
			assert.Equal(t, tt.wantErr, x.Error)
			assert.Contains(t, x.Cause, tt.wantCause)
			last := h[len(h)-1]
			assert.Equal(t, "ExecutionFailed", last.Type)
		})
	}
}

func TestRuntimeErrorCauseNamesTheState(t *testing.T) {
	x, _ := runMachine(t, New(Options{}), `{"StartAt":"A","States":{"A":{"Type":"Pass","Next":"B"},"B":{"Type":"Pass","InputPath":"$.nope","End":true}}}`, `{}`)
	assert.Equal(t, "States.Runtime", x.Error)
	assert.Equal(t, "An error occurred while executing the state 'B' (entered at the event id #4). Invalid path '$.nope' : No results for path: $['nope']", x.Cause)
}

func TestChoiceRoutes(t *testing.T) {
	def := `{"StartAt":"C","States":{
		"C":{"Type":"Choice","InputPath":"$.in","OutputPath":"$.v","Choices":[
			{"Variable":"$.v","NumericLessThan":10,"Next":"Small"},
			{"And":[{"Variable":"$.v","NumericGreaterThanEquals":10},{"Variable":"$.v","NumericLessThanPath":"$.limit"}],"Next":"Medium"}],
		 "Default":"Large"},
		"Small":{"Type":"Pass","Result":"small","End":true},
		"Medium":{"Type":"Pass","Result":"medium","End":true},
		"Large":{"Type":"Pass","Parameters":{"v.$":"$"},"End":true}}}`
	tests := []struct{ input, want string }{
		{`{"in":{"v":3,"limit":100}}`, `"small"`},
		{`{"in":{"v":30,"limit":100}}`, `"medium"`},
		{`{"in":{"v":300,"limit":100}}`, `{"v":300}`},
	}
	for _, tt := range tests {
		t.Run(tt.input, func(t *testing.T) {
			x, h := runMachine(t, New(Options{}), def, tt.input)
			require.Equal(t, Succeeded, x.Status, x.Cause)
			assert.JSONEq(t, tt.want, string(x.Output))
			assert.Len(t, eventsOf(h, "ChoiceStateExited"), 1)
			assert.Equal(t, 2, x.Transitions)
		})
	}
}

func TestContextObject(t *testing.T) {
	e := New(Options{Start: time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)})
	ctx := context.Background()
	arn, err := e.CreateStateMachine(ctx, "ctx", `{"StartAt":"W","States":{
		"W":{"Type":"Wait","Seconds":2,"Next":"P"},
		"P":{"Type":"Pass","Parameters":{"ctx.$":"$$"},"End":true}}}`, "arn:aws:iam::123456789012:role/r")
	require.NoError(t, err)
	x, err := e.StartExecution(ctx, arn, "exec-1", `{"k":"v"}`)
	require.NoError(t, err)
	require.NoError(t, e.Run(ctx))
	x, err = e.DescribeExecution(ctx, x.ARN)
	require.NoError(t, err)
	assert.JSONEq(t, `{"ctx":{
		"Execution":{"Id":"arn:aws:states:us-east-1:123456789012:execution:ctx:exec-1","Input":{"k":"v"},"Name":"exec-1",
			"RoleArn":"arn:aws:iam::123456789012:role/r","StartTime":"2026-03-04T05:06:07.000Z","RedriveCount":0},
		"State":{"EnteredTime":"2026-03-04T05:06:09.000Z","Name":"P","RetryCount":0},
		"StateMachine":{"Id":"arn:aws:states:us-east-1:123456789012:stateMachine:ctx","Name":"ctx"}}}`, string(x.Output))
}

func TestStartExecutionValidation(t *testing.T) {
	e := New(Options{})
	ctx := context.Background()
	arn, err := e.CreateStateMachine(ctx, "v", asltest.Wrap(`{"Type":"Succeed"}`), "")
	require.NoError(t, err)
	tests := []struct {
		name, arn, exec, input string
		want                   error
	}{
		{"bad arn", "arn:aws:states:us-east-1:123456789012:execution:v", "a", "{}", ErrInvalidArn},
		{"not an arn", "v", "a", "{}", ErrInvalidArn},
		{"unknown machine", "arn:aws:states:us-east-1:123456789012:stateMachine:nope", "a", "{}", ErrStateMachineDoesNotExist},
		{"space in name", arn, "a b", "{}", ErrInvalidName},
		{"slash in name", arn, "a/b", "{}", ErrInvalidName},
		{"wildcard in name", arn, "a*", "{}", ErrInvalidName},
		{"control char in name", arn, "a\x01", "{}", ErrInvalidName},
		{"long name", arn, strings.Repeat("n", 81), "{}", ErrInvalidName},
		{"malformed input", arn, "a", `{"a":`, ErrInvalidExecutionInput},
		{"two values", arn, "a", `{} {}`, ErrInvalidExecutionInput},
		{"oversize input", arn, "a", `"` + strings.Repeat("x", asl.MaxPayloadBytes) + `"`, ErrInvalidExecutionInput},
		{"number out of range", arn, "a", `{"n":[1e400]}`, ErrInvalidExecutionInput},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := e.StartExecution(ctx, tt.arn, tt.exec, tt.input)
			assert.ErrorIs(t, err, tt.want)
		})
	}
	x, err := e.StartExecution(ctx, arn, strings.Repeat("n", 80), `"just a string"`)
	require.NoError(t, err, "80 characters and any JSON value are fine")
	assert.Equal(t, Running, x.Status)
}

func TestStartExecutionIdempotency(t *testing.T) {
	e := New(Options{})
	ctx := context.Background()
	arn, err := e.CreateStateMachine(ctx, "idem", asltest.Wrap(`{"Type":"Wait","Seconds":60,"End":true}`), "")
	require.NoError(t, err)
	first, err := e.StartExecution(ctx, arn, "msg-1", `{"a":1}`)
	require.NoError(t, err)
	again, err := e.StartExecution(ctx, arn, "msg-1", `{"a":1}`)
	require.NoError(t, err, "same name and input while running")
	assert.Equal(t, first.ARN, again.ARN)
	assert.Equal(t, first.StartDate, again.StartDate)
	_, err = e.StartExecution(ctx, arn, "msg-1", `{"a":2}`)
	assert.ErrorIs(t, err, ErrExecutionAlreadyExists, "different input")
	require.NoError(t, e.Run(ctx))
	_, err = e.StartExecution(ctx, arn, "msg-1", `{"a":1}`)
	assert.ErrorIs(t, err, ErrExecutionAlreadyExists, "closed execution")
	list, err := e.ListExecutions(ctx, arn, "")
	require.NoError(t, err)
	assert.Len(t, list, 1)
}

func TestCreateStateMachine(t *testing.T) {
	e := New(Options{Region: "eu-west-1", Account: "111122223333"})
	ctx := context.Background()
	def := asltest.Wrap(`{"Type":"Succeed"}`)
	arn, err := e.CreateStateMachine(ctx, "m", def, "role")
	require.NoError(t, err)
	assert.Equal(t, "arn:aws:states:eu-west-1:111122223333:stateMachine:m", arn)
	again, err := e.CreateStateMachine(ctx, "m", def, "role")
	require.NoError(t, err, "identical creation is idempotent")
	assert.Equal(t, arn, again)
	_, err = e.CreateStateMachine(ctx, "m", asltest.Wrap(`{"Type":"Pass","End":true}`), "role")
	assert.ErrorIs(t, err, ErrStateMachineExists)
	_, err = e.CreateStateMachine(ctx, "bad name", def, "role")
	assert.ErrorIs(t, err, ErrInvalidName)
	_, err = e.CreateStateMachine(ctx, "n", `{"StartAt":"S"}`, "role")
	assert.ErrorIs(t, err, ErrInvalidDefinition)
	sm, err := e.DescribeStateMachine(ctx, arn)
	require.NoError(t, err)
	assert.Equal(t, StateMachine{ARN: arn, Name: "m", Type: Standard, Definition: def, RoleARN: "role", CreationDate: e.Now()}, sm)
	_, err = e.DescribeStateMachine(ctx, "arn:aws:states:eu-west-1:111122223333:stateMachine:nope")
	assert.ErrorIs(t, err, ErrStateMachineDoesNotExist)
	_, err = e.DescribeStateMachine(ctx, "nope")
	assert.ErrorIs(t, err, ErrInvalidArn)
	require.NoError(t, e.RunUntil(ctx, e.Now().Add(time.Second)))
	other, err := e.CreateStateMachine(ctx, "a", def, "role")
	require.NoError(t, err)
	later, err := e.DescribeStateMachine(ctx, other)
	require.NoError(t, err)
	assert.Equal(t, []StateMachine{sm, later}, e.StateMachines(), "every state machine, oldest first")
}

func TestListExecutions(t *testing.T) {
	e := New(Options{})
	ctx := context.Background()
	arn, err := e.CreateStateMachine(ctx, "l", `{"StartAt":"C","States":{
		"C":{"Type":"Choice","Choices":[{"Variable":"$.fail","BooleanEquals":true,"Next":"F"}],"Default":"W"},
		"W":{"Type":"Wait","SecondsPath":"$.wait","End":true},
		"F":{"Type":"Fail","Error":"E"}}}`, "")
	require.NoError(t, err)
	for i, in := range []string{`{"fail":false,"wait":1}`, `{"fail":true}`, `{"fail":false,"wait":100}`} {
		_, err := e.StartExecution(ctx, arn, fmt.Sprintf("e%d", i), in)
		require.NoError(t, err)
	}
	require.NoError(t, e.RunUntil(ctx, e.Now().Add(10*time.Second)))
	names := func(status Status) []string {
		list, err := e.ListExecutions(ctx, arn, status)
		require.NoError(t, err)
		var out []string
		for _, x := range list {
			out = append(out, x.Name)
		}
		return out
	}
	assert.Equal(t, []string{"e2", "e1", "e0"}, names(""), "newest first")
	assert.Equal(t, []string{"e0"}, names(Succeeded))
	assert.Equal(t, []string{"e1"}, names(Failed))
	assert.Equal(t, []string{"e2"}, names(Running))
	_, err = e.ListExecutions(ctx, "arn:aws:states:us-east-1:123456789012:stateMachine:nope", "")
	assert.ErrorIs(t, err, ErrStateMachineDoesNotExist)
}

func TestStopExecution(t *testing.T) {
	e := New(Options{})
	ctx := context.Background()
	arn, err := e.CreateStateMachine(ctx, "s", asltest.Wrap(`{"Type":"Wait","Seconds":3600,"End":true}`), "")
	require.NoError(t, err)
	x, err := e.StartExecution(ctx, arn, "a", "")
	require.NoError(t, err)
	require.NoError(t, e.RunUntil(ctx, e.Now().Add(time.Minute)))
	stopped, err := e.StopExecution(ctx, x.ARN, "Operator", "manual stop")
	require.NoError(t, err)
	assert.Equal(t, Aborted, stopped.Status)
	assert.Equal(t, "Operator", stopped.Error)
	assert.Equal(t, "manual stop", stopped.Cause)
	assert.Equal(t, x.StartDate.Add(time.Minute), stopped.StopDate)
	before := e.Now()
	require.NoError(t, e.Run(ctx))
	assert.Equal(t, before, e.Now(), "the cancelled wait does not move the clock")
	h, err := e.History(ctx, x.ARN)
	require.NoError(t, err)
	assert.Equal(t, []string{"ExecutionStarted", "WaitStateEntered", "ExecutionAborted"}, eventTypes(h))
	again, err := e.StopExecution(ctx, x.ARN, "", "")
	require.NoError(t, err, "stopping a stopped execution changes nothing")
	assert.Equal(t, stopped, again)
	_, err = e.StopExecution(ctx, "arn:aws:states:us-east-1:123456789012:execution:s:nope", "", "")
	assert.ErrorIs(t, err, ErrExecutionDoesNotExist)
	_, err = e.DescribeExecution(ctx, "arn:aws:states:us-east-1:123456789012:stateMachine:s")
	assert.ErrorIs(t, err, ErrInvalidArn)
	_, err = e.History(ctx, "arn:aws:states:us-east-1:123456789012:execution:s:nope")
	assert.ErrorIs(t, err, ErrExecutionDoesNotExist)
}

func TestExecutionTimeout(t *testing.T) {
	e := New(Options{})
	x, h := runMachine(t, e, `{"StartAt":"W","TimeoutSeconds":10,"States":{"W":{"Type":"Wait","Seconds":60,"End":true}}}`, "")
	assert.Equal(t, TimedOut, x.Status)
	assert.Equal(t, "States.Timeout", x.Error)
	assert.Equal(t, 10*time.Second, x.StopDate.Sub(x.StartDate))
	assert.Equal(t, "ExecutionTimedOut", h[len(h)-1].Type)
	assert.Equal(t, x.StopDate, e.Now(), "the abandoned wait does not move the clock")

	x, _ = runMachine(t, e, `{"StartAt":"W","TimeoutSeconds":100,"States":{"W":{"Type":"Wait","Seconds":1,"End":true}}}`, "")
	assert.Equal(t, Succeeded, x.Status)
	assert.Equal(t, x.StopDate, e.Now(), "the unneeded timeout does not move the clock")
}

func TestHistoryLimitEndsEndlessLoops(t *testing.T) {
	x, h := runMachine(t, New(Options{}), `{"StartAt":"A","States":{"A":{"Type":"Pass","Next":"B"},"B":{"Type":"Pass","Next":"A"}}}`, "")
	assert.Equal(t, Failed, x.Status)
	assert.Equal(t, "States.Runtime", x.Error)
	assert.Contains(t, x.Cause, "25000")
	assert.Len(t, h, maxHistoryEvents)
	assert.Equal(t, "ExecutionFailed", h[len(h)-1].Type)
}

func TestPayloadLimits(t *testing.T) {
	big := strings.Repeat("x", asl.MaxPayloadBytes)
	tests := []struct{ name, def string }{
		{"Pass output", asltest.Wrap(`{"Type":"Pass","Parameters":{"a.$":"$.s","b.$":"$.s"},"End":true}`)},
		{"ResultPath output", asltest.Wrap(`{"Type":"Pass","Result":"` + big[:asl.MaxPayloadBytes/2] + `","ResultPath":"$.r","End":true}`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x, _ := runMachine(t, New(Options{}), tt.def, `{"s":"`+big[:asl.MaxPayloadBytes/2]+`"}`)
			assert.Equal(t, Failed, x.Status)
			assert.Equal(t, "States.DataLimitExceeded", x.Error)
		})
	}
}
