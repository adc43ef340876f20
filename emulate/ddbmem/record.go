package ddbmem

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	mtypes "github.com/truora/minidyn/types"
)

// record is an item as the table keeps it: one immutable string, so that
// an item costs one allocation and shares nothing mutable with what a
// caller passed or gets back (the strings read from it are substrings of
// it). It holds the item's attributes sorted by name (equal items encode
// alike), each as
//
//	attribute = uvarint(len(name)) name value
//	value     = uvarint(len(body)) tag body
//
// A value's tag and body, contiguous, are its tagged form: the key string
// of a string or binary key attribute (see valueKey) is that substring of
// the record, which the table's map and indexes keep without a copy. The
// body of S and N is the text, of B the bytes, of BOOL and NULL one byte
// (1 for true); that of SS, NS, BS and L is a sequence of values (a set's
// members as S, N and B values), and that of M a sequence of attributes
// sorted by name, as an item's. The empty record is no item.
type record string

// Value tags. A binary value without bytes (nil) has a tag of its own: it
// is kept as it was put, for expressions, but left out when read, as it is
// empty in the interpreter's form.
const (
	tagS       = 'S'
	tagN       = 'N'
	tagB       = 'B'
	tagNoBytes = 'b'
	tagBOOL    = '?'
	tagNULL    = '0'
	tagSS      = 's'
	tagNS      = 'n'
	tagBS      = 'x'
	tagL       = 'L'
	tagM       = 'M'
)

// encode makes the record of an item a caller passed (or an update made),
// building it in db.scratch; the empty record for a nil item. It fails on
// a value of no attribute type, naming the attribute, as toItem does.
// Call with db.mu held.
func (db *DB) encode(item map[string]types.AttributeValue) (record, error) {
	if item == nil {
		return "", nil
	}
	b, err := appendAttrs(db.scratch[:0], item)
	if err != nil {
		return "", err
	}
	db.scratch = b
	return record(b), nil
}

// pair is an attribute of a map being encoded.
type pair struct {
	name  string
	value types.AttributeValue
}

// appendAttrs appends a map's attributes, sorted by name.
func appendAttrs(b []byte, m map[string]types.AttributeValue) ([]byte, error) {
	var small [16]pair
	attrs := small[:0]
	for k, v := range m {
		attrs = append(attrs, pair{k, v})
	}
	slices.SortFunc(attrs, func(a, b pair) int { return strings.Compare(a.name, b.name) })
	for _, a := range attrs {
		b = binary.AppendUvarint(b, uint64(len(a.name)))
		b = append(b, a.name...)
		var err error
		if b, err = appendValue(b, a.value); err != nil {
			return nil, fmt.Errorf("attribute %q: %w", a.name, err)
		}
	}
	return b, nil
}

// appendScalar appends a value whose body is s.
func appendScalar[T string | []byte](b []byte, tag byte, s T) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(append(b, tag), s...)
}

// appendValue appends one value.
func appendValue(b []byte, v types.AttributeValue) ([]byte, error) {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return appendScalar(b, tagS, v.Value), nil
	case *types.AttributeValueMemberN:
		return appendScalar(b, tagN, v.Value), nil
	case *types.AttributeValueMemberB:
		return appendBytes(b, v.Value), nil
	case *types.AttributeValueMemberBOOL:
		return appendScalar(b, tagBOOL, boolBody(v.Value)), nil
	case *types.AttributeValueMemberNULL:
		return appendScalar(b, tagNULL, boolBody(v.Value)), nil
	case *types.AttributeValueMemberSS:
		return appendComposite(b, tagSS, func(b []byte) ([]byte, error) {
			for _, s := range v.Value {
				b = appendScalar(b, tagS, s)
			}
			return b, nil
		})
	case *types.AttributeValueMemberNS:
		return appendComposite(b, tagNS, func(b []byte) ([]byte, error) {
			for _, s := range v.Value {
				b = appendScalar(b, tagN, s)
			}
			return b, nil
		})
	case *types.AttributeValueMemberBS:
		return appendComposite(b, tagBS, func(b []byte) ([]byte, error) {
			for _, e := range v.Value {
				b = appendBytes(b, e)
			}
			return b, nil
		})
	case *types.AttributeValueMemberL:
		return appendComposite(b, tagL, func(b []byte) ([]byte, error) {
			for _, e := range v.Value {
				var err error
				if b, err = appendValue(b, e); err != nil {
					return nil, err
				}
			}
			return b, nil
		})
	case *types.AttributeValueMemberM:
		return appendComposite(b, tagM, func(b []byte) ([]byte, error) { return appendAttrs(b, v.Value) })
	}
	return nil, fmt.Errorf("unsupported attribute value %T", v)
}

// appendBytes appends a binary value: B, or tagNoBytes without bytes.
func appendBytes(b, v []byte) []byte {
	if v == nil {
		return appendScalar(b, tagNoBytes, "")
	}
	return appendScalar(b, tagB, v)
}

// appendComposite appends a value whose body body appends, then puts the
// body's length before it.
func appendComposite(b []byte, tag byte, body func([]byte) ([]byte, error)) ([]byte, error) {
	start := len(b)
	b, err := body(append(b, tag))
	if err != nil {
		return nil, err
	}
	var n [binary.MaxVarintLen64]byte
	k := binary.PutUvarint(n[:], uint64(len(b)-start-1))
	return slices.Insert(b, start, n[:k]...), nil
}

// boolBody is the body of a BOOL or NULL value.
func boolBody(v bool) string {
	if v {
		return "\x01"
	}
	return "\x00"
}

// uvarint reads a length off the start of s.
func uvarint(s string) (int, string) {
	n, shift := 0, 0
	for i := 0; i < len(s); i++ {
		n |= int(s[i]&0x7f) << shift
		if s[i] < 0x80 {
			return n, s[i+1:]
		}
		shift += 7
	}
	return n, ""
}

// nextValue splits the first value off s: its tagged form (tag and body)
// and the rest of s.
func nextValue(s string) (tagged, rest string) {
	n, s := uvarint(s)
	return s[:1+n], s[1+n:]
}

// nextAttr splits the first attribute off s: its name, its value's tagged
// form and the rest of s.
func nextAttr(s string) (name, tagged, rest string) {
	n, s := uvarint(s)
	name, s = s[:n], s[n:]
	tagged, rest = nextValue(s)
	return name, tagged, rest
}

// count counts the values of a sequence, or the attributes of one when
// attrs, and how many of them are S values and N values.
func count(s string, attrs bool) (n, strs, nums int) {
	for ; s != ""; n++ {
		var v string
		if attrs {
			_, v, s = nextAttr(s)
		} else {
			v, s = nextValue(s)
		}
		switch v[0] {
		case tagS:
			strs++
		case tagN:
			nums++
		}
	}
	return n, strs, nums
}

// attr returns the tagged form of the item's attribute name, "" if it has
// none.
func (r record) attr(name string) string {
	for s := string(r); s != ""; {
		var n, v string
		if n, v, s = nextAttr(s); n == name {
			return v
		}
	}
	return ""
}

// read decodes the item for a caller: a copy in the SDK's form, nil for
// none; a binary value without bytes is left out.
func (r record) read() map[string]types.AttributeValue {
	return r.decode(true)
}

// decode decodes the item to the SDK's form, nil for none; reading leaves
// out binary values without bytes (see read), which the item otherwise
// has as it was put.
func (r record) decode(reading bool) map[string]types.AttributeValue {
	if r == "" {
		return nil
	}
	return decodeAttrs(string(r), reading)
}

// keyOf is the key string of the item's attribute name (see valueKey).
func (r record) keyOf(name string) (string, bool) {
	return valueKey(r.attr(name))
}

// readAttrs decodes the item's attributes named in names for a caller, as
// read does.
func (r record) readAttrs(names ...string) map[string]types.AttributeValue {
	out := make(map[string]types.AttributeValue, len(names))
	a := newScalars(len(names), len(names))
	for _, n := range names {
		if v := r.attr(n); v != "" && n != "" {
			if av := a.value(v, true); av != nil {
				out[n] = av
			}
		}
	}
	return out
}

// decodeAttrs decodes a sequence of attributes to a map in the SDK's form,
// its S and N values made in one allocation each. Reading leaves out
// binary values without bytes (see read).
func decodeAttrs(s string, reading bool) map[string]types.AttributeValue {
	n, strs, nums := count(s, true)
	out := make(map[string]types.AttributeValue, n)
	a := newScalars(strs, nums)
	for s != "" {
		var name, v string
		name, v, s = nextAttr(s)
		if av := a.value(v, reading); av != nil {
			out[name] = av
		}
	}
	return out
}

// scalars holds the S and N values of a sequence being decoded, each kind
// in one allocation made with room for them all.
type scalars struct {
	ss []types.AttributeValueMemberS
	ns []types.AttributeValueMemberN
}

// newScalars has room for strs S values and nums N values.
func newScalars(strs, nums int) scalars {
	return scalars{make([]types.AttributeValueMemberS, 0, strs), make([]types.AttributeValueMemberN, 0, nums)}
}

// value decodes a tagged value as decodeValue does, an S or N value in a.
func (a *scalars) value(tagged string, reading bool) types.AttributeValue {
	switch tagged[0] {
	case tagS:
		a.ss = append(a.ss, types.AttributeValueMemberS{Value: tagged[1:]})
		return &a.ss[len(a.ss)-1]
	case tagN:
		a.ns = append(a.ns, types.AttributeValueMemberN{Value: tagged[1:]})
		return &a.ns[len(a.ns)-1]
	}
	return decodeValue(tagged, reading)
}

// decodeValue decodes a tagged value to the SDK's form; nil for a binary
// value without bytes when reading (see read). Lists, maps and sets are
// never nil.
func decodeValue(tagged string, reading bool) types.AttributeValue {
	body := tagged[1:]
	switch tagged[0] {
	case tagS:
		return &types.AttributeValueMemberS{Value: body}
	case tagN:
		return &types.AttributeValueMemberN{Value: body}
	case tagB:
		return &types.AttributeValueMemberB{Value: []byte(body)}
	case tagNoBytes:
		if reading {
			return nil
		}
		return &types.AttributeValueMemberB{}
	case tagBOOL:
		return &types.AttributeValueMemberBOOL{Value: body == "\x01"}
	case tagNULL:
		return &types.AttributeValueMemberNULL{Value: body == "\x01"}
	case tagSS:
		return &types.AttributeValueMemberSS{Value: decodeStrings(body)}
	case tagNS:
		return &types.AttributeValueMemberNS{Value: decodeStrings(body)}
	case tagBS:
		return &types.AttributeValueMemberBS{Value: decodeBinarySet(body)}
	case tagL:
		n, strs, nums := count(body, false)
		l := make([]types.AttributeValue, 0, n)
		a := newScalars(strs, nums)
		for body != "" {
			var v string
			v, body = nextValue(body)
			if av := a.value(v, reading); av != nil {
				l = append(l, av)
			}
		}
		return &types.AttributeValueMemberL{Value: l}
	case tagM:
		return &types.AttributeValueMemberM{Value: decodeAttrs(body, reading)}
	}
	panic(fmt.Sprintf("ddbmem: a record holds a value of tag %q", tagged[0]))
}

// decodeStrings decodes the members of a string or number set.
func decodeStrings(s string) []string {
	n, _, _ := count(s, false)
	out := make([]string, 0, n)
	for s != "" {
		var v string
		v, s = nextValue(s)
		out = append(out, v[1:])
	}
	return out
}

// decodeBinarySet decodes the members of a binary set, each a copy (nil
// for a member without bytes).
func decodeBinarySet(s string) [][]byte {
	n, _, _ := count(s, false)
	out := make([][]byte, 0, n)
	for s != "" {
		var v string
		v, s = nextValue(s)
		var b []byte
		if v[0] == tagB {
			b = []byte(v[1:])
		}
		out = append(out, b)
	}
	return out
}

// interpreted decodes the item to the interpreter's form (minidyn's
// types.Item), for an expression to read or update: nil for none. Its
// strings share the record's memory, being immutable; the rest is a copy.
func (r record) interpreted() map[string]*mtypes.Item {
	if r == "" {
		return nil
	}
	return interpretAttrs(string(r))
}

// interpretAttrs decodes a sequence of attributes to the interpreter's
// form, its values, and the strings its S and N values point to, each
// made in one allocation.
func interpretAttrs(s string) map[string]*mtypes.Item {
	n, strs, nums := count(s, true)
	out := make(map[string]*mtypes.Item, n)
	items := make([]mtypes.Item, n)
	ss := make([]string, 0, strs+nums)
	for i := 0; s != ""; i++ {
		var name, v string
		name, v, s = nextAttr(s)
		items[i] = interpretValue(v, &ss)
		out[name] = &items[i]
	}
	return out
}

// interpretValue decodes a tagged value to the interpreter's form; an S or
// N value points to a string appended to ss, which has room for it.
func interpretValue(tagged string, ss *[]string) mtypes.Item {
	body := tagged[1:]
	switch tagged[0] {
	case tagS, tagN:
		*ss = append(*ss, body)
		p := &(*ss)[len(*ss)-1]
		if tagged[0] == tagS {
			return mtypes.Item{S: p}
		}
		return mtypes.Item{N: p}
	case tagB:
		return mtypes.Item{B: []byte(body)}
	case tagNoBytes:
		return mtypes.Item{}
	case tagBOOL, tagNULL:
		b := body == "\x01"
		if tagged[0] == tagBOOL {
			return mtypes.Item{BOOL: &b}
		}
		return mtypes.Item{NULL: &b}
	case tagSS:
		return mtypes.Item{SS: ptrs(decodeStrings(body))}
	case tagNS:
		return mtypes.Item{NS: ptrs(decodeStrings(body))}
	case tagBS:
		return mtypes.Item{BS: decodeBinarySet(body)}
	case tagL:
		n, strs, nums := count(body, false)
		l := make([]*mtypes.Item, n)
		items := make([]mtypes.Item, n)
		lss := make([]string, 0, strs+nums)
		for i := 0; body != ""; i++ {
			var v string
			v, body = nextValue(body)
			items[i] = interpretValue(v, &lss)
			l[i] = &items[i]
		}
		return mtypes.Item{L: l}
	case tagM:
		return mtypes.Item{M: interpretAttrs(body)}
	}
	panic(fmt.Sprintf("ddbmem: a record holds a value of tag %q", tagged[0]))
}
