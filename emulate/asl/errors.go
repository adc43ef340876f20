package asl

import "fmt"

// Error names the engine raises or matches specially.
const (
	// StatesRuntime is the error of input and output processing that
	// selects nothing or gets a value of the wrong type; Retry and Catch
	// never match it.
	StatesRuntime = "States.Runtime"
	// StatesTimeout is the error of a Task state that ran longer than its
	// TimeoutSeconds, and of an execution that ran longer than its own.
	StatesTimeout = "States.Timeout"
	// StatesHeartbeatTimeout names a missed heartbeat while Retry and
	// Catch match it; it is reported as StatesTimeout (see Reported).
	StatesHeartbeatTimeout = "States.HeartbeatTimeout"
)

// Error names matched by ErrorEquals or raised by input and output
// processing. AWS documents States.IntrinsicFailure as reserved:
// intrinsic functions fail with States.Runtime.
const (
	statesALL                    = "States.ALL"
	statesTaskFailed             = "States.TaskFailed"
	statesDataLimitExceeded      = "States.DataLimitExceeded"
	statesIntrinsicFailure       = "States.IntrinsicFailure"
	statesResultPathMatchFailure = "States.ResultPathMatchFailure"
)

// Error is an error as an execution reports it: the Name that Retry and
// Catch match in ErrorEquals and the human-readable Cause. A caught one
// becomes the error output {"Error": Name, "Cause": Cause}.
//
// Causes raised while processing data describe only what went wrong (e.g.
// "Invalid path '$.a' : No results for path: $['a']"); the engine prefixes
// them with the state, as AWS does ("An error occurred while executing the
// state 'X' (entered at the event id #2). ").
type Error struct {
	Name  string
	Cause string
}

// Error returns "Name: Cause".
func (e *Error) Error() string { return e.Name + ": " + e.Cause }

// RuntimeErrorf returns a States.Runtime error with a formatted cause.
func RuntimeErrorf(format string, args ...any) *Error {
	return &Error{Name: StatesRuntime, Cause: fmt.Sprintf(format, args...)}
}

// Reported is the error name an execution reports for an error named
// name: a missed heartbeat, matched as StatesHeartbeatTimeout, is
// recorded and reported as StatesTimeout, as AWS does.
func Reported(name string) string {
	if name == StatesHeartbeatTimeout {
		return StatesTimeout
	}
	return name
}
