package retryable_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/lambda/retryable"
)

func TestContention(t *testing.T) {
	conflict := &breaker.ConflictError{Key: "orders", Attempts: 9}
	tests := []struct {
		name string
		err  error
		want *retryable.BreakerContention
	}{
		{"a conflict error", conflict, &retryable.BreakerContention{Breaker: "orders", Op: "reset", Attempts: 9}},
		{"a wrapped conflict error", fmt.Errorf("command reset: %w", conflict), &retryable.BreakerContention{Breaker: "orders", Op: "reset", Attempts: 9}},
		{"the bare sentinel is one lost write, not exhausted retries", breaker.ErrConflict, nil},
		{"another error", errors.New("dynamodb: throttled"), nil},
		{"no error", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, retryable.Contention("reset", tt.err))
		})
	}
}

func TestBreakerContentionMessage(t *testing.T) {
	c := retryable.Contention("record TRANSIENT", &breaker.ConflictError{Key: "orders", Attempts: 9})
	require.NotNil(t, c)
	assert.Equal(t, `breaker "orders": record TRANSIENT: gave up after 9 conflicting writes; nothing was written, retry`, c.Error())
}
