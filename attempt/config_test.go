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
			MaxCycles: 500, DeliveryLease: 5 * time.Minute, UnknownOutcome: attempt.Redeliver, TableRetryBudget: 6 * time.Hour}, nil},
		{"every variable", map[string]string{"MAX_ATTEMPTS": "8", "BACKOFF_BASE": "10s", "BACKOFF_MAX": "1h",
			"MAX_CYCLES": "1000", "DELIVERY_LEASE": "3m", "UNKNOWN_OUTCOME": "park", "TABLE_RETRY_BUDGET": "2h"},
			attempt.Config{MaxAttempts: 8, BackoffBase: 10 * time.Second, BackoffMax: time.Hour, MaxCycles: 1000, DeliveryLease: 3 * time.Minute,
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
		{"out of range", map[string]string{"BACKOFF_BASE": "500ms", "BACKOFF_MAX": "100ms", "MAX_CYCLES": "1501"}, attempt.Config{}, []string{
			`config: BACKOFF_BASE="500ms": must be at least 1s (a Wait state counts whole seconds)`,
			`config: BACKOFF_MAX="100ms": must be at least BACKOFF_BASE (500ms)`,
			`config: MAX_CYCLES="1501": must be between 1 and 1500 (up to 13 history events per cycle; the limit is 25,000)`,
		}},
		{"a lease past the DeliveryInProgress retries", map[string]string{"DELIVERY_LEASE": "17m"}, attempt.Config{}, []string{
			`config: DELIVERY_LEASE="17m": must be between 1s and 16m0s: the state machine retries DeliveryInProgress for 16m3s, and a lease must end before that`,
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
		BackoffMax: attempt.DefaultBackoffMax, MaxCycles: attempt.DefaultMaxCycles, DeliveryLease: attempt.DefaultDeliveryLease,
		RoomTimeout: attempt.DefaultRoomTimeout, RoomMaxWait: attempt.DefaultRoomMaxWait, UnknownOutcome: attempt.Redeliver,
		TableRetryBudget: attempt.DefaultTableRetryBudget},
		attempt.Config{}.WithDefaults())
	assert.NoError(t, attempt.Config{}.Validate())
}

func TestRoomMaxWaitIsAtLeastTheRoomTimeout(t *testing.T) {
	long := attempt.Config{RoomTimeout: 12 * time.Hour}.WithDefaults()
	assert.Equal(t, 12*time.Hour, long.RoomMaxWait, "the default follows a longer ROOM_TIMEOUT")
	assert.NoError(t, long.Validate())

	err := attempt.Config{RoomTimeout: 2 * time.Hour, RoomMaxWait: time.Hour}.Validate()
	require.Error(t, err)
	assert.ErrorContains(t, err, "ROOM_MAX_WAIT")
	assert.ErrorContains(t, err, "must be between ROOM_TIMEOUT (2h0m0s) and 8760h")
	assert.ErrorContains(t, attempt.Config{RoomMaxWait: 8761 * time.Hour}.Validate(), "ROOM_MAX_WAIT")
}
