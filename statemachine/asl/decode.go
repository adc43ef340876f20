package asl

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"

	jsonv1 "github.com/go-json-experiment/json/v1"
	"github.com/ohler55/ojg/oj"
)

// errNotJSON is returned by DecodeJSON for text that is not one JSON value.
var errNotJSON = errors.New("asl: not valid JSON")

// DecodeJSON parses one JSON value into the generic data this package
// evaluates (map[string]any, []any, int64, float64, json.Number, string,
// bool, nil). The text is checked first, by encoding/json's rules
// (encoding/json/v2's scanner, which is faster): ojg's parser can panic on
// some malformed input, and no input may crash the executor.
func DecodeJSON(text []byte) (v any, err error) {
	if !jsonv1.Valid(text) {
		var probe any
		if derr := json.Unmarshal(text, &probe); derr != nil {
			return nil, fmt.Errorf("%w: %v", errNotJSON, derr)
		}
		return nil, errNotJSON
	}
	defer func() {
		if r := recover(); r != nil {
			v, err = nil, fmt.Errorf("%w: %v", errNotJSON, r)
		}
	}()
	if v, err = oj.Parse(text); err != nil {
		return nil, fmt.Errorf("%w: %v", errNotJSON, err)
	}
	if !finite(v) {
		return nil, fmt.Errorf("%w: a number is out of the range of a 64-bit float", errNotJSON)
	}
	return v, nil
}

// finite reports whether every number in v is finite (ojg turns 1e400
// into +Inf, which has no JSON form).
func finite(v any) bool {
	switch x := v.(type) {
	case float64:
		return !math.IsInf(x, 0) && !math.IsNaN(x)
	case []any:
		for _, item := range x {
			if !finite(item) {
				return false
			}
		}
	case map[string]any:
		for _, item := range x {
			if !finite(item) {
				return false
			}
		}
	}
	return true
}
