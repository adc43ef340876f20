// Package typedhandler hosts a typed Lambda handler,
// func(context.Context, In) (Out, error), as a lambda.Handler that takes
// and returns the same JSON as aws-lambda-go's lambda.NewHandler, at less
// cost per invocation: no reflection, a json.RawMessage event passed as it
// is, and an event decoded in one pass by encoding/json/v2 with v1's
// semantics (github.com/go-json-experiment/json), and decoded again by
// encoding/json when that fails, for aws-lambda-go's error. A
// simulation's local executor makes millions of invocations.
package typedhandler

import (
	"bytes"
	"context"
	"encoding/json"
	"sync"

	"github.com/aws/aws-lambda-go/lambda"
	jsonv2 "github.com/go-json-experiment/json"
	jsonv1 "github.com/go-json-experiment/json/v1"
)

// New returns fn as a lambda.Handler. Invoke decodes its payload, which
// must be one JSON value (a Registry checks it), into In as
// encoding/json would (v2 also accepts a time string with escaped
// characters, which v1 rejects), calls fn, and encodes its result as aws-lambda-go
// does: encoding/json, HTML characters unescaped, no trailing newline. An
// error from fn or from decoding is Invoke's error.
func New[In, Out any](fn func(context.Context, In) (Out, error)) lambda.Handler {
	return handler[In, Out](fn)
}

type handler[In, Out any] func(context.Context, In) (Out, error)

// buffers are the encoders' buffers, shared by every handler.
var buffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// Invoke implements lambda.Handler.
func (fn handler[In, Out]) Invoke(ctx context.Context, payload []byte) ([]byte, error) {
	var in In
	if raw, ok := any(&in).(*json.RawMessage); ok {
		// What encoding/json's Decoder gives a RawMessage: the value,
		// without the whitespace around it, in memory of its own.
		*raw = append(json.RawMessage(nil), bytes.TrimSpace(payload)...)
	} else if jsonv2.Unmarshal(payload, &in, jsonv1.DefaultOptionsV1()) != nil {
		// v2 words some errors otherwise (nested fields, times, base64):
		// the error is encoding/json's, as aws-lambda-go reports it.
		var fresh In
		if err := json.NewDecoder(bytes.NewReader(payload)).Decode(&fresh); err != nil {
			return nil, err
		}
		in = fresh
	}
	out, err := fn(ctx, in)
	if err != nil {
		return nil, err
	}
	buf := buffers.Get().(*bytes.Buffer)
	defer func() {
		buf.Reset()
		buffers.Put(buf)
	}()
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		return nil, err
	}
	return bytes.Clone(bytes.TrimSuffix(buf.Bytes(), []byte("\n"))), nil
}
