package asl

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/ohler55/ojg/oj"
	"github.com/stretchr/testify/assert"
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
	`1e309`, `-1e400`, `1e-400`, `[1e400]`, `{"n":1e999}`, `1e1023`, `1e99999`, `0e0`, `[0E+1]`, `-0e-1`, `{"z":0e5}`,
	`[1e400,}`, `1e400 x`, `[1e400`, `[1.5, -2.25e-3, 7E2]`, `{"a":[0.1,{"b":1e2}]}`,
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

		// What encoding/json makes of it, numbers as ojg converts them,
		// and its error.
		if !json.Valid(text) {
			var probe any
			require.EqualError(t, err, "asl: not valid JSON: "+json.Unmarshal(text, &probe).Error(), "%q decoded as %#v", text, got)
			require.ErrorIs(t, err, errNotJSON)
			return
		}
		var want any
		dec := json.NewDecoder(bytes.NewReader(text))
		dec.UseNumber()
		require.NoError(t, dec.Decode(&want))
		if converted, rangeErr := ojgNumbers(want); rangeErr != nil {
			require.EqualError(t, err, "asl: not valid JSON: a number is out of the range of a 64-bit float", "%q decoded as %#v", text, got)
		} else {
			require.NoError(t, err, "%q", text)
			require.Equal(t, converted, got, "%q", text)
		}

		// Without \u escapes and invalid UTF-8, where ojg decoded strings
		// as encoding/json does, what the last DecodeJSON made of it (ojg's
		// parser, after encoding/json's check) is what it makes of it now.
		if utf8.Valid(text) && !bytes.Contains(text, []byte(`\u`)) {
			old, oldErr := ojParse(text)
			if oldErr == nil {
				_, oldErr = ojgNumbers(old)
			}
			if oldErr == nil {
				require.NoError(t, err, "%q", text)
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
// them with UseNumber, with what ojg's parser makes of each (a float64
// for one it refuses), and fails for one that is infinite as a float64
// (ojg's own or so converted).
func ojgNumbers(v any) (any, error) {
	switch x := v.(type) {
	case float64: // ojg's own
		if math.IsInf(x, 0) {
			return nil, errInfinite
		}
	case json.Number:
		n, err := ojParse([]byte(x))
		if err != nil { // 0e1: a float64
			f, _ := strconv.ParseFloat(string(x), 64)
			return f, nil
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

// TestDecodeJSONConcurrently decodes documents on many goroutines at once,
// which share the pool of decoders and their tables of strings, and
// expects each decoded as it is alone.
func TestDecodeJSONConcurrently(t *testing.T) {
	var docs [][]byte
	var want []any
	for i := range 64 {
		doc := fmt.Appendf(nil, `{"n":%d,"name":"doc-%d","tags":["t%d","shared"],"nested":{"k%d":%d.5}}`, i, i, i%7, i%5, i)
		v, err := DecodeJSON(doc)
		require.NoError(t, err)
		docs, want = append(docs, doc), append(want, v)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for r := range 200 {
				i := (g*31 + r) % len(docs)
				v, err := DecodeJSON(docs[i])
				if assert.NoError(t, err) {
					assert.Equal(t, want[i], v)
				}
			}
		})
	}
	wg.Wait()
}
