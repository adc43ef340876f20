package continuer

// ContinueFailed reports that the Continue task could not start the next
// execution: the state machine retries it, then parks the message with
// the reason "task failed: ContinueFailed" and this error as the cause.
// It is returned unwrapped, so Step Functions sees its name rather than
// "wrapError".
type ContinueFailed struct {
	// Op is what failed: "read the execution ARN", "check the document",
	// "encode the document" or "start <name>".
	Op string `json:"op"`
	// Cause is the underlying error.
	Cause string `json:"cause"`
}

// Error implements error.
func (e *ContinueFailed) Error() string { return "continuer: " + e.Op + ": " + e.Cause }

// failed is a *ContinueFailed for op and err.
func failed(op string, err error) *ContinueFailed { return &ContinueFailed{Op: op, Cause: err.Error()} }
