package ddbserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
)

// apiError is an error answer: its HTTP status, the unqualified name of
// its __type, and its message.
type apiError struct {
	status  int
	typ     string
	message string
}

// mustNotBeNull is the violation DynamoDB reports for a required member
// that is absent; the argument is the member's path.
const mustNotBeNull = "Value null at '%s' failed to satisfy constraint: Member must not be null"

// violations collects the constraint violations of a request.
type violations []string

// add records the violation format describes when bad.
func (v *violations) add(bad bool, format string, args ...any) {
	if bad {
		*v = append(*v, fmt.Sprintf(format, args...))
	}
}

// err is the ValidationException reporting v, or nil when v is empty.
func (v violations) err() *apiError {
	switch len(v) {
	case 0:
		return nil
	case 1:
		return validation("1 validation error detected: " + v[0])
	}
	return validation(fmt.Sprintf("%d validation errors detected: %s", len(v), strings.Join(v, "; ")))
}

// validation is a ValidationException.
func validation(message string) *apiError {
	return &apiError{http.StatusBadRequest, "ValidationException", message}
}

// serialization is a SerializationException, for a body that does not
// decode.
func serialization(message string) *apiError {
	return &apiError{http.StatusBadRequest, "SerializationException", message}
}

// tableNotFound is the ResourceNotFoundException for a missing table, in
// the words of the Developer Guide's error example.
func tableNotFound(name string) *apiError {
	return &apiError{http.StatusBadRequest, "ResourceNotFoundException", "Requested resource not found: Table: " + name + " not found"}
}

// qualified is the __type DynamoDB answers for the error named typ: its
// own exceptions in the service's namespace, as in the Developer Guide's
// example ("Error handling with DynamoDB"), and validation and protocol
// errors in the Coral framework's, as DynamoDB answers them. A name
// already qualified is kept.
func qualified(typ string) string {
	switch {
	case strings.Contains(typ, "#"):
		return typ
	case typ == "ValidationException":
		return "com.amazon.coral.validate#" + typ
	case typ == "SerializationException", typ == "UnknownOperationException", typ == "InternalFailure":
		return "com.amazon.coral.service#" + typ
	}
	return "com.amazonaws.dynamodb.v20120810#" + typ
}

// writeError answers e.
func writeError(w http.ResponseWriter, e *apiError) {
	writeJSON(w, e.status, map[string]string{"__type": qualified(e.typ), "message": e.message})
}

// relayError answers minidyn's error response rec with its __type
// qualified, or, should its body not be a JSON error, as an
// InternalServerError carrying the body as its message.
func relayError(w http.ResponseWriter, rec *httptest.ResponseRecorder) {
	var body map[string]json.RawMessage
	var typ string
	if json.Unmarshal(rec.Body.Bytes(), &body) != nil || json.Unmarshal(body["__type"], &typ) != nil || typ == "" {
		writeError(w, &apiError{rec.Code, "InternalServerError", strings.TrimSpace(rec.Body.String())})
		return
	}
	body["__type"], _ = json.Marshal(qualified(typ)) // a string always encodes
	writeJSON(w, rec.Code, body)
}
