package statemachine

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func arns(names ...string) map[string]string {
	m := map[string]string{}
	for _, n := range names {
		m[n] = "arn:aws:lambda:us-east-1:123456789012:function:" + n
	}
	return m
}

func TestPlaceholders(t *testing.T) {
	assert.Equal(t, []string{AttemptFunctionArn, ParkFunctionArn, WaitingRoomFunctionArn}, Redrive().Placeholders())
	assert.Equal(t, []string{AdminFunctionArn}, Admin().Placeholders())
	assert.Equal(t, []string{ReleaseFunctionArn}, Release().Placeholders())
}

// redriveArns are values for every placeholder of Redrive.
var redriveArns = []string{AttemptFunctionArn, ParkFunctionArn, WaitingRoomFunctionArn}

func TestRender(t *testing.T) {
	tests := []struct {
		def   Definition
		state string
		arn   string
	}{
		{Redrive(), "Attempt", AttemptFunctionArn},
		{Redrive(), "Queue", WaitingRoomFunctionArn},
		{Redrive(), "Park", ParkFunctionArn},
		{Admin(), "Admin", AdminFunctionArn},
		{Release(), "Release", ReleaseFunctionArn},
	}
	for _, tt := range tests {
		t.Run(tt.def.Name+"/"+tt.state, func(t *testing.T) {
			out, err := tt.def.Render(arns(tt.def.Placeholders()...))
			require.NoError(t, err)
			var doc struct {
				States map[string]struct {
					Parameters struct{ FunctionName string }
				}
			}
			require.NoError(t, json.Unmarshal([]byte(out), &doc))
			require.Contains(t, doc.States, tt.state)
			assert.Equal(t, "arn:aws:lambda:us-east-1:123456789012:function:"+tt.arn, doc.States[tt.state].Parameters.FunctionName)
			assert.NotContains(t, out, "${")
		})
	}
}

func TestRenderErrors(t *testing.T) {
	tests := []struct {
		name   string
		values map[string]string
		want   string
	}{
		{"missing", arns(AttemptFunctionArn), "missing [ParkFunctionArn WaitingRoomFunctionArn]"},
		{"unknown", arns(append(redriveArns, "Extra")...), "unknown [Extra]"},
		{"quote", map[string]string{AttemptFunctionArn: `a"b`, ParkFunctionArn: "p", WaitingRoomFunctionArn: "w"}, "must not contain quotes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Redrive().Render(tt.values)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestErrorNames(t *testing.T) {
	names, err := Redrive().ErrorNames()
	require.NoError(t, err)
	assert.Equal(t, []string{"BreakerContention", "ControllerNotStarted", "InvalidDocument", "InvalidEntry", "TableUnavailable", "TooManyFailedRuns"}, names)
	names, err = Admin().ErrorNames()
	require.NoError(t, err)
	assert.Equal(t, []string{"BreakerContention", "InvalidCommand"}, names)
	names, err = Release().ErrorNames()
	require.NoError(t, err)
	assert.Empty(t, names, "the controller retries and catches States.ALL only")
}

// state is a state of a rendered definition, as far as these tests look
// at it.
type state struct {
	Type        string
	Resource    string
	Next        string
	End         bool
	SecondsPath string
	Seconds     int
	Default     string
	Choices     []struct {
		Variable           string
		StringEquals       string
		BooleanEquals      *bool
		NumericGreaterThan *float64
		Next               string
	}
	Catch []struct {
		ErrorEquals []string
		Next        string
	}
}

func states(t *testing.T, def Definition) map[string]state {
	t.Helper()
	out, err := def.Render(arns(def.Placeholders()...))
	require.NoError(t, err)
	var doc struct {
		StartAt string
		States  map[string]state
	}
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	require.Contains(t, doc.States, doc.StartAt)
	return doc.States
}

// TestRedriveShape: one delivery try per execution. Attempt -> Route ->
// Delivered | Backoff (a Wait, back to Attempt) | Queue (the room, then
// Queued) | Park. Nothing waits for a task token, and there is no
// continuation.
func TestRedriveShape(t *testing.T) {
	s := states(t, Redrive())
	names := make([]string, 0, len(s))
	for n := range s {
		names = append(names, n)
	}
	assert.ElementsMatch(t, []string{"Attempt", "Route", "Backoff", "Queue", "Park", "Delivered", "Queued", "Parked", "ParkFailed"}, names)
	for n, st := range s {
		assert.NotContains(t, st.Resource, "waitForTaskToken", n)
	}
	assert.Equal(t, "Route", s["Attempt"].Next)
	routes := map[string]string{}
	for _, c := range s["Route"].Choices {
		assert.Equal(t, "$.next", c.Variable)
		routes[c.StringEquals] = c.Next
	}
	assert.Equal(t, map[string]string{"DONE": "Delivered", "ROOM": "Queue", "WAIT": "Backoff"}, routes)
	assert.Equal(t, "Park", s["Route"].Default)

	assert.Equal(t, "Wait", s["Backoff"].Type)
	assert.Equal(t, "$.waitSeconds", s["Backoff"].SecondsPath)
	assert.Equal(t, "Attempt", s["Backoff"].Next)

	assert.Equal(t, "Task", s["Queue"].Type)
	assert.Equal(t, "Queued", s["Queue"].Next)
	catches := map[string]string{}
	for _, c := range s["Queue"].Catch {
		for _, e := range c.ErrorEquals {
			catches[e] = c.Next
		}
	}
	// A document in the room whose controller did not start is safe
	// there; any other failure parks the message, so nothing is lost.
	assert.Equal(t, map[string]string{"ControllerNotStarted": "Queued", "States.ALL": "Park"}, catches)
	for _, end := range []string{"Delivered", "Queued", "Parked"} {
		assert.Equal(t, "Succeed", s[end].Type, end)
	}
	assert.Equal(t, "Fail", s["ParkFailed"].Type)
}

// TestReleaseShape: the controller's loop. Release -> More: done ->
// Drained, waitSeconds > 0 -> Wait -> Release, else Release; a failing
// Release pauses a minute and tries again.
func TestReleaseShape(t *testing.T) {
	s := states(t, Release())
	assert.Equal(t, "More", s["Release"].Next)
	require.Len(t, s["Release"].Catch, 1)
	assert.Equal(t, []string{"States.ALL"}, s["Release"].Catch[0].ErrorEquals)
	assert.Equal(t, "Pause", s["Release"].Catch[0].Next)

	more := s["More"]
	assert.Equal(t, "Choice", more.Type)
	require.Len(t, more.Choices, 2)
	assert.Equal(t, "$.done", more.Choices[0].Variable)
	require.NotNil(t, more.Choices[0].BooleanEquals)
	assert.True(t, *more.Choices[0].BooleanEquals)
	assert.Equal(t, "Drained", more.Choices[0].Next)
	assert.Equal(t, "$.waitSeconds", more.Choices[1].Variable)
	require.NotNil(t, more.Choices[1].NumericGreaterThan)
	assert.Zero(t, *more.Choices[1].NumericGreaterThan)
	assert.Equal(t, "Wait", more.Choices[1].Next)
	assert.Equal(t, "Release", more.Default)

	assert.Equal(t, "Wait", s["Wait"].Type)
	assert.Equal(t, "$.waitSeconds", s["Wait"].SecondsPath)
	assert.Equal(t, "Release", s["Wait"].Next)
	assert.Equal(t, "Succeed", s["Drained"].Type)
	assert.Equal(t, "Wait", s["Pause"].Type)
	assert.Equal(t, 60, s["Pause"].Seconds)
	assert.Equal(t, "Release", s["Pause"].Next)
}
