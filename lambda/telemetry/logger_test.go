package telemetry_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/breaker/breakertest"
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

func TestJSONLoggerOnAClockStampsLinesWithIt(t *testing.T) {
	at := time.Date(2030, 6, 1, 8, 0, 0, 0, time.UTC) // far from the wall clock
	var out bytes.Buffer
	logger := telemetry.JSONLoggerOn(&out, breakertest.NewClock(at))
	logger.With("breaker", "orders").WithGroup("g").Info("started", "n", 1)
	var entry map[string]any
	require.NoError(t, json.Unmarshal(out.Bytes(), &entry))
	assert.Equal(t, at.Format(time.RFC3339Nano), entry["timestamp"])
	assert.Equal(t, "started", entry["message"])
	assert.Equal(t, map[string]any{"n": 1.0}, entry["g"])
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
