package asl

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// Limits of the Amazon States Language and Step Functions' quotas.
const (
	// MaxPayloadBytes is Step Functions' payload quota: 256 KiB of UTF-8
	// JSON for an execution's input and every state's input, result and
	// output.
	MaxPayloadBytes = 262144
	// MaxNameLength is the longest state machine, execution or state name
	// Step Functions accepts.
	MaxNameLength = 80

	maxTimeoutSeconds  = 99999999 // TimeoutSeconds, Seconds, IntervalSeconds, MaxAttempts
	maxMaxDelaySeconds = 31622400 // MaxDelaySeconds: one year
)

// overLimit reports whether v's compact JSON text is longer than
// MaxPayloadBytes. It measures without serialising, and stops counting
// once past the limit. Strings are first bounded by their length alone
// (a byte takes at most six in JSON), so only a value that may be near
// the limit has its strings scanned.
func overLimit(v any) bool { return longerThan(v, MaxPayloadBytes) }

// longerThan reports whether v's compact JSON text is longer than limit
// bytes, as overLimit measures it.
func longerThan(v any, limit int) bool {
	return jsonSize(v, limit, stringBound) > limit && jsonSize(v, limit, stringSize) > limit
}

// jsonSize returns the length in bytes of v's compact JSON text, its
// strings sized by str, or some number above limit as soon as it is known
// to exceed it.
func jsonSize(v any, limit int, str func(string) int) int {
	switch x := v.(type) {
	case nil:
		return 4
	case bool:
		if x {
			return 4
		}
		return 5
	case string:
		return str(x)
	case int64:
		var buf [24]byte
		return len(strconv.AppendInt(buf[:0], x, 10))
	case float64:
		var buf [32]byte
		return len(strconv.AppendFloat(buf[:0], x, 'g', -1, 64))
	case json.Number:
		return len(x)
	case []any:
		n := 2 + max(len(x)-1, 0)
		for _, item := range x {
			if n += jsonSize(item, limit-n, str); n > limit {
				return n
			}
		}
		return n
	case map[string]any:
		n := 2 + max(len(x)-1, 0)
		for k, item := range x {
			n += str(k) + 1
			if n += jsonSize(item, limit-n, str); n > limit {
				return n
			}
		}
		return n
	}
	return len(fmt.Sprint(v))
}

// stringBound is at least the length of s as a JSON string literal.
func stringBound(s string) int { return 6*len(s) + 2 }

// stringSize is the length of s as a JSON string literal.
func stringSize(s string) int {
	n := len(s) + 2 // a byte of UTF-8 (or an invalid one) is written as it is
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t' || c == '\b' || c == '\f':
			n++
		case c < 0x20:
			n += 5
		}
	}
	return n
}

// dataLimitError is the States.DataLimitExceeded error for what (e.g.
// "returned a result", "received an input") of the state or task name.
func dataLimitError(kind, name, what string) *Error {
	return &Error{
		Name:  statesDataLimitExceeded,
		Cause: fmt.Sprintf("The %s '%s' %s with a size exceeding the maximum number of bytes service limit.", kind, name, what),
	}
}
