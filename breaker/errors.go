package breaker

import (
	"errors"
	"fmt"
)

// ErrEmptyKey reports a call without a breaker key.
var ErrEmptyKey = errors.New("breaker: empty key")

// ErrInvalidOutcome reports an Outcome that is none of the defined ones.
var ErrInvalidOutcome = errors.New("breaker: invalid outcome")

// ConflictError reports that a change kept losing the race for the row:
// every conditional write failed because others wrote in between. It
// matches ErrConflict with errors.Is. Nothing was written.
type ConflictError struct {
	// Key names the breaker.
	Key string
	// Attempts is how many conditional writes were tried.
	Attempts int
}

// Error implements error.
func (e *ConflictError) Error() string {
	return fmt.Sprintf("breaker: conflicting writes on %q: gave up after %d attempts", e.Key, e.Attempts)
}

// Unwrap makes errors.Is(err, ErrConflict) hold.
func (e *ConflictError) Unwrap() error { return ErrConflict }
