package retryable

// Unexpected is an error a task did not classify (a failed call it has no
// rule for): returned unwrapped, so Step Functions sees "Unexpected" and
// the task's name and cause instead of Go's "wrapError". The state machine
// retries it like any failed task.
type Unexpected struct {
	// Task names the task, e.g. "release", for the log line and the
	// console's cause.
	Task string
	// Err is the error.
	Err error
}

// Error implements error: Err's message, which names the task already.
func (e *Unexpected) Error() string { return e.Err.Error() }

// Unwrap returns Err, so errors.Is and errors.As see through it.
func (e *Unexpected) Unwrap() error { return e.Err }

// Name returns err as an *Unexpected of task unless it is nil or already
// one of the named errors the task returns (named reports those).
func Name(task string, err error, named func(error) bool) error {
	if err == nil || named(err) {
		return err
	}
	return &Unexpected{Task: task, Err: err}
}
