package asl

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTemplateEval(t *testing.T) {
	// Input of the AWS "Parameters" example (InputPath, Parameters and
	// ResultSelector page).
	const input = `{
		"comment": "Example for Parameters.",
		"product": {
			"details": {"color": "blue", "size": "small", "material": "cotton"},
			"availability": "in stock",
			"sku": "2317",
			"cost": "$23"
		}
	}`
	const ctxObj = `{"Execution": {"Id": "arn:aws:states:us-east-1:123456789012:execution:sm:e1", "Name": "e1"},
		"State": {"Name": "Step", "RetryCount": 2}}`
	tests := []struct {
		name, params, want string
	}{
		{"AWS Parameters example", `{
			"comment": "Selecting what I care about.",
			"MyDetails": {
				"size.$": "$.product.details.size",
				"exists.$": "$.product.availability",
				"StaticValue": "foo"
			}
		}`, `{
			"comment": "Selecting what I care about.",
			"MyDetails": {"size": "small", "exists": "in stock", "StaticValue": "foo"}
		}`},
		{"context object", `{"execution.$": "$$.Execution.Id", "retries.$": "$$.State.RetryCount", "all.$": "$$.State"}`,
			`{"execution": "arn:aws:states:us-east-1:123456789012:execution:sm:e1", "retries": 2, "all": {"Name": "Step", "RetryCount": 2}}`},
		{"whole input", `{"input.$": "$"}`, `{"input": ` + input + `}`},
		{"inside arrays", `{"list": [{"sku.$": "$.product.sku"}, "plain", ["$.not.a.path", {"c.$": "$.product.details.color"}]]}`,
			`{"list": [{"sku": "2317"}, "plain", ["$.not.a.path", {"c": "blue"}]]}`},
		{"static values are kept as written", `{"a": {"b": [1, 2.5, null, true]}, "path": "$.product"}`,
			`{"a": {"b": [1, 2.5, null, true]}, "path": "$.product"}`},
		{"intrinsic", `{"msg.$": "States.Format('{} costs {}', $.product.sku, $.product.cost)"}`,
			`{"msg": "2317 costs $23"}`},
		{"indefinite path", `{"values.$": "$..size"}`, `{"values": ["small"]}`},
		{"wildcard over an object, in key order", `{"values.$": "$.product.details.*"}`, `{"values": ["blue", "cotton", "small"]}`},
		{"not an object", `"just a string"`, `"just a string"`},
		{"array at the top", `[{"s.$": "$.product.details.size"}]`, `[{"s": "small"}]`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tmpl, err := compileTemplate(jsonOf(t, tc.params), "Parameters")
			require.NoError(t, err)
			got, err := tmpl.eval(jsonOf(t, input), jsonOf(t, ctxObj), nil)
			require.NoError(t, err)
			assert.JSONEq(t, tc.want, jsonText(got))
		})
	}
}

func TestTemplateEvalMissingPath(t *testing.T) {
	tests := []struct {
		name, params, cause string
	}{
		{"input path", `{"x": {"foo.$": "$.missing"}}`,
			`The JSONPath '$.missing' specified for the field 'foo.$' could not be found in the input '{"a":1}'`},
		{"context path", `{"foo.$": "$$.Map.Item.Value"}`,
			`The JSONPath '$$.Map.Item.Value' specified for the field 'foo.$' could not be found in the input '{"Execution":{}}'`},
		{"intrinsic argument", `{"foo.$": "States.Format('{}', $.nope)"}`,
			`The JSONPath '$.nope' specified for the field 'foo.$' could not be found`},
		{"in an array", `[{"foo.$": "$.b"}]`, `The JSONPath '$.b' specified for the field 'foo.$'`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tmpl, err := compileTemplate(jsonOf(t, tc.params), "Parameters")
			require.NoError(t, err)
			_, err = tmpl.eval(jsonOf(t, `{"a": 1}`), jsonOf(t, `{"Execution": {}}`), nil)
			assertStateError(t, err, "States.Runtime", tc.cause)
		})
	}
}

func TestCompileTemplateErrors(t *testing.T) {
	tests := []struct {
		name, field, params, want string
	}{
		{"invalid path", "Parameters", `{"foo.$": "$..["}`, `Parameters."foo.$": invalid path "$..["`},
		{"nested key", "ResultSelector", `{"a": {"b": [{"c.$": "$.x["}]}}`, `ResultSelector."a"."b"[0]."c.$": invalid path "$.x["`},
		{"not a string", "Parameters", `{"foo.$": 3}`, `Parameters."foo.$": value must be a string (a path or an intrinsic function), got 3`},
		{"neither path nor intrinsic", "Parameters", `{"foo.$": "hello"}`, `Parameters."foo.$": "hello" is neither a path`},
		{"duplicate key", "Parameters", `{"foo": 1, "foo.$": "$.a"}`, `Parameters."foo.$": field "foo" is also given without ".$"`},
		{"unknown intrinsic", "Parameters", `{"foo.$": "States.Nope($.a)"}`, `Parameters."foo.$": invalid intrinsic function "States.Nope($.a)": unknown intrinsic function "States.Nope"`},
		{"bad intrinsic argument", "Parameters", `{"foo.$": "States.Array($.a[)"}`, `Parameters."foo.$": invalid intrinsic function "States.Array($.a[)": invalid path "$.a[)"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := compileTemplate(jsonOf(t, tc.params), tc.field)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func BenchmarkTemplateEval(b *testing.B) {
	// The shape of a lambda:invoke Parameters block.
	params := jsonOf(b, `{
		"FunctionName": "arn:aws:lambda:us-east-1:123456789012:function:attempt",
		"Payload": {
			"message.$": "$.message",
			"breaker.$": "$.breaker",
			"attempt.$": "$.attempt",
			"execution.$": "$$.Execution.Id",
			"retry.$": "$$.State.RetryCount"
		}
	}`)
	input := jsonOf(b, `{"message": {"id": "m-1", "body": "x"}, "breaker": "orders", "attempt": 1}`)
	ctxObj := jsonOf(b, `{"Execution": {"Id": "arn:exec"}, "State": {"RetryCount": 0}}`)
	tmpl, err := compileTemplate(params, "Parameters")
	require.NoError(b, err)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := tmpl.eval(input, ctxObj, nil); err != nil {
			b.Fatal(err)
		}
	}
}
