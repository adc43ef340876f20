package asl

import (
	"fmt"
	"strings"
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
	return RuntimeErrorf("Invalid path '%s': The choice state's condition path references an invalid value.", p.expr)
}
