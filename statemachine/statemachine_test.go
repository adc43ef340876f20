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
	assert.Equal(t, []string{AttemptFunctionArn, ContinueFunctionArn, ParkFunctionArn}, Redrive().Placeholders())
	assert.Equal(t, []string{AdminFunctionArn}, Admin().Placeholders())
}

func TestRender(t *testing.T) {
	out, err := Redrive().Render(arns(AttemptFunctionArn, ContinueFunctionArn, ParkFunctionArn))
	require.NoError(t, err)
	var doc struct {
		States map[string]struct {
			Parameters struct{ FunctionName string }
		}
	}
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	assert.Equal(t, "arn:aws:lambda:us-east-1:123456789012:function:AttemptFunctionArn", doc.States["Attempt"].Parameters.FunctionName)
	assert.NotContains(t, out, "${")
}

func TestRenderErrors(t *testing.T) {
	tests := []struct {
		name   string
		values map[string]string
		want   string
	}{
		{"missing", arns(AttemptFunctionArn), "missing [ContinueFunctionArn ParkFunctionArn]"},
		{"unknown", arns(AttemptFunctionArn, ContinueFunctionArn, ParkFunctionArn, "Extra"), "unknown [Extra]"},
		{"quote", map[string]string{AttemptFunctionArn: `a"b`, ContinueFunctionArn: "c", ParkFunctionArn: "p"}, "must not contain quotes"},
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
	assert.Equal(t, []string{"BreakerContention", "DeliveryInProgress", "InvalidDocument"}, names)
	names, err = Admin().ErrorNames()
	require.NoError(t, err)
	assert.Equal(t, []string{"BreakerContention", "InvalidCommand"}, names)
}
