package asl

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// choiceInput is the input of the comparison tests; the Path operators
// compare against its "other" members.
const choiceInput = `{
	"s": "MyStringB",
	"n": 22,
	"f": 22.5,
	"big": 9007199254740993,
	"maxint": 9223372036854775807,
	"t": "2001-01-01T12:00:00Z",
	"toff": "2001-01-01T13:00:00+01:00",
	"tfrac": "2001-01-01T12:00:00.5Z",
	"b": true,
	"nul": null,
	"obj": {"a": 1},
	"arr": [1],
	"other": {"s": "MyStringA", "n": 22.0, "t": "2001-01-01T11:00:00Z", "b": true, "str22": "22"}
}`

// matchRule compiles a nested rule from JSON and evaluates it on input.
func matchRule(tb testing.TB, rule string, input any) (bool, error) {
	tb.Helper()
	r, err := compileChoiceRule(jsonOf(tb, rule).(map[string]any), "Choices[0]", false)
	require.NoError(tb, err, "rule %s", rule)
	return r.match(input, jsonOf(tb, `{"State": {"RetryCount": 1}}`))
}

func TestChoiceComparisons(t *testing.T) {
	input := jsonOf(t, choiceInput)
	tests := []struct {
		variable, op string
		operand      any
		want         bool
	}{
		{"$.s", "StringEquals", "MyStringB", true},
		{"$.s", "StringEquals", "mystringb", false},
		{"$.s", "StringLessThan", "MyStringC", true},
		{"$.s", "StringLessThan", "MyStringB", false},
		{"$.s", "StringGreaterThan", "MyStringABC", true},
		{"$.s", "StringGreaterThan", "MyStringB", false},
		{"$.s", "StringLessThanEquals", "MyStringB", true},
		{"$.s", "StringLessThanEquals", "MyStringA", false},
		{"$.s", "StringGreaterThanEquals", "MyStringB", true},
		{"$.s", "StringGreaterThanEquals", "MyStringC", false},
		{"$.n", "NumericEquals", 22, true},
		{"$.n", "NumericEquals", 22.0, true},
		{"$.f", "NumericEquals", 22, false},
		{"$.n", "NumericLessThan", 22.5, true},
		{"$.n", "NumericLessThan", 22, false},
		{"$.f", "NumericGreaterThan", 22, true},
		{"$.n", "NumericGreaterThan", 22, false},
		{"$.n", "NumericLessThanEquals", 22, true},
		{"$.f", "NumericLessThanEquals", 22, false},
		{"$.n", "NumericGreaterThanEquals", 20, true},
		{"$.n", "NumericGreaterThanEquals", 30, false},
		{"$.big", "NumericEquals", 9007199254740992, false}, // exact for integers
		{"$.maxint", "NumericEquals", int64(9223372036854775807), true},
		{"$.maxint", "NumericGreaterThan", int64(9223372036854775806), true},
		{"$.maxint", "IsNumeric", true, true},
		{"$.b", "BooleanEquals", true, true},
		{"$.b", "BooleanEquals", false, false},
		{"$.t", "TimestampEquals", "2001-01-01T12:00:00Z", true},
		{"$.toff", "TimestampEquals", "2001-01-01T12:00:00Z", true},
		{"$.tfrac", "TimestampEquals", "2001-01-01T12:00:00Z", false},
		{"$.t", "TimestampLessThan", "2001-01-01T12:00:00.001Z", true},
		{"$.t", "TimestampLessThan", "2001-01-01T12:00:00Z", false},
		{"$.t", "TimestampGreaterThan", "2000-12-31T23:59:59Z", true},
		{"$.t", "TimestampGreaterThan", "2001-01-01T12:00:00Z", false},
		{"$.t", "TimestampLessThanEquals", "2001-01-01T12:00:00Z", true},
		{"$.tfrac", "TimestampLessThanEquals", "2001-01-01T12:00:00Z", false},
		{"$.t", "TimestampGreaterThanEquals", "2001-01-01T12:00:00Z", true},
		{"$.t", "TimestampGreaterThanEquals", "2001-01-01T12:00:01Z", false},
		// Path forms compare with the value another path selects.
		{"$.s", "StringEqualsPath", "$.other.s", false},
		{"$.s", "StringGreaterThanPath", "$.other.s", true},
		{"$.s", "StringLessThanPath", "$.other.s", false},
		{"$.s", "StringGreaterThanEqualsPath", "$.other.s", true},
		{"$.s", "StringLessThanEqualsPath", "$.other.s", false},
		{"$.n", "NumericEqualsPath", "$.other.n", true},
		{"$.n", "NumericLessThanPath", "$.f", true},
		{"$.f", "NumericGreaterThanPath", "$.n", true},
		{"$.n", "NumericLessThanEqualsPath", "$.other.n", true},
		{"$.n", "NumericGreaterThanEqualsPath", "$.f", false},
		{"$.n", "NumericEqualsPath", "$$.State.RetryCount", false},
		{"$.b", "BooleanEqualsPath", "$.other.b", true},
		{"$.t", "TimestampEqualsPath", "$.toff", true},
		{"$.t", "TimestampGreaterThanPath", "$.other.t", true},
		{"$.t", "TimestampLessThanPath", "$.other.t", false},
		{"$.t", "TimestampGreaterThanEqualsPath", "$.toff", true},
		{"$.t", "TimestampLessThanEqualsPath", "$.other.t", false},
		// A value of another type never matches.
		{"$.n", "StringEquals", "22", false},
		{"$.other.str22", "NumericEquals", 22, false},
		{"$.s", "BooleanEquals", true, false},
		{"$.s", "TimestampEquals", "2001-01-01T12:00:00Z", false},
		{"$.n", "StringEqualsPath", "$.other.str22", false},
		{"$.other.str22", "NumericEqualsPath", "$.n", false},
		{"$.nul", "StringEquals", "null", false},
		{"$.obj", "NumericEquals", 1, false},
		// Timestamps are logically strings (AWS).
		{"$.t", "StringEquals", "2001-01-01T12:00:00Z", true},
		// Type tests.
		{"$.s", "IsPresent", true, true},
		{"$.missing", "IsPresent", true, false},
		{"$.missing", "IsPresent", false, true},
		{"$.nul", "IsPresent", true, true},
		{"$.nul", "IsNull", true, true},
		{"$.s", "IsNull", true, false},
		{"$.s", "IsNull", false, true},
		{"$.n", "IsNumeric", true, true},
		{"$.f", "IsNumeric", true, true},
		{"$.other.str22", "IsNumeric", true, false},
		{"$.s", "IsString", true, true},
		{"$.n", "IsString", true, false},
		{"$.obj", "IsString", false, true},
		{"$.b", "IsBoolean", true, true},
		{"$.s", "IsBoolean", true, false},
		{"$.t", "IsTimestamp", true, true},
		{"$.toff", "IsTimestamp", true, true},
		{"$.s", "IsTimestamp", true, false},
		{"$.n", "IsTimestamp", false, true},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%s %s %v", tc.variable, tc.op, tc.operand), func(t *testing.T) {
			rule := map[string]any{"Variable": tc.variable, tc.op: tc.operand}
			got, err := matchRule(t, jsonText(rule), input)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestChoiceOperatorsAllCovered(t *testing.T) {
	// Every operator the AWS Choice state page lists is known.
	for _, rel := range []string{"Equals", "LessThan", "GreaterThan", "LessThanEquals", "GreaterThanEquals"} {
		for _, typ := range []string{"String", "Numeric", "Timestamp"} {
			assert.Contains(t, choiceOperators, typ+rel)
			assert.Contains(t, choiceOperators, typ+rel+"Path")
		}
	}
	for _, name := range []string{"BooleanEquals", "BooleanEqualsPath", "StringMatches", "IsPresent", "IsNull", "IsNumeric", "IsString", "IsBoolean", "IsTimestamp"} {
		assert.Contains(t, choiceOperators, name)
	}
	assert.Len(t, choiceOperators, 39)
}

func TestChoiceStringMatches(t *testing.T) {
	tests := []struct {
		pattern, value string
		want           bool
	}{
		// Examples of the Amazon States Language specification.
		{"foo*.log", "foo23.log", true},
		{"*.log", "zebra.log", true},
		{"foo*.*", "foobar.zebra", true},
		{"foo*.log", "foo23.txt", false},
		{"*", "", true},
		{"**", "anything", true},
		{"", "", true},
		{"exact", "exact", true},
		{"exact", "exactly", false},
		{"a*b*c", "aXbYc", true},
		{"a*b*c", "abcabc", true},
		{"a*b*c", "acb", false},
		{"ab*ba", "aba", false},
		{`lit\*eral`, "lit*eral", true},
		{`lit\*eral`, "litXeral", false},
		{`back\\slash*`, `back\slash!`, true},
		{"*é*", "café!", true},
	}
	for _, tc := range tests {
		t.Run(tc.pattern+" "+tc.value, func(t *testing.T) {
			rule := map[string]any{"Variable": "$.v", "StringMatches": tc.pattern}
			got, err := matchRule(t, jsonText(rule), map[string]any{"v": tc.value})
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestChoiceStringOrderIsJavas(t *testing.T) {
	// Java compares UTF-16 code units: U+FF61 sorts after U+1F600 (whose
	// lead surrogate is U+D83D), although its code point is smaller.
	assert.Negative(t, compareUTF16("\U0001F600", "\uFF61"))
	assert.Positive(t, compareUTF16("\U0001F601", "\U0001F600"))
	assert.Negative(t, compareUTF16("B", "a"))
	assert.Negative(t, compareUTF16("ab", "abc"))
	assert.Zero(t, compareUTF16("é", "é"))
}

func TestChoiceBooleanLogic(t *testing.T) {
	// The example of the AWS Choice state page: value 22 is in the twenties.
	input := jsonOf(t, `{"type": "Private", "value": 22}`)
	rules := []struct {
		rule string
		want bool
	}{
		{`{"Not": {"Variable": "$.type", "StringEquals": "Private"}}`, false},
		{`{"Variable": "$.value", "NumericEquals": 0}`, false},
		{`{"And": [{"Variable": "$.value", "NumericGreaterThanEquals": 20}, {"Variable": "$.value", "NumericLessThan": 30}]}`, true},
		{`{"And": [{"Variable": "$.value", "NumericGreaterThanEquals": 20}, {"Variable": "$.value", "NumericLessThan": 21}]}`, false},
		{`{"Or": [{"Variable": "$.value", "NumericEquals": 1}, {"Variable": "$.type", "StringEquals": "Private"}]}`, true},
		{`{"Or": [{"Variable": "$.value", "NumericEquals": 1}, {"Variable": "$.type", "StringEquals": "Public"}]}`, false},
		{`{"Not": {"Or": [{"Variable": "$.value", "NumericEquals": 1}, {"Not": {"Variable": "$.type", "IsPresent": true}}]}}`, true},
		// And stops at the first false, Or at the first true: later rules
		// with missing paths are not evaluated.
		{`{"And": [{"Variable": "$.value", "NumericEquals": 0}, {"Variable": "$.missing", "StringEquals": "x"}]}`, false},
		{`{"Or": [{"Variable": "$.value", "NumericEquals": 22}, {"Variable": "$.missing", "StringEquals": "x"}]}`, true},
	}
	for _, tc := range rules {
		t.Run(tc.rule, func(t *testing.T) {
			got, err := matchRule(t, tc.rule, input)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestChoiceMissingPathIsRuntimeError(t *testing.T) {
	input := jsonOf(t, `{"a": 1}`)
	tests := []struct{ rule, path string }{
		{`{"Variable": "$.type", "StringEquals": "x"}`, "$.type"},
		{`{"Variable": "$.type", "IsNull": true}`, "$.type"},
		{`{"Variable": "$.a", "NumericEqualsPath": "$.limit"}`, "$.limit"},
		{`{"Not": {"Variable": "$.type", "IsString": true}}`, "$.type"},
		{`{"And": [{"Variable": "$.a", "NumericEquals": 1}, {"Variable": "$.b", "NumericEquals": 1}]}`, "$.b"},
		{`{"Or": [{"Variable": "$.b", "NumericEquals": 1}, {"Variable": "$.a", "NumericEquals": 1}]}`, "$.b"},
	}
	for _, tc := range tests {
		t.Run(tc.rule, func(t *testing.T) {
			got, err := matchRule(t, tc.rule, input)
			assertStateError(t, err, "States.Runtime",
				"Invalid path '"+tc.path+"': The choice state's condition path references an invalid value.")
			assert.False(t, got)
		})
	}
}

func TestCompileChoiceRuleTopLevel(t *testing.T) {
	r, err := compileChoiceRule(jsonOf(t, `{"Variable": "$.a", "NumericEquals": 1, "Next": "Done", "Comment": "one"}`).(map[string]any), "States.C.Choices[0]", true)
	require.NoError(t, err)
	assert.Equal(t, "Done", r.next)
	ok, err := r.match(jsonOf(t, `{"a": 1}`), nil)
	require.NoError(t, err)
	assert.True(t, ok)
}

func TestCompileChoiceRuleErrors(t *testing.T) {
	tests := []struct {
		name, rule string
		topLevel   bool
		want       string
	}{
		{"top level without Next", `{"Variable": "$.a", "IsNull": true}`, true, `C[0].Next: a top-level Choice Rule must have Next`},
		{"Next not a string", `{"Variable": "$.a", "IsNull": true, "Next": 3}`, true, `C[0].Next: must be a non-empty state name, got 3`},
		{"nested with Next", `{"Not": {"Variable": "$.a", "IsNull": true, "Next": "X"}, "Next": "Y"}`, true, `C[0].Not.Next: only a top-level Choice Rule may have Next`},
		{"no operator", `{"Variable": "$.a"}`, false, `C[0]: a Choice Rule needs a comparison operator, And, Or or Not`},
		{"two operators", `{"Variable": "$.a", "StringEquals": "x", "IsNull": true}`, false, `exactly one of a comparison operator, And, Or or Not; got IsNull, StringEquals`},
		{"operator without Variable", `{"StringEquals": "x"}`, false, `C[0]: StringEquals needs a Variable`},
		{"Variable with And", `{"Variable": "$.a", "And": [{"Variable": "$.a", "IsNull": true}]}`, false, `C[0].Variable: only a comparison has a Variable, not And`},
		{"unknown field", `{"Variable": "$.a", "StringEquals": "x", "Assign": {}}`, false, `C[0]: unknown field "Assign" in a Choice Rule`},
		{"unknown operator", `{"Variable": "$.a", "StringContains": "x"}`, false, `unknown field "StringContains"`},
		{"JSONata condition", `{"Condition": "{% true %}"}`, false, `unknown field "Condition"`},
		{"bad Variable", `{"Variable": "a", "IsNull": true}`, false, `C[0].Variable: invalid path "a"`},
		{"Variable not a string", `{"Variable": 1, "IsNull": true}`, false, `C[0].Variable: must be a path string, got 1`},
		{"string operand", `{"Variable": "$.a", "StringEquals": 1}`, false, `C[0].StringEquals: must be a string, got 1`},
		{"numeric operand", `{"Variable": "$.a", "NumericLessThan": "1"}`, false, `C[0].NumericLessThan: must be a number, got "1"`},
		{"boolean operand", `{"Variable": "$.a", "BooleanEquals": "true"}`, false, `C[0].BooleanEquals: must be true or false`},
		{"Is operand", `{"Variable": "$.a", "IsPresent": 1}`, false, `C[0].IsPresent: must be true or false, got 1`},
		{"timestamp operand", `{"Variable": "$.a", "TimestampEquals": "2001-01-01 12:00:00Z"}`, false, `is not an RFC 3339 timestamp`},
		{"lowercase t", `{"Variable": "$.a", "TimestampEquals": "2001-01-01t12:00:00Z"}`, false, `is not an RFC 3339 timestamp`},
		{"lowercase z", `{"Variable": "$.a", "TimestampEquals": "2001-01-01T12:00:00z"}`, false, `is not an RFC 3339 timestamp`},
		{"path operand", `{"Variable": "$.a", "StringEqualsPath": "b"}`, false, `C[0].StringEqualsPath: invalid path "b"`},
		{"path operand not a string", `{"Variable": "$.a", "NumericEqualsPath": 3}`, false, `C[0].NumericEqualsPath: must be a path string, got 3`},
		{"open escape", `{"Variable": "$.a", "StringMatches": "a\\b"}`, false, `C[0].StringMatches: a backslash must escape`},
		{"trailing escape", `{"Variable": "$.a", "StringMatches": "a\\"}`, false, `a backslash must escape`},
		{"empty And", `{"And": []}`, false, `C[0].And: must be a non-empty array of Choice Rules, got []`},
		{"Or not an array", `{"Or": {}}`, false, `C[0].Or: must be a non-empty array`},
		{"And item not an object", `{"And": [1]}`, false, `C[0].And[0]: must be a Choice Rule object, got 1`},
		{"nested error", `{"Or": [{"Variable": "$.a", "IsNull": true}, {"Not": {"Variable": "$.a"}}]}`, false, `C[0].Or[1].Not: a Choice Rule needs`},
		{"Not not an object", `{"Not": [1]}`, false, `C[0].Not: must be a Choice Rule object`},
		{"Comment not a string", `{"Variable": "$.a", "IsNull": true, "Comment": 1}`, false, `C[0].Comment: must be a string`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := compileChoiceRule(jsonOf(t, tc.rule).(map[string]any), "C[0]", tc.topLevel)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func BenchmarkChoiceMatch(b *testing.B) {
	input := jsonOf(b, `{"next": "WAIT", "cooldown": 900, "until": "2026-01-01T00:15:00Z"}`)
	rules := map[string]string{
		"string":    `{"Variable": "$.next", "StringEquals": "DONE"}`,
		"and":       `{"And": [{"Variable": "$.cooldown", "NumericGreaterThan": 0}, {"Variable": "$.next", "StringEquals": "WAIT"}]}`,
		"timestamp": `{"Variable": "$.until", "TimestampGreaterThan": "2026-01-01T00:00:00Z"}`,
	}
	for name, rule := range rules {
		r, err := compileChoiceRule(jsonOf(b, rule).(map[string]any), "Choices[0]", false)
		require.NoError(b, err)
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := r.match(input, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
