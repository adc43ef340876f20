package sfnapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/redrive/redrive/emulate/executor"
)

// apiError is a Step Functions API error: its code is the "__type".
// resourceName is the ResourceNotFound and TooManyTags member naming the
// resource.
type apiError struct {
	code, message, resourceName string
}

func (e *apiError) Error() string { return e.code + ": " + e.message }

// apiCodes maps the executor's errors to the API's error codes.
var apiCodes = []struct {
	err  error
	code string
}{
	{executor.ErrInvalidDefinition, "InvalidDefinition"},
	{executor.ErrInvalidName, "InvalidName"},
	{executor.ErrInvalidArn, "InvalidArn"},
	{executor.ErrInvalidExecutionInput, "InvalidExecutionInput"},
	{executor.ErrStateMachineDoesNotExist, "StateMachineDoesNotExist"},
	{executor.ErrStateMachineExists, "StateMachineAlreadyExists"},
	{executor.ErrExecutionDoesNotExist, "ExecutionDoesNotExist"},
	{executor.ErrExecutionAlreadyExists, "ExecutionAlreadyExists"},
	{executor.ErrInvalidToken, "InvalidToken"},
	{executor.ErrTaskDoesNotExist, "TaskDoesNotExist"},
	{executor.ErrTaskTimedOut, "TaskTimedOut"},
	{executor.ErrInvalidOutput, "InvalidOutput"},
	{executor.ErrThrottled, "ThrottlingException"},
	{executor.ErrExecutionLimitExceeded, "ExecutionLimitExceeded"},
}

// writeError answers with err as the API does: HTTP 400 and
// {"__type", "message"} (and "resourceName" when the error has one) for a
// client error, HTTP 500 InternalFailure for anything the executor did not
// classify.
func writeError(w http.ResponseWriter, err error) {
	ae := classify(err)
	body, _ := json.Marshal(struct { // three strings: cannot fail
		Type         string `json:"__type"`
		Message      string `json:"message"`
		ResourceName string `json:"resourceName,omitempty"`
	}{ae.code, ae.message, ae.resourceName})
	w.Header().Set("Content-Type", "application/x-amz-json-1.0")
	w.WriteHeader(ae.status())
	_, _ = w.Write(body)
}

// status is the HTTP status the API answers e with: 500 for
// InternalFailure, 400 for the client errors.
func (e *apiError) status() int {
	if e.code == internalFailure {
		return http.StatusInternalServerError
	}
	return http.StatusBadRequest
}

// internalFailure is the code of an error the executor did not classify.
const internalFailure = "InternalFailure"

// classify returns err as the API answers it: an apiError as it is, an
// executor error with its code (apiCodes), anything else InternalFailure.
func classify(err error) *apiError {
	var ae *apiError
	if errors.As(err, &ae) {
		return ae
	}
	for _, c := range apiCodes {
		if errors.Is(err, c.err) {
			return &apiError{code: c.code, message: err.Error()}
		}
	}
	return &apiError{code: internalFailure, message: err.Error()}
}

// validation is the ValidationException for one member.
func validation(member, constraint string) error {
	return &apiError{code: "ValidationException",
		message: fmt.Sprintf("1 validation error detected: Value at '%s' failed to satisfy constraint: %s", member, constraint)}
}

// atMost checks that a member's length (in the unit its limit counts) is at
// most limit.
func atMost(member string, length, limit int) error {
	if length > limit {
		return validation(member, fmt.Sprintf("Member must have length less than or equal to %d", limit))
	}
	return nil
}

// between checks that a numeric member is from lo to hi.
func between(member string, value, lo, hi int) error {
	if value < lo || value > hi {
		return validation(member, fmt.Sprintf("Member must have value between %d and %d", lo, hi))
	}
	return nil
}

// required checks that a required string member was given.
func required(member, value string) error {
	if value == "" {
		return validation(member, "Member must not be null")
	}
	return nil
}
