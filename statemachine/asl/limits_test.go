package asl

import (
	"encoding/json"
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
			assert.Equal(t, len(b), jsonSize(v, MaxPayloadBytes), "size of %s (%s)", s, b)
		})
	}
}
