package admin

import (
	"fmt"
	"strings"

	"github.com/redrive/redrive/lambda/retryable"
)

// InvalidCommand reports an admin request that cannot be applied. It is
// returned unwrapped, so the execution fails with Error "InvalidCommand"
// (never retried) and Cause saying every problem found.
type InvalidCommand struct {
	// Problems lists what is wrong, one entry per field.
	Problems []Problem `json:"problems"`
}

// Problem is one field of an admin request that is wrong.
type Problem struct {
	// Field is the request field, e.g. "until"; "request" for the whole.
	Field string `json:"field"`
	// Problem says what is wrong and what is wanted instead.
	Problem string `json:"problem"`
}

// Error implements error.
func (e *InvalidCommand) Error() string {
	parts := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		parts[i] = p.String()
	}
	return "admin: invalid request: " + strings.Join(parts, "; ")
}

// UnknownBreaker reports a status of a breaker key that no breaker has:
// no outcome was ever recorded under it (a breaker's row is made by its
// first), so the key is most likely mistyped. It is returned unwrapped, so
// the execution fails with Error "UnknownBreaker" (never retried: no Retry
// rule matches it) and the CLI exits with a code of its own.
type UnknownBreaker struct {
	// Breaker is the key asked for.
	Breaker string `json:"breaker"`
}

// Error implements error.
func (e *UnknownBreaker) Error() string {
	return fmt.Sprintf("admin: no breaker has the key %q: no message has been delivered or failed under it; check the key", e.Breaker)
}

// Errors lists one value of each error type Handle returns unwrapped for
// the admin state machine's Retry rules, so a test can check that every
// name the ASL matches exists and vice versa.
func Errors() []error {
	return []error{&InvalidCommand{}, &retryable.BreakerContention{}}
}

// String renders the problem as "field: problem".
func (p Problem) String() string { return p.Field + ": " + p.Problem }
