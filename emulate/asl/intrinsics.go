package asl

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// maxIntrinsicNesting is how deeply intrinsic functions may nest in one
// field, per the AWS documentation.
const maxIntrinsicNesting = 10

// callNode is a compiled intrinsic function invocation, States.Name(args).
type callNode struct {
	name string
	spec *intrinsicSpec
	args []tmplNode
}

func (n *callNode) eval(input, ctxObj any, env Env) (any, error) {
	var buf [4]any
	args := buf[:0]
	for _, a := range n.args {
		v, err := a.eval(input, ctxObj, env)
		if err != nil {
			return nil, err
		}
		args = append(args, v)
	}
	out, err := n.spec.fn(n, args, env)
	if err != nil {
		return nil, RuntimeErrorf("Invalid arguments in %s: %v", n.name, err)
	}
	return out, nil
}

// strLiteral is a quoted string argument. segs holds the text around its
// unescaped "{}" placeholders (for a States.Format template).
type strLiteral struct {
	value string
	segs  []string
}

func (n *strLiteral) eval(any, any, Env) (any, error) { return n.value, nil }

// compileIntrinsic compiles an intrinsic function invocation, the value of
// the ".$" key field. Argument counts and literal argument types are checked
// here, so a definition with a malformed invocation fails to load.
func compileIntrinsic(s, field string) (tmplNode, error) {
	p := &intrinsicParser{s: s, field: field}
	n, err := p.call(1)
	if err == nil && p.skipSpace() < len(s) {
		err = fmt.Errorf("unexpected %q after the invocation", s[p.pos:])
	}
	if err != nil {
		return nil, fmt.Errorf("invalid intrinsic function %q: %w", s, err)
	}
	return n, nil
}

// intrinsicParser is a recursive-descent parser over one invocation.
type intrinsicParser struct {
	s     string
	pos   int
	field string
}

// skipSpace advances past whitespace and returns the new position.
func (p *intrinsicParser) skipSpace() int {
	for p.pos < len(p.s) && strings.IndexByte(" \t\r\n", p.s[p.pos]) >= 0 {
		p.pos++
	}
	return p.pos
}

// call parses "States.Name(arg, ...)" at the current position.
func (p *intrinsicParser) call(depth int) (tmplNode, error) {
	if depth > maxIntrinsicNesting {
		return nil, fmt.Errorf("more than %d nested intrinsic functions", maxIntrinsicNesting)
	}
	start := p.pos
	for p.pos < len(p.s) && isNameByte(p.s[p.pos]) {
		p.pos++
	}
	name := p.s[start:p.pos]
	spec, ok := intrinsics[name]
	if !ok {
		return nil, fmt.Errorf("unknown intrinsic function %q", name)
	}
	if p.skipSpace() >= len(p.s) || p.s[p.pos] != '(' {
		return nil, fmt.Errorf("expected '(' after %s", name)
	}
	p.pos++
	n := &callNode{name: name, spec: spec}
	if p.skipSpace() < len(p.s) && p.s[p.pos] == ')' {
		p.pos++
	} else {
		for {
			a, err := p.arg(depth)
			if err != nil {
				return nil, err
			}
			n.args = append(n.args, a)
			if p.skipSpace() >= len(p.s) {
				return nil, fmt.Errorf("missing ')' to close %s", name)
			}
			c := p.s[p.pos]
			p.pos++
			if c == ')' {
				break
			}
			if c != ',' {
				return nil, fmt.Errorf("unexpected %q in the arguments of %s", c, name)
			}
		}
	}
	if len(n.args) < spec.minArgs || (spec.maxArgs >= 0 && len(n.args) > spec.maxArgs) {
		return nil, fmt.Errorf("%s takes %s, got %d", name, spec.arity(), len(n.args))
	}
	if spec.check != nil {
		if err := spec.check(n.args); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	return n, nil
}

// literalWords are the JSON literals an argument may be.
var literalWords = map[string]any{"true": true, "false": false, "null": nil}

// isNameByte reports whether c may appear in an intrinsic's name.
func isNameByte(c byte) bool {
	return c == '.' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
}

// arg parses one argument: a string literal, a number, true, false, null,
// a path or a nested invocation.
func (p *intrinsicParser) arg(depth int) (tmplNode, error) {
	if p.skipSpace() >= len(p.s) {
		return nil, errors.New("missing argument")
	}
	rest := p.s[p.pos:]
	switch c := rest[0]; {
	case c == '\'':
		return p.stringLiteral()
	case c == '$':
		return p.pathArg()
	case strings.HasPrefix(rest, "States."):
		return p.call(depth + 1)
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	}
	for word, v := range literalWords {
		if strings.HasPrefix(rest, word) && (len(rest) == len(word) || !isNameByte(rest[len(word)])) {
			p.pos += len(word)
			return constNode{v}, nil
		}
	}
	return nil, fmt.Errorf("invalid argument starting at %q", rest)
}

// stringLiteral parses a single-quoted string with the escapes \' \{ \} \\.
func (p *intrinsicParser) stringLiteral() (tmplNode, error) {
	start := p.pos
	p.pos++ // opening quote
	var val, seg strings.Builder
	lit := &strLiteral{}
	for p.pos < len(p.s) {
		c := p.s[p.pos]
		p.pos++
		switch {
		case c == '\'':
			lit.value = val.String()
			lit.segs = append(lit.segs, seg.String())
			return lit, nil
		case c == '\\':
			if p.pos >= len(p.s) || strings.IndexByte(`'{}\`, p.s[p.pos]) < 0 {
				return nil, fmt.Errorf("open escape backslash in string literal %s", p.s[start:])
			}
			val.WriteByte(p.s[p.pos])
			seg.WriteByte(p.s[p.pos])
			p.pos++
		case c == '{' && p.pos < len(p.s) && p.s[p.pos] == '}':
			p.pos++
			val.WriteString("{}")
			lit.segs = append(lit.segs, seg.String())
			seg.Reset()
		default:
			val.WriteByte(c)
			seg.WriteByte(c)
		}
	}
	return nil, fmt.Errorf("unterminated string literal %s", p.s[start:])
}

// number parses an integer (int64) or decimal (float64) literal.
func (p *intrinsicParser) number() (tmplNode, error) {
	start := p.pos
	p.pos++
	for p.pos < len(p.s) && strings.IndexByte("0123456789.eE+-", p.s[p.pos]) >= 0 {
		p.pos++
	}
	text := p.s[start:p.pos]
	if i, err := strconv.ParseInt(text, 10, 64); err == nil {
		return constNode{i}, nil
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil {
		return nil, fmt.Errorf("invalid number %q", text)
	}
	return constNode{f}, nil
}

// pathArg parses a path argument, which ends at a ',' or ')' outside
// brackets, parentheses and quotes.
func (p *intrinsicParser) pathArg() (tmplNode, error) {
	start := p.pos
	depth := 0
	var quote byte
scan:
	for ; p.pos < len(p.s); p.pos++ {
		c := p.s[p.pos]
		switch {
		case quote != 0:
			if c == '\\' && p.pos+1 < len(p.s) {
				p.pos++
			} else if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '[' || c == '(':
			depth++
		case (c == ']' || c == ')') && depth > 0:
			depth--
		case depth == 0 && (c == ',' || c == ')' || c == ' ' || c == '\t'):
			break scan
		}
	}
	pth, err := compilePath(p.s[start:p.pos])
	if err != nil {
		return nil, err
	}
	return &pathNode{p: pth, field: p.field}, nil
}
