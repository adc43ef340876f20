package executor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/lambda/messages"
	"github.com/aws/aws-lambda-go/lambdacontext"
	lambdatypes "github.com/aws/aws-sdk-go-v2/service/lambda/types"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/emulate/asl/asltest"
)

type greeting struct {
	Name string `json:"name"`
}

type greetingOut struct {
	Message string `json:"message"`
}

// BreakerOpen is a task error as the project's handlers return them.
type BreakerOpen struct{ Key string }

func (e *BreakerOpen) Error() string { return "breaker " + e.Key + " is open" }

// valueError is an error type used by value, not by pointer.
type valueError struct{}

func (valueError) Error() string { return "by value" }

// echoHandler implements lambda.Handler directly, bytes in, bytes out.
type echoHandler struct{}

func (echoHandler) Invoke(_ context.Context, payload []byte) ([]byte, error) { return payload, nil }

func TestRegistryInvokeResults(t *testing.T) {
	tests := []struct {
		name     string
		handler  any
		payload  string
		want     string
		funcErr  string
		wantType string
	}{
		{
			name: "context and typed event",
			handler: func(_ context.Context, in greeting) (greetingOut, error) {
				return greetingOut{Message: "hello " + in.Name}, nil
			},
			payload: `{"name":"ops"}`,
			want:    `{"message":"hello ops"}`,
		},
		{
			name:    "no arguments returns null",
			handler: func() error { return nil },
			payload: `{}`,
			want:    `null`,
		},
		{
			name:    "raw handler",
			handler: echoHandler{},
			payload: `[1,2,3]`,
			want:    `[1,2,3]`,
		},
		{
			name:    "empty payload is an empty object",
			handler: func(in map[string]any) (map[string]any, error) { return in, nil },
			payload: ``,
			want:    `{}`,
		},
		{
			name:     "pointer error type without the star",
			handler:  func() error { return &BreakerOpen{Key: "orders"} },
			payload:  `{}`,
			funcErr:  "Unhandled",
			want:     `{"errorMessage":"breaker orders is open","errorType":"BreakerOpen"}`,
			wantType: "BreakerOpen",
		},
		{
			name:     "wrapped error is wrapError",
			handler:  func() error { return fmt.Errorf("deliver: %w", &BreakerOpen{Key: "orders"}) },
			payload:  `{}`,
			funcErr:  "Unhandled",
			want:     `{"errorMessage":"deliver: breaker orders is open","errorType":"wrapError"}`,
			wantType: "wrapError",
		},
		{
			name:     "value error type",
			handler:  func() error { return valueError{} },
			payload:  `{}`,
			funcErr:  "Unhandled",
			want:     `{"errorMessage":"by value","errorType":"valueError"}`,
			wantType: "valueError",
		},
		{
			name: "explicit error document",
			handler: func() error {
				return messages.InvokeResponse_Error{Type: "Custom.Thing", Message: "chosen"}
			},
			payload:  `{}`,
			funcErr:  "Unhandled",
			want:     `{"errorMessage":"chosen","errorType":"Custom.Thing"}`,
			wantType: "Custom.Thing",
		},
		{
			name:     "event that does not decode",
			handler:  func(in greeting) error { return nil },
			payload:  `{"name":42}`,
			funcErr:  "Unhandled",
			wantType: "UnmarshalTypeError",
		},
		{
			name:     "signature aws-lambda-go rejects",
			handler:  func(a, b, c int) error { return nil },
			payload:  `{}`,
			funcErr:  "Unhandled",
			wantType: "errorString",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewRegistry()
			require.NoError(t, r.Register("fn", tt.handler))

			got, err := r.Invoke(context.Background(), "fn", []byte(tt.payload))
			require.NoError(t, err)
			assert.Equal(t, tt.funcErr, got.FunctionError)
			assert.Equal(t, "$LATEST", got.ExecutedVersion)
			if tt.want != "" {
				assert.JSONEq(t, tt.want, string(got.Payload))
			}
			if tt.wantType != "" {
				var doc struct {
					Type    string `json:"errorType"`
					Message string `json:"errorMessage"`
				}
				require.NoError(t, json.Unmarshal(got.Payload, &doc))
				assert.Equal(t, tt.wantType, doc.Type)
				assert.NotEmpty(t, doc.Message)
			}
		})
	}
}

func TestRegistryPanicIsFunctionError(t *testing.T) {
	r := NewRegistry()
	calls := 0
	require.NoError(t, r.Register("fn", func(in greeting) (string, error) {
		calls++
		if in.Name == "boom" {
			panic("boom")
		}
		return in.Name, nil
	}))

	got, err := r.Invoke(context.Background(), "fn", []byte(`{"name":"boom"}`))
	require.NoError(t, err)
	assert.Equal(t, "Unhandled", got.FunctionError)
	var doc messages.InvokeResponse_Error
	require.NoError(t, json.Unmarshal(got.Payload, &doc))
	assert.Equal(t, "string", doc.Type)
	assert.Equal(t, "boom", doc.Message)
	require.NotEmpty(t, doc.StackTrace)
	assert.True(t, hasFrame(doc.StackTrace, "TestRegistryPanicIsFunctionError"), "stack names the panicking test function")

	got, err = r.Invoke(context.Background(), "fn", []byte(`{"name":"after"}`))
	require.NoError(t, err)
	assert.Empty(t, got.FunctionError)
	assert.JSONEq(t, `"after"`, string(got.Payload))
	assert.Equal(t, 2, calls)
}

func hasFrame(stack []*messages.InvokeResponse_Error_StackFrame, label string) bool {
	for _, f := range stack {
		if strings.HasPrefix(f.Label, label) && strings.HasSuffix(f.Path, "registry_test.go") {
			return true
		}
	}
	return false
}

func TestRegistryResolvesNamesAndQualifiers(t *testing.T) {
	r := NewRegistry()
	seen := func(tag string) func(ctx context.Context) (map[string]string, error) {
		return func(ctx context.Context) (map[string]string, error) {
			lc, ok := lambdacontext.FromContext(ctx)
			if !ok {
				return nil, errors.New("no lambda context")
			}
			return map[string]string{"tag": tag, "arn": lc.InvokedFunctionArn, "requestId": lc.AwsRequestID}, nil
		}
	}
	require.NoError(t, r.Register("attempt", seen("unqualified")))
	require.NoError(t, r.Register("arn:aws:lambda:us-east-1:123456789012:function:attempt:canary", seen("canary")))

	tests := []struct {
		function, tag, arn, version string
	}{
		{"attempt", "unqualified", "arn:aws:lambda:us-east-1:123456789012:function:attempt", "$LATEST"},
		{"attempt:$LATEST", "unqualified", "arn:aws:lambda:us-east-1:123456789012:function:attempt:$LATEST", "$LATEST"},
		{"attempt:7", "unqualified", "arn:aws:lambda:us-east-1:123456789012:function:attempt:7", "7"},
		{"attempt:live", "unqualified", "arn:aws:lambda:us-east-1:123456789012:function:attempt:live", "$LATEST"},
		{"attempt:canary", "canary", "arn:aws:lambda:us-east-1:123456789012:function:attempt:canary", "$LATEST"},
		{"210987654321:function:attempt", "unqualified", "arn:aws:lambda:us-east-1:210987654321:function:attempt", "$LATEST"},
		{"arn:aws:lambda:eu-west-1:210987654321:function:attempt", "unqualified", "arn:aws:lambda:eu-west-1:210987654321:function:attempt", "$LATEST"},
		{"arn:aws-us-gov:lambda:us-gov-west-1:210987654321:function:attempt:3", "unqualified", "arn:aws-us-gov:lambda:us-gov-west-1:210987654321:function:attempt:3", "3"},
	}
	ids := map[string]bool{}
	for _, tt := range tests {
		t.Run(tt.function, func(t *testing.T) {
			got, err := r.Invoke(context.Background(), tt.function, []byte(`{}`))
			require.NoError(t, err)
			require.Empty(t, got.FunctionError, string(got.Payload))
			var out map[string]string
			require.NoError(t, json.Unmarshal(got.Payload, &out))
			assert.Equal(t, tt.tag, out["tag"])
			assert.Equal(t, tt.arn, out["arn"])
			assert.Equal(t, tt.version, got.ExecutedVersion)
			assert.Regexp(t, `^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`, out["requestId"])
			assert.False(t, ids[out["requestId"]], "request ids are unique")
			ids[out["requestId"]] = true
		})
	}
}

func TestRegistryInvokeErrors(t *testing.T) {
	r := NewRegistry()
	require.NoError(t, r.Register("fn", func(in any) (any, error) { return in, nil }))
	require.NoError(t, r.Register("big", func() (string, error) { return strings.Repeat("x", maxLambdaPayload), nil }))

	t.Run("unknown function", func(t *testing.T) {
		_, err := r.Invoke(context.Background(), "nope", []byte(`{}`))
		var notFound *lambdatypes.ResourceNotFoundException
		require.ErrorAs(t, err, &notFound)
		assert.Equal(t, "Function not found: arn:aws:lambda:us-east-1:123456789012:function:nope", notFound.ErrorMessage())
	})
	t.Run("unknown qualifier of unknown function", func(t *testing.T) {
		_, err := r.Invoke(context.Background(), "nope:live", []byte(`{}`))
		var notFound *lambdatypes.ResourceNotFoundException
		require.ErrorAs(t, err, &notFound)
		assert.Contains(t, notFound.ErrorMessage(), "function:nope:live")
	})
	t.Run("invalid JSON payload", func(t *testing.T) {
		_, err := r.Invoke(context.Background(), "fn", []byte(`{"a":`))
		var bad *lambdatypes.InvalidRequestContentException
		require.ErrorAs(t, err, &bad)
		assert.Contains(t, bad.ErrorMessage(), "Could not parse request body into json")
	})
	t.Run("request too large", func(t *testing.T) {
		payload, err := json.Marshal(strings.Repeat("y", maxLambdaPayload))
		require.NoError(t, err)
		_, err = r.Invoke(context.Background(), "fn", payload)
		var tooLarge *lambdatypes.RequestTooLargeException
		require.ErrorAs(t, err, &tooLarge)
	})
	t.Run("response too large", func(t *testing.T) {
		got, err := r.Invoke(context.Background(), "big", []byte(`{}`))
		require.NoError(t, err)
		assert.Equal(t, "Unhandled", got.FunctionError)
		var doc messages.InvokeResponse_Error
		require.NoError(t, json.Unmarshal(got.Payload, &doc))
		assert.Equal(t, "Function.ResponseSizeTooLarge", doc.Type)
	})
	for _, name := range []string{"", "has space", "arn:aws:lambda:us-east-1:123456789012:function:", "fn:qu@l", strings.Repeat("n", 65)} {
		t.Run("invalid name "+name, func(t *testing.T) {
			_, err := r.Invoke(context.Background(), name, []byte(`{}`))
			var apiErr smithy.APIError
			require.ErrorAs(t, err, &apiErr)
			assert.Equal(t, "ValidationException", apiErr.ErrorCode())
			assert.Contains(t, apiErr.ErrorMessage(), "functionName")
		})
	}
}

func TestRegistryRegisterRejects(t *testing.T) {
	tests := []struct {
		name    string
		fn      string
		handler any
		want    string
	}{
		{"invalid name", "bad name", func() error { return nil }, `register "bad name"`},
		{"nil handler", "fn", nil, "handler is nil"},
		{"not a function", "fn", 42, "handler is a int"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := NewRegistry().Register(tt.fn, tt.handler)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
	err := NewRegistry().RegisterFunction("fn", func() error { return nil }, Function{Timeout: -time.Second})
	assert.EqualError(t, err, `register "fn": timeout -1s is negative`)
}

func TestRegistryReplacesHandler(t *testing.T) {
	r := NewRegistry()
	require.NoError(t, r.Register("fn", func() (string, error) { return "old", nil }))
	require.NoError(t, r.Register("fn", func() (string, error) { return "new", nil }))
	got, err := r.Invoke(context.Background(), "fn", nil)
	require.NoError(t, err)
	assert.JSONEq(t, `"new"`, string(got.Payload))
}

// aws-lambda-go handlers reuse one output buffer; concurrent invocations of
// one function must still each get their own response.
func TestRegistryConcurrentInvocations(t *testing.T) {
	r := NewRegistry()
	require.NoError(t, r.Register("fn", func(in greeting) (greetingOut, error) {
		return greetingOut{Message: in.Name}, nil
	}))
	const n = 64
	var wg sync.WaitGroup
	got := make([]string, n)
	for i := range n {
		wg.Go(func() {
			inv, err := r.Invoke(context.Background(), "fn", fmt.Appendf(nil, `{"name":"caller-%d"}`, i))
			if err != nil {
				got[i] = err.Error()
				return
			}
			got[i] = string(inv.Payload)
		})
	}
	wg.Wait()
	for i := range n {
		assert.JSONEq(t, fmt.Sprintf(`{"message":"caller-%d"}`, i), got[i])
	}
}

// BenchmarkRegistryInvoke measures one in-process invocation of a typed
// handler: JSON in, JSON out, LambdaContext, as a Task state pays it.
func BenchmarkRegistryInvoke(b *testing.B) {
	r := NewRegistry()
	require.NoError(b, r.Register("fn", func(_ context.Context, in greeting) (greetingOut, error) {
		return greetingOut{Message: in.Name}, nil
	}))
	payload := []byte(`{"name":"bench"}`)
	b.ReportAllocs()
	for b.Loop() {
		inv, err := r.Invoke(context.Background(), "arn:aws:lambda:us-east-1:123456789012:function:fn", payload)
		if err != nil || inv.FunctionError != "" {
			b.Fatalf("invoke: %v %s", err, inv.Payload)
		}
	}
}

func TestAnUnknownFunctionFailsTheTaskAsLambdaWrites(t *testing.T) {
	e := New(Options{Invoker: NewRegistry()})
	arn := startCallback(t, e, asltest.Wrap(invokeTask("missing", `,"End":true`)), `{}`)
	x, _ := describe(t, e, arn)
	assert.Equal(t, "Lambda.ResourceNotFoundException", x.Error)
	assert.Regexp(t, `^Function not found: arn:aws:lambda:us-east-1:123456789012:function:missing \(Service: AWSLambda; Status Code: 404; `+
		`Error Code: ResourceNotFoundException; Request ID: [0-9a-f-]{36}; Proxy: null\)$`, x.Cause)
}

// The executor's own payload is not scanned again, but a handler's
// invocation under the Task's context still is: invalid JSON from it is
// refused as Lambda refuses it.
func TestRegistryChecksHandlersOwnPayloads(t *testing.T) {
	r := NewRegistry()
	require.NoError(t, r.Register("inner", func(in any) (any, error) { return in, nil }))
	var nested error
	require.NoError(t, r.Register("outer", func(ctx context.Context, in json.RawMessage) (json.RawMessage, error) {
		_, nested = r.Invoke(ctx, "inner", in[:len(in)-1]) // not JSON: cut short
		return in, nil
	}))
	e := New(Options{Invoker: r})
	arn := startCallback(t, e, asltest.Wrap(invokeTask("outer", `,"End":true`)), `{"a":1}`)
	x, _ := describe(t, e, arn)
	require.Equal(t, Succeeded, x.Status, x.Cause)
	var bad *lambdatypes.InvalidRequestContentException
	assert.ErrorAs(t, nested, &bad)
}
