package sqslocal

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
)

// contentType is the AWS JSON 1.0 media type of requests and responses.
const contentType = "application/x-amz-json-1.0"

// decodeInput decodes a request body into v. An empty body is an empty
// input; anything that is not one JSON object of the right shape is a
// SerializationException, as Coral reports it.
func decodeInput(body []byte, v any) *apiError {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(v); err != nil {
		return errSerialization.errorf("The request body is not valid for this action: %v", err)
	}
	if dec.More() {
		return errSerialization.errorf("The request body holds more than one JSON value.")
	}
	return nil
}

// writeJSON writes v as an AWS JSON 1.0 response.
func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		// Responses are built from plain structs and maps; failing to
		// encode one is a bug in this package, answered as a server error.
		writeError(w, errInternal.errorf("encode response: %v", err))
		return
	}
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// writeError writes e in the JSON protocol's shape: the __type body and the
// x-amzn-query-error header ("<legacy code>;<Sender|Receiver>") from which
// the SDK takes its error code.
func writeError(w http.ResponseWriter, e *apiError) {
	fault := "Sender"
	if e.kind.status >= http.StatusInternalServerError {
		fault = "Receiver"
	}
	w.Header().Set("x-amzn-query-error", e.kind.code+";"+fault)
	body, _ := json.Marshal(struct {
		Type    string `json:"__type"`
		Message string `json:"message"`
	}{e.kind.shape, e.message})
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(e.kind.status)
	_, _ = w.Write(body)
}
