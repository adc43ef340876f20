package asl

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestJSONSize(t *testing.T) {
	values := []string{`{}`, `[]`, `null`, `true`, `false`, `-12`, `1.5e300`, `0.1`, `"a\"b\\c\nd\u0001é😀"`,
		`{"a":[1,2,{"b":null}],"c":"d","e":{"f":[]}}`, `123456789012345678901234567890`}
	for _, s := range values {
		t.Run(s, func(t *testing.T) {
			v, err := DecodeJSON([]byte(s))
			require.NoError(t, err)
			b, err := json.Marshal(v)
			require.NoError(t, err)
			assert.Equal(t, len(b), jsonSize(v, MaxPayloadBytes, stringSize), "size of %s (%s)", s, b)
		})
	}
}

// overLimit bounds strings by their length first, then measures exactly
// what may be near the limit.
func TestOverLimit(t *testing.T) {
	for _, tc := range []struct {
		v    any
		want bool
	}{
		{strings.Repeat("a", MaxPayloadBytes-2), false}, // exactly the limit
		{strings.Repeat("a", MaxPayloadBytes-1), true},
		{strings.Repeat("\x01", MaxPayloadBytes/6+1), true}, // \u0001 each
		{strings.Repeat("\x01", (MaxPayloadBytes-2)/6), false},
		{map[string]any{"k": strings.Repeat("é", 1000)}, false},
	} {
		assert.Equal(t, tc.want, overLimit(tc.v), "size %d", jsonSize(tc.v, MaxPayloadBytes, stringSize))
	}
}
