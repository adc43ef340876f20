package executor

import (
	"cmp"
	"errors"
	"fmt"

	"github.com/aws/smithy-go"
)

// ServiceError is a Lambda service error: the function could not be
// invoked (not found, throttled, a payload too large...). It reads as the
// cause Step Functions records for it in a Task state's failure: Lambda's
// message followed by the AWS SDK for Java's summary, e.g. "Rate
// Exceeded. (Service: AWSLambda; Status Code: 429; Error Code:
// TooManyRequestsException; Request ID: ...; Proxy: null)". It unwraps to
// Err, whose ErrorCode names the task error ("Lambda.<code>").
type ServiceError struct {
	// Err is the error, a smithy.APIError such as
	// *lambdatypes.ResourceNotFoundException.
	Err error
	// StatusCode is the HTTP status Lambda answers it with.
	StatusCode int
	// RequestID is the Lambda request's id; empty prints "null", as Java
	// does for a response without one.
	RequestID string
}

// Error is the cause Step Functions records.
func (e *ServiceError) Error() string {
	msg, code := e.Err.Error(), "ServiceException"
	if api, ok := errors.AsType[smithy.APIError](e.Err); ok {
		msg, code = api.ErrorMessage(), api.ErrorCode()
	}
	return fmt.Sprintf("%s (Service: AWSLambda; Status Code: %d; Error Code: %s; Request ID: %s; Proxy: null)",
		msg, e.StatusCode, code, cmp.Or(e.RequestID, "null"))
}

// Unwrap returns Err.
func (e *ServiceError) Unwrap() error { return e.Err }
