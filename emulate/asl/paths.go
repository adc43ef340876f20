package asl

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ohler55/ojg/jp"
)

// path is a compiled ASL Path: "$..." selects from the state's input,
// "$$..." from the context object. A definite path (only field names and
// array indexes, like a reference path) is walked directly without
// allocating; any other JSONPath (wildcards, descendants, slices, unions,
// filters) is evaluated by ojg and yields an array of its matches, as Step
// Functions' JsonPath does.
type path struct {
	expr  string
	ctx   bool       // selects from the context object ("$$")
	steps []pathStep // definite paths
	query jp.Expr    // indefinite paths, nil otherwise
}

// pathStep is one element of a definite path: a field name or an array index.
type pathStep struct {
	key     string
	index   int
	isIndex bool
}

// compilePath compiles an ASL Path. The error names the path and what is
// wrong with it; the caller adds the field it came from.
func compilePath(expr string) (*path, error) {
	p := &path{expr: expr}
	rest, ok := strings.CutPrefix(expr, "$")
	if !ok {
		return nil, fmt.Errorf("invalid path %q: must begin with '$'", expr)
	}
	if strings.HasPrefix(rest, "$") {
		p.ctx = true
		rest = rest[1:]
	}
	steps, definite, err := parseSteps(rest)
	if err != nil {
		return nil, fmt.Errorf("invalid path %q: %w", expr, err)
	}
	if definite {
		p.steps = steps
		return p, nil
	}
	q, err := jp.ParseString("$" + rest)
	if err != nil {
		return nil, fmt.Errorf("invalid path %q: %w", expr, err)
	}
	p.query = q
	return p, nil
}

// get selects the path's value from input (or from ctxObj for "$$" paths).
// A definite path that selects nothing is a States.Runtime error; an
// indefinite one yields its matches, possibly none, as an array. The result
// shares structure with the data it came from: values are never mutated.
func (p *path) get(input, ctxObj any) (any, error) {
	doc := input
	if p.ctx {
		doc = ctxObj
	}
	if p.query != nil {
		return p.matches(doc), nil
	}
	v, ok := walkSteps(doc, p.steps)
	if !ok {
		return nil, RuntimeErrorf("Invalid path '%s' : No results for path: %s", p.expr, normalized(p.steps))
	}
	return v, nil
}

// matches evaluates an indefinite path. The matches come ordered by their
// location (array elements by index, object members by key: Go maps have
// no order of their own), so that results are deterministic.
func (p *path) matches(doc any) []any {
	locs := p.query.Locate(doc, 0)
	slices.SortFunc(locs, compareLocations)
	out := make([]any, len(locs))
	for i, loc := range locs {
		out[i] = valueAt(doc, loc)
	}
	return out
}

// compareLocations orders normalized locations ($, names, indexes) as a
// pre-order walk of the document with sorted object keys.
func compareLocations(a, b jp.Expr) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		var c int
		switch x := a[i].(type) {
		case jp.Nth:
			y, _ := b[i].(jp.Nth)
			c = cmp.Compare(x, y)
		case jp.Child:
			y, _ := b[i].(jp.Child)
			c = cmp.Compare(x, y)
		}
		if c != 0 {
			return c
		}
	}
	return cmp.Compare(len(a), len(b))
}

// valueAt returns the value at a normalized location found by Locate.
func valueAt(doc any, loc jp.Expr) any {
	v := doc
	for _, f := range loc {
		switch x := f.(type) {
		case jp.Child:
			m, _ := v.(map[string]any)
			v = m[string(x)]
		case jp.Nth:
			a, _ := v.([]any)
			i, ok := arrayIndex(int(x), len(a))
			if !ok {
				return nil
			}
			v = a[i]
		}
	}
	return v
}

// arrayIndex resolves index i, counted from the end when negative, in an
// array of n elements; ok is false when it falls outside the array.
func arrayIndex(i, n int) (idx int, ok bool) {
	if i < 0 {
		i += n
	}
	return i, i >= 0 && i < n
}

// walkSteps follows steps from doc.
func walkSteps(doc any, steps []pathStep) (any, bool) {
	v := doc
	for i := range steps {
		s := &steps[i]
		if s.isIndex {
			arr, ok := v.([]any)
			if !ok {
				return nil, false
			}
			idx, ok := arrayIndex(s.index, len(arr))
			if !ok {
				return nil, false
			}
			v = arr[idx]
			continue
		}
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = obj[s.key]; !ok {
			return nil, false
		}
	}
	return v, true
}

// normalized renders steps in JsonPath's normalized form, $['a'][0], as
// AWS's error causes do.
func normalized(steps []pathStep) string {
	var b strings.Builder
	b.WriteString("$")
	for _, s := range steps {
		if s.isIndex {
			b.WriteString("[" + strconv.Itoa(s.index) + "]")
			continue
		}
		b.WriteString("['" + strings.ReplaceAll(s.key, "'", `\'`) + "']")
	}
	return b.String()
}

// parseSteps parses the part of a path after its leading "$" (or "$$").
// It reports definite=false, with no error, as soon as it meets JsonPath
// syntax beyond field names and indexes, leaving that to ojg.
func parseSteps(s string) (steps []pathStep, definite bool, err error) {
	for len(s) > 0 {
		switch s[0] {
		case '.':
			s = s[1:]
			end := strings.IndexAny(s, ".[")
			if end < 0 {
				end = len(s)
			}
			name := s[:end]
			switch {
			case name == "":
				if strings.HasPrefix(s, ".") {
					return nil, false, nil // "..": deep scan
				}
				return nil, false, fmt.Errorf("empty field name after '.'")
			case name == "*" || strings.ContainsAny(name, "()"):
				return nil, false, nil // wildcard or function
			case strings.ContainsAny(name, " \t\r\n'\"]@,:?*"):
				return nil, false, fmt.Errorf("invalid character in field name %q", name)
			}
			steps = append(steps, pathStep{key: name})
			s = s[end:]
		case '[':
			st, n, ok, err := parseBracket(s)
			if err != nil || !ok {
				return nil, false, err
			}
			steps = append(steps, st)
			s = s[n:]
		default:
			return nil, false, fmt.Errorf("unexpected %q; expected '.' or '['", s[0])
		}
	}
	return steps, true, nil
}

// parseBracket parses a "[...]" element at the start of s: a quoted field
// name or an integer index. It returns the step, how many bytes it used,
// and ok=false for any other bracket (wildcard, slice, union, filter).
func parseBracket(s string) (st pathStep, n int, ok bool, err error) {
	i := skipSpaces(s, 1)
	if i >= len(s) {
		return pathStep{}, 0, false, fmt.Errorf("unterminated '['")
	}
	switch c := s[i]; {
	case c == '\'' || c == '"':
		key, end, err := unquote(s, i)
		if err != nil {
			return pathStep{}, 0, false, err
		}
		st = pathStep{key: key}
		i = end
	case c == '-' || (c >= '0' && c <= '9'):
		j := i + 1
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		idx, err := strconv.Atoi(s[i:j])
		if err != nil {
			return pathStep{}, 0, false, fmt.Errorf("invalid array index %q", s[i:j])
		}
		st = pathStep{index: idx, isIndex: true}
		i = j
	default:
		return pathStep{}, 0, false, nil
	}
	i = skipSpaces(s, i)
	if i >= len(s) {
		return pathStep{}, 0, false, fmt.Errorf("unterminated '['")
	}
	if s[i] != ']' {
		return pathStep{}, 0, false, nil // union or slice
	}
	return st, i + 1, true, nil
}

// unquote reads the quoted string starting at s[start] (a ' or ") with
// backslash escapes and returns it and the index after the closing quote.
func unquote(s string, start int) (string, int, error) {
	q := s[start]
	var b strings.Builder
	for i := start + 1; i < len(s); i++ {
		switch c := s[i]; c {
		case q:
			return b.String(), i + 1, nil
		case '\\':
			if i+1 >= len(s) {
				return "", 0, fmt.Errorf("unterminated escape in %s", s[start:])
			}
			i++
			b.WriteByte(s[i])
		default:
			b.WriteByte(c)
		}
	}
	return "", 0, fmt.Errorf("unterminated quoted name %s", s[start:])
}

// skipSpaces returns the index of the first non-space byte of s at or after i.
func skipSpaces(s string, i int) int {
	for i < len(s) && s[i] == ' ' {
		i++
	}
	return i
}
