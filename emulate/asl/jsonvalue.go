package asl

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"

	"github.com/ohler55/ojg/oj"
)

// Helpers over JSON values as oj parses them: map[string]any, []any,
// int64, float64, string, bool and nil.

// textOptions renders compact JSON with sorted keys and without HTML
// escapes, as Step Functions prints JSON.
var textOptions = oj.Options{Sort: true, HTMLUnsafe: true}

// jsonText renders a value as compact JSON.
func jsonText(v any) string { return oj.JSON(v, &textOptions) }

// toFloat returns a JSON number as a float64. oj yields json.Number for
// integers of 19 digits or more.
func toFloat(v any) (float64, bool) {
	switch n := v.(type) {
	case int64:
		return float64(n), true
	case float64:
		return n, true
	case int:
		return float64(n), true
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	}
	return 0, false
}

// toInt64 returns a JSON number that is an integer within int64's range.
func toInt64(v any) (int64, bool) {
	switch n := v.(type) {
	case int64:
		return n, true
	case int:
		return int64(n), true
	case json.Number:
		i, err := n.Int64()
		return i, err == nil
	}
	return 0, false
}

// jsonEqual reports whether two JSON values are equal; numbers compare by
// value whatever their Go type.
func jsonEqual(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !jsonEqual(v, w) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !jsonEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	}
	if ia, ok := toInt64(a); ok {
		if ib, ok := toInt64(b); ok {
			return ia == ib
		}
	}
	if fa, ok := toFloat(a); ok {
		fb, ok := toFloat(b)
		return ok && fa == fb
	}
	return a == b
}

// canonicalKey returns a key equal for jsonEqual values (numbers by value,
// object members sorted).
func canonicalKey(v any) string {
	if i, ok := toInt64(v); ok {
		return strconv.FormatInt(i, 10)
	}
	if f, ok := toFloat(v); ok {
		if f == math.Trunc(f) && math.Abs(f) < 1<<63 {
			return strconv.FormatInt(int64(f), 10)
		}
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	return jsonText(v)
}

// integerValue returns v as an integer if it is one (an integral float
// included).
func integerValue(v any) (int64, bool) {
	switch n := v.(type) {
	case int64:
		return n, true
	case float64:
		if n == float64(int64(n)) {
			return int64(n), true
		}
	}
	return 0, false
}

// sortedKeys returns an object's keys in order, for deterministic errors.
func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
