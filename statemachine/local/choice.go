package local

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// choiceRule is a compiled Choice Rule: a boolean combination (And, Or,
// Not) or one comparison of the Variable's value. Top-level rules carry the
// state to go to when they match.
type choiceRule struct {
	next string

	and, or []*choiceRule
	not     *choiceRule

	variable *path
	op       *choiceOperator
	operand  any   // the literal to compare with (time.Time for timestamps, *globPattern for StringMatches)
	operandP *path // the ...Path operand, or nil
}

// operand kinds of comparison operators.
type choiceKind int

const (
	kindString choiceKind = iota
	kindNumeric
	kindBoolean
	kindTimestamp
	kindMatches
	kindIsPresent
	kindIsNull
	kindIsNumeric
	kindIsString
	kindIsBoolean
	kindIsTimestamp
)

// choiceOperator describes one comparison operator.
type choiceOperator struct {
	name   string
	kind   choiceKind
	holds  func(c int) bool // from the comparison result (-1, 0, 1); nil for kinds without order
	isPath bool             // the operand is a path to the value to compare with
}

// choiceOperators are all comparison operators by name: every
// String/Numeric/Timestamp relation and BooleanEquals, each with its Path
// form, StringMatches and the Is* type tests.
var choiceOperators = func() map[string]*choiceOperator {
	ops := map[string]*choiceOperator{}
	relations := map[string]func(int) bool{
		"Equals":            func(c int) bool { return c == 0 },
		"LessThan":          func(c int) bool { return c < 0 },
		"GreaterThan":       func(c int) bool { return c > 0 },
		"LessThanEquals":    func(c int) bool { return c <= 0 },
		"GreaterThanEquals": func(c int) bool { return c >= 0 },
	}
	add := func(name string, kind choiceKind, holds func(int) bool) {
		ops[name] = &choiceOperator{name: name, kind: kind, holds: holds}
		ops[name+"Path"] = &choiceOperator{name: name + "Path", kind: kind, holds: holds, isPath: true}
	}
	for rel, holds := range relations {
		add("String"+rel, kindString, holds)
		add("Numeric"+rel, kindNumeric, holds)
		add("Timestamp"+rel, kindTimestamp, holds)
	}
	add("BooleanEquals", kindBoolean, relations["Equals"])
	ops["StringMatches"] = &choiceOperator{name: "StringMatches", kind: kindMatches}
	for name, kind := range map[string]choiceKind{
		"IsPresent": kindIsPresent, "IsNull": kindIsNull, "IsNumeric": kindIsNumeric,
		"IsString": kindIsString, "IsBoolean": kindIsBoolean, "IsTimestamp": kindIsTimestamp,
	} {
		ops[name] = &choiceOperator{name: name, kind: kind}
	}
	return ops
}()

// compileChoiceRule compiles a Choice Rule found at where (e.g.
// `States.Route.Choices[0]`). Top-level rules must have Next; nested ones
// (inside And, Or, Not) must not.
func compileChoiceRule(raw map[string]any, where string, topLevel bool) (*choiceRule, error) {
	r := &choiceRule{}
	var ops []string
	for _, k := range sortedKeys(raw) {
		v := raw[k]
		switch {
		case k == "Next" && topLevel:
			s, ok := v.(string)
			if !ok || s == "" {
				return nil, fmt.Errorf("%s.Next: must be a non-empty state name, got %s", where, jsonText(v))
			}
			r.next = s
		case k == "Comment":
			if _, ok := v.(string); !ok {
				return nil, fmt.Errorf("%s.Comment: must be a string, got %s", where, jsonText(v))
			}
		case k == "Variable":
			s, ok := v.(string)
			if !ok {
				return nil, fmt.Errorf("%s.Variable: must be a path string, got %s", where, jsonText(v))
			}
			p, err := compilePath(s)
			if err != nil {
				return nil, fmt.Errorf("%s.Variable: %w", where, err)
			}
			r.variable = p
		case k == "And" || k == "Or":
			subs, err := compileChoiceList(v, where+"."+k)
			if err != nil {
				return nil, err
			}
			if k == "And" {
				r.and = subs
			} else {
				r.or = subs
			}
			ops = append(ops, k)
		case k == "Not":
			obj, ok := v.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("%s.Not: must be a Choice Rule object, got %s", where, jsonText(v))
			}
			sub, err := compileChoiceRule(obj, where+".Not", false)
			if err != nil {
				return nil, err
			}
			r.not = sub
			ops = append(ops, k)
		case choiceOperators[k] != nil:
			if err := r.setOperator(choiceOperators[k], v, where); err != nil {
				return nil, err
			}
			ops = append(ops, k)
		case k == "Next":
			return nil, fmt.Errorf("%s.Next: only a top-level Choice Rule may have Next", where)
		default:
			return nil, fmt.Errorf("%s: unknown field %q in a Choice Rule", where, k)
		}
	}
	switch {
	case len(ops) == 0:
		return nil, fmt.Errorf("%s: a Choice Rule needs a comparison operator, And, Or or Not", where)
	case len(ops) > 1:
		return nil, fmt.Errorf("%s: a Choice Rule has exactly one of a comparison operator, And, Or or Not; got %s", where, strings.Join(ops, ", "))
	case r.op != nil && r.variable == nil:
		return nil, fmt.Errorf("%s: %s needs a Variable", where, r.op.name)
	case r.op == nil && r.variable != nil:
		return nil, fmt.Errorf("%s.Variable: only a comparison has a Variable, not %s", where, ops[0])
	case topLevel && r.next == "":
		return nil, fmt.Errorf("%s.Next: a top-level Choice Rule must have Next", where)
	}
	return r, nil
}

// compileChoiceList compiles the rules of And or Or.
func compileChoiceList(v any, where string) ([]*choiceRule, error) {
	list, ok := v.([]any)
	if !ok || len(list) == 0 {
		return nil, fmt.Errorf("%s: must be a non-empty array of Choice Rules, got %s", where, jsonText(v))
	}
	subs := make([]*choiceRule, len(list))
	for i, item := range list {
		at := fmt.Sprintf("%s[%d]", where, i)
		obj, ok := item.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s: must be a Choice Rule object, got %s", at, jsonText(item))
		}
		sub, err := compileChoiceRule(obj, at, false)
		if err != nil {
			return nil, err
		}
		subs[i] = sub
	}
	return subs, nil
}

// setOperator validates and stores a comparison operator and its operand.
func (r *choiceRule) setOperator(op *choiceOperator, v any, where string) error {
	at := where + "." + op.name
	r.op = op
	if op.isPath {
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("%s: must be a path string, got %s", at, jsonText(v))
		}
		p, err := compilePath(s)
		if err != nil {
			return fmt.Errorf("%s: %w", at, err)
		}
		r.operandP = p
		return nil
	}
	switch op.kind {
	case kindString, kindMatches, kindTimestamp:
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("%s: must be a string, got %s", at, jsonText(v))
		}
		r.operand = s
		switch op.kind {
		case kindMatches:
			g, err := compileGlob(s)
			if err != nil {
				return fmt.Errorf("%s: %w", at, err)
			}
			r.operand = g
		case kindTimestamp:
			t, ok := parseChoiceTimestamp(s)
			if !ok {
				return fmt.Errorf("%s: %q is not an RFC 3339 timestamp (like 2016-08-18T17:33:00Z)", at, s)
			}
			r.operand = t
		}
	case kindNumeric:
		if _, ok := toFloat(v); !ok {
			return fmt.Errorf("%s: must be a number, got %s", at, jsonText(v))
		}
		r.operand = v
	default: // BooleanEquals and the Is* tests
		b, ok := v.(bool)
		if !ok {
			return fmt.Errorf("%s: must be true or false, got %s", at, jsonText(v))
		}
		r.operand = b
	}
	return nil
}

// match reports whether the rule holds for input. A Variable (or ...Path
// operand) that selects nothing is a States.Runtime error, except under
// IsPresent; a value of the wrong type for the operator simply does not
// match.
func (r *choiceRule) match(input, ctxObj any) (bool, error) {
	switch {
	case r.and != nil:
		for _, sub := range r.and {
			if ok, err := sub.match(input, ctxObj); err != nil || !ok {
				return false, err
			}
		}
		return true, nil
	case r.or != nil:
		for _, sub := range r.or {
			if ok, err := sub.match(input, ctxObj); err != nil || ok {
				return ok, err
			}
		}
		return false, nil
	case r.not != nil:
		ok, err := r.not.match(input, ctxObj)
		return !ok && err == nil, err
	}
	v, err := r.variable.get(input, ctxObj)
	if r.op.kind == kindIsPresent {
		return (err == nil) == r.operand.(bool), nil
	}
	if err != nil {
		return false, choicePathError(r.variable)
	}
	operand := r.operand
	if r.operandP != nil {
		if operand, err = r.operandP.get(input, ctxObj); err != nil {
			return false, choicePathError(r.operandP)
		}
	}
	switch r.op.kind {
	case kindIsNull:
		return (v == nil) == operand.(bool), nil
	case kindIsNumeric:
		_, isNum := toFloat(v)
		return isNum == operand.(bool), nil
	case kindIsString:
		_, isStr := v.(string)
		return isStr == operand.(bool), nil
	case kindIsBoolean:
		_, isBool := v.(bool)
		return isBool == operand.(bool), nil
	case kindIsTimestamp:
		s, isStr := v.(string)
		_, isTime := parseChoiceTimestamp(s)
		return (isStr && isTime) == operand.(bool), nil
	case kindMatches:
		s, ok := v.(string)
		return ok && operand.(*globPattern).match(s), nil
	}
	c, ok := compareValues(r.op.kind, v, operand)
	return ok && r.op.holds(c), nil
}

// choicePathError is the error of a choice path that selects nothing.
func choicePathError(p *path) error {
	return runtimeErrorf("Invalid path '%s': The choice state's condition path references an invalid value.", p.expr)
}

// compareValues compares a and b as the kind's type; ok is false when either
// is not of that type (a comparison that cannot match).
func compareValues(kind choiceKind, a, b any) (c int, ok bool) {
	switch kind {
	case kindString:
		x, ok1 := a.(string)
		y, ok2 := b.(string)
		return compareUTF16(x, y), ok1 && ok2
	case kindNumeric:
		return compareNumbers(a, b)
	case kindBoolean:
		x, ok1 := a.(bool)
		y, ok2 := b.(bool)
		if x == y {
			return 0, ok1 && ok2
		}
		return 1, ok1 && ok2
	case kindTimestamp:
		x, ok1 := asTimestamp(a)
		y, ok2 := asTimestamp(b)
		return x.Compare(y), ok1 && ok2
	}
	return 0, false
}

// compareNumbers compares two JSON numbers, exactly when both are integers.
func compareNumbers(a, b any) (int, bool) {
	if x, ok := toInt64(a); ok {
		if y, ok := toInt64(b); ok {
			return cmp.Compare(x, y), true
		}
	}
	x, ok1 := toFloat(a)
	y, ok2 := toFloat(b)
	return cmp.Compare(x, y), ok1 && ok2
}

// compareUTF16 orders strings by UTF-16 code units, as Java's
// String.compareTo (which Step Functions uses) does.
func compareUTF16(a, b string) int {
	for a != "" && b != "" {
		ra, na := utf8.DecodeRuneInString(a)
		rb, nb := utf8.DecodeRuneInString(b)
		if ra != rb {
			ka, kb := utf16Lead(ra), utf16Lead(rb)
			if ka == kb { // both outside the BMP with the same high surrogate
				return cmp.Compare(ra, rb)
			}
			return cmp.Compare(ka, kb)
		}
		a, b = a[na:], b[nb:]
	}
	return cmp.Compare(len(a), len(b))
}

// utf16Lead returns the first UTF-16 code unit of r.
func utf16Lead(r rune) rune {
	if r >= 0x10000 {
		return 0xD800 + (r-0x10000)>>10
	}
	return r
}

// asTimestamp returns a timestamp operand: a literal compiled to
// time.Time, or a string value parsed now.
func asTimestamp(v any) (time.Time, bool) {
	switch t := v.(type) {
	case time.Time:
		return t, true
	case string:
		return parseChoiceTimestamp(t)
	}
	return time.Time{}, false
}

// parseChoiceTimestamp parses an RFC 3339 timestamp with the ASL's extra
// rules: an uppercase T between date and time, and an uppercase Z (or a
// numeric offset) for the zone.
func parseChoiceTimestamp(s string) (time.Time, bool) {
	if len(s) < len("2006-01-02T15:04:05Z") || s[10] != 'T' || strings.ContainsAny(s, "tz") {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	return t, err == nil
}

// globPattern is a compiled StringMatches pattern: literal parts separated
// by "*" wildcards.
type globPattern struct {
	parts []string // len(parts) = number of wildcards + 1
}

// compileGlob compiles a StringMatches value: "*" matches any run of
// characters, "\*" is a literal asterisk and "\\" a literal backslash.
func compileGlob(s string) (*globPattern, error) {
	g := &globPattern{}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '*':
			g.parts = append(g.parts, b.String())
			b.Reset()
		case '\\':
			if i+1 >= len(s) || (s[i+1] != '*' && s[i+1] != '\\') {
				return nil, errors.New(`a backslash must escape "*" or "\" in a StringMatches pattern`)
			}
			i++
			b.WriteByte(s[i])
		default:
			b.WriteByte(c)
		}
	}
	g.parts = append(g.parts, b.String())
	return g, nil
}

// match reports whether s matches the whole pattern.
func (g *globPattern) match(s string) bool {
	first, last := g.parts[0], g.parts[len(g.parts)-1]
	if len(g.parts) == 1 {
		return s == first
	}
	if !strings.HasPrefix(s, first) {
		return false
	}
	s = s[len(first):]
	for _, mid := range g.parts[1 : len(g.parts)-1] {
		i := strings.Index(s, mid)
		if i < 0 {
			return false
		}
		s = s[i+len(mid):]
	}
	return len(s) >= len(last) && strings.HasSuffix(s, last)
}

// sortedKeys returns an object's keys in order, for deterministic errors.
func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
