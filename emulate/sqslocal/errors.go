package sqslocal

import (
	"errors"
	"fmt"
	"net/http"
)

// ErrQueueNotFound is returned by the inspection methods for a queue name
// the server does not hold.
var ErrQueueNotFound = errors.New("sqslocal: queue not found")

// errorKind is one SQS error as the JSON protocol reports it: the HTTP
// status, the __type shape name, and the legacy query-protocol code the
// x-amzn-query-error header carries (the SDK's ErrorCode() and the Code of
// a failed batch entry).
type errorKind struct {
	status int
	shape  string
	code   string
}

// The errors the server returns. Shapes, codes and statuses are those of
// the SQS service model (awsQueryError traits); the common errors use the
// Coral shapes SQS answers with.
var (
	errBatchEntryIdsNotDistinct = errorKind{http.StatusBadRequest, "com.amazonaws.sqs#BatchEntryIdsNotDistinct", "AWS.SimpleQueueService.BatchEntryIdsNotDistinct"}
	errBatchRequestTooLong      = errorKind{http.StatusBadRequest, "com.amazonaws.sqs#BatchRequestTooLong", "AWS.SimpleQueueService.BatchRequestTooLong"}
	errEmptyBatchRequest        = errorKind{http.StatusBadRequest, "com.amazonaws.sqs#EmptyBatchRequest", "AWS.SimpleQueueService.EmptyBatchRequest"}
	errInvalidAddress           = errorKind{http.StatusNotFound, "com.amazonaws.sqs#InvalidAddress", "InvalidAddress"}
	errInvalidAttributeName     = errorKind{http.StatusBadRequest, "com.amazonaws.sqs#InvalidAttributeName", "InvalidAttributeName"}
	errInvalidAttributeValue    = errorKind{http.StatusBadRequest, "com.amazonaws.sqs#InvalidAttributeValue", "InvalidAttributeValue"}
	errInvalidBatchEntryID      = errorKind{http.StatusBadRequest, "com.amazonaws.sqs#InvalidBatchEntryId", "AWS.SimpleQueueService.InvalidBatchEntryId"}
	errInvalidMessageContents   = errorKind{http.StatusBadRequest, "com.amazonaws.sqs#InvalidMessageContents", "InvalidMessageContents"}
	errMessageNotInflight       = errorKind{http.StatusBadRequest, "com.amazonaws.sqs#MessageNotInflight", "AWS.SimpleQueueService.MessageNotInflight"}
	errPurgeQueueInProgress     = errorKind{http.StatusForbidden, "com.amazonaws.sqs#PurgeQueueInProgress", "AWS.SimpleQueueService.PurgeQueueInProgress"}
	errQueueDeletedRecently     = errorKind{http.StatusBadRequest, "com.amazonaws.sqs#QueueDeletedRecently", "AWS.SimpleQueueService.QueueDeletedRecently"}
	errQueueDoesNotExist        = errorKind{http.StatusBadRequest, "com.amazonaws.sqs#QueueDoesNotExist", "AWS.SimpleQueueService.NonExistentQueue"}
	errQueueNameExists          = errorKind{http.StatusBadRequest, "com.amazonaws.sqs#QueueNameExists", "QueueAlreadyExists"}
	errReceiptHandleIsInvalid   = errorKind{http.StatusNotFound, "com.amazonaws.sqs#ReceiptHandleIsInvalid", "ReceiptHandleIsInvalid"}
	errResourceNotFound         = errorKind{http.StatusNotFound, "com.amazonaws.sqs#ResourceNotFoundException", "ResourceNotFoundException"}
	errTooManyEntries           = errorKind{http.StatusBadRequest, "com.amazonaws.sqs#TooManyEntriesInBatchRequest", "AWS.SimpleQueueService.TooManyEntriesInBatchRequest"}
	errUnsupportedOperation     = errorKind{http.StatusBadRequest, "com.amazonaws.sqs#UnsupportedOperation", "AWS.SimpleQueueService.UnsupportedOperation"}

	errInvalidParameterValue = errorKind{http.StatusBadRequest, "com.amazon.coral.service#InvalidParameterValueException", "InvalidParameterValue"}
	errMissingParameter      = errorKind{http.StatusBadRequest, "com.amazon.coral.service#MissingRequiredParameterException", "MissingParameter"}
	errSerialization         = errorKind{http.StatusBadRequest, "com.amazon.coral.service#SerializationException", "SerializationException"}
	errRequestTooLarge       = errorKind{http.StatusRequestEntityTooLarge, "com.amazon.coral.service#RequestEntityTooLargeException", "RequestEntityTooLarge"}
	errInternal              = errorKind{http.StatusInternalServerError, "com.amazon.coral.service#InternalFailure", "InternalFailure"}
)

// apiError is an error answered to the client.
type apiError struct {
	kind    errorKind
	message string
}

// Error returns the code and message, as the SDK prints them.
func (e *apiError) Error() string { return e.kind.code + ": " + e.message }

// errorf builds an apiError of kind k.
func (k errorKind) errorf(format string, args ...any) *apiError {
	return &apiError{kind: k, message: fmt.Sprintf(format, args...)}
}

// invalidValue is SQS's usual InvalidParameterValue wording.
func invalidValue(param string, value any, reason string) *apiError {
	return errInvalidParameterValue.errorf("Value %v for parameter %s is invalid. Reason: %s", value, param, reason)
}

// missing reports a required parameter that is absent.
func missing(param string) *apiError {
	return errMissingParameter.errorf("The request must contain the parameter %s.", param)
}

// noSuchQueue is SQS's QueueDoesNotExist, for a name, URL or account that
// names no queue here.
func noSuchQueue() *apiError {
	return errQueueDoesNotExist.errorf("The specified queue does not exist.")
}
