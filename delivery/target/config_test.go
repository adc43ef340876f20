package target_test

import (
	"errors"
	"testing"

	"github.com/redrive/redrive/delivery/target"
	"github.com/redrive/redrive/lambda/config"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// getenv reads variables from vars, as os.Getenv would.
func getenv(vars map[string]string) func(string) string {
	return func(name string) string { return vars[name] }
}

func TestFromEnv(t *testing.T) {
	tests := []struct {
		name string
		vars map[string]string
		want target.Config
	}{
		{
			name: "lambda by name",
			vars: map[string]string{"TARGET_KIND": "lambda", "TARGET_FUNCTION": "orders-consumer"},
			want: target.Config{Kind: target.KindLambda, Function: "orders-consumer"},
		},
		{
			name: "lambda by qualified ARN with source queue and poison types",
			vars: map[string]string{
				"TARGET_KIND":          " Lambda ",
				"TARGET_FUNCTION":      "arn:aws:lambda:eu-west-1:123456789012:function:orders-consumer:live",
				"TARGET_SOURCE_ARN":    "arn:aws:sqs:eu-west-1:123456789012:orders",
				"POISON_ERROR_TYPES":   "ValidationError, SchemaError,",
				"THROTTLE_ERROR_TYPES": "DownstreamBusy",
			},
			want: target.Config{
				Kind:               target.KindLambda,
				Function:           "arn:aws:lambda:eu-west-1:123456789012:function:orders-consumer:live",
				SourceARN:          "arn:aws:sqs:eu-west-1:123456789012:orders",
				PoisonErrorTypes:   []string{"ValidationError", "SchemaError"},
				ThrottleErrorTypes: []string{"DownstreamBusy"},
			},
		},
		{
			name: "sqs ignores the lambda variables",
			vars: map[string]string{"TARGET_KIND": "sqs", "TARGET_QUEUE_URL": "https://sqs.us-east-1.amazonaws.com/123456789012/orders", "TARGET_FUNCTION": "not used"},
			want: target.Config{Kind: target.KindSQS, QueueURL: "https://sqs.us-east-1.amazonaws.com/123456789012/orders", Function: "not used"},
		},
		{
			name: "sqs on a local endpoint",
			vars: map[string]string{"TARGET_KIND": "sqs", "TARGET_QUEUE_URL": "http://127.0.0.1:9324/000000000000/orders"},
			want: target.Config{Kind: target.KindSQS, QueueURL: "http://127.0.0.1:9324/000000000000/orders"},
		},
		{
			name: "sqs FIFO queue",
			vars: map[string]string{"TARGET_KIND": "sqs", "TARGET_QUEUE_URL": "https://sqs.us-east-1.amazonaws.com/123456789012/orders.fifo"},
			want: target.Config{Kind: target.KindSQS, QueueURL: "https://sqs.us-east-1.amazonaws.com/123456789012/orders.fifo"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := config.From(getenv(tt.vars))
			got := target.FromEnv(env)
			require.NoError(t, env.Err())
			assert.Equal(t, tt.want, got)
			assert.NoError(t, got.Validate())
		})
	}
}

func TestFromEnvReportsEveryBadVariable(t *testing.T) {
	tests := []struct {
		name string
		vars map[string]string
		want []string // one VarError per entry, in order: "NAME: problem"
	}{
		{
			name: "nothing set",
			vars: nil,
			want: []string{`config: TARGET_KIND: required: "lambda" or "sqs"`},
		},
		{
			name: "unknown kind",
			vars: map[string]string{"TARGET_KIND": "http"},
			want: []string{`config: TARGET_KIND="http": want "lambda" or "sqs"`},
		},
		{
			name: "lambda without a function",
			vars: map[string]string{"TARGET_KIND": "lambda"},
			want: []string{"config: TARGET_FUNCTION: required when TARGET_KIND=lambda"},
		},
		{
			name: "lambda with a bad function and a bad source ARN",
			vars: map[string]string{"TARGET_KIND": "lambda", "TARGET_FUNCTION": "orders consumer", "TARGET_SOURCE_ARN": "arn:aws:sns:us-east-1:123456789012:orders"},
			want: []string{
				`config: TARGET_FUNCTION="orders consumer": want a Lambda function name or ARN, optionally with :version or :alias`,
				`config: TARGET_SOURCE_ARN="arn:aws:sns:us-east-1:123456789012:orders": want an SQS queue ARN, e.g. arn:aws:sqs:us-east-1:123456789012:orders`,
			},
		},
		{
			name: "sqs without a queue",
			vars: map[string]string{"TARGET_KIND": "sqs"},
			want: []string{"config: TARGET_QUEUE_URL: required when TARGET_KIND=sqs"},
		},
		{
			name: "sqs with a queue name instead of a URL",
			vars: map[string]string{"TARGET_KIND": "sqs", "TARGET_QUEUE_URL": "orders"},
			want: []string{`config: TARGET_QUEUE_URL="orders": want a queue URL, e.g. https://sqs.us-east-1.amazonaws.com/123456789012/orders`},
		},
		{
			name: "runtime errors cannot be poison",
			vars: map[string]string{"TARGET_KIND": "lambda", "TARGET_FUNCTION": "c", "POISON_ERROR_TYPES": "ValidationError,Runtime.ExitError"},
			want: []string{`config: POISON_ERROR_TYPES="ValidationError,Runtime.ExitError": "Runtime.ExitError": Lambda reports it about the function (crash, timeout, limits), not the message, so it is always transient`},
		},
		{
			name: "a throttle type that is also poison",
			vars: map[string]string{"TARGET_KIND": "lambda", "TARGET_FUNCTION": "c", "POISON_ERROR_TYPES": "ValidationError", "THROTTLE_ERROR_TYPES": "Busy,ValidationError"},
			want: []string{`config: THROTTLE_ERROR_TYPES="Busy,ValidationError": "ValidationError": is also a poison error type`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := config.From(getenv(tt.vars))
			cfg := target.FromEnv(env)
			assert.Equal(t, tt.want, varErrors(t, env.Err()))
			assert.Equal(t, tt.want, varErrors(t, cfg.Validate()), "Validate reports what FromEnv reported")
		})
	}
}

func TestValidateRefusesAnEmptyThrottleType(t *testing.T) {
	// FromEnv drops empty list entries; a Config built in code may have one.
	cfg := target.Config{Kind: target.KindLambda, Function: "c", ThrottleErrorTypes: []string{"Busy", ""}}
	assert.Equal(t, []string{`config: THROTTLE_ERROR_TYPES="Busy,": "": must be non-empty without surrounding spaces`},
		varErrors(t, cfg.Validate()))
}

// varErrors lists the messages of the *config.VarError values joined in err.
func varErrors(t *testing.T, err error) []string {
	t.Helper()
	require.Error(t, err)
	require.ErrorIs(t, err, config.ErrInvalid)
	joined, ok := err.(interface{ Unwrap() []error })
	require.True(t, ok, "want joined errors, got %T", err)
	var out []string
	for _, e := range joined.Unwrap() {
		var v *config.VarError
		require.True(t, errors.As(e, &v), "want *config.VarError, got %T", e)
		out = append(out, v.Error())
	}
	return out
}
