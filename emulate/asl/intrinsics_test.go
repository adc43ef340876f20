package asl

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// intrinsicsInput holds the inputs of the AWS "Intrinsic functions" page's
// examples.
const intrinsicsInput = `{
	"name": "Arnav",
	"template": "Hello, my name is {}.",
	"escapedJsonString": "{\"foo\": \"bar\"}",
	"unescapedJson": {"foo": "bar"},
	"Id": 123456,
	"inputArray": [1, 2, 3, 4, 5, 6, 7, 8, 9],
	"lookingFor": 5,
	"index": 5,
	"dupes": [1, 2, 3, 3, 3, 3, 3, 3, 4],
	"input": "Data to encode",
	"base64": "RGF0YSB0byBlbmNvZGU=",
	"Data": "input data",
	"Algorithm": "SHA-1",
	"json1": {"a": {"a1": 1, "a2": 2}, "b": 2},
	"json2": {"a": {"a3": 1, "a4": 2}, "c": 3},
	"value1": 111,
	"step": -1,
	"inputString": "1,2,3,4,5",
	"splitter": ",",
	"tricky": "This.is+a,test=string",
	"delims": ".+,=",
	"ImageRecipe": {"Arn": "arn:aws:imagebuilder:us-east-1:123456789012:image-recipe/my-recipe.name/1.0.2"},
	"odd,key": "odd",
	"start": 1,
	"end": 999,
	"float": 2.6,
	"huge": 9223372036854775807
}`

// evalIntrinsic evaluates one intrinsic invocation as a Parameters value.
func evalIntrinsic(tb testing.TB, expr string, env Env) (any, error) {
	tb.Helper()
	tmpl, err := compileTemplate(map[string]any{"r.$": expr}, "Parameters")
	require.NoError(tb, err, "compile %s", expr)
	out, err := tmpl.eval(jsonOf(tb, intrinsicsInput), jsonOf(tb, `{"Execution": {"Name": "exec-1"}}`), env)
	if err != nil {
		return nil, err
	}
	return out.(map[string]any)["r"], nil
}

func TestIntrinsics(t *testing.T) {
	tests := []struct {
		expr, want string
	}{
		// The examples of the AWS "Intrinsic functions" page.
		{"States.Format('Hello, my name is {}.', $.name)", `"Hello, my name is Arnav."`},
		{"States.Format($.template, $.name)", `"Hello, my name is Arnav."`},
		{"States.StringToJson($.escapedJsonString)", `{"foo": "bar"}`},
		{"States.JsonToString($.unescapedJson)", `"{\"foo\":\"bar\"}"`},
		{"States.Array($.Id)", `[123456]`},
		{"States.ArrayPartition($.inputArray,4)", `[[1,2,3,4],[5,6,7,8],[9]]`},
		{"States.ArrayContains($.inputArray, $.lookingFor)", `true`},
		{"States.ArrayRange(1, 9, 2)", `[1,3,5,7,9]`},
		{"States.ArrayGetItem($.inputArray, $.index)", `6`},
		{"States.ArrayLength($.inputArray)", `9`},
		{"States.ArrayUnique($.dupes)", `[1,2,3,4]`},
		{"States.Base64Encode($.input)", `"RGF0YSB0byBlbmNvZGU="`},
		{"States.Base64Decode($.base64)", `"Data to encode"`},
		{"States.Hash($.Data, $.Algorithm)", `"aaff4a450a104cd177d28d18d74485e8cae074b7"`},
		{"States.JsonMerge($.json1, $.json2, false)", `{"a": {"a3": 1, "a4": 2}, "b": 2, "c": 3}`},
		{"States.MathAdd($.value1, $.step)", `110`},
		{"States.StringSplit($.inputString, $.splitter)", `["1","2","3","4","5"]`},
		{"States.StringSplit($.tricky, $.delims)", `["This","is","a","test","string"]`},
		// The page's nine-level nesting example (its template has one "{}"
		// too many for its two values, which would fail to load).
		{"States.Format('{}.{}', States.ArrayGetItem(States.StringSplit(States.ArrayGetItem(States.StringSplit($.ImageRecipe.Arn, '/'), 2), '.'), 0), " +
			"States.ArrayGetItem(States.StringSplit(States.ArrayGetItem(States.StringSplit($.ImageRecipe.Arn, '/'), 2), '.'), 1))", `"1.0"`},
		// Escapes of reserved characters.
		{`States.Format('It\'s {} \{not a placeholder\} \\ done', $.name)`, `"It's Arnav {not a placeholder} \\ done"`},
		{`States.Format('\{}{}', 'x')`, `"{}x"`},
		{`States.Array('{}')`, `["{}"]`},
		// Argument kinds.
		{"States.Array('a', 1, -2, 2.5, 1e3, true, false, null, $.Id, $$.Execution.Name)", `["a",1,-2,2.5,1000,true,false,null,123456,"exec-1"]`},
		{"States.Array()", `[]`},
		{"States.Array( $['odd,key'] ,$.inputArray[?(@ > 8)] )", `["odd",[9]]`},
		{"States.Format('{} {} {} {} {}', 1, 2.5, true, null, 'x')", `"1 2.5 true null x"`},
		// Objects and arrays print the way Java prints maps and lists.
		{"States.Format('{} {}', $.json1, States.Array('a', 1, null, States.Array()))", `"{a={a1=1, a2=2}, b=2} [a, 1, null, []]"`},
		{"States.JsonToString($.json1)", `"{\"a\":{\"a1\":1,\"a2\":2},\"b\":2}"`},
		{"States.JsonToString(States.Array(1, 'a<b'))", `"[1,\"a<b\"]"`},
		{"States.StringToJson('[1, {\"a\": null}]')", `[1, {"a": null}]`},
		// Arrays.
		{"States.ArrayPartition($.inputArray, 9)", `[[1,2,3,4,5,6,7,8,9]]`},
		{"States.ArrayPartition($.inputArray, 20)", `[[1,2,3,4,5,6,7,8,9]]`},
		{"States.ArrayPartition(States.Array(), 2)", `[]`},
		{"States.ArrayContains($.inputArray, 10)", `false`},
		{"States.ArrayContains(States.Array($.json1), $.json1)", `true`},
		{"States.ArrayContains($.inputArray, 5.0)", `true`},
		{"States.ArrayRange(9, 1, -3)", `[9,6,3]`},
		{"States.ArrayRange(1, 1, 5)", `[1]`},
		{"States.ArrayRange(5, 1, 1)", `[]`},
		{"States.ArrayRange(0, 999, 1)", `[` + strings.TrimSuffix(strings.Repeat("x,", 1000), ",") + `]`},
		{"States.ArrayGetItem($.inputArray, 0)", `1`},
		{"States.ArrayLength(States.Array())", `0`},
		{"States.ArrayUnique(States.Array(1, 1.0, 'a', 'a', $.json1, $.json1, null, null))", `[1,"a",{"a":{"a1":1,"a2":2},"b":2},null]`},
		{"States.ArrayUnique(States.Array(9007199254740993, 9007199254740992, 2.5, 2.5))", `[9007199254740993,9007199254740992,2.5]`},
		{"States.ArrayContains(States.Array(9007199254740993), 9007199254740992)", `false`},
		// Math: non-integers are rounded, as AWS documents.
		{"States.MathAdd(1, 2)", `3`},
		{"States.MathAdd($.float, 0)", `3`},
		{"States.MathAdd(-5, 2.4)", `-3`},
		{"States.MathRandom(5, 6)", `5`},
		// Hashes.
		{"States.Hash('input data', 'MD5')", `"812f45842bc6d66ee14572ce20db8e86"`},
		{"States.Hash('input data', 'SHA-256')", `"b4a697a057313163aee33cd8d40c66e9f0f177e00cac2de32475ffff6169c3e3"`},
		{"States.Hash('', 'SHA-384')", `"38b060a751ac96384cd9327eb1b1e36a21fdb71114be07434c0cc7bf63f6e1da274edebfe76f65fbd51ad2f14898b95b"`},
		{"States.Hash('', 'SHA-512')", `"cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e"`},
		{"States.Base64Encode('')", `""`},
		{"States.StringSplit('', ',')", `[]`},
		{"States.StringSplit(',,a,,b,', ',')", `["a","b"]`},
		{"States.JsonMerge($.json1, States.StringToJson('{}'), false)", `{"a": {"a1": 1, "a2": 2}, "b": 2}`},
	}
	for _, tc := range tests {
		t.Run(tc.expr, func(t *testing.T) {
			got, err := evalIntrinsic(t, tc.expr, nil)
			require.NoError(t, err)
			if strings.Contains(tc.want, "x,") { // ArrayRange(0, 999, 1)
				arr := got.([]any)
				require.Len(t, arr, 1000)
				for i, v := range arr {
					assert.Equal(t, int64(i), v)
				}
				return
			}
			assert.JSONEq(t, tc.want, jsonText(got))
		})
	}
}

// fixedEnv is an Env whose UUID is uuid and whose Int64N(n) is n-1,
// recording n.
type fixedEnv struct {
	uuid  string
	asked int64
}

func (e *fixedEnv) UUID() string { return e.uuid }

func (e *fixedEnv) Int64N(n int64) int64 { e.asked = n; return n - 1 }

func TestIntrinsicRandomness(t *testing.T) {
	t.Run("UUID from the environment", func(t *testing.T) {
		env := &fixedEnv{uuid: "00000000-0000-4000-8000-000000000001"}
		got, err := evalIntrinsic(t, "States.UUID()", env)
		require.NoError(t, err)
		assert.Equal(t, "00000000-0000-4000-8000-000000000001", got)
	})
	t.Run("UUID without an environment is a random v4", func(t *testing.T) {
		v4 := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
		a, err := evalIntrinsic(t, "States.UUID()", nil)
		require.NoError(t, err)
		b, err := evalIntrinsic(t, "States.UUID()", nil)
		require.NoError(t, err)
		assert.Regexp(t, v4, a)
		assert.Regexp(t, v4, b)
		assert.NotEqual(t, a, b)
	})
	t.Run("MathRandom uses the environment", func(t *testing.T) {
		env := &fixedEnv{}
		got, err := evalIntrinsic(t, "States.MathRandom($.start, $.end)", env)
		require.NoError(t, err)
		assert.Equal(t, int64(998), env.asked)
		assert.Equal(t, int64(998), got)
	})
	t.Run("MathRandom with a seed is deterministic and in range", func(t *testing.T) {
		first, err := evalIntrinsic(t, "States.MathRandom(1, 1000000, 7)", nil)
		require.NoError(t, err)
		seen := map[any]bool{}
		for seed := range 20 {
			v, err := evalIntrinsic(t, fmt.Sprintf("States.MathRandom(1, 1000000, %d)", seed), nil)
			require.NoError(t, err)
			n := v.(int64)
			assert.GreaterOrEqual(t, n, int64(1))
			assert.Less(t, n, int64(1000000))
			seen[v] = true
		}
		again, err := evalIntrinsic(t, "States.MathRandom(1, 1000000, 7)", nil)
		require.NoError(t, err)
		assert.Equal(t, first, again)
		assert.Greater(t, len(seen), 15, "different seeds give different numbers")
	})
}

func TestIntrinsicFailures(t *testing.T) {
	tests := []struct{ expr, cause string }{
		{"States.Format($.template)", "Invalid arguments in States.Format: the template has 1 '{}' placeholders but 0 values follow it"},
		{"States.Format($.Id)", "the template (argument 1) must be a string, got 123456"},
		{"States.StringToJson($.name)", "Invalid arguments in States.StringToJson: argument 1 is not a JSON text"},
		{"States.StringToJson('')", "argument 1 is not a JSON text"},
		{`States.StringToJson('{"":{"":},"":""0')`, "argument 1 is not a JSON text"}, // made the JSON parser panic
		{"States.StringToJson('1e400')", "argument 1 is not a JSON text"},            // no finite JSON form
		{"States.StringToJson($.Id)", "argument 1 must be a string, got 123456"},
		{"States.ArrayPartition($.inputArray, 0)", "the chunk size (argument 2) must be a positive integer, got 0"},
		{"States.ArrayPartition($.name, 2)", `argument 1 must be an array, got "Arnav"`},
		{"States.ArrayPartition($.inputArray, 'a')", `argument 2 must be an integer, got "a"`},
		{"States.ArrayContains($.json1, 1)", "argument 1 must be an array"},
		{"States.ArrayRange(1, 5, 0)", "the step (argument 3) must not be 0"},
		{"States.ArrayRange(0, 1000, 1)", "the range has 1001 items; at most 1000 are allowed"},
		{"States.ArrayRange(1, true, 1)", "argument 2 must be an integer, got true"},
		{"States.ArrayGetItem($.inputArray, 9)", "index 9 is out of bounds for an array of length 9"},
		{"States.ArrayGetItem($.inputArray, -1)", "index -1 is out of bounds"},
		{"States.ArrayLength($.json1)", "argument 1 must be an array"},
		{"States.ArrayUnique(null)", "argument 1 must be an array, got null"},
		{"States.Base64Encode($.Id)", "argument 1 must be a string"},
		{"States.Base64Decode('not base64!')", "argument 1 is not base64"},
		{"States.Hash($.Data, 'SHA-3')", `unsupported algorithm "SHA-3"`},
		{"States.Hash($.json1, 'MD5')", "argument 1 must be a string"},
		{"States.JsonMerge($.json1, $.json2, true)", "argument 3 must be false (only shallow merging is supported), got true"},
		{"States.JsonMerge($.json1, $.inputArray, false)", "argument 2 must be an object"},
		{"States.MathRandom(5, 5)", "the end (argument 2) must be greater than the start, got 5 and 5"},
		{"States.MathRandom(1, 5, 'seed')", "argument 3 must be an integer"},
		{"States.MathAdd($.huge, 1)", "9223372036854775807 + 1 overflows"},
		{"States.MathAdd($.name, 1)", `argument 1 must be an integer, got "Arnav"`},
		{"States.MathAdd(1e300, 1)", "argument 1 is out of the integer range"},
		{"States.StringSplit($.inputArray, ',')", "argument 1 must be a string"},
		{"States.StringSplit('a', 1)", "argument 2 must be a string"},
	}
	for _, tc := range tests {
		t.Run(tc.expr, func(t *testing.T) {
			_, err := evalIntrinsic(t, tc.expr, nil)
			assertStateError(t, err, "States.Runtime", tc.cause)
		})
	}
}

func TestIntrinsicLengthLimits(t *testing.T) {
	long := strings.Repeat("é", maxIntrinsicChars+1)
	ok := strings.Repeat("é", maxIntrinsicChars)
	for _, fn := range []string{"States.Base64Encode('%s')", "States.Hash('%s', 'MD5')"} {
		t.Run(fn, func(t *testing.T) {
			_, err := evalIntrinsic(t, fmt.Sprintf(fn, ok), nil)
			require.NoError(t, err)
			_, err = evalIntrinsic(t, fmt.Sprintf(fn, long), nil)
			assertStateError(t, err, "States.Runtime", "argument 1 has 10001 characters; at most 10000 are allowed")
		})
	}
}

func TestIntrinsicPathArgumentMissing(t *testing.T) {
	_, err := evalIntrinsic(t, "States.Array($.nope)", nil)
	assertStateError(t, err, "States.Runtime", "The JSONPath '$.nope' specified for the field 'r.$' could not be found in the input")
}

func TestCompileIntrinsicErrors(t *testing.T) {
	nested := "$.Id"
	for range maxIntrinsicNesting {
		nested = "States.Array(" + nested + ")"
	}
	tests := []struct{ expr, want string }{
		{"States.Nope()", `unknown intrinsic function "States.Nope"`},
		{"States.Format", "expected '(' after States.Format"},
		{"States.Array($.a", "missing ')' to close States.Array"},
		{"States.Array($.a) extra", `unexpected "extra" after the invocation`},
		{"States.Array($.a; $.b)", `unexpected '$' in the arguments of States.Array`},
		{"States.Array(1 2)", `unexpected '2' in the arguments of States.Array`},
		{"States.Array(,)", `invalid argument starting at ",)"`},
		{"States.Array(1,)", `invalid argument starting at ")"`},
		{"States.Array(truey)", `invalid argument starting at "truey)"`},
		{"States.Array(1.2.3)", `invalid number "1.2.3"`},
		{"States.Array('abc)", "unterminated string literal 'abc)"},
		{`States.Array('a\nb')`, `open escape backslash in string literal 'a\nb')`},
		{"States.Array(\"double\")", `invalid argument starting at "\"double\")"`},
		{"States.UUID(1)", "States.UUID takes 0 arguments, got 1"},
		{"States.ArrayLength()", "States.ArrayLength takes 1 argument, got 0"},
		{"States.MathRandom(1)", "States.MathRandom takes 2 to 3 arguments, got 1"},
		{"States.Format()", "States.Format takes at least 1 arguments, got 0"},
		{"States.Format('{} and {}', $.a)", "States.Format: the template has 2 '{}' placeholders but 1 values follow it"},
		{"States.Format('none', $.a)", "the template has 0 '{}' placeholders but 1 values follow it"},
		{"States.Format(42)", "the template (argument 1) must be a string, got 42"},
		{"States.JsonToString('{}')", "States.JsonToString: the argument must be a path"},
		{"States.Array(" + nested + ")", "more than 10 nested intrinsic functions"},
	}
	for _, tc := range tests {
		t.Run(tc.expr, func(t *testing.T) {
			_, err := compileIntrinsic(tc.expr, "r.$")
			require.Error(t, err)
			assert.Contains(t, err.Error(), "invalid intrinsic function")
			assert.Contains(t, err.Error(), tc.want)
		})
	}
	t.Run("ten levels are allowed", func(t *testing.T) {
		_, err := compileIntrinsic(nested, "r.$")
		assert.NoError(t, err)
	})
}

func BenchmarkIntrinsicFormat(b *testing.B) {
	tmpl, err := compileTemplate(map[string]any{"r.$": "States.Format('{}#{}', $.name, $.Id)"}, "Parameters")
	require.NoError(b, err)
	input := jsonOf(b, intrinsicsInput)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := tmpl.eval(input, nil, nil); err != nil {
			b.Fatal(err)
		}
	}
}
