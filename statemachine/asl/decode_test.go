package asl

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ohler55/ojg/oj"
	"github.com/stretchr/testify/require"
)

// decodeCases are texts DecodeJSON must decode as encoding/json and ojg
// do (see FuzzDecodeJSON), valid and not.
var decodeCases = []string{
	`{}`, `[]`, `""`, `null`, `true`, `false`, ` 1 `, "\t\r\n[ ]\n", `{"a":1,"a":2}`,
	`{"message":{"body":"{\"tenant\":{\"id\":\"acme\"}}","attributes":{"K":"v"}},"tries":1,"history":[{"at":"2026-05-03T22:00:00.5Z"}],"next":"DONE"}`,
	`0`, `-0`, `7`, `-7`, `255`, `256`, `123456789012345678`, `-123456789012345678`, `999999999999999999`,
	`1234567890123456789`, `9223372036854775807`, `9223372036854775808`, `-9223372036854775808`, `12345678901234567890123`,
	`1.0`, `1.5`, `-0.0`, `0.1`, `1e5`, `1E+5`, `1e-5`, `2.5e3`, `1.0e0`, `0.1234567890123456789`, `1e308`, `1.7976931348623157e308`,
	`1e309`, `-1e400`, `1e-400`, `[1e400]`, `{"n":1e999}`, `1e1023`, `1e99999`,
	`"plain"`, `"é"`, `"😀"`, `"\"\\\/\b\f\n\r\t"`, `"\u0041\u00e9"`, `"\ud83d\ude00"`, `"\ud83d"`, `"\ude00"`, `"\ud83d\u0041"`,
	`"\ud83dx"`, `"\ud83d\ud83d\ude00"`, "\"\xff\"", "\"a\xc3\"", "\"\xed\xa0\x80\"", `"\u00"`, `"\x"`, `"\`, `"a`, "\"\x01\"", "\"\x7f\"",
	`{"k\u00e9y":[true,false,null]}`, `{"a":{"b":{"c":[[],{}]}}}`,
	``, ` `, `{`, `}`, `[1,]`, `{"a":1,}`, `{"a"}`, `{"a":}`, `{a:1}`, `[1 2]`, `01`, `-`, `-a`, `1.`, `.5`, `1e`, `1e+`, `+1`,
	`tru`, `nul`, `falsey`, `truex`, `{} {}`, `[]]`, "\xef\xbb\xbf{}", `NaN`, `Infinity`, `'a'`,
}

func FuzzDecodeJSON(f *testing.F) {
	for _, s := range decodeCases {
		f.Add([]byte(s))
	}
	f.Add([]byte(strings.Repeat("[", maxDepth) + strings.Repeat("]", maxDepth)))
	f.Add([]byte(strings.Repeat("[", maxDepth+1) + strings.Repeat("]", maxDepth+1)))
	f.Add([]byte(strings.Repeat(`{"a":`, maxDepth+1) + "1" + strings.Repeat("}", maxDepth+1)))
	f.Fuzz(func(t *testing.T, text []byte) {
		got, err := DecodeJSON(text)

		// What encoding/json makes of it, numbers as ojg converts them.
		var want any
		wantErr := errors.New("not JSON")
		if json.Valid(text) {
			dec := json.NewDecoder(bytes.NewReader(text))
			dec.UseNumber()
			require.NoError(t, dec.Decode(&want))
			want, wantErr = ojgNumbers(want)
		}
		if wantErr != nil {
			require.Error(t, err, "%q is not JSON (%v), decoded as %#v", text, wantErr, got)
			require.ErrorIs(t, err, errNotJSON)
		} else {
			require.NoError(t, err, "%q", text)
			require.Equal(t, want, got, "%q", text)
		}

		// Without \u escapes and invalid UTF-8, where ojg decoded strings
		// as encoding/json does, it is what the last DecodeJSON made of
		// it: ojg's parser, after encoding/json's check.
		if utf8.Valid(text) && !bytes.Contains(text, []byte(`\u`)) && json.Valid(text) {
			old, oldErr := ojParse(text)
			if oldErr == nil {
				if _, err := ojgNumbers(old); err != nil {
					oldErr = err
				}
			}
			require.Equal(t, oldErr == nil, err == nil, "%q: ojg says %v", text, oldErr)
			if oldErr == nil {
				require.Equal(t, old, got, "%q", text)
			}
		}
	})
}

// ojParse is ojg's parser, a panic an error.
func ojParse(text []byte) (v any, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("ojg panicked: %v", r)
		}
	}()
	return oj.Parse(text)
}

// ojgNumbers replaces the json.Numbers of v, as encoding/json decodes
// them with UseNumber, with what ojg's parser makes of each, and fails
// for one that is infinite as a float64 (ojg's own or so converted).
func ojgNumbers(v any) (any, error) {
	switch x := v.(type) {
	case float64: // ojg's own
		if math.IsInf(x, 0) {
			return nil, errInfinite
		}
	case json.Number:
		n, err := ojParse([]byte(x))
		if err != nil {
			return nil, err
		}
		if f, ok := n.(float64); ok && (math.IsInf(f, 0) || math.IsNaN(f)) {
			return nil, errInfinite
		}
		return n, nil
	case []any:
		for i := range x {
			n, err := ojgNumbers(x[i])
			if err != nil {
				return nil, err
			}
			x[i] = n
		}
	case map[string]any:
		for k := range x {
			n, err := ojgNumbers(x[k])
			if err != nil {
				return nil, err
			}
			x[k] = n
		}
	}
	return v, nil
}
