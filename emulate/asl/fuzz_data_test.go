package asl

import (
	"testing"
)

// The data plane must turn any definition text into a value or an error,
// never a panic or a hang: these fuzz targets compile arbitrary paths,
// intrinsic invocations and StringMatches patterns and evaluate what
// compiles against a fixed input.

const fuzzInput = `{"a": {"b": [1, "x", {"c": null}]}, "s": "a,b.c", "n": 2.5, "arr": [3, 1, 3]}`

func FuzzPath(f *testing.F) {
	for _, s := range []string{"$", "$.a.b[2].c", "$$.x", "$..b", "$.a.b[*]", "$.a.b[0:2]", "$.a.b[?(@ > 0)]", "$['a']", "$.a[", "$.a.b[-1]", "$.a..", "$[?(@.a)]"} {
		f.Add(s)
	}
	input := jsonOf(f, fuzzInput)
	f.Fuzz(func(t *testing.T, expr string) {
		if p, err := compilePath(expr); err == nil {
			_, _ = p.get(input, input)
		}
		if p, err := compileReferencePath(expr); err == nil {
			_, _ = p.set(input, "v")
		}
	})
}

func FuzzIntrinsic(f *testing.F) {
	for _, s := range []string{
		"States.Format('{} {}', $.n, 'x')", `States.Format('\{\}\\\'')`, "States.Array(1, -2.5e3, true, null, $.a)",
		"States.StringSplit($.s, ',.')", "States.ArrayRange(1, 9, 2)", "States.JsonToString(States.Array($..c))",
		"States.ArrayGetItem(States.ArrayUnique($.arr), 1)", "States.MathRandom(1, 3, 4)", "States.Hash($.s, 'MD5')",
		"States.StringToJson(States.JsonToString($.a))", "States.Array(States.Array(States.Array()))", "States.Format(",
	} {
		f.Add(s)
	}
	input := jsonOf(f, fuzzInput)
	f.Fuzz(func(t *testing.T, expr string) {
		n, err := compileIntrinsic(expr, "f.$")
		if err != nil {
			return
		}
		_, _ = n.eval(input, input, nil)
	})
}

func FuzzStringMatches(f *testing.F) {
	for _, s := range [][2]string{{"foo*.log", "foo23.log"}, {`\**\\`, `*x\`}, {"**a*", "bab"}, {`a\`, "a"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pattern, value string) {
		if g, err := compileGlob(pattern); err == nil {
			_ = g.match(value)
		}
	})
}
