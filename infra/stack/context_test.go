package stack

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSettingsFromContext(t *testing.T) {
	want := Settings{
		DeadLetterQueueArn:      dlqArn,
		Target:                  Target{Kind: TargetLambda, FunctionArn: consumerArn},
		BreakerKey:              KeySelector{Attribute: "tenant"},
		Policy:                  map[string]string{"BREAKER_COOLDOWN_BASE": "1m"},
		BackoffBase:             Duration(2 * time.Second),
		ThrottleErrorTypes:      []string{"TooBusy"},
		AttemptStateMachineType: "STANDARD",
		RoomTTL:                 Duration(72 * time.Hour),
		ReleaseWorkers:          32,
		BodyRetentionDays:       45,
		Release:                 ReleasePace{StartRate: 20, MaxRate: 450, Backoff: 0.75, Tick: Duration(500 * time.Millisecond), Lease: Duration(time.Minute)},
		Alarms: Alarms{DeadLetterQueueAge: Duration(30 * time.Minute), DeadLetterQueueAgeCritical: Duration(2 * time.Hour), AttemptErrors: 20,
			RoomDepth: 2000, OldestWaiting: Duration(45 * time.Minute)},
	}
	object := map[string]any{
		"deadLetterQueueArn":      dlqArn,
		"target":                  map[string]any{"kind": "lambda", "functionArn": consumerArn},
		"breakerKey":              map[string]any{"attribute": "tenant"},
		"policy":                  map[string]any{"BREAKER_COOLDOWN_BASE": "1m"},
		"backoffBase":             "2s",
		"throttleErrorTypes":      []any{"TooBusy"},
		"attemptStateMachineType": "STANDARD",
		"roomTtl":                 "72h",
		"releaseWorkers":          32,
		"bodyRetentionDays":       45,
		"release":                 map[string]any{"startRate": 20, "maxRate": 450, "backoff": 0.75, "tick": "500ms", "lease": "1m"},
		"alarms": map[string]any{"deadLetterQueueAge": "30m", "deadLetterQueueAgeCritical": "2h", "attemptErrors": 20,
			"roomDepth": 2000, "oldestWaiting": "45m"},
	}
	text := `{"deadLetterQueueArn": "` + dlqArn + `", "target": {"kind": "lambda", "functionArn": "` + consumerArn + `"},
		"breakerKey": {"attribute": "tenant"}, "policy": {"BREAKER_COOLDOWN_BASE": "1m"}, "backoffBase": "2s",
		"throttleErrorTypes": ["TooBusy"], "attemptStateMachineType": "STANDARD", "roomTtl": "72h", "releaseWorkers": 32,
		"bodyRetentionDays": 45,
		"release": {"startRate": 20, "maxRate": 450, "backoff": 0.75, "tick": "500ms", "lease": "1m"},
		"alarms": {"deadLetterQueueAge": "30m", "deadLetterQueueAgeCritical": "2h", "attemptErrors": 20, "roomDepth": 2000, "oldestWaiting": "45m"}}`

	tests := []struct {
		name  string
		value any
		want  Settings
	}{
		{"cdk.json object", object, want},
		{"-c JSON string", text, want},
		{"no context", nil, Settings{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := SettingsFromContext(tt.value)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestSettingsFromContextErrors(t *testing.T) {
	tests := []struct {
		name  string
		value any
		want  string
	}{
		{"misspelt field", map[string]any{"deadLetterQueue": dlqArn}, `unknown field "deadLetterQueue"`},
		{"misspelt nested field", `{"target": {"kind": "sqs", "queueArn": "x"}}`, `unknown field "queueArn"`},
		{"duration without unit", `{"backoffBase": "30"}`, `"30"`},
		{"duration as a number", `{"backoffBase": 30}`, "want a string"},
		{"not JSON", `demoQueues=true`, `context "redrive"`},
		{"two values", `{} {}`, "more than one JSON value"},
		{"wrong type", map[string]any{"maxAttempts": "five"}, "maxAttempts"},
		{"misspelt release field", `{"release": {"rate": 5}}`, `unknown field "rate"`},
		{"rate as a string", `{"release": {"startRate": "5"}}`, "release.startRate"},
		{"removed parking lot depth", `{"alarms": {"parkingLotDepth": 1}}`, `unknown field "parkingLotDepth"`},
		{"body retention as a duration", `{"bodyRetentionDays": "30d"}`, "bodyRetentionDays"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := SettingsFromContext(tt.value)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestDurationJSONRoundTrip(t *testing.T) {
	d := Duration(90 * time.Second)
	b, err := d.MarshalJSON()
	require.NoError(t, err)
	assert.JSONEq(t, `"1m30s"`, string(b))
	var back Duration
	require.NoError(t, back.UnmarshalJSON(b))
	assert.Equal(t, d, back)
}
