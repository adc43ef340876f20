package local

import "fmt"

// Error names of the States.* errors raised by input and output processing.
// AWS documents States.IntrinsicFailure as reserved: intrinsic functions
// fail with States.Runtime.
const (
	errNameRuntime                = "States.Runtime"
	errNameIntrinsicFailure       = "States.IntrinsicFailure"
	errNameResultPathMatchFailure = "States.ResultPathMatchFailure"
)

// stateError is an error as an execution reports it: the Name that Retry and
// Catch match in ErrorEquals and the human-readable Cause. It is the runtime
// error type of the whole package; a caught one becomes the error output
// {"Error": Name, "Cause": Cause}.
//
// Causes raised while processing data describe only what went wrong (e.g.
// "Invalid path '$.a' : No results for path: $['a']"); the engine prefixes
// them with the state, as AWS does ("An error occurred while executing the
// state 'X' (entered at the event id #2). ").
type stateError struct {
	Name  string
	Cause string
}

// Error returns "Name: Cause".
func (e *stateError) Error() string { return e.Name + ": " + e.Cause }

// runtimeErrorf returns a States.Runtime error with a formatted cause.
func runtimeErrorf(format string, args ...any) *stateError {
	return &stateError{Name: errNameRuntime, Cause: fmt.Sprintf(format, args...)}
}
