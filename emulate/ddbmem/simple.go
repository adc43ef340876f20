package ddbmem

import (
	"encoding/binary"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/truora/minidyn/interpreter/language"
)

// The expressions the stack's tasks write most are simple: an update that
// sets attributes to values (SET #a = :a, #b = :b), a condition that
// compares attributes with values or asks whether they exist (#v = :v AND
// attribute_exists(#k)). For those, UpdateItem, PutItem and DeleteItem
// decide and write on the stored records themselves, without decoding the
// item to the interpreter's form and encoding it back, and take the
// interpreter's way for anything else, so the outcome and every error are
// the interpreter's. One difference: a number set this way keeps its text,
// which the interpreter writes anew from a float64 (1.50 as 1.5, and one
// of more than 15 digits rounded).

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
// (the lexer makes the dots and brackets of a path tokens of their own).
func identifier(e language.Expression, prefix string) (string, bool) {
	id, ok := e.(*language.Identifier)
	if !ok || !strings.HasPrefix(id.Value, prefix) {
		return "", false
	}
	return id.Value, true
}

// taggedValues encodes the values of a request to their tagged forms (see
// record), reporting false for one that does not encode or that the
// interpreter would not read (see readable): its way then fails on it,
// or reads it as it does.
func taggedValues(values map[string]types.AttributeValue) (map[string]string, bool) {
	out := make(map[string]string, len(values))
	var b []byte
	for k, v := range values {
		if !strings.HasPrefix(k, ":") {
			return nil, false // the interpreter reads it as an attribute
		}
		var err error
		if b, err = appendValue(b[:0], v); err != nil {
			return nil, false
		}
		_, tv := uvarint(string(b))
		if !readable(tv) {
			return nil, false
		}
		out[k] = tv
	}
	return out, true
}

// simple reports whether p, the parse of expr as a kind of expression, is
// a simple update or condition (see assignments and tests) whose
// placeholders aliases all declare: decide or set may then take it, on a
// record whose names are plain (see plainNames).
func (p *parsed) simple(kind exprKind, expr string, aliases map[string]string) bool {
	return p.err == nil && (p.sets != nil || p.tests != nil) && p.declared(kind, expr, aliases) == nil
}

// decide evaluates a simple condition (see simple) on the record r, with
// tagged values and aliases, its names plain; decided is false when it
// reads what the interpreter must: an attribute it would not read, a
// missing attribute or value, or values that are not two strings or two
// numbers written alike.
func (p *parsed) decide(aliases, values map[string]string, r record) (holds, decided bool) {
	holds = true
	for _, t := range p.tests {
		v := r.attr(aliases[t.target])
		if v != "" && !readable(v) {
			return false, false
		}
		switch t.kind {
		case exists:
			holds = holds && v != ""
		case notExists:
			holds = holds && v == ""
		default:
			w := values[t.value]
			switch {
			case v == "" || w == "":
				return false, false
			case v[0] == tagS && w[0] == tagS:
				holds = holds && v == w
			case v[0] == tagN && w[0] == tagN && v == w:
			default:
				return false, false
			}
		}
	}
	return holds, true
}

// set makes the record of a simple update (see simple) of the record
// base, with tagged values (see taggedValues) and aliases, its names
// plain, in db.scratch; ok is false when it sets a value that is missing,
// or an attribute whose value the interpreter would not read.
func (db *DB) set(p *parsed, aliases, values map[string]string, base record) (rec record, ok bool) {
	var small [16]attr
	sets := small[:0]
	for _, a := range p.sets {
		name, v := aliases[a.target], values[a.value]
		if old := base.attr(name); v == "" || old != "" && !readable(old) {
			return "", false
		}
		sets = append(sets, attr{name, v})
	}
	// The last of several sets of one attribute wins, as in the
	// interpreter.
	slices.SortStableFunc(sets, func(a, b attr) int { return strings.Compare(a.name, b.name) })
	b := db.scratch[:0]
	rest := string(base)
	for i, a := range sets {
		if i+1 < len(sets) && sets[i+1].name == a.name {
			continue
		}
		for rest != "" {
			name, v, after := nextAttr(rest)
			if name >= a.name {
				if name == a.name {
					rest = after
				}
				break
			}
			b, rest = appendAttr(b, name, v), after
		}
		b = appendAttr(b, a.name, a.tagged)
	}
	b = append(b, rest...)
	db.scratch = b
	return record(b), true
}

// attr is an attribute's name and its value's tagged form.
type attr struct{ name, tagged string }

// appendAttr appends an attribute of a record.
func appendAttr(b []byte, name, tagged string) []byte {
	b = binary.AppendUvarint(b, uint64(len(name)))
	b = append(b, name...)
	b = binary.AppendUvarint(b, uint64(len(tagged)-1))
	return append(b, tagged...)
}

// readable reports whether minidyn's interpreter reads a tagged value
// into an object that equals another exactly when their tagged forms are
// equal: a string, a number that parses (not NaN), a boolean, a true
// NULL, bytes, or a list or map of those that is not empty. Anything else
// (a set, whose members it reorders and merges; empty bytes or a false
// NULL, which it cannot read) takes the interpreter's way.
func readable(tagged string) bool {
	switch body := tagged[1:]; tagged[0] {
	case tagS, tagBOOL:
		return true
	case tagN:
		f, err := strconv.ParseFloat(body, 64)
		return err == nil && !math.IsNaN(f)
	case tagNULL:
		return body == "\x01"
	case tagB:
		return body != ""
	case tagL:
		for empty := true; ; empty = false {
			if body == "" {
				return !empty
			}
			var v string
			if v, body = nextValue(body); !readable(v) {
				return false
			}
		}
	case tagM:
		for empty := true; ; empty = false {
			if body == "" {
				return !empty
			}
			var v string
			if _, v, body = nextAttr(body); !readable(v) {
				return false
			}
		}
	}
	return false
}

// plainNames reports whether the names of a simple expression mean to the
// interpreter what they mean to DynamoDB, and the interpreter's way would
// read no attribute but those the expression targets: every alias is a
// #placeholder standing for a plain name (the interpreter splits an alias
// at its dots, and reads on through one that names a placeholder), and no
// attribute of the item is named like a placeholder or like one of the
// functions a simple condition calls (the interpreter's way reads those
// too, see referenced).
func plainNames(aliases map[string]string, r record) bool {
	for k, name := range aliases {
		if !strings.HasPrefix(k, "#") || strings.ContainsAny(name, ".[") || strings.HasPrefix(name, "#") || strings.HasPrefix(name, ":") {
			return false
		}
	}
	for s := string(r); s != ""; {
		var name string
		name, _, s = nextAttr(s)
		if strings.HasPrefix(name, "#") || strings.HasPrefix(name, ":") || name == "attribute_exists" || name == "attribute_not_exists" {
			return false
		}
	}
	return true
}
