package asl

import (
	"testing"

	"github.com/ohler55/ojg/oj"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// jsonOf parses a JSON text the way the executor does.
func jsonOf(tb testing.TB, s string) any {
	tb.Helper()
	v, err := oj.ParseString(s)
	require.NoError(tb, err, "test JSON %s", s)
	return v
}

// assertStateError checks that err is a *Error with name and a cause
// containing cause.
func assertStateError(tb testing.TB, err error, name, cause string) {
	tb.Helper()
	var se *Error
	require.ErrorAs(tb, err, &se)
	assert.Equal(tb, name, se.Name)
	assert.Contains(tb, se.Cause, cause)
}

const pathsInput = `{
	"foo": 123,
	"bar": ["a", "b", "c"],
	"car": {"cdr": true},
	"error-info": {"Error": "E"},
	"odd key": {"it's": 1},
	"n": null,
	"items": [{"id": 1, "ok": true}, {"id": 2, "ok": false}, {"id": 3, "ok": true}]
}`

const pathsContext = `{"Execution": {"Id": "arn:exec", "Input": {"k": "v"}}, "State": {"Name": "S", "RetryCount": 0}}`

func TestPathGet(t *testing.T) {
	input := jsonOf(t, pathsInput)
	ctxObj := jsonOf(t, pathsContext)
	tests := []struct {
		path string
		want string
	}{
		// Reference path examples from the AWS "Paths" page.
		{"$.foo", `123`},
		{"$.bar", `["a", "b", "c"]`},
		{"$.car.cdr", `true`},
		{"$", pathsInput},
		{"$.bar[0]", `"a"`},
		{"$.bar[-1]", `"c"`},
		{"$['car']['cdr']", `true`},
		{`$["car"].cdr`, `true`},
		{"$[ 'bar' ][ 1 ]", `"b"`},
		{"$.error-info.Error", `"E"`},
		{`$['odd key']['it\'s']`, `1`},
		{"$.n", `null`},
		{"$$", pathsContext},
		{"$$.Execution.Id", `"arn:exec"`},
		{"$$.Execution.Input.k", `"v"`},
		{"$$.State.RetryCount", `0`},
		// Non-reference paths yield arrays of matches, as JsonPath does.
		{"$.bar[*]", `["a", "b", "c"]`},
		{"$.items[*].id", `[1, 2, 3]`},
		{"$.items[0:2].id", `[1, 2]`},
		{"$.items[0,2].id", `[1, 3]`},
		{"$.items[?(@.ok == true)].id", `[1, 3]`},
		{"$..cdr", `[true]`},
		{"$.missing[*]", `[]`},
		{"$.car.*", `[true]`},
		{"$..id", `[1, 2, 3]`},
		{"$.*", `[["a", "b", "c"], {"cdr": true}, {"Error": "E"}, 123, [{"id": 1, "ok": true}, {"id": 2, "ok": false}, {"id": 3, "ok": true}], null, {"it's": 1}]`},
		{"$..ok", `[true, false, true]`},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			p, err := compilePath(tc.path)
			require.NoError(t, err)
			got, err := p.get(input, ctxObj)
			require.NoError(t, err)
			assert.JSONEq(t, tc.want, jsonText(got))
		})
	}
}

func TestPathGetNoResult(t *testing.T) {
	input := jsonOf(t, pathsInput)
	tests := []struct {
		path  string
		cause string
	}{
		{"$.missing", `Invalid path '$.missing' : No results for path: $['missing']`},
		{"$.foo.x", `No results for path: $['foo']['x']`},
		{"$.bar[3]", `No results for path: $['bar'][3]`},
		{"$.bar[-4]", `No results for path: $['bar'][-4]`},
		{"$.car[0]", `No results for path: $['car'][0]`},
		{"$.n.x", `No results for path: $['n']['x']`},
		{"$$.Execution.Id", `Invalid path '$$.Execution.Id'`},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			p, err := compilePath(tc.path)
			require.NoError(t, err)
			_, err = p.get(input, nil)
			assertStateError(t, err, "States.Runtime", tc.cause)
		})
	}
}

func TestCompilePathErrors(t *testing.T) {
	tests := []struct {
		path string
		want string
	}{
		{"", `invalid path "": must begin with '$'`},
		{"foo", `invalid path "foo": must begin with '$'`},
		{"$.", `invalid path "$.": empty field name`},
		{"$.a.", `empty field name`},
		{"$.a[", `unterminated '['`},
		{"$.a['b", `unterminated quoted name`},
		{"$.a[1", `unterminated '['`},
		{"$.a b", `invalid character in field name "a b"`},
		{"$a", `unexpected 'a'`},
		{"$..[", `invalid path "$..["`},
		{"$.a[?(@.x ==]", `invalid path "$.a[?(@.x ==]"`},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			_, err := compilePath(tc.path)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestCompileReferencePath(t *testing.T) {
	valid := []string{"$", "$.a", "$.a.b[0]", "$['a b'].c", "$.error-info"}
	for _, expr := range valid {
		t.Run(expr, func(t *testing.T) {
			p, err := compileReferencePath(expr)
			require.NoError(t, err)
			assert.Equal(t, expr, p.expr)
		})
	}
	invalid := []struct{ expr, want string }{
		{"a", "must begin with '$'"},
		{"$$.Execution", "cannot refer to the context object"},
		{"$.a[*]", "only '.' and '[]'"},
		{"$..a", "only '.' and '[]'"},
		{"$.a[0:1]", "only '.' and '[]'"},
		{"$.a[0,1]", "only '.' and '[]'"},
		{"$.a[?(@.b)]", "only '.' and '[]'"},
		{"$.*", "only '.' and '[]'"},
		{"$.a.length()", "only '.' and '[]'"},
		{"$.", "empty field name"},
	}
	for _, tc := range invalid {
		t.Run(tc.expr, func(t *testing.T) {
			_, err := compileReferencePath(tc.expr)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

// The ResultPath examples of the AWS "ResultPath" page and the merge rules
// of the Amazon States Language.
func TestRefPathSet(t *testing.T) {
	const docsInput = `{
		"comment": "This is a test of the input and output of a Task state.",
		"details": "Default example",
		"who": "AWS Step Functions"
	}`
	tests := []struct {
		name, input, path, result, want string
	}{
		{"dollar replaces the input", docsInput, "$", `"Hello, AWS Step Functions!"`, `"Hello, AWS Step Functions!"`},
		{"adds a field", docsInput, "$.taskresult", `"Hello, AWS Step Functions!"`, `{
			"comment": "This is a test of the input and output of a Task state.",
			"details": "Default example",
			"who": "AWS Step Functions",
			"taskresult": "Hello, AWS Step Functions!"
		}`},
		{"overwrites a field", docsInput, "$.details", `"Hello, AWS Step Functions!"`, `{
			"comment": "This is a test of the input and output of a Task state.",
			"details": "Hello, AWS Step Functions!",
			"who": "AWS Step Functions"
		}`},
		{"catch error output", `{"foo": "bar"}`, "$.error", `{"Error": "States.TaskFailed", "Cause": "boom"}`,
			`{"foo": "bar", "error": {"Error": "States.TaskFailed", "Cause": "boom"}}`},
		{"creates missing objects", `{"a": 1}`, "$.b.c.d", `true`, `{"a": 1, "b": {"c": {"d": true}}}`},
		{"merges into a nested object", `{"a": {"x": 1}}`, "$.a.y", `2`, `{"a": {"x": 1, "y": 2}}`},
		{"sets an array element", `{"a": [1, 2, 3]}`, "$.a[1]", `"two"`, `{"a": [1, "two", 3]}`},
		{"sets the last element", `{"a": [1, 2, 3]}`, "$.a[-1]", `0`, `{"a": [1, 2, 0]}`},
		{"into an array element", `{"a": [{"x": 1}]}`, "$.a[0].y", `2`, `{"a": [{"x": 1, "y": 2}]}`},
		{"null result", `{"a": 1}`, "$.b", `null`, `{"a": 1, "b": null}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := compileReferencePath(tc.path)
			require.NoError(t, err)
			input := jsonOf(t, tc.input)
			before := jsonText(input)
			got, err := p.set(input, jsonOf(t, tc.result))
			require.NoError(t, err)
			assert.JSONEq(t, tc.want, jsonText(got))
			assert.Equal(t, before, jsonText(input), "the input must not be modified")
		})
	}
}

func TestRefPathSetFailure(t *testing.T) {
	tests := []struct{ name, input, path string }{
		{"input is a string", `"text"`, "$.a"},
		{"input is null", `null`, "$.a"},
		{"through a number", `{"a": 1}`, "$.a.b"},
		{"through null", `{"a": null}`, "$.a.b"},
		{"index into an object", `{"a": {}}`, "$.a[0]"},
		{"index out of range", `{"a": [1]}`, "$.a[1]"},
		{"index into a missing field", `{}`, "$.a[0]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := compileReferencePath(tc.path)
			require.NoError(t, err)
			_, err = p.set(jsonOf(t, tc.input), "result")
			assertStateError(t, err, "States.ResultPathMatchFailure", "Unable to apply ResultPath '"+tc.path+"' to input '")
		})
	}
}

func BenchmarkPathGet(b *testing.B) {
	input := jsonOf(b, `{"message": {"id": "m-1", "attributes": {"redrive": {"attempt": 3}}}, "list": [1, 2, 3]}`)
	for _, expr := range []string{"$.message.attributes.redrive.attempt", "$.list[2]", "$.list[*]"} {
		p, err := compilePath(expr)
		require.NoError(b, err)
		b.Run(expr, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := p.get(input, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkRefPathSet(b *testing.B) {
	input := jsonOf(b, `{"message": {"id": "m-1", "body": "x"}, "breaker": "orders", "attempt": 1}`)
	p, err := compileReferencePath("$.result")
	require.NoError(b, err)
	result := jsonOf(b, `{"next": "DONE"}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.set(input, result); err != nil {
			b.Fatal(err)
		}
	}
}
