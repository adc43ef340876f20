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

func TestResultFieldOutput(t *testing.T) {
	payload := map[string]any{"k": "v"}
	for name, tc := range map[string]struct {
		fields string
		ok     bool
	}{
		"the Payload alone":             {`,"OutputPath":"$.Payload"`, true},
		"ResultPath $ said":             {`,"ResultPath":"$","OutputPath":"$.Payload"`, true},
		"another field":                 {`,"OutputPath":"$.StatusCode"`, false},
		"the whole result":              {``, false},
		"a field of the Payload":        {`,"OutputPath":"$.Payload.k"`, false},
		"a ResultSelector":              {`,"ResultSelector":{"p.$":"$.Payload"},"OutputPath":"$.p"`, false},
		"the result under the input":    {`,"ResultPath":"$.r","OutputPath":"$.Payload"`, false},
		"the result discarded":          {`,"ResultPath":null,"OutputPath":"$.Payload"`, false},
		"no output":                     {`,"OutputPath":null`, false},
		"from the context object":       {`,"OutputPath":"$$.Execution.Id"`, false},
		"an indefinite path":            {`,"OutputPath":"$..Payload"`, false},
		"an index":                      {`,"OutputPath":"$[0]"`, false},
		"the Payload, a ResultSelector": {`,"ResultSelector":{"Payload.$":"$.Payload"},"OutputPath":"$.Payload"`, false},
	} {
		t.Run(name, func(t *testing.T) {
			st := taskState(t, `,"End":true`+tc.fields)
			out, ok := st.ResultFieldOutput("Payload", payload, 4096)
			require.Equal(t, tc.ok, ok)
			if ok {
				want, err := st.TaskOutput(nil, map[string]any{"Payload": payload, "StatusCode": int64(200)}, nil, nil)
				require.NoError(t, err)
				assert.Equal(t, want, out, "what TaskOutput makes of the whole result")
			}
		})
	}
	st := taskState(t, `,"End":true,"OutputPath":"$.Payload"`)
	near := strings.Repeat("x", MaxPayloadBytes-4000)
	_, ok := st.ResultFieldOutput("Payload", near, 4096)
	assert.False(t, ok, "a Payload that may come near the quota with the rest: TaskOutput decides")
	_, ok = st.ResultFieldOutput("Payload", near, 1024)
	assert.True(t, ok)
}
