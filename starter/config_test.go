package starter_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/delivery/target"
	"github.com/redrive/redrive/lambda/config"
	"github.com/redrive/redrive/park"
	"github.com/redrive/redrive/starter"
)

func TestConfigFromEnv(t *testing.T) {
	const controller = "arn:aws:states:eu-west-1:123456789012:stateMachine:redrive-release"
	valid := map[string]string{
		"STATE_MACHINE_ARN": "arn:aws:states:eu-west-1:123456789012:stateMachine:redrive",
		"PARKING_LOT_URL":   "https://sqs.eu-west-1.amazonaws.com/123456789012/orders-parking-lot",
		"TARGET_KIND":       "lambda",
	}
	with := func(changes map[string]string) map[string]string {
		out := map[string]string{}
		for k, v := range valid {
			out[k] = v
		}
		for k, v := range changes {
			out[k] = v
		}
		return out
	}
	tests := []struct {
		name    string
		vars    map[string]string
		invalid []string // variables named in the error, one error each
		check   func(t *testing.T, c starter.Config)
	}{
		{"defaults", valid, nil, func(t *testing.T, c starter.Config) {
			assert.Equal(t, starter.DefaultConcurrency, c.Concurrency)
			assert.Equal(t, target.KindLambda, c.TargetKind)
			assert.False(t, c.RecordsReturns())
			assert.Equal(t, "default", c.Keys.Fallback())
			assert.NoError(t, c.Validate())
		}},
		{"sqs target with its table and policy", with(map[string]string{"TARGET_KIND": "SQS", "TABLE_NAME": "redrive", "BREAKER_CONSECUTIVE_FAILURES": "3",
			"START_CONCURRENCY": "16", "RELEASE_STATE_MACHINE_ARN": controller}), nil, func(t *testing.T, c starter.Config) {
			assert.True(t, c.RecordsReturns())
			assert.Equal(t, "redrive", c.Table)
			assert.Equal(t, controller, c.ControllerStateMachineARN)
			assert.Equal(t, 3, c.Policy.ConsecutiveFailures)
			assert.Equal(t, 16, c.Concurrency)
			assert.NoError(t, c.Validate())
		}},
		{"nothing set", nil, []string{"STATE_MACHINE_ARN", "PARKING_LOT_URL", "TARGET_KIND"}, nil},
		{"not a state machine ARN", with(map[string]string{"STATE_MACHINE_ARN": "arn:aws:states:eu-west-1:123456789012:execution:redrive:x"}), []string{"STATE_MACHINE_ARN"}, nil},
		{"unknown target", with(map[string]string{"TARGET_KIND": "http"}), []string{"TARGET_KIND"}, nil},
		{"sqs target without a table", with(map[string]string{"TARGET_KIND": "sqs"}), []string{"TABLE_NAME"}, nil},
		{"sqs target with a bad policy", with(map[string]string{"TARGET_KIND": "sqs", "TABLE_NAME": "t", "BREAKER_WINDOW_SIZE": "100",
			"RELEASE_STATE_MACHINE_ARN": controller}), []string{"BREAKER_WINDOW_SIZE"}, nil},
		{"lambda target without a table ignores the policy and the controller", with(map[string]string{"BREAKER_WINDOW_SIZE": "100", "RELEASE_STATE_MACHINE_ARN": "x"}), nil, func(t *testing.T, c starter.Config) {
			assert.False(t, c.RecordsReturns())
			assert.Empty(t, c.ControllerStateMachineARN)
		}},
		// With a table the starter reads the breakers' states and sends
		// what would only wait to the room, whose controller it starts.
		{"lambda target with a table reads the policy and the controller", with(map[string]string{"TABLE_NAME": "redrive", "BREAKER_CONSECUTIVE_FAILURES": "4",
			"RELEASE_STATE_MACHINE_ARN": controller}), nil, func(t *testing.T, c starter.Config) {
			assert.False(t, c.RecordsReturns())
			assert.Equal(t, 4, c.Policy.ConsecutiveFailures)
			assert.Equal(t, controller, c.ControllerStateMachineARN)
			assert.NoError(t, c.Validate())
		}},
		{"a table without the controller", with(map[string]string{"TABLE_NAME": "redrive"}), []string{"RELEASE_STATE_MACHINE_ARN"}, nil},
		{"a room TTL below an hour", with(map[string]string{"TABLE_NAME": "redrive", "RELEASE_STATE_MACHINE_ARN": controller, "ROOM_TTL": "30m"}),
			[]string{"ROOM_TTL"}, nil},
		{"the room TTL is read with a table", with(map[string]string{"TABLE_NAME": "redrive", "RELEASE_STATE_MACHINE_ARN": controller, "ROOM_TTL": "48h"}),
			nil, func(t *testing.T, c starter.Config) { assert.Equal(t, 48*time.Hour, c.RoomTTL) }},
		{"a table with a controller that is no state machine", with(map[string]string{"TABLE_NAME": "redrive",
			"RELEASE_STATE_MACHINE_ARN": "arn:aws:lambda:eu-west-1:123456789012:function:release"}), []string{"RELEASE_STATE_MACHINE_ARN"}, nil},
		{"a table with a bad policy", with(map[string]string{"TABLE_NAME": "t", "BREAKER_WINDOW_SIZE": "100",
			"RELEASE_STATE_MACHINE_ARN": controller}), []string{"BREAKER_WINDOW_SIZE"}, nil},
		{"concurrency zero", with(map[string]string{"START_CONCURRENCY": "0"}), []string{"START_CONCURRENCY"}, nil},
		{"concurrency too high", with(map[string]string{"START_CONCURRENCY": "65"}), []string{"START_CONCURRENCY"}, nil},
		{"concurrency not a number", with(map[string]string{"START_CONCURRENCY": "eight"}), []string{"START_CONCURRENCY"}, nil},
		{"two key sources", with(map[string]string{"BREAKER_KEY": "orders", "BREAKER_KEY_POINTER": "/tenant"}), []string{"BREAKER_KEY", "BREAKER_KEY_POINTER"}, nil},
		{"a bad parking lot size", with(map[string]string{"PARKING_LOT_MAX_MESSAGE_SIZE": "-1"}), []string{"PARKING_LOT_MAX_MESSAGE_SIZE"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := starter.ConfigFromEnv(func(name string) string { return tt.vars[name] })
			if tt.invalid == nil {
				require.NoError(t, err)
				tt.check(t, c)
				return
			}
			require.ErrorIs(t, err, config.ErrInvalid)
			for _, name := range tt.invalid {
				assert.Contains(t, err.Error(), "config: "+name)
			}
			assert.Len(t, err.(interface{ Unwrap() []error }).Unwrap(), len(tt.invalid), "one error per bad variable: %v", err)
		})
	}
}

func TestConfigValidate(t *testing.T) {
	c := starter.Config{TargetKind: target.KindSQS, Concurrency: 0}
	err := c.Validate()
	require.Error(t, err)
	for _, name := range []string{"STATE_MACHINE_ARN", "PARKING_LOT_URL", "PARKING_LOT_MAX_MESSAGE_SIZE", "TABLE_NAME", "START_CONCURRENCY"} {
		assert.Contains(t, err.Error(), name)
	}
}

func TestConfigValidateWantsTheControllerWithATable(t *testing.T) {
	c := starter.Config{StateMachineARN: "arn:aws:states:eu-west-1:123456789012:stateMachine:redrive",
		Lot:        park.LotConfig{QueueURL: "https://sqs.eu-west-1.amazonaws.com/123456789012/lot", MaxMessageSize: park.DefaultMaxMessageSize},
		TargetKind: target.KindLambda, Table: "redrive", Concurrency: 1}
	assert.ErrorContains(t, c.Validate(), "RELEASE_STATE_MACHINE_ARN")
	c.ControllerStateMachineARN = "arn:aws:states:eu-west-1:123456789012:stateMachine:redrive-release"
	assert.NoError(t, c.Validate())
}
