package dynamo

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// ErrMalformed reports a stored breaker item that does not decode into a
// Row: a missing or mistyped attribute, an unknown state or a bad number.
var ErrMalformed = errors.New("dynamo: malformed breaker item")

// fields reads typed attributes out of one map of a stored item. The first
// problem is kept in *err and later reads return zero values, so decode can
// read every attribute and check once.
type fields struct {
	key  string // the breaker key, for messages
	path string // prefix of attribute names in messages, e.g. "totals."
	m    map[string]types.AttributeValue
	err  *error
}

// fail records a problem with the attribute name unless one is recorded.
func (f fields) fail(name, format string, args ...any) {
	if *f.err == nil {
		*f.err = fmt.Errorf("%w: breaker %q: attribute %q: %s", ErrMalformed, f.key, f.path+name, fmt.Sprintf(format, args...))
	}
}

// lookup returns the attribute, or nil when it is absent or NULL (a problem
// if required) or an earlier problem was recorded.
func (f fields) lookup(name string, required bool) types.AttributeValue {
	if *f.err != nil {
		return nil
	}
	av := f.m[name]
	if _, isNull := av.(*types.AttributeValueMemberNULL); isNull {
		av = nil
	}
	if av == nil && required {
		f.fail(name, "missing")
	}
	return av
}

func (f fields) str(name string, required bool) string {
	av := f.lookup(name, required)
	if av == nil {
		return ""
	}
	s, ok := av.(*types.AttributeValueMemberS)
	if !ok {
		f.fail(name, "want a string (S), got %s", typeName(av))
		return ""
	}
	return s.Value
}

// number returns the digits of an N attribute, "" when absent.
func (f fields) number(name string, required bool) string {
	av := f.lookup(name, required)
	if av == nil {
		return ""
	}
	n, ok := av.(*types.AttributeValueMemberN)
	if !ok {
		f.fail(name, "want a number (N), got %s", typeName(av))
		return ""
	}
	return n.Value
}

// signed parses an integer N attribute of the given bit size; absent is 0.
func (f fields) signed(name string, required bool, bits int) int64 {
	s := f.number(name, required)
	if s == "" {
		return 0
	}
	v, err := strconv.ParseInt(s, 10, bits)
	if err != nil {
		f.fail(name, "want a %d-bit integer, got %q", bits, s)
	}
	return v
}

func (f fields) int64(name string, required bool) int64 { return f.signed(name, required, 64) }

func (f fields) int(name string) int { return int(f.signed(name, false, strconv.IntSize)) }

// bits parses a window bitset written by formatBits; absent is 0.
func (f fields) bits(name string) uint64 {
	s := f.str(name, false)
	if s == "" {
		return 0
	}
	v, err := strconv.ParseUint(s, 16, 64)
	if err != nil {
		f.fail(name, "want up to 16 hex digits, got %q", s)
	}
	return v
}

func (f fields) time(name string, required bool) time.Time {
	s := f.str(name, required)
	if s == "" {
		if required {
			f.fail(name, "empty time")
		}
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		f.fail(name, "want an RFC 3339 time, got %q", s)
	}
	return t
}

// list returns the elements of an L attribute, none when absent.
func (f fields) list(name string) []types.AttributeValue {
	av := f.lookup(name, false)
	if av == nil {
		return nil
	}
	l, ok := av.(*types.AttributeValueMemberL)
	if !ok {
		f.fail(name, "want a list (L), got %s", typeName(av))
		return nil
	}
	return l.Value
}

// elem reads the i-th element of the list attribute name as a map.
func (f fields) elem(name string, i int, av types.AttributeValue) fields {
	return f.nested(fmt.Sprintf("%s[%d]", name, i), av)
}

// sub reads the M attribute name; ok is false when it is absent.
func (f fields) sub(name string) (fields, bool) {
	av := f.lookup(name, false)
	if av == nil {
		return fields{}, false
	}
	return f.nested(name, av), true
}

// nested reads av, the value at name, as a map of attributes.
func (f fields) nested(name string, av types.AttributeValue) fields {
	inner := fields{key: f.key, path: f.path + name + ".", err: f.err}
	m, ok := av.(*types.AttributeValueMemberM)
	if !ok {
		f.fail(name, "want a map (M), got %s", typeName(av))
		return inner
	}
	inner.m = m.Value
	return inner
}

// typeName is the DynamoDB type code of av, e.g. "S" or "BOOL".
func typeName(av types.AttributeValue) string {
	return strings.TrimPrefix(fmt.Sprintf("%T", av), "*types.AttributeValueMember")
}
