package ddbmem

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/truora/minidyn/interpreter"
	"github.com/truora/minidyn/interpreter/language"
	mtypes "github.com/truora/minidyn/types"
)

// Expressions are evaluated as minidyn's interpreter.Language evaluates
// them (Match, Update and Project, whose steps and errors match, update
// and project repeat), but each expression string is parsed once: its
// parse is cached and its AST shared, which evaluation only reads
// (language.Eval and EvalUpdate keep their state in the Environment). The
// interpreter's defensive copies of the item and of the aliases are left
// out, as evaluation only reads them (Update writes to the item it is
// given, as Language.Update does), and so are the item's attributes the
// expression does not name (see referenced).

// exprKind is which parser an expression takes, and how its errors read.
type exprKind uint8

const (
	kindCondition  exprKind = iota // a ConditionExpression
	kindKey                        // a KeyConditionExpression
	kindFilter                     // a FilterExpression
	kindUpdate                     // an UpdateExpression
	kindProjection                 // a ProjectionExpression
)

// label is the expression's name in the interpreter's errors.
func (k exprKind) label() string {
	return [...]string{"ConditionExpression", "KeyConditionExpression", "FilterExpression", "UpdateExpression", "ProjectionExpression"}[k]
}

// parsed is an expression's parse, shared by every evaluation of it and
// never changed: its AST (cond, update or paths, by kind) or the error
// parsing it is, and the #placeholders it names.
type parsed struct {
	cond   *language.ConditionalExpression
	update *language.UpdateStatement
	paths  []language.Expression
	err    error
	names  []string // each once, in order of first use
	// refs are the attribute names and #placeholders the expression
	// names (see references): all it can read or write of an item.
	refs []string
	// sets and tests are a simple update's and a simple condition's, nil
	// for others (see simple.go).
	sets  []assignment
	tests []test
}

// maxParsed bounds the cache: past it, expressions are parsed on each
// use. An application uses a few dozen.
const maxParsed = 4096

// exprKey is an expression in the cache.
type exprKey struct {
	kind exprKind
	expr string
}

// parses caches expressions' parses, for all DBs.
var parses = struct {
	sync.RWMutex
	m map[exprKey]*parsed
}{m: map[exprKey]*parsed{}}

// parse returns the parse of expr as a kind of expression, from the cache
// if it is there.
func parse(kind exprKind, expr string) *parsed {
	k := exprKey{kind, expr}
	parses.RLock()
	p := parses.m[k]
	parses.RUnlock()
	if p != nil {
		return p
	}
	p = parseExpr(kind, expr)
	parses.Lock()
	defer parses.Unlock()
	if q := parses.m[k]; q != nil {
		return q // parsed meanwhile
	}
	if len(parses.m) < maxParsed {
		parses.m[k] = p
	}
	return p
}

// parseExpr parses expr, with the errors Language.Match, Update and
// Project return for a failed parse.
func parseExpr(kind exprKind, expr string) *parsed {
	p := &parsed{names: placeholders(expr), refs: references(expr)}
	l := language.NewLexer(expr)
	switch kind {
	case kindUpdate:
		ps := language.NewUpdateParser(l)
		p.update = ps.ParseUpdateExpression()
		if errs := ps.Errors(); len(errs) != 0 {
			errType := interpreter.ErrSyntaxError
			if ps.IsUnsupportedExpression() {
				errType = interpreter.ErrUnsupportedFeature
			}
			p.err = fmt.Errorf("%w: %s", errType, strings.Join(errs, "\n"))
		} else {
			p.sets = assignments(p.update)
		}
	case kindProjection:
		ps := language.NewParser(l)
		p.paths = ps.ParseProjectionExpression()
		if errs := ps.Errors(); len(errs) != 0 {
			//lint:ignore ST1005 DynamoDB's wording, as the interpreter's
			p.err = fmt.Errorf("Invalid ProjectionExpression: %w; %s", interpreter.ErrSyntaxError, strings.Join(errs, "\n"))
		}
	default:
		ps := language.NewParser(l)
		p.cond = ps.ParseConditionalExpression()
		errs := ps.Errors()
		switch {
		case len(errs) != 0:
			if kind == kindKey {
				p.err = keyError(strings.Join(errs, "; "))
			} else {
				p.err = fmt.Errorf("%w: %s", interpreter.ErrSyntaxError, strings.Join(errs, "\n"))
			}
		case p.cond.Expression == nil:
			if kind == kindKey {
				p.err = keyError("empty expression")
			} else {
				p.err = fmt.Errorf("%w: empty expression", interpreter.ErrSyntaxError)
			}
		case kind == kindCondition:
			p.tests = tests(p.cond.Expression)
		}
	}
	return p
}

// keyError is the interpreter's error for a KeyConditionExpression.
func keyError(detail string) error {
	//lint:ignore ST1005 DynamoDB's wording, as the interpreter's
	return fmt.Errorf("Invalid KeyConditionExpression: %w; %s", interpreter.ErrSyntaxError, detail)
}

// placeholders lists the #placeholders expr names, each once, in order,
// as language.UndeclaredExpressionAttributeNames reads them.
func placeholders(expr string) []string {
	var names []string
	l := language.NewLexer(expr)
	for tok := l.NextToken(); tok.Type != language.EOF; tok = l.NextToken() {
		if tok.Type == language.IDENT && strings.HasPrefix(tok.Literal, "#") && !slices.Contains(names, tok.Literal) {
			names = append(names, tok.Literal)
		}
	}
	return names
}

// references lists the attribute names and #placeholders expr names, each
// once: its identifiers (the lexer makes the dots and brackets of a path
// tokens of their own). It may list more (a nested name, a function's
// name, a keyword): a name lets the attribute of that name in, and none
// is left out.
func references(expr string) []string {
	var refs []string
	l := language.NewLexer(expr)
	for tok := l.NextToken(); tok.Type != language.EOF; tok = l.NextToken() {
		if tok.Type == language.IDENT && !slices.Contains(refs, tok.Literal) {
			refs = append(refs, tok.Literal)
		}
	}
	return refs
}

// referenced returns the attributes of item the expression names, through
// aliases: converting the others to the interpreter's objects, as
// Language does, would be wasted, as evaluating the expression cannot read
// or write them. An alias to a nested path lets in the attribute of its
// whole value and of its first name. (So an attribute the interpreter
// cannot read fails only an expression that names it, and the members of
// a set that is not named are kept as put, where the interpreter merges
// duplicates: see the package doc.)
func (p *parsed) referenced(item map[string]*mtypes.Item, aliases map[string]string) map[string]*mtypes.Item {
	out := make(map[string]*mtypes.Item, min(len(item), len(p.refs)))
	add := func(name string) {
		if v, ok := item[name]; ok {
			out[name] = v
		}
	}
	for _, r := range p.refs {
		add(r) // an attribute named like a placeholder is read as the one it stands for
		if name, ok := aliases[r]; ok {
			add(name)
			if i := strings.IndexAny(name, ".["); i > 0 {
				add(name[:i])
			}
		}
	}
	return out
}

// declared checks every #placeholder of the expression is in aliases,
// failing as interpreter.ValidateExpressionAttributeNamesDeclared does
// (which makes the error, of a type of its own).
func (p *parsed) declared(kind exprKind, expr string, aliases map[string]string) error {
	for _, n := range p.names {
		if _, ok := aliases[n]; !ok {
			return interpreter.ValidateExpressionAttributeNamesDeclared(kind.label(), expr, aliases)
		}
	}
	return nil
}

// unsupported is the interpreter's error for an item or values it cannot
// evaluate.
func unsupported(err error) error {
	return fmt.Errorf("%w: %s", interpreter.ErrUnsupportedFeature, err.Error())
}

// match evaluates a condition, key condition or filter (by kind) on item,
// with values and aliases, as Language.Match does.
func match(kind exprKind, expr string, aliases map[string]string, values, item map[string]*mtypes.Item) (bool, error) {
	p := parse(kind, expr)
	if p.err != nil {
		return false, p.err
	}
	if err := p.declared(kind, expr, aliases); err != nil {
		return false, err
	}
	env := language.NewEnvironment()
	env.Aliases = aliases
	if err := env.AddAttributes(p.referenced(item, aliases)); err != nil {
		return false, unsupported(err)
	}
	if err := env.AddAttributes(values); err != nil {
		return false, unsupported(err)
	}
	result := language.Eval(p.cond, env)
	if result.Type() == language.ObjectTypeError {
		if kind == kindKey {
			return false, keyError(result.Inspect())
		}
		return false, fmt.Errorf("%w: %s", interpreter.ErrSyntaxError, result.Inspect())
	}
	return result == language.TRUE, nil
}

// update applies an update expression to item, with values and aliases,
// as Language.Update does.
func update(expr string, aliases map[string]string, values, item map[string]*mtypes.Item) error {
	p := parse(kindUpdate, expr)
	if p.err != nil {
		return p.err
	}
	if err := p.declared(kindUpdate, expr, aliases); err != nil {
		return err
	}
	env := language.NewEnvironment()
	env.Aliases = aliases
	// Apply writes back what the environment holds: the attributes left
	// out stay in item as they are.
	if err := env.AddAttributes(p.referenced(item, aliases)); err != nil {
		return unsupported(err)
	}
	attributes := make(map[string]bool, len(values))
	for key := range values {
		attributes[key] = true
	}
	if err := env.AddAttributes(values); err != nil {
		return unsupported(err)
	}
	result := language.EvalUpdate(p.update, env)
	if result.Type() == language.ObjectTypeError {
		if errObj, ok := result.(*language.Error); ok {
			return errors.New(errObj.Message)
		}
		return errors.New(result.Inspect())
	}
	env.Apply(item, aliases, attributes)
	return nil
}

// project returns the attributes of item a projection expression names,
// with aliases, as Language.Project does.
func project(expr string, aliases map[string]string, item map[string]*mtypes.Item) (map[string]*mtypes.Item, error) {
	p := parse(kindProjection, expr)
	if p.err != nil {
		return nil, p.err
	}
	if err := p.declared(kindProjection, expr, aliases); err != nil {
		return nil, err
	}
	env := language.NewEnvironment()
	env.Aliases = aliases
	if err := env.AddAttributes(p.referenced(item, aliases)); err != nil {
		return nil, unsupported(err)
	}
	out := map[string]*mtypes.Item{}
	for _, e := range p.paths {
		result := language.Eval(e, env)
		if language.IsUndefinedObject(result) {
			continue
		}
		if result.Type() == language.ObjectTypeError {
			return nil, fmt.Errorf("%w: %s", interpreter.ErrSyntaxError, result.Inspect())
		}
		path, err := language.ExtractPath(e, env)
		if err != nil {
			return nil, fmt.Errorf("%w: %s", interpreter.ErrSyntaxError, err.Error())
		}
		language.SetProjectedPath(out, path, result.ToDynamoDB())
	}
	return out, nil
}
