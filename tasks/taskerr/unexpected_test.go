package taskerr_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/redrive/redrive/tasks/taskerr"
)

func TestNameGivesUnclassifiedErrorsAName(t *testing.T) {
	cause := errors.New("dynamodb: connection reset")
	named := &taskerr.BreakerContention{Breaker: "orders", Op: "reset", Attempts: 9}
	isNamed := func(err error) bool { _, ok := err.(*taskerr.BreakerContention); return ok }

	assert.NoError(t, taskerr.Name("admin", nil, isNamed))
	assert.Same(t, named, taskerr.Name("admin", named, isNamed), "a named error passes as it is")

	err := taskerr.Name("admin", fmt.Errorf("admin: status breaker %q: %w", "orders", cause), isNamed)
	unexpected, ok := err.(*taskerr.Unexpected) // unwrapped: Step Functions sees "Unexpected", not "wrapError"
	assert.True(t, ok, "error %T", err)
	assert.Equal(t, "admin", unexpected.Task)
	assert.Equal(t, `admin: status breaker "orders": dynamodb: connection reset`, err.Error(), "the message is the cause's")
	assert.ErrorIs(t, err, cause)
}
