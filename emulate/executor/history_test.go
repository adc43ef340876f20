package executor

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEventMarshalJSON(t *testing.T) {
	ts := time.Date(2026, 1, 1, 0, 0, 1, 234_000_000, time.UTC)
	tests := []struct {
		name string
		ev   Event
		want string
	}{
		{"state entered", Event{ID: 2, PreviousEventID: 1, Timestamp: ts, Type: "TaskStateEntered",
			Details: stateEnteredDetails{Name: "A", Input: jsonDoc{map[string]any{"b": int64(1), "a": "x"}}}},
			`{"id":2,"previousEventId":1,"timestamp":1767225601.234,"type":"TaskStateEntered",
			  "stateEnteredEventDetails":{"name":"A","input":"{\"a\":\"x\",\"b\":1}","inputDetails":{"truncated":false}}}`},
		{"no details", Event{ID: 4, PreviousEventID: 3, Timestamp: ts.Truncate(time.Second), Type: "LambdaFunctionStarted"},
			`{"id":4,"previousEventId":3,"timestamp":1767225601,"type":"LambdaFunctionStarted"}`},
		{"execution failed", Event{ID: 9, PreviousEventID: 8, Timestamp: ts, Type: "ExecutionFailed", Details: errorDetails{Error: "E"}},
			`{"id":9,"previousEventId":8,"timestamp":1767225601.234,"type":"ExecutionFailed","executionFailedEventDetails":{"error":"E"}}`},
		{"task scheduled", Event{ID: 3, PreviousEventID: 2, Timestamp: ts, Type: "TaskScheduled",
			Details: taskScheduledDetails{ResourceType: "lambda", Resource: "invoke", Region: "us-east-1", Parameters: jsonDoc{map[string]any{"FunctionName": "f"}}, TimeoutInSeconds: 5}},
			`{"id":3,"previousEventId":2,"timestamp":1767225601.234,"type":"TaskScheduled","taskScheduledEventDetails":
			  {"resourceType":"lambda","resource":"invoke","region":"us-east-1","parameters":"{\"FunctionName\":\"f\"}","timeoutInSeconds":5}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := json.Marshal(tt.ev)
			require.NoError(t, err)
			assert.JSONEq(t, tt.want, string(b))
		})
	}
}

func TestDetailsMember(t *testing.T) {
	for typ, want := range map[string]string{
		"ExecutionStarted":        "executionStartedEventDetails",
		"PassStateEntered":        "stateEnteredEventDetails",
		"ChoiceStateExited":       "stateExitedEventDetails",
		"TaskTimedOut":            "taskTimedOutEventDetails",
		"LambdaFunctionScheduled": "lambdaFunctionScheduledEventDetails",
		"ExecutionAborted":        "executionAbortedEventDetails",
	} {
		assert.Equal(t, want, detailsMember(typ), typ)
	}
}

// TestHistoryShape checks a whole history: a lambda:invoke task that fails,
// is retried after 2 s, fails again and is caught into a Pass state.
func TestHistoryShape(t *testing.T) {
	e := New(Options{Invoker: funcInvoker{"f": fnError("Boom", "bad")}})
	x, h := runMachine(t, e, `{"StartAt":"T","States":{
		"T":{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke","Parameters":{"FunctionName":"f","Payload.$":"$"},
			"Retry":[{"ErrorEquals":["Boom"],"IntervalSeconds":2,"MaxAttempts":1}],
			"Catch":[{"ErrorEquals":["States.ALL"],"ResultPath":"$.error","Next":"H"}],"End":true},
		"H":{"Type":"Pass","End":true}}}`, `{"k":1}`)
	require.Equal(t, Succeeded, x.Status)
	assert.Equal(t, 3, x.Transitions, "T, its retry, H")
	b, err := json.Marshal(h)
	require.NoError(t, err)
	cause := `{\"errorMessage\":\"bad\",\"errorType\":\"Boom\"}`
	output := `{\"error\":{\"Cause\":\"{\\\"errorMessage\\\":\\\"bad\\\",\\\"errorType\\\":\\\"Boom\\\"}\",\"Error\":\"Boom\"},\"k\":1}`
	assert.JSONEq(t, `[
	 {"id":1,"previousEventId":0,"timestamp":1767225600,"type":"ExecutionStarted","executionStartedEventDetails":{"input":"{\"k\":1}","inputDetails":{"truncated":false},"roleArn":"arn:aws:iam::123456789012:role/test"}},
	 {"id":2,"previousEventId":0,"timestamp":1767225600,"type":"TaskStateEntered","stateEnteredEventDetails":{"name":"T","input":"{\"k\":1}","inputDetails":{"truncated":false}}},
	 {"id":3,"previousEventId":2,"timestamp":1767225600,"type":"TaskScheduled","taskScheduledEventDetails":{"resourceType":"lambda","resource":"invoke","region":"us-east-1","parameters":"{\"FunctionName\":\"f\",\"Payload\":{\"k\":1}}"}},
	 {"id":4,"previousEventId":3,"timestamp":1767225600,"type":"TaskStarted","taskStartedEventDetails":{"resourceType":"lambda","resource":"invoke"}},
	 {"id":5,"previousEventId":4,"timestamp":1767225600,"type":"TaskFailed","taskFailedEventDetails":{"resourceType":"lambda","resource":"invoke","error":"Boom","cause":"`+cause+`"}},
	 {"id":6,"previousEventId":5,"timestamp":1767225602,"type":"TaskScheduled","taskScheduledEventDetails":{"resourceType":"lambda","resource":"invoke","region":"us-east-1","parameters":"{\"FunctionName\":\"f\",\"Payload\":{\"k\":1}}"}},
	 {"id":7,"previousEventId":6,"timestamp":1767225602,"type":"TaskStarted","taskStartedEventDetails":{"resourceType":"lambda","resource":"invoke"}},
	 {"id":8,"previousEventId":7,"timestamp":1767225602,"type":"TaskFailed","taskFailedEventDetails":{"resourceType":"lambda","resource":"invoke","error":"Boom","cause":"`+cause+`"}},
	 {"id":9,"previousEventId":8,"timestamp":1767225602,"type":"TaskStateExited","stateExitedEventDetails":{"name":"T","output":"`+output+`","outputDetails":{"truncated":false}}},
	 {"id":10,"previousEventId":9,"timestamp":1767225602,"type":"PassStateEntered","stateEnteredEventDetails":{"name":"H","input":"`+output+`","inputDetails":{"truncated":false}}},
	 {"id":11,"previousEventId":10,"timestamp":1767225602,"type":"PassStateExited","stateExitedEventDetails":{"name":"H","output":"`+output+`","outputDetails":{"truncated":false}}},
	 {"id":12,"previousEventId":11,"timestamp":1767225602,"type":"ExecutionSucceeded","executionSucceededEventDetails":{"output":"`+output+`","outputDetails":{"truncated":false}}}
	]`, string(b))
}

// waitsMachine waits $.s seconds and succeeds.
const waitsMachine = `{"StartAt":"W","States":{"W":{"Type":"Wait","SecondsPath":"$.s","Next":"P"},"P":{"Type":"Pass","End":true}}}`

// TestFinishedHistoriesKeepsTheLastOnes runs executions that finish one
// after the other (each waits one second longer than the last) with room
// for two finished histories: the earlier ones are evicted, every
// execution is still described, and a running execution keeps its own.
func TestFinishedHistoriesKeepsTheLastOnes(t *testing.T) {
	ctx := t.Context()
	e := New(Options{FinishedHistories: 2})
	arn, err := e.CreateStateMachine(ctx, "waits", waitsMachine, "arn:aws:iam::123456789012:role/test")
	require.NoError(t, err)
	var arns []string
	for i := range 5 {
		x, err := e.StartExecution(ctx, arn, "", fmt.Sprintf(`{"s":%d}`, i+1))
		require.NoError(t, err)
		arns = append(arns, x.ARN)
	}
	long, err := e.StartExecution(ctx, arn, "", `{"s":3600}`)
	require.NoError(t, err)
	require.NoError(t, e.RunUntil(ctx, e.Now().Add(time.Minute)))

	for i, a := range arns {
		x, err := e.DescribeExecution(ctx, a)
		require.NoError(t, err)
		assert.Equal(t, Succeeded, x.Status, "execution %d", i)
		assert.Equal(t, 2, x.Transitions, "execution %d: W and P, counted though its history may be gone", i)
		h, err := e.History(ctx, a)
		if i < 3 {
			assert.ErrorIs(t, err, ErrHistoryEvicted, "execution %d finished before the last two", i)
			assert.Nil(t, h)
			continue
		}
		require.NoError(t, err, "execution %d is among the last two to finish", i)
		assert.Equal(t, "ExecutionSucceeded", h[len(h)-1].Type)
	}
	h, err := e.History(ctx, long.ARN)
	require.NoError(t, err, "a running execution keeps its history")
	assert.Equal(t, "WaitStateEntered", h[len(h)-1].Type)
}

func TestEveryHistoryIsKeptByDefault(t *testing.T) {
	ctx := t.Context()
	e := New(Options{})
	arn, err := e.CreateStateMachine(ctx, "pass", `{"StartAt":"P","States":{"P":{"Type":"Pass","End":true}}}`, "arn:aws:iam::123456789012:role/test")
	require.NoError(t, err)
	var arns []string
	for range 50 {
		x, err := e.StartExecution(ctx, arn, "", `{}`)
		require.NoError(t, err)
		arns = append(arns, x.ARN)
	}
	require.NoError(t, e.Run(ctx))
	for _, a := range arns {
		h, err := e.History(ctx, a)
		require.NoError(t, err)
		assert.Len(t, h, 4, "started, entered, exited, succeeded")
	}
}
