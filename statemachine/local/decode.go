package local

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/ohler55/ojg/oj"
)

// errNotJSON is returned by decodeJSON for text that is not one JSON value.
var errNotJSON = errors.New("local: not valid JSON")

// decodeJSON parses one JSON value into generic data (map[string]any,
// []any, int64, float64, json.Number, string, bool, nil). The text is
// checked with encoding/json first: ojg's parser can panic on some
// malformed input, and no input may crash the executor.
func decodeJSON(text []byte) (v any, err error) {
	if !json.Valid(text) {
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
	return oj.Parse(text)
}
