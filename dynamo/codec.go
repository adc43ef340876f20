package dynamo

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// The one codec of the table's attribute values: every item kind writes
// and reads its attributes with these, so a string, a number and a time
// are stored the same way in every item.

// S is a string attribute.
func S(s string) types.AttributeValue { return &types.AttributeValueMemberS{Value: s} }

// N is an integer attribute.
func N(n int64) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(n, 10)}
}

// Null stands for a zero value that has no natural stored form.
var Null types.AttributeValue = &types.AttributeValueMemberNULL{Value: true}

// Optional is S(s), or Null when s is empty.
func Optional(s string) types.AttributeValue {
	if s == "" {
		return Null
	}
	return S(s)
}

// Time is t in UTC with nanoseconds (RFC 3339), so that times sort as
// strings and read back equal.
func Time(t time.Time) types.AttributeValue { return S(t.UTC().Format(time.RFC3339Nano)) }

// OptionalTime is Time(t), or Null when t is zero.
func OptionalTime(t time.Time) types.AttributeValue {
	if t.IsZero() {
		return Null
	}
	return Time(t)
}

// Reader reads typed attributes out of one stored item. Every problem is
// kept, and a read that finds one returns the zero value, so a decoder
// reads every attribute and checks Err once. An absent or NULL attribute
// reads as the zero value (a problem when required).
type Reader struct {
	path     string // prefix of attribute names in messages, e.g. "totals."
	m        map[string]types.AttributeValue
	problems *[]string
}

// Read starts reading item.
func Read(item map[string]types.AttributeValue) Reader {
	return Reader{m: item, problems: new([]string)}
}

// Err names every problem found, each with its attribute; nil when none.
func (f Reader) Err() error {
	if len(*f.problems) == 0 {
		return nil
	}
	return errors.New(strings.Join(*f.problems, "; "))
}

// Fail records a problem with the attribute name.
func (f Reader) Fail(name, format string, args ...any) {
	*f.problems = append(*f.problems, fmt.Sprintf("attribute %q: %s", f.path+name, fmt.Sprintf(format, args...)))
}

// lookup returns the attribute, or nil when it is absent or NULL (a
// problem if required).
func (f Reader) lookup(name string, required bool) types.AttributeValue {
	av := f.m[name]
	if _, isNull := av.(*types.AttributeValueMemberNULL); isNull {
		av = nil
	}
	if av == nil && required {
		f.Fail(name, "missing")
	}
	return av
}

// Str reads an S attribute.
func (f Reader) Str(name string, required bool) string {
	av := f.lookup(name, required)
	if av == nil {
		return ""
	}
	s, ok := av.(*types.AttributeValueMemberS)
	if !ok {
		f.Fail(name, "want a string (S), got %s", TypeName(av))
		return ""
	}
	return s.Value
}

// number returns the digits of an N attribute, "" when absent.
func (f Reader) number(name string, required bool) string {
	av := f.lookup(name, required)
	if av == nil {
		return ""
	}
	n, ok := av.(*types.AttributeValueMemberN)
	if !ok {
		f.Fail(name, "want a number (N), got %s", TypeName(av))
		return ""
	}
	return n.Value
}

// signed parses an integer N attribute of the given bit size; absent is 0.
func (f Reader) signed(name string, required bool, bits int) int64 {
	s := f.number(name, required)
	if s == "" {
		return 0
	}
	v, err := strconv.ParseInt(s, 10, bits)
	if err == nil {
		return v
	}
	// An emulator that evaluates update expressions in float64 may write
	// a whole number in a float's form ("1.7e+12"): read it as the integer
	// it is, as the journal's decoder did before this codec.
	if x, ferr := strconv.ParseFloat(s, 64); ferr == nil && x == math.Trunc(x) && math.Abs(x) < math.Ldexp(1, bits-1) {
		return int64(x)
	}
	f.Fail(name, "want a %d-bit integer, got %q", bits, s)
	return 0
}

// Int64 reads an integer N attribute.
func (f Reader) Int64(name string, required bool) int64 { return f.signed(name, required, 64) }

// Float64 reads an N attribute as a float.
func (f Reader) Float64(name string, required bool) float64 {
	s := f.number(name, required)
	if s == "" {
		return 0
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		f.Fail(name, "want a number, got %q", s)
	}
	return v
}

// Bool reads a BOOL attribute.
func (f Reader) Bool(name string, required bool) bool {
	av := f.lookup(name, required)
	if av == nil {
		return false
	}
	b, ok := av.(*types.AttributeValueMemberBOOL)
	if !ok {
		f.Fail(name, "want a boolean (BOOL), got %s", TypeName(av))
		return false
	}
	return b.Value
}

// JSON decodes an S attribute holding JSON into v.
func (f Reader) JSON(name string, required bool, v any) {
	av := f.lookup(name, required)
	if av == nil {
		return
	}
	s, ok := av.(*types.AttributeValueMemberS)
	if !ok {
		f.Fail(name, "want a string (S), got %s", TypeName(av))
		return
	}
	if err := json.Unmarshal([]byte(s.Value), v); err != nil {
		f.Fail(name, "want JSON: %v", err)
	}
}

// Int reads an optional integer N attribute that fits an int.
func (f Reader) Int(name string) int { return int(f.signed(name, false, strconv.IntSize)) }

// Time reads an S attribute written by Time.
func (f Reader) Time(name string, required bool) time.Time {
	s := f.Str(name, required)
	if s == "" {
		if required {
			f.Fail(name, "empty time")
		}
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		f.Fail(name, "want an RFC 3339 time, got %q", s)
	}
	return t
}

// List returns the elements of an L attribute, none when absent.
func (f Reader) List(name string) []types.AttributeValue {
	av := f.lookup(name, false)
	if av == nil {
		return nil
	}
	l, ok := av.(*types.AttributeValueMemberL)
	if !ok {
		f.Fail(name, "want a list (L), got %s", TypeName(av))
		return nil
	}
	return l.Value
}

// Elem reads the i-th element of the list attribute name as a map.
func (f Reader) Elem(name string, i int, av types.AttributeValue) Reader {
	return f.nested(fmt.Sprintf("%s[%d]", name, i), av)
}

// Sub reads the M attribute name; ok is false when it is absent.
func (f Reader) Sub(name string) (Reader, bool) {
	av := f.lookup(name, false)
	if av == nil {
		return Reader{}, false
	}
	return f.nested(name, av), true
}

// nested reads av, the value at name, as a map of attributes.
func (f Reader) nested(name string, av types.AttributeValue) Reader {
	inner := Reader{path: f.path + name + ".", problems: f.problems}
	m, ok := av.(*types.AttributeValueMemberM)
	if !ok {
		f.Fail(name, "want a map (M), got %s", TypeName(av))
		return inner
	}
	inner.m = m.Value
	return inner
}

// TypeName is the DynamoDB type code of av, e.g. "S" or "BOOL".
func TypeName(av types.AttributeValue) string {
	return strings.TrimPrefix(fmt.Sprintf("%T", av), "*types.AttributeValueMember")
}
