package attempt

import (
	"fmt"
	"time"

	"github.com/redrive/redrive/lambda/retryable"
)

// InvalidDocument reports an execution input that is not a valid
// message.Document. The state machine does not retry it: its Catch parks
// the message with this error as the failure. Err names the field.
type InvalidDocument struct {
	// Err is message.ParseDocument's error; it matches
	// message.ErrInvalidDocument.
	Err error
}

// Error implements error.
func (e *InvalidDocument) Error() string {
	if e.Err == nil {
		return "attempt: invalid execution document"
	}
	return "attempt: invalid execution document: " + e.Err.Error()
}

// Unwrap returns the parse error, so errors.As finds its *message.FieldError.
func (e *InvalidDocument) Unwrap() error { return e.Err }

// DeliveryInProgress reports that another invocation holds the delivery
// record of this try and its lease has not expired: the same try runs
// twice at once (a duplicate Express execution, or a Lambda invocation the
// state machine retried while the first still ran). Nothing was
// delivered; Handle sends the document to the room until the lease ends,
// so the state machine never sees it.
type DeliveryInProgress struct {
	// Delivery names the delivery record, "<originId>#<attempt>#<try>".
	Delivery string `json:"delivery"`
	// ExpiresAt is when the holder's lease ends.
	ExpiresAt time.Time `json:"expiresAt"`
}

// Error implements error.
func (e *DeliveryInProgress) Error() string {
	return fmt.Sprintf("attempt: delivery %s is in progress in another invocation until %s; retry",
		e.Delivery, e.ExpiresAt.UTC().Format(time.RFC3339))
}

// TableUnavailable reports that the table refused or failed a call the
// Attempt needs before it delivers: reading or deciding on the breaker row
// (unreachable, throttled, or a row it cannot read, such as one a newer
// version wrote) or taking the delivery record. Nothing was delivered. It
// is not the message's fault: the state machine retries it (Retry on
// "TableUnavailable"), then its Catch brings the message back to the
// Attempt, which sends it to the room five minutes at a time, up to
// TABLE_RETRY_BUDGET, before it parks the message; the TableUnavailable metric feeds an alarm meanwhile.
type TableUnavailable struct {
	// Breaker is the message's breaker key.
	Breaker string `json:"breaker"`
	// Op is what the Attempt was doing: "admit" or "begin delivery".
	Op string `json:"op"`
	// Cause is the table's error.
	Cause string `json:"cause"`
}

// Error implements error.
func (e *TableUnavailable) Error() string {
	return fmt.Sprintf("attempt: breaker %q: %s: the table failed: %s; nothing was delivered, retry", e.Breaker, e.Op, e.Cause)
}

// Errors lists one value of each error type Handle returns unwrapped for
// the redrive state machine's Retry and Catch rules, so a test can check
// that every name the ASL matches exists and vice versa.
func Errors() []error {
	return []error{&InvalidDocument{}, &TableUnavailable{}, &retryable.BreakerContention{}}
}
