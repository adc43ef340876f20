package retryable_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/redrive/redrive/lambda/retryable"
)

func TestNameGivesUnclassifiedErrorsAName(t *testing.T) {
	cause := errors.New("dynamodb: connection reset")
	named := &retryable.BreakerContention{Breaker: "orders", Op: "reset", Attempts: 9}
	isNamed := func(err error) bool { _, ok := err.(*retryable.BreakerContention); return ok }

	assert.NoError(t, retryable.Name("admin", nil, isNamed))
	assert.Same(t, named, retryable.Name("admin", named, isNamed), "a named error passes as it is")

	err := retryable.Name("admin", fmt.Errorf("admin: status breaker %q: %w", "orders", cause), isNamed)
	unexpected, ok := err.(*retryable.Unexpected) // unwrapped: Step Functions sees "Unexpected", not "wrapError"
	assert.True(t, ok, "error %T", err)
	assert.Equal(t, "admin", unexpected.Task)
	assert.Equal(t, `admin: status breaker "orders": dynamodb: connection reset`, err.Error(), "the message is the cause's")
	assert.ErrorIs(t, err, cause)
}
