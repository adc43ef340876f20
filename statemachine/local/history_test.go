package local

import (
	"encoding/json"
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
	 {"id":2,"previousEventId":1,"timestamp":1767225600,"type":"TaskStateEntered","stateEnteredEventDetails":{"name":"T","input":"{\"k\":1}","inputDetails":{"truncated":false}}},
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
