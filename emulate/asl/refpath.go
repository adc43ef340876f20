package asl

import (
	"fmt"
	"strings"
)

// refPath is a compiled Reference Path (ResultPath): it identifies a single
// node of the input, with field names and array indexes only.
type refPath struct {
	expr  string
	steps []pathStep
}

// compileReferencePath compiles a Reference Path. Context-object paths and
// JsonPath operators (@ .. , : ? * and functions) are rejected.
func compileReferencePath(expr string) (*refPath, error) {
	rest, ok := strings.CutPrefix(expr, "$")
	if !ok {
		return nil, fmt.Errorf("invalid reference path %q: must begin with '$'", expr)
	}
	if strings.HasPrefix(rest, "$") {
		return nil, fmt.Errorf("invalid reference path %q: cannot refer to the context object", expr)
	}
	steps, definite, err := parseSteps(rest)
	if err != nil {
		return nil, fmt.Errorf("invalid reference path %q: %w", expr, err)
	}
	if !definite {
		return nil, fmt.Errorf("invalid reference path %q: only '.' and '[]' selecting a single field or index are allowed", expr)
	}
	return &refPath{expr: expr, steps: steps}, nil
}

// set returns doc with value placed at the path, as ResultPath does: "$"
// yields value itself; a deeper path yields a copy of doc with the value
// set, creating objects for missing fields on the way. doc is not modified
// (only the objects and arrays along the path are copied). A path element
// that is not an object (or, for an index, not an array long enough) is a
// States.ResultPathMatchFailure.
func (p *refPath) set(doc, value any) (any, error) {
	out, ok := setIn(doc, p.steps, value)
	if !ok {
		return nil, &Error{
			Name:  statesResultPathMatchFailure,
			Cause: fmt.Sprintf("Unable to apply ResultPath '%s' to input '%s'", p.expr, jsonText(doc)),
		}
	}
	return out, nil
}

// setIn returns a copy of doc with value at steps.
func setIn(doc any, steps []pathStep, value any) (any, bool) {
	if len(steps) == 0 {
		return value, true
	}
	s := steps[0]
	if s.isIndex {
		arr, ok := doc.([]any)
		if !ok {
			return nil, false
		}
		idx, ok := arrayIndex(s.index, len(arr))
		if !ok {
			return nil, false
		}
		child, ok := setIn(arr[idx], steps[1:], value)
		if !ok {
			return nil, false
		}
		out := make([]any, len(arr))
		copy(out, arr)
		out[idx] = child
		return out, true
	}
	obj, ok := doc.(map[string]any)
	if !ok {
		return nil, false
	}
	old, exists := obj[s.key]
	if !exists && len(steps) > 1 {
		old = map[string]any{}
	}
	child, ok := setIn(old, steps[1:], value)
	if !ok {
		return nil, false
	}
	out := make(map[string]any, len(obj)+1)
	for k, v := range obj {
		out[k] = v
	}
	out[s.key] = child
	return out, true
}
