package target_test

import (
	"testing"

	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/delivery/target"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestClassifierClassify(t *testing.T) {
	c, err := target.NewClassifier([]string{"ValidationError", "SchemaError"}, []string{"DownstreamBusy"})
	require.NoError(t, err)
	tests := []struct {
		name      string
		errorType string
		want      breaker.Outcome
	}{
		{name: "configured poison type", errorType: "ValidationError", want: breaker.Poison},
		{name: "second configured type", errorType: "SchemaError", want: breaker.Poison},
		{name: "types match case-sensitively", errorType: "validationerror", want: breaker.Transient},
		{name: "a Go type name is not its package path", errorType: "orders.ValidationError", want: breaker.Transient},
		{name: "unknown type is transient", errorType: "DownstreamUnavailable", want: breaker.Transient},
		{name: "empty type is transient", errorType: "", want: breaker.Transient},
		{name: "function crash", errorType: "Runtime.ExitError", want: breaker.Transient},
		{name: "out of memory", errorType: "Runtime.OutOfMemory", want: breaker.Transient},
		{name: "function timeout", errorType: "Sandbox.Timedout", want: breaker.Transient},
		{name: "response too large", errorType: "Function.ResponseSizeTooLarge", want: breaker.Transient},
		{name: "batch item failure", errorType: target.BatchItemFailure, want: breaker.Transient},
		{name: "configured throttle type", errorType: "DownstreamBusy", want: breaker.Throttled},
		{name: "throttle types match case-sensitively", errorType: "downstreambusy", want: breaker.Transient},
		{name: "a consumer's own TooManyRequestsException is not configured", errorType: "TooManyRequestsException", want: breaker.Transient},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := c.Classify(tt.errorType, "what happened")
			assert.Equal(t, target.Result{Outcome: tt.want, ErrorType: tt.errorType, Message: "what happened"}, got)
		})
	}
}

func TestZeroClassifierIsTransient(t *testing.T) {
	var c target.Classifier
	assert.Equal(t, breaker.Transient, c.Classify("ValidationError", "").Outcome)
}

func TestNewClassifierRefusesThrottleTypes(t *testing.T) {
	tests := []struct {
		name string
		typ  string
		want string
	}{
		{name: "empty", typ: "", want: `throttle error type "": must be non-empty`},
		{name: "spaces", typ: "Busy ", want: "without surrounding spaces"},
		{name: "also poison", typ: "ValidationError", want: `throttle error type "ValidationError": is also a poison error type`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := target.NewClassifier([]string{"ValidationError"}, []string{"DownstreamBusy", tt.typ})
			require.Error(t, err)
			assert.ErrorContains(t, err, tt.want)
			assert.ErrorContains(t, err, "target: ")
		})
	}
}

func TestNewClassifierRefuses(t *testing.T) {
	tests := []struct {
		name string
		typ  string
		want string
	}{
		{name: "empty", typ: "", want: `poison error type "": must be non-empty`},
		{name: "spaces", typ: " ValidationError", want: "without surrounding spaces"},
		{name: "runtime crash", typ: "Runtime.ExitError", want: `"Runtime.ExitError": Lambda reports it about the function`},
		{name: "timeout", typ: "Sandbox.Timedout", want: `"Sandbox.Timedout": Lambda reports it about the function`},
		{name: "function limit", typ: "Function.ResponseSizeTooLarge", want: "always transient"},
		{name: "batch item failure", typ: "BatchItemFailure", want: "a batch item failure gives no reason"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := target.NewClassifier([]string{"ValidationError", tt.typ}, nil)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			assert.Contains(t, err.Error(), "target: ")
		})
	}
}
