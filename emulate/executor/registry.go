package executor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-lambda-go/lambda/messages"
	"github.com/aws/aws-lambda-go/lambdacontext"
	"github.com/aws/aws-sdk-go-v2/aws"
	lambdatypes "github.com/aws/aws-sdk-go-v2/service/lambda/types"
	"github.com/aws/smithy-go"
	jsonv1 "github.com/go-json-experiment/json/v1"
)

// Lambda's synchronous invocation limits: a request or response payload
// larger than this fails as the Lambda service fails it.
const maxLambdaPayload = 6 << 20

// functionNamePattern is the Lambda Invoke API's FunctionName pattern,
// anchored: a name, a partial ARN or a full ARN, each with an optional
// qualifier (version or alias).
var functionNamePattern = regexp.MustCompile(`^(?:arn:(aws[a-zA-Z-]*)?:lambda:)?(?:([a-z]{2}(?:-gov)?-[a-z]+-\d):)?(?:(\d{12}):)?(?:function:)?([a-zA-Z0-9_.-]{1,64})(?::(\$LATEST|[a-zA-Z0-9_-]{1,128}))?$`)

// Registry hosts Go Lambda handlers in process and invokes them as the
// Lambda service and the aws-lambda-go runtime would: the same JSON
// (de)serialisation, the same error documents, a LambdaContext in the
// handler's context. It implements Invoker and is safe for concurrent use.
type Registry struct {
	mu        sync.RWMutex
	functions map[string]*hostedFunction
	requests  atomic.Uint64
	// refs caches up to maxCachedRefs FunctionNames invoked, parsed: a
	// simulation invokes a handful of names millions of times.
	refs    sync.Map // string -> functionRef
	refsLen atomic.Int64
}

// maxCachedRefs bounds Registry.refs, whatever names callers make up.
const maxCachedRefs = 1024

// hostedFunction is one registered handler. Handlers built by aws-lambda-go
// reuse one output buffer per handler, so concurrent invocations each take
// their own from the pool.
type hostedFunction struct {
	handlers sync.Pool
	timeout  time.Duration // 0: none
}

// Function is a hosted function's configuration, as Lambda's; the zero
// value is a function without a timeout.
type Function struct {
	// Timeout is Lambda's timeout: the handler's context ends at it on
	// the executor's clock (the wall clock when it is invoked outside an
	// execution), and an invocation that runs past it fails as Lambda's
	// do, with Sandbox.Timedout. Zero: none.
	Timeout time.Duration
}

// functionRef is a parsed FunctionName.
type functionRef struct {
	partition, region, account, name, qualifier string
}

var _ Invoker = (*Registry)(nil)

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{functions: make(map[string]*hostedFunction)}
}

// Register hosts handler under name (a function name or ARN, optionally
// with a ":qualifier"), replacing any handler registered under it. handler
// is anything aws-lambda-go's lambda.NewHandler accepts; a function of a
// signature it rejects fails every invocation with aws-lambda-go's own
// error, as it would in Lambda. An unqualified registration serves every
// qualifier that has no registration of its own. It is RegisterFunction
// with no configuration.
func (r *Registry) Register(name string, handler any) error {
	return r.RegisterFunction(name, handler, Function{})
}

// RegisterFunction is Register of a function configured by fn.
func (r *Registry) RegisterFunction(name string, handler any, fn Function) error {
	ref, err := parseFunctionName(name)
	if err != nil {
		return fmt.Errorf("register %q: %w", name, err)
	}
	if handler == nil {
		return fmt.Errorf("register %q: handler is nil", name)
	}
	if _, ok := handler.(lambda.Handler); !ok && reflect.TypeOf(handler).Kind() != reflect.Func {
		return fmt.Errorf("register %q: handler is a %T, not a function or lambda.Handler", name, handler)
	}
	if fn.Timeout < 0 {
		return fmt.Errorf("register %q: timeout %v is negative", name, fn.Timeout)
	}
	f := &hostedFunction{timeout: fn.Timeout}
	f.handlers.New = func() any { return lambda.NewHandler(handler) }
	r.mu.Lock()
	r.functions[ref.key()] = f
	r.mu.Unlock()
	return nil
}

// Invoke runs the function synchronously (RequestResponse). function is a
// name, a partial or full ARN, optionally with a ":qualifier". An unknown
// function is a *ServiceError around a
// *lambdatypes.ResourceNotFoundException, a payload that is not JSON one
// around an *lambdatypes.InvalidRequestContentException, as from Lambda.
func (r *Registry) Invoke(ctx context.Context, function string, payload []byte) (Invocation, error) {
	ref, err := r.parse(function)
	if err != nil {
		return Invocation{}, err
	}
	requestID := fmt.Sprintf("00000000-0000-4000-8000-%012x", r.requests.Add(1))
	refused := func(status int, err error) (Invocation, error) {
		return Invocation{}, &ServiceError{Err: err, StatusCode: status, RequestID: requestID}
	}
	f := r.lookup(ref)
	if f == nil {
		return refused(http.StatusNotFound, &lambdatypes.ResourceNotFoundException{
			Type:    aws.String("User"),
			Message: aws.String("Function not found: " + ref.arn()),
		})
	}
	if len(payload) == 0 {
		payload = []byte("{}")
	}
	if len(payload) > maxLambdaPayload {
		return refused(http.StatusRequestEntityTooLarge, &lambdatypes.RequestTooLargeException{
			Type:    aws.String("User"),
			Message: aws.String(fmt.Sprintf("Request must be smaller than %d bytes for the InvokeFunction operation", maxLambdaPayload)),
		})
	}
	if !marshalled(ctx, payload) && !jsonv1.Valid(payload) {
		return refused(http.StatusBadRequest, &lambdatypes.InvalidRequestContentException{
			Type:    aws.String("User"),
			Message: aws.String("Could not parse request body into json: Could not parse payload into json"),
		})
	}

	lc := &lambdacontext.LambdaContext{
		AwsRequestID:       requestID,
		InvokedFunctionArn: ref.arn(),
	}
	out := Invocation{ExecutedVersion: ref.executedVersion()}
	ctx = lambdacontext.NewContext(ctx, lc)
	if f.timeout > 0 {
		clk := clockOf(ctx)
		var cancel context.CancelFunc
		ctx, cancel = clk.WithDeadline(ctx, clk.Now().Add(f.timeout))
		defer cancel()
	}
	response, errDoc := f.call(ctx, payload)
	if f.timeout > 0 && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		errDoc = &messages.InvokeResponse_Error{
			Type:    "Sandbox.Timedout",
			Message: fmt.Sprintf("RequestId: %s Error: Task timed out after %.2f seconds", lc.AwsRequestID, f.timeout.Seconds()),
		}
	}
	if errDoc == nil && len(response) > maxLambdaPayload {
		errDoc = &messages.InvokeResponse_Error{
			Type:    "Function.ResponseSizeTooLarge",
			Message: fmt.Sprintf("Response payload size (%d bytes) exceeded maximum allowed payload size (%d bytes).", len(response), maxLambdaPayload),
		}
	}
	if errDoc != nil {
		doc, err := json.Marshal(errDoc)
		if err != nil {
			return Invocation{}, fmt.Errorf("invoke %q: marshal error document: %w", function, err)
		}
		out.Payload, out.FunctionError = doc, "Unhandled"
		return out, nil
	}
	out.Payload = response
	return out, nil
}

// parse is parseFunctionName, cached for valid names.
func (r *Registry) parse(function string) (functionRef, error) {
	if ref, ok := r.refs.Load(function); ok {
		return ref.(functionRef), nil
	}
	ref, err := parseFunctionName(function)
	if err == nil && r.refsLen.Add(1) <= maxCachedRefs {
		r.refs.Store(function, ref)
	}
	return ref, err
}

// lookup finds the handler for ref: its exact qualifier first, then the
// unqualified registration.
func (r *Registry) lookup(ref functionRef) *hostedFunction {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if f, ok := r.functions[ref.key()]; ok {
		return f
	}
	return r.functions[ref.name]
}

// call runs one handler from the pool and returns a copy of its response,
// or the error document aws-lambda-go's runtime would report.
func (f *hostedFunction) call(ctx context.Context, payload []byte) (response []byte, errDoc *messages.InvokeResponse_Error) {
	h := f.handlers.Get().(lambda.Handler)
	defer func() {
		if v := recover(); v != nil {
			// The handler's pooled buffer may be mid-write: drop it.
			errDoc = &messages.InvokeResponse_Error{
				Message:    fmt.Sprintf("%v", v),
				Type:       errorTypeName(v),
				StackTrace: panicStack(),
			}
			return
		}
		f.handlers.Put(h)
	}()
	b, err := h.Invoke(ctx, payload)
	if err != nil {
		if doc, ok := err.(messages.InvokeResponse_Error); ok {
			return nil, &doc
		}
		return nil, &messages.InvokeResponse_Error{Message: err.Error(), Type: errorTypeName(err)}
	}
	return append([]byte(nil), b...), nil
}

// errorTypeName is the errorType aws-lambda-go reports for v: its type's
// name without the pointer.
func errorTypeName(v any) string {
	t := reflect.TypeOf(v)
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Name()
}

// panicStack is the stack of a recovered panic in aws-lambda-go's frame
// format (path relative to the package's import path, label without it).
// It must be called from the deferred function that recovered.
func panicStack() []*messages.InvokeResponse_Error_StackFrame {
	pcs := make([]uintptr, 32)
	// Skip runtime.Callers, panicStack and the deferred function.
	pcs = pcs[:runtime.Callers(3, pcs)]
	var stack []*messages.InvokeResponse_Error_StackFrame
	frames := runtime.CallersFrames(pcs)
	for {
		frame, more := frames.Next()
		path := frame.File
		i := len(path)
		for range strings.Count(frame.Function, "/") + 2 {
			if i = strings.LastIndex(path[:i], "/"); i < 0 {
				break
			}
		}
		label := frame.Function[strings.LastIndex(frame.Function, "/")+1:]
		label = label[strings.Index(label, ".")+1:]
		stack = append(stack, &messages.InvokeResponse_Error_StackFrame{
			Path: path[i+1:], Line: int32(frame.Line), Label: label,
		})
		if !more {
			return stack
		}
	}
}

// parseFunctionName parses a FunctionName as the Lambda Invoke API accepts
// it; an invalid one is the ValidationException Lambda returns.
func parseFunctionName(s string) (functionRef, error) {
	m := functionNamePattern.FindStringSubmatch(s)
	if m == nil || len(s) > 170 {
		return functionRef{}, &smithy.GenericAPIError{
			Code:    "ValidationException",
			Message: fmt.Sprintf("1 validation error detected: Value '%s' at 'functionName' failed to satisfy constraint: Member must satisfy regular expression pattern: %s", s, functionNamePattern),
			Fault:   smithy.FaultClient,
		}
	}
	ref := functionRef{partition: m[1], region: m[2], account: m[3], name: m[4], qualifier: m[5]}
	if ref.partition == "" {
		ref.partition = "aws"
	}
	if ref.region == "" {
		ref.region = "us-east-1"
	}
	if ref.account == "" {
		ref.account = "123456789012"
	}
	return ref, nil
}

// key is the registry key: the name, with its qualifier if any.
func (f functionRef) key() string {
	if f.qualifier == "" {
		return f.name
	}
	return f.name + ":" + f.qualifier
}

// arn is the function's ARN as invoked (with its qualifier if any), the
// LambdaContext's InvokedFunctionArn.
func (f functionRef) arn() string {
	return fmt.Sprintf("arn:%s:lambda:%s:%s:function:%s", f.partition, f.region, f.account, f.key())
}

// executedVersion is the version Lambda reports: a numeric qualifier names
// a version; no qualifier, $LATEST or an alias runs $LATEST here.
func (f functionRef) executedVersion() string {
	if f.qualifier != "" && strings.Trim(f.qualifier, "0123456789") == "" {
		return f.qualifier
	}
	return "$LATEST"
}

// marshalled says payload is the very payload the executor marshalled for
// the Task state ctx runs (the same bytes, not a copy): valid JSON, so
// Invoke need not scan it again. A handler's own invocations under that
// context, or a payload that crossed the Lambda API, are other bytes.
func marshalled(ctx context.Context, payload []byte) bool {
	c, ok := ctx.Value(callKey{}).(*call)
	return ok && len(payload) > 0 && len(c.payload) == len(payload) && &c.payload[0] == &payload[0]
}
