package telemetry_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/lambda/telemetry"
)

func TestJSONLoggerUsesLambdaKeys(t *testing.T) {
	var out bytes.Buffer
	telemetry.JSONLogger(&out).Info("started", "breaker", "orders")
	var entry map[string]any
	require.NoError(t, json.Unmarshal(out.Bytes(), &entry))
	assert.Equal(t, "started", entry["message"])
	assert.Equal(t, "INFO", entry["level"])
	assert.Equal(t, "orders", entry["breaker"])
	assert.NotEmpty(t, entry["timestamp"])
	assert.NotContains(t, entry, "msg")
	assert.NotContains(t, entry, "time")
}

func TestNewLoggerInLambda(t *testing.T) {
	t.Setenv("AWS_LAMBDA_FUNCTION_NAME", "")
	_, local := telemetry.NewLogger().Handler().(*slog.JSONHandler)
	assert.True(t, local, "outside Lambda: JSON on stdout")

	t.Setenv("AWS_LAMBDA_FUNCTION_NAME", "redrive-attempt")
	_, local = telemetry.NewLogger().Handler().(*slog.JSONHandler)
	assert.False(t, local, "in Lambda: lambdacontext's handler, which adds the request id")
}
