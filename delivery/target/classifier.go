package target

import (
	"fmt"
	"slices"
	"strings"
)

// BatchItemFailure is the ErrorType of a consumer that reported its record
// in the response's batchItemFailures: it failed without saying why.
const BatchItemFailure = "BatchItemFailure"

// runtimePrefixes start the error types that Lambda itself reports for a
// function that crashed, timed out or could not start ("Runtime.ExitError",
// "Sandbox.Timedout", "Function.ResponseSizeTooLarge", ...). They describe
// the function's health, not the message.
var runtimePrefixes = []string{"Runtime.", "Sandbox.", "Function."}

// Classifier decides what a failure reported by the consumer says: Poison
// when its error type is one the operator listed (POISON_ERROR_TYPES), so
// the message goes to the parking lot at once; Throttled when it is one of
// THROTTLE_ERROR_TYPES, so the message waits in the room and the release
// slows down; Transient for every other type, so it counts toward the
// breaker and is retried. Unknown means transient because a message parked
// by mistake needs a person, while a transient failure only costs a retry.
//
// Failures Lambda reports about the function itself (types starting with
// "Runtime.", "Sandbox." or "Function.": crashes, out of memory, timeouts)
// and BatchItemFailure are always transient; NewClassifier refuses them as
// poison types. The zero Classifier treats everything as transient.
type Classifier struct {
	poison, throttle map[string]bool
}

// NewClassifier returns a Classifier for which the listed error types are
// poison or throttling. Types are matched exactly (case matters, as in
// Step Functions' ErrorEquals): a Go consumer's errorType is its error's
// type name without package or pointer, e.g. "ValidationError".
func NewClassifier(poisonTypes, throttleTypes []string) (Classifier, error) {
	c := Classifier{poison: make(map[string]bool, len(poisonTypes)), throttle: make(map[string]bool, len(throttleTypes))}
	for _, t := range poisonTypes {
		if problem := poisonTypeProblem(t); problem != "" {
			return Classifier{}, fmt.Errorf("target: poison error type %q: %s", t, problem)
		}
		c.poison[t] = true
	}
	for _, t := range throttleTypes {
		if problem := throttleTypeProblem(t, poisonTypes); problem != "" {
			return Classifier{}, fmt.Errorf("target: throttle error type %q: %s", t, problem)
		}
		c.throttle[t] = true
	}
	return c, nil
}

// throttleTypeProblem says why t cannot be a throttle error type; "" if it
// can.
func throttleTypeProblem(t string, poisonTypes []string) string {
	switch {
	case t == "" || strings.TrimSpace(t) != t:
		return "must be non-empty without surrounding spaces"
	case slices.Contains(poisonTypes, t):
		return "is also a poison error type"
	}
	return ""
}

// poisonTypeProblem says why t cannot be a poison error type; "" if it can.
func poisonTypeProblem(t string) string {
	switch {
	case t == "" || strings.TrimSpace(t) != t:
		return "must be non-empty without surrounding spaces"
	case t == BatchItemFailure:
		return "a batch item failure gives no reason, so it is always transient"
	case slices.ContainsFunc(runtimePrefixes, func(p string) bool { return strings.HasPrefix(t, p) }):
		return "Lambda reports it about the function (crash, timeout, limits), not the message, so it is always transient"
	}
	return ""
}

// Classify is the Result of a failure of the given error type.
func (c Classifier) Classify(errorType, msg string) Result {
	switch {
	case c.poison[errorType]:
		return poison(errorType, msg)
	case c.throttle[errorType]:
		return throttled(errorType, msg)
	}
	return transient(errorType, msg)
}
