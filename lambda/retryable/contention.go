package retryable

import (
	"errors"
	"fmt"

	"github.com/redrive/redrive/breaker"
)

// BreakerContention reports that a change of a breaker row kept losing the
// conditional write to other writers until the breaker gave up. Nothing was
// written, so the state machine retries the whole task (Retry on
// "BreakerContention").
type BreakerContention struct {
	// Breaker is the breaker key.
	Breaker string `json:"breaker"`
	// Op is what the task was doing, e.g. "record TRANSIENT" or "reset".
	Op string `json:"op"`
	// Attempts is how many conditional writes were tried.
	Attempts int `json:"attempts"`
}

// Error implements error.
func (e *BreakerContention) Error() string {
	return fmt.Sprintf("breaker %q: %s: gave up after %d conflicting writes; nothing was written, retry",
		e.Breaker, e.Op, e.Attempts)
}

// Contention returns err as a *BreakerContention for op when it reports
// exhausted conflict retries (a *breaker.ConflictError anywhere in its
// chain), and nil otherwise, so a handler can return it unwrapped.
func Contention(op string, err error) *BreakerContention {
	ce, ok := errors.AsType[*breaker.ConflictError](err)
	if !ok {
		return nil
	}
	return &BreakerContention{Breaker: ce.Key, Op: op, Attempts: ce.Attempts}
}
