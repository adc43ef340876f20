package asl

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"sync"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/ohler55/ojg/oj"
)

// errNotJSON is returned by DecodeJSON for text that is not one JSON value.
var errNotJSON = errors.New("asl: not valid JSON")

// DecodeJSON parses one JSON value into the generic data this package
// evaluates (map[string]any, []any, int64, float64, json.Number, string,
// bool, nil). It accepts what encoding/json accepts (nesting at most
// 10,000 deep), but for a number infinite as a float64 (1e400), which has
// no JSON form, and says what is wrong as encoding/json does. Strings
// decode as encoding/json decodes them (surrogate pairs joined, invalid
// UTF-8 and lone surrogates as U+FFFD). Integers of up to 18 digits are
// int64s; other numbers are what ojg's parser makes of them (float64, or
// json.Number beyond float64's digits).
func DecodeJSON(text []byte) (any, error) {
	d := decoders.Get().(*decoder)
	v, err := d.decode(text)
	d.release()
	decoders.Put(d)
	switch {
	case err == nil:
		return v, nil
	case !json.Valid(text):
		// Say what is wrong as encoding/json does (the decoder stops at
		// an infinite number, before any later syntax error).
		var probe any
		return nil, fmt.Errorf("%w: %v", errNotJSON, json.Unmarshal(text, &probe))
	}
	return nil, fmt.Errorf("%w: %v", errNotJSON, err)
}

var (
	// errSyntax is the decoder's error for text that is not JSON;
	// DecodeJSON words it as encoding/json does.
	errSyntax = errors.New("syntax error")
	// errInfinite is the decoder's error for a number out of float64's
	// range.
	errInfinite = errors.New("a number is out of the range of a 64-bit float")
)

const (
	// maxDepth is how deep encoding/json lets arrays and objects nest.
	maxDepth = 10000
	// maxScratch bounds the scratch space an idle decoder keeps.
	maxScratch = 64 << 10
	// maxInterned is the length of the longest string a decoder reuses
	// instead of allocating: object keys and short values repeat from one
	// document to the next.
	maxInterned = 32
)

// decoders are idle decoders, each with its scratch space and its
// strings warm.
var decoders = sync.Pool{New: func() any { return new(decoder) }}

// decoder parses JSON text in one pass, checking it as it goes (parsing
// it with ojg used to take a check with encoding/json's scanner first, as
// ojg accepts some malformed text, and a walk after, for infinite
// numbers). Objects and arrays are made once their size is known.
type decoder struct {
	data  []byte
	pos   int
	depth int
	// members and items hold the members and elements of the objects
	// and arrays being parsed, innermost last.
	members []member
	items   []any
	// buf is where escaped strings are unescaped.
	buf []byte
	// strs are strings made recently, by hash.
	strs [256]string
}

// member is a member of an object being parsed.
type member struct {
	key string
	val any
}

// decode parses text as one JSON value.
func (d *decoder) decode(text []byte) (any, error) {
	d.data, d.pos, d.depth = text, 0, 0
	v, err := d.value()
	if err != nil {
		return nil, err
	}
	if d.skipSpace(); d.pos != len(d.data) {
		return nil, errSyntax
	}
	return v, nil
}

// release drops the decoder's hold on the text it decoded, and on scratch
// space a large document made it take.
func (d *decoder) release() {
	d.data = nil
	if cap(d.buf) > maxScratch {
		d.buf = nil
	}
	if cap(d.members) > maxScratch/32 || cap(d.items) > maxScratch/16 {
		d.members, d.items = nil, nil
	}
}

// skipSpace moves past JSON whitespace.
func (d *decoder) skipSpace() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

// value parses the value at the decoder's position, after whitespace.
func (d *decoder) value() (any, error) {
	if d.skipSpace(); d.pos == len(d.data) {
		return nil, errSyntax
	}
	switch c := d.data[d.pos]; {
	case c == '{':
		return d.object()
	case c == '[':
		return d.array()
	case c == '"':
		return d.str()
	case c == '-' || '0' <= c && c <= '9':
		return d.number()
	case c == 't':
		return true, d.literal("true")
	case c == 'f':
		return false, d.literal("false")
	case c == 'n':
		return nil, d.literal("null")
	}
	return nil, errSyntax
}

// literal moves past word, which must be next.
func (d *decoder) literal(word string) error {
	if len(d.data)-d.pos < len(word) || string(d.data[d.pos:d.pos+len(word)]) != word {
		return errSyntax
	}
	d.pos += len(word)
	return nil
}

// nest enters an object or array at the decoder's position.
func (d *decoder) nest() error {
	if d.depth++; d.depth > maxDepth {
		return errSyntax
	}
	d.pos++
	d.skipSpace()
	return nil
}

// next moves past the comma before another member or element, reporting
// false at the closing byte end.
func (d *decoder) next(end byte) (bool, error) {
	switch d.skipSpace(); {
	case d.closes(end):
		return false, nil
	case d.pos < len(d.data) && d.data[d.pos] == ',':
		d.pos++
		return true, nil
	}
	return false, errSyntax
}

// closes moves past the closing byte end of an object or array, if it is
// next, and leaves it.
func (d *decoder) closes(end byte) bool {
	if d.pos == len(d.data) || d.data[d.pos] != end {
		return false
	}
	d.pos++
	d.depth--
	return true
}

// object parses an object, its opening brace next.
func (d *decoder) object() (any, error) {
	if err := d.nest(); err != nil {
		return nil, err
	}
	base := len(d.members)
	defer func() {
		clear(d.members[base:])
		d.members = d.members[:base]
	}()
	if d.closes('}') {
		return map[string]any{}, nil
	}
	for more := true; more; {
		if d.skipSpace(); d.pos == len(d.data) || d.data[d.pos] != '"' {
			return nil, errSyntax
		}
		key, err := d.str()
		if err != nil {
			return nil, err
		}
		if d.skipSpace(); d.pos == len(d.data) || d.data[d.pos] != ':' {
			return nil, errSyntax
		}
		d.pos++
		val, err := d.value()
		if err != nil {
			return nil, err
		}
		d.members = append(d.members, member{key, val})
		if more, err = d.next('}'); err != nil {
			return nil, err
		}
	}
	m := make(map[string]any, len(d.members)-base)
	for _, kv := range d.members[base:] {
		m[kv.key] = kv.val // the last of a repeated name wins
	}
	return m, nil
}

// array parses an array, its opening bracket next.
func (d *decoder) array() (any, error) {
	if err := d.nest(); err != nil {
		return nil, err
	}
	base := len(d.items)
	defer func() {
		clear(d.items[base:])
		d.items = d.items[:base]
	}()
	if d.closes(']') {
		return []any{}, nil
	}
	for more := true; more; {
		val, err := d.value()
		if err != nil {
			return nil, err
		}
		d.items = append(d.items, val)
		if more, err = d.next(']'); err != nil {
			return nil, err
		}
	}
	return append([]any(nil), d.items[base:]...), nil
}

// str parses a string, its opening quote next.
func (d *decoder) str() (string, error) {
	start := d.pos + 1
	for i := start; i < len(d.data); i++ {
		switch c := d.data[i]; {
		case c == '"':
			d.pos = i + 1
			return d.intern(d.data[start:i]), nil
		case c == '\\' || c < ' ' || c >= utf8.RuneSelf:
			return d.unescape(start, i)
		}
	}
	return "", errSyntax
}

// unescape parses the rest of a string that starts at start and has an
// escape, a control character or a byte beyond ASCII at i, as
// encoding/json does.
func (d *decoder) unescape(start, i int) (string, error) {
	b := append(d.buf[:0], d.data[start:i]...)
	defer func() { d.buf = b[:0] }()
	for i < len(d.data) {
		switch c := d.data[i]; {
		case c == '"':
			d.pos = i + 1
			return d.intern(b), nil
		case c < ' ':
			return "", errSyntax
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRune(d.data[i:])
			b = utf8.AppendRune(b, r) // RuneError for an invalid byte
			i += size
		case c != '\\':
			b = append(b, c)
			i++
		case i+1 == len(d.data):
			return "", errSyntax
		default:
			i += 2
			switch e := d.data[i-1]; e {
			case '"', '\\', '/':
				b = append(b, e)
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				r, ok := hex4(d.data[i:])
				if !ok {
					return "", errSyntax
				}
				i += 4
				if utf16.IsSurrogate(r) {
					// A pair makes one rune; half of one is U+FFFD.
					low, ok := hex4(d.data[min(i+2, len(d.data)):])
					if ok && d.data[i] == '\\' && d.data[i+1] == 'u' {
						if pair := utf16.DecodeRune(r, low); pair != utf8.RuneError {
							r, i = pair, i+6
						}
					}
					if utf16.IsSurrogate(r) {
						r = utf8.RuneError
					}
				}
				b = utf8.AppendRune(b, r)
			default:
				return "", errSyntax
			}
		}
	}
	return "", errSyntax
}

// hex4 decodes the four hexadecimal digits b starts with.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// intern returns b as a string, the one made last time when it is short
// and was seen recently.
func (d *decoder) intern(b []byte) string {
	if len(b) == 0 || len(b) > maxInterned {
		return string(b)
	}
	// A hash of the length and four bytes: cheap, and enough to tell
	// apart the few names of a document.
	n := len(b)
	h := (((uint(n)*31+uint(b[0]))*31+uint(b[n/3]))*31+uint(b[2*n/3]))*31 + uint(b[n-1])
	slot := &d.strs[(h^h>>8)%uint(len(d.strs))]
	if *slot != string(b) {
		*slot = string(b)
	}
	return *slot
}

// number parses a number at the decoder's position.
func (d *decoder) number() (any, error) {
	start := d.pos
	i := start
	if d.data[i] == '-' {
		i++
	}
	digits := i
	switch {
	case i == len(d.data):
		return nil, errSyntax
	case d.data[i] == '0':
		i++
	case '1' <= d.data[i] && d.data[i] <= '9':
		i = skipDigits(d.data, i)
	default:
		return nil, errSyntax
	}
	integer, intDigits := true, i-digits
	if i < len(d.data) && d.data[i] == '.' {
		if i = skipDigits(d.data, i+1); d.data[i-1] == '.' {
			return nil, errSyntax
		}
		integer = false
	}
	if i < len(d.data) && (d.data[i] == 'e' || d.data[i] == 'E') {
		i++
		if i < len(d.data) && (d.data[i] == '+' || d.data[i] == '-') {
			i++
		}
		exp := i
		if i = skipDigits(d.data, i); i == exp {
			return nil, errSyntax
		}
		integer = false
	}
	d.pos = i
	if integer && intDigits <= 18 {
		var n int64
		for _, c := range d.data[digits:i] {
			n = n*10 + int64(c-'0')
		}
		if digits > start {
			n = -n
		}
		return n, nil
	}
	return ojgNumber(d.data[start:i])
}

// skipDigits returns the index of the first byte from i on in b that is
// not a decimal digit.
func skipDigits(b []byte, i int) int {
	for i < len(b) && '0' <= b[i] && b[i] <= '9' {
		i++
	}
	return i
}

// ojgNumber converts a number that is not an integer of up to 18 digits
// as ojg's parser does: float64, or json.Number for one with more digits
// than a float64 holds. Such numbers are rare in documents. One ojg
// refuses (a zero with an exponent, 0e1) is a float64.
func ojgNumber(text []byte) (v any, err error) {
	defer func() {
		if r := recover(); r != nil {
			v, err = parseFloat(text)
		}
	}()
	if v, err = oj.Parse(text); err != nil {
		return parseFloat(text)
	}
	if f, ok := v.(float64); ok && (math.IsInf(f, 0) || math.IsNaN(f)) {
		return nil, errInfinite
	}
	return v, nil
}

// parseFloat converts a JSON number to a float64.
func parseFloat(text []byte) (any, error) {
	f, err := strconv.ParseFloat(string(text), 64)
	switch {
	case math.IsInf(f, 0):
		return nil, errInfinite
	case err != nil:
		return nil, errSyntax
	}
	return f, nil
}
