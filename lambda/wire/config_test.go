package wire_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/attempt"
	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/delivery/target"
	"github.com/redrive/redrive/lambda/config"
	"github.com/redrive/redrive/lambda/wire"
	"github.com/redrive/redrive/room/pace"
)

// envOf is a getenv over vars.
func envOf(vars map[string]string) func(string) string {
	return func(name string) string { return vars[name] }
}

// attemptEnv is a valid attempt environment, with its waiting room.
var attemptEnv = map[string]string{
	"TABLE_NAME":                "redrive",
	"BREAKER_JITTER":            "0.2",
	"MAX_ATTEMPTS":              "7",
	"TARGET_KIND":               "lambda",
	"TARGET_FUNCTION":           "orders-consumer",
	"POISON_ERROR_TYPES":        "PoisonMessage, SchemaError",
	"RELEASE_STATE_MACHINE_ARN": releaseARN,
	"ROOM_TTL":                  "72h",
	"RELEASE_MAX_RATE":          "100",
}

// with returns base with the changes; "" deletes a variable.
func with(base map[string]string, changes map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range base {
		out[k] = v
	}
	for k, v := range changes {
		if v == "" {
			delete(out, k)
			continue
		}
		out[k] = v
	}
	return out
}

// badVariables returns the names of the variables err reports, in order.
func badVariables(t *testing.T, err error) []string {
	t.Helper()
	var names []string
	for _, e := range config.Split(err) {
		var verr *config.VarError
		require.ErrorAs(t, e, &verr)
		names = append(names, verr.Name)
	}
	return names
}

func TestAttemptConfigFromEnv(t *testing.T) {
	cfg, err := wire.AttemptConfigFromEnv(envOf(attemptEnv))
	require.NoError(t, err)
	assert.Equal(t, wire.AttemptConfig{
		Table:  "redrive",
		Policy: breaker.Policy{Jitter: 0.2},
		Retry: attempt.Config{
			MaxAttempts: 7, BackoffBase: attempt.DefaultBackoffBase, BackoffMax: attempt.DefaultBackoffMax,
			DeliveryLease: attempt.DefaultDeliveryLease, UnknownOutcome: attempt.Redeliver,
			TableRetryBudget: attempt.DefaultTableRetryBudget,
		},
		Target: target.Config{Kind: target.KindLambda, Function: "orders-consumer", PoisonErrorTypes: []string{"PoisonMessage", "SchemaError"}},
		Room: wire.RoomConfig{
			Table: "redrive", ReleaseStateMachineARN: releaseARN, TTL: 72 * time.Hour, Workers: wire.DefaultReleaseWorkers, Pace: pace.Policy{Max: 100},
		},
	}, cfg)
	assert.NoError(t, cfg.Validate())
}

func TestAttemptConfigErrorsNameEveryVariable(t *testing.T) {
	tests := []struct {
		name    string
		changes map[string]string
		want    []string
	}{
		{name: "table unset", changes: map[string]string{"TABLE_NAME": ""}, want: []string{"TABLE_NAME"}},
		{name: "retry unparsable", changes: map[string]string{"BACKOFF_BASE": "30"}, want: []string{"BACKOFF_BASE"}},
		{name: "policy out of range", changes: map[string]string{"BREAKER_WINDOW_SIZE": "65"}, want: []string{"BREAKER_WINDOW_SIZE"}},
		{name: "target kind unset", changes: map[string]string{"TARGET_KIND": ""}, want: []string{"TARGET_KIND"}},
		{name: "release state machine unset", changes: map[string]string{"RELEASE_STATE_MACHINE_ARN": ""}, want: []string{"RELEASE_STATE_MACHINE_ARN"}},
		{name: "room ttl unparsable", changes: map[string]string{"ROOM_TTL": "3600"}, want: []string{"ROOM_TTL"}},
		{name: "release workers unparsable", changes: map[string]string{"RELEASE_WORKERS": "many"}, want: []string{"RELEASE_WORKERS"}},
		{name: "room ttl too short", changes: map[string]string{"ROOM_TTL": "59m"}, want: []string{"ROOM_TTL"}},
		{name: "too many release workers", changes: map[string]string{"RELEASE_WORKERS": "257"}, want: []string{"RELEASE_WORKERS"}},
		{name: "release pace out of range", changes: map[string]string{"RELEASE_BACKOFF": "1.5"}, want: []string{"RELEASE_BACKOFF"}},
		{
			name: "all at once, retry first",
			changes: map[string]string{"TABLE_NAME": "", "MAX_ATTEMPTS": "many", "BREAKER_JITTER": "2", "TARGET_FUNCTION": "",
				"RELEASE_STATE_MACHINE_ARN": ""},
			want: []string{"MAX_ATTEMPTS", "TABLE_NAME", "BREAKER_JITTER", "TARGET_FUNCTION", "RELEASE_STATE_MACHINE_ARN"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := wire.AttemptConfigFromEnv(envOf(with(attemptEnv, tt.changes)))
			require.Error(t, err)
			assert.ErrorIs(t, err, config.ErrInvalid)
			assert.Equal(t, tt.want, badVariables(t, err))
		})
	}
}

func TestAttemptConfigValidate(t *testing.T) {
	valid := wire.AttemptConfig{Table: "redrive", Target: target.Config{Kind: target.KindLambda, Function: "consumer"}, Room: roomConfig("redrive")}
	require.NoError(t, valid.Validate(), "zero policy, retry, room TTL, workers and pace mean their defaults")
	tests := []struct {
		name   string
		change func(c *wire.AttemptConfig)
		want   string
	}{
		{name: "no table", change: func(c *wire.AttemptConfig) { c.Table = "" }, want: "TABLE_NAME: required"},
		{name: "lease too short", change: func(c *wire.AttemptConfig) { c.Retry.DeliveryLease = time.Millisecond }, want: "DELIVERY_LEASE"},
		{name: "bad policy", change: func(c *wire.AttemptConfig) { c.Policy.WindowSize = 65 }, want: "WindowSize"},
		{name: "bad target", change: func(c *wire.AttemptConfig) { c.Target.Kind = "smtp" }, want: "TARGET_KIND"},
		{name: "no release state machine", change: func(c *wire.AttemptConfig) { c.Room.ReleaseStateMachineARN = "" }, want: "RELEASE_STATE_MACHINE_ARN: required"},
		{name: "no room table", change: func(c *wire.AttemptConfig) { c.Room.Table = "" }, want: "TABLE_NAME: required"},
		{name: "room ttl too short", change: func(c *wire.AttemptConfig) { c.Room.TTL = 59 * time.Minute }, want: "ROOM_TTL"},
		{name: "too many release workers", change: func(c *wire.AttemptConfig) { c.Room.Workers = wire.MaxReleaseWorkers + 1 }, want: "RELEASE_WORKERS"},
		{name: "bad pace", change: func(c *wire.AttemptConfig) { c.Room.Pace.Start = -1 }, want: "RELEASE_START_RATE"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := valid
			tt.change(&c)
			assert.ErrorContains(t, c.Validate(), tt.want)
		})
	}
}

// localEnv is every function's environment in one, as a local host has it.
var localEnv = with(attemptEnv, map[string]string{
	"STATE_MACHINE_ARN": "arn:aws:states:us-east-1:123456789012:stateMachine:redrive",
	"PARKING_LOT_URL":   "http://sqs.local/123456789012/orders-parking-lot",
	"BREAKER_KEY":       "orders",
})

func TestConfigFromEnv(t *testing.T) {
	cfg, err := wire.ConfigFromEnv(envOf(localEnv))
	require.NoError(t, err)
	assert.Equal(t, "redrive", cfg.Attempt.Table)
	assert.Equal(t, 7, cfg.Attempt.Retry.MaxAttempts)
	assert.Equal(t, localEnv["STATE_MACHINE_ARN"], cfg.Starter.StateMachineARN)
	assert.Equal(t, localEnv["PARKING_LOT_URL"], cfg.Starter.Lot.QueueURL)
	assert.Equal(t, cfg.Starter.Lot, cfg.Park.Lot)
	assert.Equal(t, "redrive", cfg.Park.Table, "the parking lot's index is in the breaker table")
	assert.Equal(t, "redrive", cfg.Admin.Table)
	assert.Equal(t, "redrive", cfg.Attempt.Room.Table, "the room lives in the breaker table")
	assert.Equal(t, releaseARN, cfg.Attempt.Room.ReleaseStateMachineARN)
}

// The variables of the removed continuation and room timeouts are no
// longer read: a deployment that still sets them starts as before.
func TestRemovedVariablesAreIgnored(t *testing.T) {
	want, err := wire.AttemptConfigFromEnv(envOf(attemptEnv))
	require.NoError(t, err)
	got, err := wire.AttemptConfigFromEnv(envOf(with(attemptEnv, map[string]string{"MAX_CYCLES": "0", "ROOM_TIMEOUT": "1s", "ROOM_MAX_WAIT": "x"})))
	require.NoError(t, err)
	assert.Equal(t, want, got)
}

func TestConfigFromEnvReportsEachVariableOnce(t *testing.T) {
	// The parking lot is the starter's and park's; the table the attempt's
	// and admin's; MAX_ATTEMPTS the attempt's alone.
	env := with(localEnv, map[string]string{"PARKING_LOT_MAX_MESSAGE_SIZE": "12", "TABLE_NAME": "", "MAX_ATTEMPTS": "many"})
	_, err := wire.ConfigFromEnv(envOf(env))
	require.Error(t, err)
	names := badVariables(t, err)
	assert.ElementsMatch(t, []string{"PARKING_LOT_MAX_MESSAGE_SIZE", "TABLE_NAME", "MAX_ATTEMPTS"}, names)
	assert.Equal(t, 1, strings.Count(err.Error(), "PARKING_LOT_MAX_MESSAGE_SIZE"))
	assert.Equal(t, 1, strings.Count(err.Error(), "TABLE_NAME"), "the attempt, its room and the admin read it")
}
