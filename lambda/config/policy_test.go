package config_test

import (
	"maps"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/lambda/config"
)

// allPolicyVars sets every variable Policy reads to a valid non-default value.
var allPolicyVars = map[string]string{
	"BREAKER_CONSECUTIVE_FAILURES": "7",
	"BREAKER_WINDOW_SIZE":          "32",
	"BREAKER_MINIMUM_CALLS":        "16",
	"BREAKER_FAILURE_RATE":         "0.75",
	"BREAKER_COOLDOWN_BASE":        "10s",
	"BREAKER_COOLDOWN_MULTIPLIER":  "1.5",
	"BREAKER_COOLDOWN_MAX":         "20m",
	"BREAKER_JITTER":               "0.1",
	"BREAKER_HALF_OPEN_PERMITS":    "3",
	"BREAKER_CANARY_LEASE":         "90s",
	"BREAKER_SUCCESSES_TO_CLOSE":   "4",
	"BREAKER_POLL_INTERVAL":        "2s",
	"BREAKER_THROTTLE_PAUSE":       "3s",
}

func TestPolicyReadsEveryVariable(t *testing.T) {
	env := envOf(allPolicyVars)
	got := config.Policy(env)
	require.NoError(t, env.Err())
	want := breaker.Policy{
		ConsecutiveFailures:  7,
		WindowSize:           32,
		MinimumCalls:         16,
		FailureRateThreshold: 0.75,
		CooldownBase:         10 * time.Second,
		CooldownMultiplier:   1.5,
		CooldownMax:          20 * time.Minute,
		Jitter:               0.1,
		HalfOpenPermits:      3,
		CanaryLease:          90 * time.Second,
		SuccessesToClose:     4,
		PollInterval:         2 * time.Second,
		ThrottlePause:        3 * time.Second,
	}
	assert.Equal(t, want, got)

	// Every Policy field must have a variable: a field added to
	// breaker.Policy fails here until Policy reads it.
	v := reflect.ValueOf(got)
	for i := range v.NumField() {
		assert.False(t, v.Field(i).IsZero(), "breaker.Policy.%s is not read from any variable", v.Type().Field(i).Name)
	}
}

func TestPolicyUnsetIsDefault(t *testing.T) {
	env := envOf(nil)
	got := config.Policy(env)
	require.NoError(t, env.Err())
	assert.Equal(t, breaker.Policy{}, got)
	assert.Equal(t, breaker.Policy{}.WithDefaults(), got.WithDefaults())
}

func TestPolicyDisabledTripsAreKept(t *testing.T) {
	env := envOf(map[string]string{"BREAKER_CONSECUTIVE_FAILURES": "-1", "BREAKER_JITTER": "-1"})
	got := config.Policy(env)
	require.NoError(t, env.Err())
	assert.Equal(t, -1, got.ConsecutiveFailures)
	assert.Equal(t, -1.0, got.Jitter)
}

func TestPolicyErrorsNameTheVariable(t *testing.T) {
	tests := []struct {
		name     string
		vars     map[string]string
		problems map[string]string // variable -> part of its message
	}{
		{
			name:     "window too large",
			vars:     map[string]string{"BREAKER_WINDOW_SIZE": "65"},
			problems: map[string]string{"BREAKER_WINDOW_SIZE": `BREAKER_WINDOW_SIZE="65": must be at most 64`},
		},
		{
			name: "default minimum calls above a small window",
			vars: map[string]string{"BREAKER_WINDOW_SIZE": "5"},
			problems: map[string]string{
				"BREAKER_MINIMUM_CALLS": "BREAKER_MINIMUM_CALLS: 10 (the default): must be at most BREAKER_WINDOW_SIZE (5)",
			},
		},
		{
			name:     "failure rate above one",
			vars:     map[string]string{"BREAKER_FAILURE_RATE": "1.5"},
			problems: map[string]string{"BREAKER_FAILURE_RATE": "must be in (0, 1]"},
		},
		{
			name: "both trips disabled",
			vars: map[string]string{"BREAKER_CONSECUTIVE_FAILURES": "-1", "BREAKER_FAILURE_RATE": "-1"},
			problems: map[string]string{
				"BREAKER_CONSECUTIVE_FAILURES": "and BREAKER_FAILURE_RATE are both disabled",
			},
		},
		{
			name: "cooldown max below base",
			vars: map[string]string{"BREAKER_COOLDOWN_BASE": "1h"},
			problems: map[string]string{
				"BREAKER_COOLDOWN_MAX": "1m30s (the default): must be at least BREAKER_COOLDOWN_BASE (1h0m0s)",
			},
		},
		{
			name: "negative where not allowed, and parse errors, all at once",
			vars: map[string]string{
				"BREAKER_HALF_OPEN_PERMITS":   "-2",
				"BREAKER_CANARY_LEASE":        "-1m",
				"BREAKER_COOLDOWN_MULTIPLIER": "0.5",
				"BREAKER_SUCCESSES_TO_CLOSE":  "two",
				"BREAKER_POLL_INTERVAL":       "5",
				"BREAKER_THROTTLE_PAUSE":      "-1s",
				"BREAKER_JITTER":              "1",
			},
			problems: map[string]string{
				"BREAKER_HALF_OPEN_PERMITS":   "must be positive",
				"BREAKER_CANARY_LEASE":        "must be positive",
				"BREAKER_COOLDOWN_MULTIPLIER": "must be at least 1",
				"BREAKER_SUCCESSES_TO_CLOSE":  "want an integer",
				"BREAKER_POLL_INTERVAL":       "want a duration",
				"BREAKER_JITTER":              "must be in [0, 1)",
				"BREAKER_THROTTLE_PAUSE":      "must be positive",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := envOf(tt.vars)
			config.Policy(env)
			err := env.Err()
			require.Error(t, err)
			got := map[string]string{}
			for _, verr := range varErrors(t, err) {
				assert.NotContains(t, got, verr.Name, "one problem per variable here")
				got[verr.Name] = verr.Error()
			}
			assert.ElementsMatch(t, slices.Collect(maps.Keys(tt.problems)), slices.Collect(maps.Keys(got)))
			fields := reflect.TypeFor[breaker.Policy]()
			for name, part := range tt.problems {
				assert.Contains(t, got[name], part)
				for i := range fields.NumField() {
					assert.NotContains(t, got[name], fields.Field(i).Name, "Go field names are rewritten to variables")
				}
			}
		})
	}
}

func TestPolicyVariables(t *testing.T) {
	names := config.PolicyVariables()
	assert.ElementsMatch(t, slices.Collect(maps.Keys(allPolicyVars)), names)
	assert.Len(t, names, reflect.TypeFor[breaker.Policy]().NumField(), "one variable per Policy field")
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			env := envOf(map[string]string{name: "not a value"})
			config.Policy(env)
			errs := varErrors(t, env.Err())
			require.Len(t, errs, 1, "Policy reads %s", name)
			assert.Equal(t, name, errs[0].Name)
		})
	}
	names[0] = "changed"
	assert.NotEqual(t, "changed", config.PolicyVariables()[0], "callers get their own copy")
}
