package sfnapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/redrive/redrive/emulate/executor"
)

// targetPrefix prefixes the operation name in X-Amz-Target.
const targetPrefix = "AWSStepFunctions."

// maxRequest bounds a request body: a definition is at most 1 MiB and an
// execution input or task output 256 KiB, so anything much larger is not a valid request.
const maxRequest = 2 << 20

// server dispatches AWS JSON 1.0 requests to the executor, and keeps what
// the API has beside it.
type server struct {
	e   *executor.Executor
	ops map[string]operation

	mu sync.Mutex
	// tags are the state machines' tags by ARN, in the order they were
	// added; the executor has none. A state machine created through the
	// server has an entry, if only a nil one.
	tags map[string][]tag
}

// operation decodes one request body, runs it and returns the response.
type operation func(ctx context.Context, body []byte) (any, error)

// NewServer returns the Step Functions API over e: POST / with
// X-Amz-Target "AWSStepFunctions.<Operation>" and a JSON body, answered
// with JSON, or {"__type", "message"} and HTTP 400 for the API's errors.
func NewServer(e *executor.Executor) http.Handler {
	s := &server{e: e, tags: map[string][]tag{}}
	s.ops = map[string]operation{
		"CreateStateMachine":               handle(s.createStateMachine),
		"DescribeStateMachine":             handle(s.describeStateMachine),
		"DescribeStateMachineForExecution": handle(s.describeStateMachineForExecution),
		"ListStateMachines":                handle(s.listStateMachines),
		"ValidateStateMachineDefinition":   handle(s.validateStateMachineDefinition),
		"StartExecution":                   handle(s.startExecution),
		"DescribeExecution":                handle(s.describeExecution),
		"GetExecutionHistory":              handle(s.getExecutionHistory),
		"ListExecutions":                   handle(s.listExecutions),
		"StopExecution":                    handle(s.stopExecution),
		"SendTaskSuccess":                  handle(s.sendTaskSuccess),
		"SendTaskFailure":                  handle(s.sendTaskFailure),
		"SendTaskHeartbeat":                handle(s.sendTaskHeartbeat),
		"TagResource":                      handle(s.tagResource),
		"UntagResource":                    handle(s.untagResource),
		"ListTagsForResource":              handle(s.listTagsForResource),
	}
	return s
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	target := r.Header.Get("X-Amz-Target")
	op, ok := s.ops[strings.TrimPrefix(target, targetPrefix)]
	if r.Method != http.MethodPost || r.URL.Path != "/" || !strings.HasPrefix(target, targetPrefix) || !ok {
		writeError(w, &apiError{code: "UnknownOperationException",
			message: fmt.Sprintf("unknown operation %s %s with X-Amz-Target %q", r.Method, r.URL.Path, target)})
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxRequest+1))
	if err != nil {
		writeError(w, &apiError{code: "SerializationException", message: fmt.Sprintf("read request body: %v", err)})
		return
	}
	if len(body) > maxRequest {
		writeError(w, &apiError{code: "ValidationException", message: fmt.Sprintf("request body is over %d bytes", maxRequest)})
		return
	}
	out, err := op(r.Context(), body)
	if err != nil {
		writeError(w, err)
		return
	}
	resp, err := json.Marshal(out)
	if err != nil {
		writeError(w, fmt.Errorf("marshal %s response: %w", target, err))
		return
	}
	w.Header().Set("Content-Type", "application/x-amz-json-1.0")
	_, _ = w.Write(resp)
}

// handle adapts an operation on a typed request to an operation on the
// body: an empty body is "{}", a member of the wrong type or one the local
// API does not support is an error naming it.
func handle[In, Out any](f func(context.Context, *In) (Out, error)) operation {
	return func(ctx context.Context, body []byte) (any, error) {
		in := new(In)
		if len(bytes.TrimSpace(body)) > 0 {
			dec := json.NewDecoder(bytes.NewReader(body))
			dec.DisallowUnknownFields()
			if err := dec.Decode(in); err != nil {
				return nil, decodeError(err)
			}
			if dec.More() {
				return nil, &apiError{code: "SerializationException", message: "request body has data after the JSON object"}
			}
		}
		return f(ctx, in)
	}
}

// decodeError turns a JSON decoding failure into the API error naming the
// offending member.
func decodeError(err error) error {
	var typeErr *json.UnmarshalTypeError
	switch {
	case errors.As(err, &typeErr):
		return &apiError{code: "SerializationException",
			message: fmt.Sprintf("member %q must be a %s, not a JSON %s", typeErr.Field, typeErr.Type, typeErr.Value)}
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return &apiError{code: "ValidationException",
			message: fmt.Sprintf("member %s is not supported by the local Step Functions API", strings.TrimPrefix(err.Error(), "json: unknown field "))}
	default:
		return &apiError{code: "SerializationException", message: fmt.Sprintf("request body is not valid JSON: %v", err)}
	}
}
