package asl

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/emulate/asl/asltest"
)

const (
	okTask     = `"Resource":"arn:aws:states:::lambda:invoke","Parameters":{"FunctionName":"f"}`
	okCallback = `"Resource":"arn:aws:states:::lambda:invoke.waitForTaskToken","Parameters":{"FunctionName":"f","Payload":{"token.$":"$$.Task.Token"}}`
)

func TestLoadDefinitionErrors(t *testing.T) {
	tests := []struct {
		name, def string
		want      []string // substrings of the error: the state and field
	}{
		{"not json", `{`, []string{"not valid JSON"}},
		{"not object", `[]`, []string{"must be a JSON object"}},
		{"missing StartAt", `{"States":{"S":{"Type":"Succeed"}}}`, []string{`"StartAt"`, "required"}},
		{"StartAt unknown", `{"StartAt":"X","States":{"S":{"Type":"Succeed"}}}`, []string{`"StartAt"`, `"X"`}},
		{"no states", `{"StartAt":"S","States":{}}`, []string{`"States"`}},
		{"unknown top-level field", `{"StartAt":"S","Foo":1,"States":{"S":{"Type":"Succeed"}}}`, []string{`"Foo"`}},
		{"JSONata", `{"StartAt":"S","QueryLanguage":"JSONata","States":{"S":{"Type":"Succeed"}}}`, []string{`"QueryLanguage"`}},
		{"bad Version", `{"StartAt":"S","Version":"2.0","States":{"S":{"Type":"Succeed"}}}`, []string{`"Version"`}},
		{"bad execution TimeoutSeconds", `{"StartAt":"S","TimeoutSeconds":0,"States":{"S":{"Type":"Succeed"}}}`, []string{`"TimeoutSeconds"`}},
		{"state not object", asltest.Wrap(`5`), []string{`state "S"`, "JSON object"}},
		{"missing Type", asltest.Wrap(`{}`), []string{`state "S"`, `"Type"`}},
		{"Map", asltest.Wrap(`{"Type":"Map","End":true}`), []string{`state "S"`, `"Type"`, `"Map"`}},
		{"Parallel", asltest.Wrap(`{"Type":"Parallel","End":true}`), []string{`state "S"`, `"Parallel"`}},
		{"unknown field", asltest.Wrap(`{"Type":"Pass","End":true,"Foo":1}`), []string{`state "S"`, `"Foo"`}},
		{"Assign", asltest.Wrap(`{"Type":"Pass","End":true,"Assign":{"a":1}}`), []string{`state "S"`, `"Assign"`}},
		{"state QueryLanguage", asltest.Wrap(`{"Type":"Pass","End":true,"QueryLanguage":"JSONata"}`), []string{`state "S"`, `"QueryLanguage"`}},
		{"HeartbeatSeconds without callback", asltest.Wrap(`{"Type":"Task",` + okTask + `,"End":true,"HeartbeatSeconds":5}`), []string{`state "S"`, `"HeartbeatSeconds"`, "waitForTaskToken"}},
		{"ResultSelector on Pass", asltest.Wrap(`{"Type":"Pass","End":true,"ResultSelector":{}}`), []string{`state "S"`, `"ResultSelector"`}},
		{"InputPath on Fail", asltest.Wrap(`{"Type":"Fail","InputPath":"$"}`), []string{`state "S"`, `"InputPath"`}},
		{"no Next or End", asltest.Wrap(`{"Type":"Pass"}`), []string{`state "S"`, `"Next"`}},
		{"Next and End", asltest.Wrap(`{"Type":"Pass","Next":"S","End":true}`), []string{`state "S"`, `"End"`}},
		{"End false", asltest.Wrap(`{"Type":"Pass","End":false}`), []string{`state "S"`, `"End"`}},
		{"Next unknown", asltest.Wrap(`{"Type":"Pass","Next":"Nope"}`), []string{`state "S"`, `"Next"`, `"Nope"`}},
		{"Next on Succeed", asltest.Wrap(`{"Type":"Succeed","Next":"S"}`), []string{`state "S"`, `"Next"`}},
		{"unreachable", asltest.Wrap(`{"Type":"Succeed"}`, `"Lost":{"Type":"Succeed"}`), []string{`state "Lost"`, "not reachable"}},
		{"bad InputPath", asltest.Wrap(`{"Type":"Pass","End":true,"InputPath":"a.b"}`), []string{`state "S"`, `"InputPath"`}},
		{"InputPath number", asltest.Wrap(`{"Type":"Pass","End":true,"InputPath":5}`), []string{`state "S"`, `"InputPath"`}},
		{"ResultPath context", asltest.Wrap(`{"Type":"Pass","End":true,"ResultPath":"$$.Execution"}`), []string{`state "S"`, `"ResultPath"`}},
		{"ResultPath wildcard", asltest.Wrap(`{"Type":"Pass","End":true,"ResultPath":"$.a[*]"}`), []string{`state "S"`, `"ResultPath"`}},
		{"Parameters not object", asltest.Wrap(`{"Type":"Pass","End":true,"Parameters":[1]}`), []string{`state "S"`, `"Parameters"`}},
		{"Parameters bad path", asltest.Wrap(`{"Type":"Pass","End":true,"Parameters":{"a.$":"nope"}}`), []string{`state "S"`, `"Parameters"`, "a.$"}},
		{"Parameters bad intrinsic", asltest.Wrap(`{"Type":"Pass","End":true,"Parameters":{"a.$":"States.Nope(1)"}}`), []string{`state "S"`, `"Parameters"`}},
		{"Task no Resource", asltest.Wrap(`{"Type":"Task","End":true}`), []string{`state "S"`, `"Resource"`}},
		{"Task unsupported Resource", asltest.Wrap(`{"Type":"Task","Resource":"arn:aws:states:::sqs:sendMessage","End":true}`), []string{`state "S"`, `"Resource"`, "sqs:sendMessage"}},
		{"sqs waitForTaskToken", asltest.Wrap(`{"Type":"Task","Resource":"arn:aws:states:::sqs:sendMessage.waitForTaskToken","Parameters":{"QueueUrl":"q"},"End":true}`), []string{`state "S"`, `"Resource"`}},
		{"waitForTaskToken without FunctionName", asltest.Wrap(`{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke.waitForTaskToken","Parameters":{"Payload":{}},"End":true}`), []string{`state "S"`, `"Parameters"`, "FunctionName"}},
		{"waitForTaskToken unknown parameter", asltest.Wrap(`{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke.waitForTaskToken","Parameters":{"FunctionName":"f","Nope":1},"End":true}`), []string{`state "S"`, `"Parameters"`, "Nope"}},
		{"HeartbeatSeconds zero", asltest.Wrap(`{"Type":"Task",` + okCallback + `,"End":true,"HeartbeatSeconds":0}`), []string{`state "S"`, `"HeartbeatSeconds"`}},
		{"HeartbeatSeconds fraction", asltest.Wrap(`{"Type":"Task",` + okCallback + `,"End":true,"HeartbeatSeconds":1.5}`), []string{`state "S"`, `"HeartbeatSeconds"`, "integer"}},
		{"HeartbeatSeconds equals TimeoutSeconds", asltest.Wrap(`{"Type":"Task",` + okCallback + `,"End":true,"TimeoutSeconds":5,"HeartbeatSeconds":5}`), []string{`state "S"`, `"HeartbeatSeconds"`, "smaller than TimeoutSeconds"}},
		{"HeartbeatSeconds over default timeout", asltest.Wrap(`{"Type":"Task",` + okCallback + `,"End":true,"HeartbeatSeconds":99999999}`), []string{`state "S"`, `"HeartbeatSeconds"`, "default TimeoutSeconds"}},
		{"both heartbeats", asltest.Wrap(`{"Type":"Task",` + okCallback + `,"End":true,"HeartbeatSeconds":5,"HeartbeatSecondsPath":"$.h"}`), []string{`state "S"`, `"HeartbeatSecondsPath"`}},
		{"HeartbeatSecondsPath null", asltest.Wrap(`{"Type":"Task",` + okCallback + `,"End":true,"HeartbeatSecondsPath":null}`), []string{`state "S"`, `"HeartbeatSecondsPath"`}},
		{"HeartbeatSecondsPath without callback", asltest.Wrap(`{"Type":"Task",` + okTask + `,"End":true,"HeartbeatSecondsPath":"$.h"}`), []string{`state "S"`, `"HeartbeatSecondsPath"`, "waitForTaskToken"}},
		{"invoke without Parameters", asltest.Wrap(`{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke","End":true}`), []string{`state "S"`, `"Parameters"`, "FunctionName"}},
		{"invoke without FunctionName", asltest.Wrap(`{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke","Parameters":{"Payload":{}},"End":true}`), []string{`state "S"`, `"Parameters"`, "FunctionName"}},
		{"invoke unknown parameter", asltest.Wrap(`{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke","Parameters":{"FunctionName":"f","Nope":1},"End":true}`), []string{`state "S"`, `"Parameters"`, "Nope"}},
		{"invoke async", asltest.Wrap(`{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke","Parameters":{"FunctionName":"f","InvocationType":"Event"},"End":true}`), []string{`state "S"`, "InvocationType"}},
		{"TimeoutSeconds zero", asltest.Wrap(`{"Type":"Task",` + okTask + `,"End":true,"TimeoutSeconds":0}`), []string{`state "S"`, `"TimeoutSeconds"`}},
		{"TimeoutSeconds fraction", asltest.Wrap(`{"Type":"Task",` + okTask + `,"End":true,"TimeoutSeconds":1.5}`), []string{`state "S"`, `"TimeoutSeconds"`, "integer"}},
		{"both timeouts", asltest.Wrap(`{"Type":"Task",` + okTask + `,"End":true,"TimeoutSeconds":5,"TimeoutSecondsPath":"$.t"}`), []string{`state "S"`, `"TimeoutSecondsPath"`}},
		{"Retry not array", asltest.Wrap(`{"Type":"Task",` + okTask + `,"End":true,"Retry":{}}`), []string{`state "S"`, `"Retry"`}},
		{"Retry no ErrorEquals", asltest.Wrap(`{"Type":"Task",` + okTask + `,"End":true,"Retry":[{}]}`), []string{`state "S"`, `"Retry[0].ErrorEquals"`}},
		{"Retry empty ErrorEquals", asltest.Wrap(`{"Type":"Task",` + okTask + `,"End":true,"Retry":[{"ErrorEquals":[]}]}`), []string{`state "S"`, `"Retry[0].ErrorEquals"`}},
		{"States.ALL not alone", asltest.Wrap(`{"Type":"Task",` + okTask + `,"End":true,"Retry":[{"ErrorEquals":["States.ALL","X"]}]}`), []string{`state "S"`, `"Retry[0].ErrorEquals"`, "alone"}},
		{"States.ALL not last", asltest.Wrap(`{"Type":"Task",` + okTask + `,"End":true,"Retry":[{"ErrorEquals":["States.ALL"]},{"ErrorEquals":["X"]}]}`), []string{`state "S"`, `"Retry[0].ErrorEquals"`, "last"}},
		{"unknown States error", asltest.Wrap(`{"Type":"Task",` + okTask + `,"End":true,"Retry":[{"ErrorEquals":["States.Nope"]}]}`), []string{`state "S"`, "States.Nope"}},
		{"IntervalSeconds zero", asltest.Wrap(`{"Type":"Task",` + okTask + `,"End":true,"Retry":[{"ErrorEquals":["X"],"IntervalSeconds":0}]}`), []string{`state "S"`, `"Retry[0].IntervalSeconds"`}},
		{"MaxAttempts negative", asltest.Wrap(`{"Type":"Task",` + okTask + `,"End":true,"Retry":[{"ErrorEquals":["X"],"MaxAttempts":-1}]}`), []string{`state "S"`, `"Retry[0].MaxAttempts"`}},
		{"BackoffRate below 1", asltest.Wrap(`{"Type":"Task",` + okTask + `,"End":true,"Retry":[{"ErrorEquals":["X"],"BackoffRate":0.5}]}`), []string{`state "S"`, `"Retry[0].BackoffRate"`}},
		{"MaxDelaySeconds zero", asltest.Wrap(`{"Type":"Task",` + okTask + `,"End":true,"Retry":[{"ErrorEquals":["X"],"MaxDelaySeconds":0}]}`), []string{`state "S"`, `"Retry[0].MaxDelaySeconds"`}},
		{"bad JitterStrategy", asltest.Wrap(`{"Type":"Task",` + okTask + `,"End":true,"Retry":[{"ErrorEquals":["X"],"JitterStrategy":"HALF"}]}`), []string{`state "S"`, `"Retry[0].JitterStrategy"`}},
		{"unknown retrier field", asltest.Wrap(`{"Type":"Task",` + okTask + `,"End":true,"Retry":[{"ErrorEquals":["X"],"Foo":1}]}`), []string{`state "S"`, `"Retry[0].Foo"`}},
		{"Catch no Next", asltest.Wrap(`{"Type":"Task",` + okTask + `,"End":true,"Catch":[{"ErrorEquals":["X"]}]}`), []string{`state "S"`, `"Catch[0].Next"`}},
		{"Catch Next unknown", asltest.Wrap(`{"Type":"Task",` + okTask + `,"End":true,"Catch":[{"ErrorEquals":["X"],"Next":"Nope"}]}`), []string{`state "S"`, `"Catch[0].Next"`, `"Nope"`}},
		{"Catch bad ResultPath", asltest.Wrap(`{"Type":"Task",` + okTask + `,"End":true,"Catch":[{"ErrorEquals":["X"],"Next":"S","ResultPath":"x"}]}`), []string{`state "S"`, `"Catch[0].ResultPath"`}},
		{"Choice no Choices", asltest.Wrap(`{"Type":"Choice"}`), []string{`state "S"`, `"Choices"`}},
		{"Choice empty Choices", asltest.Wrap(`{"Type":"Choice","Choices":[]}`), []string{`state "S"`, `"Choices"`}},
		{"Choice rule without Next", asltest.Wrap(`{"Type":"Choice","Choices":[{"Variable":"$.a","IsPresent":true}],"Default":"E"}`, `"E":{"Type":"Succeed"}`), []string{`state "S"`, "Choices[0].Next"}},
		{"Choice bad operator", asltest.Wrap(`{"Type":"Choice","Choices":[{"Variable":"$.a","Foo":1,"Next":"E"}]}`, `"E":{"Type":"Succeed"}`), []string{`state "S"`, "Choices[0]", "Foo"}},
		{"Choice Next unknown", asltest.Wrap(`{"Type":"Choice","Choices":[{"Variable":"$.a","IsPresent":true,"Next":"Nope"}]}`), []string{`state "S"`, `"Choices[0].Next"`, `"Nope"`}},
		{"Choice Default unknown", asltest.Wrap(`{"Type":"Choice","Choices":[{"Variable":"$.a","IsPresent":true,"Next":"S"}],"Default":"Nope"}`), []string{`state "S"`, `"Default"`}},
		{"Wait nothing", asltest.Wrap(`{"Type":"Wait","End":true}`), []string{`state "S"`, "Seconds"}},
		{"Wait two", asltest.Wrap(`{"Type":"Wait","Seconds":1,"SecondsPath":"$.s","End":true}`), []string{`state "S"`, "exactly one"}},
		{"Wait negative", asltest.Wrap(`{"Type":"Wait","Seconds":-1,"End":true}`), []string{`state "S"`, `"Seconds"`}},
		{"Wait bad Timestamp", asltest.Wrap(`{"Type":"Wait","Timestamp":"tomorrow","End":true}`), []string{`state "S"`, `"Timestamp"`}},
		{"Fail Error and ErrorPath", asltest.Wrap(`{"Type":"Fail","Error":"E","ErrorPath":"$.e"}`), []string{`state "S"`, `"ErrorPath"`}},
		{"Fail Cause number", asltest.Wrap(`{"Type":"Fail","Cause":5}`), []string{`state "S"`, `"Cause"`}},
		{"long state name", `{"StartAt":"` + strings.Repeat("a", 81) + `","States":{"` + strings.Repeat("a", 81) + `":{"Type":"Succeed"}}}`, []string{"1-80"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(tt.def)
			var derr *DefinitionError
			require.ErrorAs(t, err, &derr)
			for _, w := range tt.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}

func TestLoadDefinitionValid(t *testing.T) {
	tests := []struct{ name, def string }{
		{"all state types", `{"Comment":"c","Version":"1.0","TimeoutSeconds":60,"QueryLanguage":"JSONPath","StartAt":"P","States":{
			"P":{"Type":"Pass","Comment":"c","InputPath":null,"OutputPath":null,"ResultPath":null,"Result":{"a":1},"Next":"T"},
			"T":{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke","Parameters":{"FunctionName.$":"$.f","Payload.$":"$","Qualifier":"live"},
				"ResultSelector":{"p.$":"$.Payload"},"ResultPath":"$.r","TimeoutSecondsPath":"$.t",
				"Retry":[{"ErrorEquals":["X","States.Timeout"],"IntervalSeconds":2,"MaxAttempts":0,"BackoffRate":1.5,"MaxDelaySeconds":10,"JitterStrategy":"FULL","Comment":"r"},{"ErrorEquals":["States.ALL"]}],
				"Catch":[{"ErrorEquals":["States.TaskFailed"],"ResultPath":"$.err","Next":"F"},{"ErrorEquals":["States.ALL"],"ResultPath":null,"Next":"F"}],"Next":"C"},
			"C":{"Type":"Choice","Choices":[{"And":[{"Variable":"$.a","NumericGreaterThan":1},{"Not":{"Variable":"$.b","IsPresent":true}}],"Next":"W"}],"Default":"L"},
			"W":{"Type":"Wait","TimestampPath":"$.when","Next":"W2"},
			"W2":{"Type":"Wait","Timestamp":"2026-01-01T00:00:00Z","Next":"L"},
			"L":{"Type":"Task","Resource":"arn:aws:lambda:us-east-1:123456789012:function:fn:live","TimeoutSeconds":5,"End":true},
			"F":{"Type":"Fail","ErrorPath":"$.err.Error","CausePath":"$.err.Cause"}}}`},
		{"minimal", `{"StartAt":"S","States":{"S":{"Type":"Succeed"}}}`},
		{"callback with heartbeat", asltest.Wrap(`{"Type":"Task",` + okCallback + `,"TimeoutSeconds":60,"HeartbeatSeconds":59,"End":true}`)},
		{"callback with heartbeat path", asltest.Wrap(`{"Type":"Task",` + okCallback + `,"TimeoutSecondsPath":"$.t","HeartbeatSecondsPath":"$.h","End":true}`)},
		// AWS accepts a callback task that passes no token (it then waits
		// until it times out): LocalStack's AWS-validated
		// test_sqs_wait_for_task_token_no_token_parameter.
		{"callback without token", asltest.Wrap(`{"Type":"Task","Resource":"arn:aws-us-gov:states:::lambda:invoke.waitForTaskToken","Parameters":{"FunctionName":"f"},"End":true}`)},
		{"loop", `{"StartAt":"A","States":{"A":{"Type":"Pass","Next":"B"},"B":{"Type":"Pass","Next":"A"}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := Parse(tt.def)
			require.NoError(t, err)
			assert.NotNil(t, d.StartAt())
			assert.Nil(t, Validate(tt.def))
		})
	}
}

func TestLoadDefinitionCompiles(t *testing.T) {
	d, err := Parse(`{"StartAt":"T","TimeoutSeconds":30,"States":{
		"T":{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke","Parameters":{"FunctionName":"f","Payload.$":"$$.Execution.Input"},
			"Retry":[{"ErrorEquals":["X"],"IntervalSeconds":3,"MaxAttempts":4,"BackoffRate":1.5,"MaxDelaySeconds":7,"JitterStrategy":"FULL"}],
			"Catch":[{"ErrorEquals":["States.ALL"],"Next":"D"}],"TimeoutSeconds":9,"Next":"D"},
		"D":{"Type":"Succeed"}}}`)
	require.NoError(t, err)
	st := d.states["T"]
	require.NotNil(t, st.Task())
	assert.Equal(t, LambdaInvoke, st.Task().Kind)
	assert.True(t, st.Task().Timed)
	assert.True(t, st.UsesContext())
	assert.False(t, d.states["D"].UsesContext())
	assert.Equal(t, int64(9), int64(st.Task().timeout.Seconds()))
	assert.Equal(t, int64(30), int64(d.Timeout().Seconds()))
	require.Len(t, st.retriers, 1)
	r := st.retriers[0]
	assert.Equal(t, 4, r.maxAttempts)
	assert.InDelta(t, 1.5, r.backoffRate, 0)
	assert.True(t, r.fullJitter)
	require.Len(t, st.catchers, 1)
	assert.Same(t, d.states["D"], st.catchers[0].next)
	assert.Same(t, d.states["D"], st.next)
}

// FuzzLoadDefinition checks that no definition makes loading panic or
// hang, and that every rejection is a *DefinitionError.
func FuzzLoadDefinition(f *testing.F) {
	for _, seed := range []string{
		`{"StartAt":"T","States":{"T":{"Type":"Task",` + okTask + `,"ResultSelector":{"p.$":"$.Payload"},"Next":"C"},
			"C":{"Type":"Choice","Choices":[{"Variable":"$.p","IsPresent":true,"Next":"W"}],"Default":"F"},
			"W":{"Type":"Wait","Seconds":1,"Next":"P"},"P":{"Type":"Pass","Result":1,"End":true},"F":{"Type":"Fail"}}}`,
		asltest.Wrap(`{"Type":"Pass","End":true}`),
		asltest.Wrap(`{"Type":"Choice","Choices":[{"Or":[{"Variable":"$.a","StringMatches":"a*"}],"Next":"S"}]}`),
		asltest.Wrap(`{"Type":"Task",` + okTask + `,"Retry":[{"ErrorEquals":["States.ALL"]}],"End":true}`),
		asltest.Wrap(`{"Type":"Wait","SecondsPath":"$.s","End":true}`),
		`{"StartAt":1,"States":[]}`,
		`{"":{"":},"":""0`, // made ojg's parser panic
		`null`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, def string) {
		d, err := Parse(def)
		if err != nil {
			var derr *DefinitionError
			assert.ErrorAs(t, err, &derr)
			return
		}
		assert.NotNil(t, d.StartAt())
	})
}

func TestValidateLocatesTheError(t *testing.T) {
	tests := []struct {
		name, def, code, location, message string
	}{
		{"not JSON", `{"StartAt":`, "INVALID_JSON_DESCRIPTION", "", "definition: asl: not valid JSON"},
		{"a number out of range", `{"StartAt":"S","TimeoutSeconds":1e400,"States":{"S":{"Type":"Succeed"}}}`, "SCHEMA_VALIDATION_FAILED", "", "definition: asl: not valid JSON"},
		{"top-level field", `{"StartAt":"S","Comment":5,"States":{"S":{"Type":"Succeed"}}}`, "SCHEMA_VALIDATION_FAILED", "/Comment", `definition field "Comment": must be a string`},
		{"a state", asltest.Wrap(`{"Type":"Succeed"}`, `"a/b~c":{"Type":"Succeed"}`), "SCHEMA_VALIDATION_FAILED", "/States/a~1b~0c", `state "a/b~c": is not reachable`},
		{"Resource", asltest.Wrap(`{"Type":"Task","Resource":"arn:aws:states:::sqs:sendMessage","End":true}`), "INVALID_RESOURCE", "/States/S/Resource", `state "S" field "Resource": "arn:aws:states:::sqs:sendMessage" is not supported`},
		{"a retrier", asltest.Wrap(`{"Type":"Task",` + okTask + `,"End":true,"Retry":[{"ErrorEquals":["X"]},5]}`), "SCHEMA_VALIDATION_FAILED", "/States/S/Retry/1", `state "S" field "Retry[1]": must be an object`},
		{"a catcher's field", asltest.Wrap(`{"Type":"Task",` + okTask + `,"End":true,"Catch":[{"ErrorEquals":["X"],"Next":"S","ResultPath":"x"}]}`), "SCHEMA_VALIDATION_FAILED", "/States/S/Catch/0/ResultPath", `state "S" field "Catch[0].ResultPath": invalid reference path`},
		{"a field named like a list", asltest.Wrap(`{"Type":"Pass","End":true,"a[1].b":0}`), "SCHEMA_VALIDATION_FAILED", "/States/S/a[1].b", `state "S" field "a[1].b": is not supported`},
		{"a Choice Rule", asltest.Wrap(`{"Type":"Choice","Choices":[{"Variable":"$.a","Next":"S"}]}`), "SCHEMA_VALIDATION_FAILED", "/States/S", `state "S": Choices[0]: a Choice Rule needs`},
		{"a Choice Rule's target", asltest.Wrap(`{"Type":"Choice","Choices":[{"Variable":"$.a","IsNull":true,"Next":"X"}]}`), "SCHEMA_VALIDATION_FAILED", "/States/S/Choices/0/Next", `state "S" field "Choices[0].Next": refers to state "X"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			derr := Validate(tt.def)
			require.NotNil(t, derr)
			assert.Equal(t, tt.code, derr.Code)
			assert.Equal(t, tt.location, derr.Location)
			assert.True(t, strings.HasPrefix(derr.Message, tt.message), "message %q", derr.Message)
			assert.Equal(t, derr.Message, derr.Error())
		})
	}
}
