package target

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// throttleCodes are the AWS error codes of a call the service turned away
// for load: Lambda's (the consumer's concurrency or the account's) and
// SQS's (and KMS's behind an encrypted queue).
var throttleCodes = []string{"TooManyRequestsException", "ThrottlingException", "RequestThrottled", "KmsThrottled"}

// apiFailure is the Result of a failed AWS call: Poison when the error's
// code is one of poisonCodes (the service refused this message and always
// will), Throttled for throttleCodes, Transient otherwise (5xx, network,
// timeouts, access or configuration problems: none is the message's
// fault). The error code is the ErrorType.
func apiFailure(err error, poisonCodes ...string) Result {
	code := errorCode(err)
	switch {
	case slices.Contains(poisonCodes, code):
		return poison(code, err.Error())
	case slices.Contains(throttleCodes, code):
		return throttled(code, err.Error())
	}
	return transient(code, err.Error())
}

// sqsLegacyPrefix starts some of SQS's query-compatible error codes, which
// the SDK reports as ErrorCode() when the server sends them
// ("AWS.SimpleQueueService.NonExistentQueue"); servers differ on which
// codes carry it.
const sqsLegacyPrefix = "AWS.SimpleQueueService."

// ErrorTimeout is the error type of a call that ran past its deadline:
// the consumer may have processed the message all the same.
const ErrorTimeout = "Timeout"

// errorCode names a failed AWS call: the service's error code when there
// is one (e.g. "TooManyRequestsException", SQS's without its legacy
// prefix), else what went wrong on the way: "Timeout", "Canceled",
// "RequestSendError" or "HTTP<status>".
func errorCode(err error) string {
	var apiErr smithy.APIError
	var sendErr *smithyhttp.RequestSendError
	var respErr *smithyhttp.ResponseError
	switch {
	case errors.As(err, &apiErr):
		return strings.TrimPrefix(apiErr.ErrorCode(), sqsLegacyPrefix)
	case errors.Is(err, context.DeadlineExceeded):
		return ErrorTimeout
	case errors.Is(err, context.Canceled):
		return "Canceled"
	case errors.As(err, &sendErr):
		return "RequestSendError"
	case errors.As(err, &respErr):
		return fmt.Sprintf("HTTP%d", respErr.HTTPStatusCode())
	}
	return "UnknownError"
}
