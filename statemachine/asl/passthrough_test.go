package asl

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/statemachine/asl/asltest"
)

// state compiles the definition's start state, the JSON object s, which
// may go on to a state "T".
func state(t *testing.T, s string) *State {
	t.Helper()
	var next []string
	if strings.Contains(s, `"T"`) {
		next = append(next, `"T":{"Type":"Succeed"}`)
	}
	d, err := Parse(asltest.Wrap(s, next...))
	require.NoError(t, err)
	return d.StartAt()
}

// OutputIsInput holds exactly for the states whose output is their raw
// input: checked against what the state's own processing outputs.
func TestOutputIsInput(t *testing.T) {
	const invoke = `"Type":"Task","Resource":"arn:aws:states:::lambda:invoke","Parameters":{"FunctionName":"f"},"Next":"T"`
	for name, tc := range map[string]struct {
		state string
		want  bool
	}{
		"a Choice":                       {`{"Type":"Choice","Choices":[{"Variable":"$.a","IsPresent":true,"Next":"T"}],"Default":"T"}`, true},
		"a Choice with InputPath $":      {`{"Type":"Choice","InputPath":"$","OutputPath":"$","Choices":[{"Variable":"$.a","IsPresent":true,"Next":"T"}],"Default":"T"}`, true},
		"a Choice with InputPath":        {`{"Type":"Choice","InputPath":"$.a","Choices":[{"Variable":"$.b","IsPresent":true,"Next":"T"}],"Default":"T"}`, false},
		"a Choice with OutputPath":       {`{"Type":"Choice","OutputPath":"$.a","Choices":[{"Variable":"$.b","IsPresent":true,"Next":"T"}],"Default":"T"}`, false},
		"a Choice with OutputPath null":  {`{"Type":"Choice","OutputPath":null,"Choices":[{"Variable":"$.b","IsPresent":true,"Next":"T"}],"Default":"T"}`, false},
		"a Choice from the context":      {`{"Type":"Choice","InputPath":"$$.Execution","Choices":[{"Variable":"$.b","IsPresent":true,"Next":"T"}],"Default":"T"}`, false},
		"a Wait":                         {`{"Type":"Wait","SecondsPath":"$.s","Next":"T"}`, true},
		"a Wait with InputPath null":     {`{"Type":"Wait","Seconds":1,"InputPath":null,"Next":"T"}`, false},
		"a Succeed":                      {`{"Type":"Succeed"}`, true},
		"a Pass":                         {`{"Type":"Pass","Next":"T"}`, false},
		"a Task that discards":           {`{` + invoke + `,"ResultPath":null}`, true},
		"a Task that discards, selector": {`{` + invoke + `,"ResultPath":null,"ResultSelector":{"a.$":"$.b"}}`, false},
		"a Task that discards, output":   {`{` + invoke + `,"ResultPath":null,"OutputPath":"$.a"}`, false},
		"a Task with InputPath":          {`{` + invoke + `,"ResultPath":null,"InputPath":"$.a"}`, true},
		"a Task that keeps its result":   {`{` + invoke + `}`, false},
		"a Task that adds its result":    {`{` + invoke + `,"ResultPath":"$.r"}`, false},
	} {
		t.Run(name, func(t *testing.T) {
			st := state(t, tc.state)
			require.Equal(t, tc.want, st.OutputIsInput())
			if !tc.want || st.Type() != TaskState {
				return
			}
			in := map[string]any{"a": map[string]any{"b": int64(1)}}
			out, err := st.TaskOutput(in, map[string]any{"Payload": "result"}, nil, nil)
			require.NoError(t, err)
			assert.Equal(t, in, out, "TaskOutput outputs the input")
		})
	}
}

func TestCheckResultIsTaskOutputsQuota(t *testing.T) {
	st := state(t, `{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke","Parameters":{"FunctionName":"f"},"ResultPath":null,"Next":"T"}`)
	big := string(make([]byte, MaxPayloadBytes))
	_, want := st.TaskOutput(map[string]any{}, big, nil, nil)
	require.Error(t, want)
	assert.Equal(t, want, st.CheckResult(big))
	assert.NoError(t, st.CheckResult("small"))
}

// InputPayload holds exactly for the Lambda tasks whose payload is their
// raw input: checked against the payload Parameters and Invocation make.
func TestInputPayload(t *testing.T) {
	const invoke = `"Type":"Task","Resource":"arn:aws:states:::lambda:invoke","Next":"T"`
	for name, tc := range map[string]struct {
		fields string
		want   bool
	}{
		"the input as payload":       {`"Parameters":{"FunctionName":"f","Payload.$":"$"}`, true},
		"a static timeout":           {`"Parameters":{"FunctionName":"f","Payload.$":"$"},"TimeoutSeconds":5`, true},
		"a timeout path":             {`"Parameters":{"FunctionName":"f","Payload.$":"$"},"TimeoutSecondsPath":"$.t"`, false},
		"an InputPath":               {`"Parameters":{"FunctionName":"f","Payload.$":"$"},"InputPath":"$.a"`, false},
		"InputPath null":             {`"Parameters":{"FunctionName":"f","Payload.$":"$"},"InputPath":null`, false},
		"a field of the input":       {`"Parameters":{"FunctionName":"f","Payload.$":"$.a"}`, false},
		"the context object":         {`"Parameters":{"FunctionName":"f","Payload.$":"$$"}`, false},
		"a constant payload":         {`"Parameters":{"FunctionName":"f","Payload":{"a":1}}`, false},
		"the input inside":           {`"Parameters":{"FunctionName":"f","Payload":{"d.$":"$"}}`, false},
		"a qualifier":                {`"Parameters":{"FunctionName":"f","Payload.$":"$","Qualifier":"live"}`, false},
		"a function from the input":  {`"Parameters":{"FunctionName.$":"$.f","Payload.$":"$"}`, false},
		"a function of another type": {`"Parameters":{"FunctionName":1,"Payload.$":"$"}`, false},
		"no payload":                 {`"Parameters":{"FunctionName":"f"}`, false},
	} {
		t.Run(name, func(t *testing.T) {
			st := state(t, `{`+invoke+`,`+tc.fields+`}`)
			function, ok := st.InputPayload()
			require.Equal(t, tc.want, ok)
			if !ok {
				return
			}
			in := map[string]any{"a": "b", "f": "g"}
			eff, err := st.Parameters(in, nil, nil)
			require.NoError(t, err)
			wantFunction, payload, err := st.Task().Invocation(eff)
			require.NoError(t, err)
			assert.Equal(t, wantFunction, function)
			assert.Equal(t, in, payload)
		})
	}
	callback := state(t, `{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke.waitForTaskToken","Parameters":{"FunctionName":"f","Payload.$":"$"},"Next":"T"}`)
	_, ok := callback.InputPayload()
	assert.False(t, ok, "a callback task")
	legacy := state(t, `{"Type":"Task","Resource":"arn:aws:lambda:us-east-1:123456789012:function:f","Next":"T"}`)
	_, ok = legacy.InputPayload()
	assert.False(t, ok, "a Lambda function resource")
	pass := state(t, `{"Type":"Pass","Parameters":{"FunctionName":"f","Payload.$":"$"},"Next":"T"}`)
	_, ok = pass.InputPayload()
	assert.False(t, ok, "a Pass state")
}
