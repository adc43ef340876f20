package target

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// apiFailure is the Result of a failed AWS call: Poison when the error's
// code is one of poisonCodes (the service refused this message and always
// will), Transient otherwise (throttling, 5xx, network, timeouts, access or
// configuration problems: none is the message's fault). The error code is
// the ErrorType.
func apiFailure(err error, poisonCodes ...string) Result {
	code := errorCode(err)
	for _, c := range poisonCodes {
		if c == code {
			return poison(code, err.Error())
		}
	}
	return transient(code, err.Error())
}

// sqsLegacyPrefix starts some of SQS's query-compatible error codes, which
// the SDK reports as ErrorCode() when the server sends them
// ("AWS.SimpleQueueService.NonExistentQueue"); servers differ on which
// codes carry it.
const sqsLegacyPrefix = "AWS.SimpleQueueService."

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
		return "Timeout"
	case errors.Is(err, context.Canceled):
		return "Canceled"
	case errors.As(err, &sendErr):
		return "RequestSendError"
	case errors.As(err, &respErr):
		return fmt.Sprintf("HTTP%d", respErr.HTTPStatusCode())
	}
	return "UnknownError"
}
