package asl

import (
	"fmt"
	"strconv"
	"strings"
)

// template is a compiled payload template (Parameters, ResultSelector): a
// JSON value in which object keys ending in ".$" take their value from a
// path or an intrinsic function, at any depth. It is compiled once at load
// and evaluated on every state entry.
type template struct {
	root tmplNode
}

// Env supplies what evaluation needs beyond the data: the execution's
// seeded randomness. A nil Env falls back to unseeded randomness.
type Env interface {
	// UUID returns a version 4 UUID (States.UUID).
	UUID() string
	// Int64N returns a number in [0, n) (States.MathRandom without a seed).
	Int64N(n int64) int64
}

// tmplNode is one compiled part of a template or intrinsic invocation.
type tmplNode interface {
	eval(input, ctxObj any, env Env) (any, error)
}

// compileTemplate compiles raw (a JSON value as oj parses it) for the field
// named field, e.g. "Parameters". Errors name the field and the key:
// Parameters."foo.$": invalid path "$..[": ...
func compileTemplate(raw any, field string) (*template, error) {
	n, err := compileNode(raw, field)
	if err != nil {
		return nil, err
	}
	return &template{root: n}, nil
}

// eval builds the template's value for input and the context object.
func (t *template) eval(input, ctxObj any, env Env) (any, error) {
	return t.root.eval(input, ctxObj, env)
}

// constNode is a part of a template without any ".$" key: its value is the
// raw JSON itself, shared by every evaluation.
type constNode struct{ v any }

func (n constNode) eval(any, any, Env) (any, error) { return n.v, nil }

// objectNode is an object with at least one dynamic member.
type objectNode struct {
	keys []string // output names, without ".$"
	vals []tmplNode
}

func (n *objectNode) eval(input, ctxObj any, env Env) (any, error) {
	out := make(map[string]any, len(n.keys))
	for i, k := range n.keys {
		v, err := n.vals[i].eval(input, ctxObj, env)
		if err != nil {
			return nil, err
		}
		out[k] = v
	}
	return out, nil
}

// arrayNode is an array with at least one dynamic element.
type arrayNode struct{ items []tmplNode }

func (n *arrayNode) eval(input, ctxObj any, env Env) (any, error) {
	out := make([]any, len(n.items))
	for i, it := range n.items {
		v, err := it.eval(input, ctxObj, env)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// pathNode is the value of a "key.$": "$..." member.
type pathNode struct {
	p     *path
	field string // the key as written, e.g. "foo.$"
}

func (n *pathNode) eval(input, ctxObj any, _ Env) (any, error) {
	v, err := n.p.get(input, ctxObj)
	if err != nil {
		doc := input
		if n.p.ctx {
			doc = ctxObj
		}
		return nil, RuntimeErrorf("The JSONPath '%s' specified for the field '%s' could not be found in the input '%s'",
			n.p.expr, n.field, jsonText(doc))
	}
	return v, nil
}

// compileNode compiles one JSON value found at where.
func compileNode(raw any, where string) (tmplNode, error) {
	switch v := raw.(type) {
	case map[string]any:
		return compileObject(v, where)
	case []any:
		items := make([]tmplNode, len(v))
		dynamic := false
		for i, it := range v {
			n, err := compileNode(it, where+"["+strconv.Itoa(i)+"]")
			if err != nil {
				return nil, err
			}
			items[i] = n
			if _, ok := n.(constNode); !ok {
				dynamic = true
			}
		}
		if !dynamic {
			return constNode{v}, nil
		}
		return &arrayNode{items: items}, nil
	default:
		return constNode{v}, nil
	}
}

// compileObject compiles an object, resolving ".$" keys.
func compileObject(obj map[string]any, where string) (tmplNode, error) {
	n := &objectNode{}
	dynamic := false
	for _, k := range sortedKeys(obj) {
		at := where + "." + strconv.Quote(k)
		name, isExpr := strings.CutSuffix(k, ".$")
		if !isExpr {
			c, err := compileNode(obj[k], at)
			if err != nil {
				return nil, err
			}
			if _, ok := c.(constNode); !ok {
				dynamic = true
			}
			n.keys, n.vals = append(n.keys, k), append(n.vals, c)
			continue
		}
		if _, dup := obj[name]; dup {
			return nil, fmt.Errorf("%s: field %q is also given without \".$\"", at, name)
		}
		s, ok := obj[k].(string)
		if !ok {
			return nil, fmt.Errorf("%s: value must be a string (a path or an intrinsic function), got %s", at, jsonText(obj[k]))
		}
		c, err := compileExpression(s, k)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", at, err)
		}
		dynamic = true
		n.keys, n.vals = append(n.keys, name), append(n.vals, c)
	}
	if !dynamic {
		return constNode{obj}, nil
	}
	return n, nil
}

// compileExpression compiles the value of a ".$" key: a path or an
// intrinsic function invocation.
func compileExpression(s, field string) (tmplNode, error) {
	switch {
	case strings.HasPrefix(s, "$"):
		p, err := compilePath(s)
		if err != nil {
			return nil, err
		}
		return &pathNode{p: p, field: field}, nil
	case strings.HasPrefix(s, "States."):
		return compileIntrinsic(s, field)
	default:
		return nil, fmt.Errorf("%q is neither a path (\"$...\") nor an intrinsic function (\"States.*(...)\")", s)
	}
}
