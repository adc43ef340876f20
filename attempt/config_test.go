package attempt_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/attempt"
	"github.com/redrive/redrive/lambda/config"
)

func TestConfigFromEnv(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		want    attempt.Config
		wantErr []string
	}{
		{"defaults", nil, attempt.Config{MaxAttempts: 5, BackoffBase: 30 * time.Second, BackoffMax: 15 * time.Minute,
			DeliveryLease: 5 * time.Minute, UnknownOutcome: attempt.Redeliver, TableRetryBudget: 6 * time.Hour}, nil},
		{"every variable", map[string]string{"MAX_ATTEMPTS": "8", "BACKOFF_BASE": "10s", "BACKOFF_MAX": "1h",
			"DELIVERY_LEASE": "3m", "UNKNOWN_OUTCOME": "park", "TABLE_RETRY_BUDGET": "2h"},
			attempt.Config{MaxAttempts: 8, BackoffBase: 10 * time.Second, BackoffMax: time.Hour, DeliveryLease: 3 * time.Minute,
				UnknownOutcome: attempt.Park, TableRetryBudget: 2 * time.Hour}, nil},
		{"a table retry budget under a minute", map[string]string{"TABLE_RETRY_BUDGET": "30s"}, attempt.Config{}, []string{
			`config: TABLE_RETRY_BUDGET="30s": must be at least 1m`,
		}},
		{"an unknown choice for unknown outcomes", map[string]string{"UNKNOWN_OUTCOME": "drop"}, attempt.Config{}, []string{
			`config: UNKNOWN_OUTCOME="drop": "drop", want "redeliver" (at least once) or "park" (at most once)`,
		}},
		{"values that do not parse", map[string]string{"MAX_ATTEMPTS": "five", "BACKOFF_BASE": "30", "DELIVERY_LEASE": "-1m"}, attempt.Config{}, []string{
			`config: MAX_ATTEMPTS="five": want an integer, e.g. 5`,
			`config: BACKOFF_BASE="30": want a duration with a unit, e.g. "30s" or "5m"`,
			`config: DELIVERY_LEASE="-1m": must be greater than zero`,
		}},
		{"zero attempts", map[string]string{"MAX_ATTEMPTS": "0"}, attempt.Config{}, []string{
			`config: MAX_ATTEMPTS="0": must be at least 1`,
		}},
		{"out of range", map[string]string{"BACKOFF_BASE": "500ms", "BACKOFF_MAX": "100ms"}, attempt.Config{}, []string{
			`config: BACKOFF_BASE="500ms": must be at least 1s (a Wait state counts whole seconds)`,
			`config: BACKOFF_MAX="100ms": must be at least BACKOFF_BASE (500ms)`,
		}},
		{"a lease past the longest", map[string]string{"DELIVERY_LEASE": "17m"}, attempt.Config{}, []string{
			`config: DELIVERY_LEASE="17m": must be between 1s and 16m0s`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := attempt.ConfigFromEnv(func(k string) string { return tt.env[k] })
			if tt.wantErr == nil {
				assert.NoError(t, err)
				assert.Equal(t, tt.want, got)
				return
			}
			assert.ErrorIs(t, err, config.ErrInvalid)
			for _, want := range tt.wantErr {
				assert.ErrorContains(t, err, want)
			}
		})
	}
}

func TestConfigZeroMeansDefault(t *testing.T) {
	assert.Equal(t, attempt.Config{MaxAttempts: attempt.DefaultMaxAttempts, BackoffBase: attempt.DefaultBackoffBase,
		BackoffMax: attempt.DefaultBackoffMax, DeliveryLease: attempt.DefaultDeliveryLease, UnknownOutcome: attempt.Redeliver,
		TableRetryBudget: attempt.DefaultTableRetryBudget},
		attempt.Config{}.WithDefaults())
	assert.NoError(t, attempt.Config{}.Validate())
}

// The variables of the removed continuation and room timeouts are no
// longer read: a deployment that still sets them starts as before.
func TestRemovedVariablesAreIgnored(t *testing.T) {
	env := map[string]string{"MAX_CYCLES": "1501", "ROOM_TIMEOUT": "1s", "ROOM_MAX_WAIT": "nonsense"}
	got, err := attempt.ConfigFromEnv(func(k string) string { return env[k] })
	require.NoError(t, err)
	assert.Equal(t, attempt.Config{}.WithDefaults(), got)
}
