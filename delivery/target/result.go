package target

import "github.com/redrive/redrive/breaker"

// Result is the outcome of one delivery, as recorded by the breaker and in
// the message's lineage.
type Result struct {
	// Outcome is Success, Transient, Poison or Throttled.
	Outcome breaker.Outcome
	// ErrorType names the failure: the function's errorType, an AWS error
	// code, or one of this package's own (e.g. "BatchItemFailure"); empty
	// on success.
	ErrorType string
	// Message says what went wrong, for people; empty on success.
	Message string
}

// Delivered is the Result of a delivery the target accepted.
func Delivered() Result {
	return Result{Outcome: breaker.Success}
}

// transient is a failure that says the target is unhealthy.
func transient(errorType, msg string) Result {
	return Result{Outcome: breaker.Transient, ErrorType: errorType, Message: msg}
}

// poison is a failure that says the message can never be delivered.
func poison(errorType, msg string) Result {
	return Result{Outcome: breaker.Poison, ErrorType: errorType, Message: msg}
}

// throttled is a failure that says the target is overloaded, not unhealthy.
func throttled(errorType, msg string) Result {
	return Result{Outcome: breaker.Throttled, ErrorType: errorType, Message: msg}
}
