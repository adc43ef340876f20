package ddbmem

import (
	"strings"

	"github.com/truora/minidyn/interpreter/language"
	mtypes "github.com/truora/minidyn/types"
)

// The expressions the stack's tasks write most are simple: an update that
// sets attributes to values (SET #a = :a, #b = :b), a condition that
// compares attributes with values or asks whether they exist (#v = :v AND
// attribute_exists(#k)). For those, match and update decide and apply
// themselves, without converting the item to the interpreter's objects
// and back, and fall back to the interpreter for anything else, so the
// outcome and every error are the interpreter's. One difference: a number
// set this way keeps its digits, where the interpreter's float64 would
// round one with more than 15.

// assignment is a SET of an attribute, named by a #placeholder, to a
// :value.
type assignment struct{ target, value string }

// testKind is what a simple test asks.
type testKind uint8

const (
	equals    testKind = iota // #target = :value
	exists                    // attribute_exists(#target)
	notExists                 // attribute_not_exists(#target)
)

// test is one test of a simple condition.
type test struct {
	kind          testKind
	target, value string
}

// assignments are the actions of an update that only sets attributes named
// by #placeholders to :values; nil for any other update.
func assignments(u *language.UpdateStatement) []assignment {
	ue, ok := u.Expression.(*language.UpdateExpression)
	if !ok {
		return nil
	}
	var sets []assignment
	for _, e := range ue.Expressions {
		a, ok := e.(*language.ActionExpression)
		if !ok || a.Token.Type != language.SET {
			return nil
		}
		target, ok1 := identifier(a.Left, "#")
		value, ok2 := identifier(a.Right, ":")
		if !ok1 || !ok2 {
			return nil
		}
		sets = append(sets, assignment{target, value})
	}
	return sets
}

// tests are the tests of a condition that is one of #target = :value,
// attribute_exists(#target) and attribute_not_exists(#target), or a
// conjunction of them; nil for any other condition.
func tests(e language.Expression) []test {
	switch x := e.(type) {
	case *language.InfixExpression:
		switch {
		case strings.EqualFold(x.Operator, "AND"):
			left, right := tests(x.Left), tests(x.Right)
			if left == nil || right == nil {
				return nil
			}
			return append(left, right...)
		case x.Operator == "=":
			target, ok1 := identifier(x.Left, "#")
			value, ok2 := identifier(x.Right, ":")
			if ok1 && ok2 {
				return []test{{equals, target, value}}
			}
		}
	case *language.CallExpression:
		f, ok := identifier(x.Function, "attribute_")
		if !ok || len(x.Arguments) != 1 {
			return nil
		}
		target, ok := identifier(x.Arguments[0], "#")
		switch {
		case !ok:
		case f == "attribute_exists":
			return []test{{exists, target, ""}}
		case f == "attribute_not_exists":
			return []test{{notExists, target, ""}}
		}
	}
	return nil
}

// identifier returns the name of e, an identifier starting with prefix
// and naming no nested attribute or element.
func identifier(e language.Expression, prefix string) (string, bool) {
	id, ok := e.(*language.Identifier)
	if !ok || !strings.HasPrefix(id.Value, prefix) || strings.ContainsAny(id.Value, ".[") {
		return "", false
	}
	return id.Value, true
}

// decide evaluates a simple condition (see tests) on item, with values
// and aliases that name every placeholder; decided is false when it is
// not simple, or takes the interpreter: a comparison of a missing
// attribute or value, or of values that are not two strings or two
// numbers written alike.
func (p *parsed) decide(aliases map[string]string, values, item map[string]*mtypes.Item) (holds, decided bool) {
	if p.tests == nil {
		return false, false
	}
	holds = true
	for _, t := range p.tests {
		v := item[aliases[t.target]]
		switch t.kind {
		case exists:
			holds = holds && v != nil
		case notExists:
			holds = holds && v == nil
		default:
			w := values[t.value]
			switch {
			case v == nil || w == nil:
				return false, false
			case v.S != nil && w.S != nil:
				holds = holds && *v.S == *w.S
			case v.N != nil && w.N != nil && *v.N == *w.N:
			default:
				return false, false
			}
		}
	}
	return holds, true
}

// assign applies a simple update (see assignments) to item, with values
// and aliases that name every placeholder, and reports whether it did: it
// does not when the update is not simple, or a value is missing or holds
// a set (whose order the interpreter changes).
func (p *parsed) assign(aliases map[string]string, values, item map[string]*mtypes.Item) bool {
	if p.sets == nil {
		return false
	}
	for _, a := range p.sets {
		if v := values[a.value]; v == nil || !setless(v) {
			return false
		}
	}
	for _, a := range p.sets {
		item[aliases[a.target]] = values[a.value]
	}
	return true
}

// setless reports whether v holds no set, at any depth.
func setless(v *mtypes.Item) bool {
	if v.SS != nil || v.NS != nil || v.BS != nil {
		return false
	}
	for _, e := range v.L {
		if e == nil || !setless(e) {
			return false
		}
	}
	for _, e := range v.M {
		if e == nil || !setless(e) {
			return false
		}
	}
	return true
}
