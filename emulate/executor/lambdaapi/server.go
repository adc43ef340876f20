package lambdaapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync/atomic"

	"github.com/aws/smithy-go"
	"github.com/redrive/redrive/emulate/executor"
)

// maxPayload is Lambda's limit on a synchronous invocation's request.
const maxPayload = 6 << 20

// server serves the Invoke operation of the Lambda REST API.
type server struct {
	inv executor.Invoker
	mux *http.ServeMux
	// requests counts the requests served, which number their ids.
	requests atomic.Uint64
}

// NewServer returns the Lambda Invoke API (POST
// /2015-03-31/functions/{FunctionName}/invocations, RequestResponse only)
// over inv, with Lambda's headers and error responses: every response has
// a unique x-amzn-RequestId; a function error is a 200 with
// X-Amz-Function-Error; an invocation error is Lambda's error JSON with
// X-Amzn-ErrorType and its status (404 ResourceNotFoundException, 400
// InvalidRequestContentException, ...).
func NewServer(inv executor.Invoker) http.Handler {
	s := &server{inv: inv, mux: http.NewServeMux()}
	s.mux.HandleFunc("POST /2015-03-31/functions/{name}/invocations", s.invoke)
	s.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "UnknownOperationException", "User",
			fmt.Sprintf("Unknown operation %s %s", r.Method, r.URL.Path))
	})
	return s
}

// ServeHTTP gives the response the next request id and serves the request.
func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("X-Amzn-RequestId", requestID(s.requests.Add(1)))
	s.mux.ServeHTTP(w, r)
}

// requestID is the id of a server's nth request, a UUID as Lambda's are.
// Counting, not randomness, makes it unique per server and the same when
// a seeded run replays; its 0xa variant tells it from the Registry's
// LambdaContext request ids, which count separately.
func requestID(n uint64) string {
	return fmt.Sprintf("00000000-0000-4000-a000-%012x", n)
}

func (s *server) invoke(w http.ResponseWriter, r *http.Request) {
	switch t := r.Header.Get("X-Amz-Invocation-Type"); t {
	case "", "RequestResponse":
	case "Event", "DryRun":
		writeError(w, http.StatusBadRequest, "InvalidParameterValueException", "User",
			fmt.Sprintf("InvocationType %s is not supported by this local server; use RequestResponse", t))
		return
	default:
		writeError(w, http.StatusBadRequest, "ValidationException", "User",
			fmt.Sprintf("1 validation error detected: Value '%s' at 'invocationType' failed to satisfy constraint: Member must satisfy enum value set: [Event, RequestResponse, DryRun]", t))
		return
	}
	payload, err := io.ReadAll(io.LimitReader(r.Body, maxPayload+1))
	if err != nil {
		writeError(w, http.StatusBadRequest, "InvalidRequestContentException", "User",
			fmt.Sprintf("Could not read request body: %v", err))
		return
	}
	if len(payload) > maxPayload {
		writeError(w, http.StatusRequestEntityTooLarge, "RequestTooLargeException", "User",
			fmt.Sprintf("Request must be smaller than %d bytes for the InvokeFunction operation", maxPayload))
		return
	}
	function := r.PathValue("name")
	if q := r.URL.Query().Get("Qualifier"); q != "" {
		function += ":" + q
	}

	inv, err := s.inv.Invoke(r.Context(), function, payload)
	if err != nil {
		writeInvokeError(w, err)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	version := inv.ExecutedVersion
	if version == "" {
		version = "$LATEST"
	}
	h.Set("X-Amz-Executed-Version", version)
	if inv.FunctionError != "" {
		h.Set("X-Amz-Function-Error", inv.FunctionError)
	}
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(inv.Payload)
}

// writeInvokeError answers with the Lambda error inside err (its code,
// message and status), or a ServiceException for any other failure.
func writeInvokeError(w http.ResponseWriter, err error) {
	var apiErr smithy.APIError
	if !errors.As(err, &apiErr) {
		writeError(w, http.StatusInternalServerError, "ServiceException", "Service", err.Error())
		return
	}
	status, kind := http.StatusBadRequest, "User"
	if apiErr.ErrorFault() == smithy.FaultServer {
		status, kind = http.StatusInternalServerError, "Service"
	}
	switch apiErr.ErrorCode() {
	case "ResourceNotFoundException":
		status = http.StatusNotFound
	case "RequestTooLargeException":
		status = http.StatusRequestEntityTooLarge
	case "TooManyRequestsException":
		status = http.StatusTooManyRequests
	}
	writeError(w, status, apiErr.ErrorCode(), kind, apiErr.ErrorMessage())
}

// writeError writes Lambda's REST-JSON error: the code in X-Amzn-ErrorType,
// {"Type", "Message"} in the body.
func writeError(w http.ResponseWriter, status int, code, kind, message string) {
	body, _ := json.Marshal(struct { // two strings: cannot fail
		Type    string `json:"Type"`
		Message string `json:"Message"`
	}{kind, message})
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("X-Amzn-ErrorType", code)
	w.WriteHeader(status)
	_, _ = w.Write(body)
}
