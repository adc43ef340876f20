package simtarget

import (
	"fmt"
	"time"
)

// The errors the consumer returns. Each is returned unwrapped, so its type
// name is the errorType Lambda reports (e.g. "Throttled"), which is what
// the lambda target classifies.

// Throttled reports an invocation beyond the target's capacity: the
// downstream is overloaded, a transient failure.
type Throttled struct {
	// Capacity is the target's invocations per second.
	Capacity int
	// Second is the virtual second that was full.
	Second time.Time
}

// Error implements error.
func (e *Throttled) Error() string {
	return fmt.Sprintf("simtarget: throttled: over capacity of %d calls per second at %s",
		e.Capacity, e.Second.Format(time.RFC3339))
}

// Unavailable reports a call that failed because the downstream is down or
// degraded: a transient failure that counts toward the breaker.
type Unavailable struct {
	// Health is the target's condition at the call.
	Health Health
}

// Error implements error.
func (e *Unavailable) Error() string {
	return fmt.Sprintf("simtarget: downstream unavailable (%s)", e.Health)
}

// PoisonMessage reports a message the consumer can never process; configure
// its type name ("PoisonMessage") as poison in the target's classifier.
type PoisonMessage struct {
	// MessageID is the record's message id.
	MessageID string
}

// Error implements error.
func (e *PoisonMessage) Error() string {
	return fmt.Sprintf("simtarget: message %q is poison", e.MessageID)
}

// Rejected reports a message the consumer failed on although it is
// healthy, every time: a per-message transient failure.
type Rejected struct {
	// MessageID is the record's message id.
	MessageID string
}

// Error implements error.
func (e *Rejected) Error() string {
	return fmt.Sprintf("simtarget: message %q rejected (transient)", e.MessageID)
}
