package asl

import (
	"fmt"
	"math"
	"slices"
)

// fields reads the members of one definition object, turning every wrong
// type or value into a definition error that names the state and field.
type fields struct {
	obj   map[string]any
	state string // "" at the top level
	// at is where obj is in its state, e.g. Retry[0]; zero for the state
	// (or the top level) itself.
	at field
}

// err is a definition error at the member name.
func (f *fields) err(name, format string, args ...any) error {
	return defError(f.state, f.at.member(name), format, args...)
}

// only rejects members that the state type does not support.
func (f *fields) only(typ Type) error {
	allowed := allowedFields[typ]
	for k := range f.obj {
		if k == "Type" || k == "Comment" || slices.Contains(allowed, k) {
			continue
		}
		switch k {
		case "QueryLanguage", "Arguments", "Output", "Assign":
			return f.err(k, "JSONata and variables are not supported by the local executor")
		}
		return f.err(k, "is not supported in a %s state by the local executor", typeLabel(typ))
	}
	return nil
}

// allow rejects members not in names (for retriers, catchers).
func (f *fields) allow(names ...string) error {
	for k := range f.obj {
		if !slices.Contains(names, k) {
			return f.err(k, "is not a supported field here")
		}
	}
	return nil
}

// str reads a string member; absent is "" unless required.
func (f *fields) str(name string, required bool) (string, error) {
	v, ok := f.obj[name]
	if !ok {
		if required {
			return "", f.err(name, "is required")
		}
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", f.err(name, "must be a string, got %s", typeName(v))
	}
	if required && s == "" {
		return "", f.err(name, "must not be empty")
	}
	return s, nil
}

// integer reads an integer member in [lo, hi]; ok reports presence.
func (f *fields) integer(name string, lo, hi int64) (n int64, ok bool, err error) {
	v, ok := f.obj[name]
	if !ok {
		return 0, false, nil
	}
	switch x := v.(type) {
	case int64:
		n = x
	case float64:
		if x != math.Trunc(x) || x < math.MinInt64 || x > math.MaxInt64 {
			return 0, false, f.err(name, "must be an integer, got %v", x)
		}
		n = int64(x)
	default:
		return 0, false, f.err(name, "must be an integer, got %s", typeName(v))
	}
	if n < lo || n > hi {
		return 0, false, f.err(name, "must be between %d and %d, got %d", lo, hi, n)
	}
	return n, true, nil
}

// number reads a numeric member that must be at least lo.
func (f *fields) number(name string, lo float64) (x float64, ok bool, err error) {
	v, ok := f.obj[name]
	if !ok {
		return 0, false, nil
	}
	switch n := v.(type) {
	case int64:
		x = float64(n)
	case float64:
		x = n
	default:
		return 0, false, f.err(name, "must be a number, got %s", typeName(v))
	}
	if math.IsNaN(x) || math.IsInf(x, 0) || x < lo {
		return 0, false, f.err(name, "must be a number of at least %v, got %v", lo, x)
	}
	return x, true, nil
}

// path reads a Path member. null reports an explicit JSON null.
func (f *fields) path(name string) (p *path, null bool, err error) {
	return nullablePath(f, name, "path", compilePath)
}

// refPath reads a Reference Path member (ResultPath).
func (f *fields) refPath(name string) (p *refPath, null bool, err error) {
	return nullablePath(f, name, "reference path", compileReferencePath)
}

// nullablePath reads a member that is a path string, compiled by compile,
// or null; what names the kind of path in the error for any other value.
func nullablePath[P any](f *fields, name, what string, compile func(string) (*P, error)) (p *P, null bool, err error) {
	v, ok := f.obj[name]
	if !ok {
		return nil, false, nil
	}
	if v == nil {
		return nil, true, nil
	}
	s, ok := v.(string)
	if !ok {
		return nil, false, f.err(name, "must be a %s string or null, got %s", what, typeName(v))
	}
	if p, err = compile(s); err != nil {
		return nil, false, f.err(name, "%v", err)
	}
	return p, false, nil
}

// template reads a payload template member (Parameters, ResultSelector).
func (f *fields) template(name string) (*template, error) {
	v, ok := f.obj[name]
	if !ok {
		return nil, nil
	}
	if _, isObj := v.(map[string]any); !isObj {
		return nil, f.err(name, "must be a JSON object, got %s", typeName(v))
	}
	at := f.at.member(name)
	t, err := compileTemplate(v, at.label)
	if err != nil {
		return nil, defError(f.state, at, "%v", err)
	}
	return t, nil
}

// typeName names a JSON value's type for error messages.
func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case int64, float64:
		return "a number"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}
