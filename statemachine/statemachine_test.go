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
		{Redrive(), "WaitingRoom", WaitingRoomFunctionArn},
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
	assert.Equal(t, []string{"BreakerContention", "DeliveryInProgress", "InvalidDocument", "TableUnavailable"}, names)
	names, err = Admin().ErrorNames()
	require.NoError(t, err)
	assert.Equal(t, []string{"BreakerContention", "InvalidCommand"}, names)
	names, err = Release().ErrorNames()
	require.NoError(t, err)
	assert.Empty(t, names, "the releaser retries and catches States.ALL only")
}
