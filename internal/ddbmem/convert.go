package ddbmem

import (
	"fmt"
	"slices"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	mtypes "github.com/truora/minidyn/types"
)

// The table keeps items in the SDK's own form, each value a member struct
// of its own, so that what a caller passes or gets back shares nothing
// mutable with what is stored (strings, being immutable, are shared).
// Items are converted to the interpreter's form (minidyn's types.Item)
// only for an expression to read or update them.

// ownItem copies an item a caller passed, for the table to keep. It fails
// on a value of no attribute type, naming the attribute, as toItem does.
func ownItem(in map[string]types.AttributeValue) (map[string]types.AttributeValue, error) {
	return copyItem(in, false)
}

// readItem copies a stored item for a caller. A binary value without
// bytes is left out, as it is empty in the interpreter's form.
func readItem(in map[string]types.AttributeValue) map[string]types.AttributeValue {
	out, _ := copyItem(in, true) // stored values all have an attribute type
	return out
}

// copyItem deep-copies an item; reading says to leave out the binary
// values without bytes (see readItem). The copies of its string values
// are made in one allocation, each still a struct of its own.
func copyItem(in map[string]types.AttributeValue, reading bool) (map[string]types.AttributeValue, error) {
	if in == nil {
		return nil, nil
	}
	out := make(map[string]types.AttributeValue, len(in))
	strs := make([]types.AttributeValueMemberS, 0, countStrings(in))
	for k, v := range in {
		if s, ok := v.(*types.AttributeValueMemberS); ok {
			strs = append(strs, types.AttributeValueMemberS{Value: s.Value})
			out[k] = &strs[len(strs)-1]
			continue
		}
		c, err := copyValue(v, reading)
		if err != nil {
			return nil, fmt.Errorf("attribute %q: %w", k, err)
		}
		if c != nil {
			out[k] = c
		}
	}
	return out, nil
}

// countStrings counts an item's string values.
func countStrings(item map[string]types.AttributeValue) int {
	n := 0
	for _, v := range item {
		if _, ok := v.(*types.AttributeValueMemberS); ok {
			n++
		}
	}
	return n
}

// copyValue deep-copies one value into new member structs; nil for a
// binary value without bytes when reading. Lists, maps and sets are never
// nil in the copy.
func copyValue(v types.AttributeValue, reading bool) (types.AttributeValue, error) {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return &types.AttributeValueMemberS{Value: v.Value}, nil
	case *types.AttributeValueMemberN:
		return &types.AttributeValueMemberN{Value: v.Value}, nil
	case *types.AttributeValueMemberB:
		if reading && v.Value == nil {
			return nil, nil
		}
		return &types.AttributeValueMemberB{Value: slices.Clone(v.Value)}, nil
	case *types.AttributeValueMemberBOOL:
		return &types.AttributeValueMemberBOOL{Value: v.Value}, nil
	case *types.AttributeValueMemberNULL:
		return &types.AttributeValueMemberNULL{Value: v.Value}, nil
	case *types.AttributeValueMemberSS:
		return &types.AttributeValueMemberSS{Value: append([]string{}, v.Value...)}, nil
	case *types.AttributeValueMemberNS:
		return &types.AttributeValueMemberNS{Value: append([]string{}, v.Value...)}, nil
	case *types.AttributeValueMemberBS:
		return &types.AttributeValueMemberBS{Value: cloneBytes(v.Value)}, nil
	case *types.AttributeValueMemberL:
		l, err := copyList(v.Value, reading)
		if err != nil {
			return nil, err
		}
		return &types.AttributeValueMemberL{Value: l}, nil
	case *types.AttributeValueMemberM:
		m, err := copyItem(v.Value, reading)
		if err != nil {
			return nil, err
		}
		if m == nil {
			m = map[string]types.AttributeValue{}
		}
		return &types.AttributeValueMemberM{Value: m}, nil
	}
	return nil, fmt.Errorf("unsupported attribute value %T", v)
}

// copyList deep-copies a list's values, leaving out those whose copy is
// nil.
func copyList(in []types.AttributeValue, reading bool) ([]types.AttributeValue, error) {
	out := make([]types.AttributeValue, 0, len(in))
	for _, e := range in {
		c, err := copyValue(e, reading)
		if err != nil {
			return nil, err
		}
		if c != nil {
			out = append(out, c)
		}
	}
	return out, nil
}

// cloneBytes deep-copies a binary set.
func cloneBytes(in [][]byte) [][]byte {
	out := make([][]byte, len(in))
	for i, b := range in {
		out[i] = slices.Clone(b)
	}
	return out
}

// keysOf returns an item's attributes named in names, shared with it.
func keysOf(item map[string]types.AttributeValue, names ...string) map[string]types.AttributeValue {
	out := make(map[string]types.AttributeValue, len(names))
	for _, n := range names {
		if v, ok := item[n]; ok && n != "" {
			out[n] = v
		}
	}
	return out
}

// interpreted is an item the table holds (or a key keyed has read) in the
// interpreter's form, for an expression to read or update. Its strings
// point into the item's member structs, which the interpreter never writes
// through; the conversion cannot fail, the item having been checked.
func interpreted(item map[string]types.AttributeValue) map[string]*mtypes.Item {
	out, _ := toItem(item)
	return out
}

// toItem converts an SDK item to the interpreter's form, its values made
// in one allocation.
func toItem(in map[string]types.AttributeValue) (map[string]*mtypes.Item, error) {
	if in == nil {
		return nil, nil
	}
	out := make(map[string]*mtypes.Item, len(in))
	items := make([]mtypes.Item, len(in))
	i := 0
	for k, v := range in {
		var err error
		if items[i], err = toValue(v); err != nil {
			return nil, fmt.Errorf("attribute %q: %w", k, err)
		}
		out[k] = &items[i]
		i++
	}
	return out, nil
}

// toValue converts one SDK attribute value; its S or N points into v.
func toValue(v types.AttributeValue) (mtypes.Item, error) {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return mtypes.Item{S: &v.Value}, nil
	case *types.AttributeValueMemberN:
		return mtypes.Item{N: &v.Value}, nil
	case *types.AttributeValueMemberB:
		return mtypes.Item{B: slices.Clone(v.Value)}, nil
	case *types.AttributeValueMemberBOOL:
		b := v.Value
		return mtypes.Item{BOOL: &b}, nil
	case *types.AttributeValueMemberNULL:
		b := v.Value
		return mtypes.Item{NULL: &b}, nil
	case *types.AttributeValueMemberSS:
		return mtypes.Item{SS: ptrs(v.Value)}, nil
	case *types.AttributeValueMemberNS:
		return mtypes.Item{NS: ptrs(v.Value)}, nil
	case *types.AttributeValueMemberBS:
		return mtypes.Item{BS: cloneBytes(v.Value)}, nil
	case *types.AttributeValueMemberL:
		l := make([]*mtypes.Item, len(v.Value))
		for i, e := range v.Value {
			it, err := toValue(e)
			if err != nil {
				return mtypes.Item{}, err
			}
			l[i] = &it
		}
		return mtypes.Item{L: l}, nil
	case *types.AttributeValueMemberM:
		m, err := toItem(v.Value)
		if err != nil {
			return mtypes.Item{}, err
		}
		if m == nil {
			m = map[string]*mtypes.Item{}
		}
		return mtypes.Item{M: m}, nil
	}
	return mtypes.Item{}, fmt.Errorf("unsupported attribute value %T", v)
}

// ptrs copies strings into pointers, as the interpreter's sets hold them.
func ptrs(in []string) []*string {
	out := make([]*string, len(in))
	for i := range in {
		s := in[i]
		out[i] = &s
	}
	return out
}

// fromItem converts an item of the interpreter's (an update's or a
// projection's result) back to the SDK's form, copying it.
func fromItem(in map[string]*mtypes.Item) map[string]types.AttributeValue {
	if in == nil {
		return nil
	}
	out := make(map[string]types.AttributeValue, len(in))
	for k, v := range in {
		if av := fromValue(v); av != nil {
			out[k] = av
		}
	}
	return out
}

// fromValue converts one value back; nil for an empty one.
func fromValue(v *mtypes.Item) types.AttributeValue {
	switch {
	case v == nil:
		return nil
	case v.S != nil:
		return &types.AttributeValueMemberS{Value: *v.S}
	case v.N != nil:
		return &types.AttributeValueMemberN{Value: *v.N}
	case v.B != nil:
		return &types.AttributeValueMemberB{Value: slices.Clone(v.B)}
	case v.BOOL != nil:
		return &types.AttributeValueMemberBOOL{Value: *v.BOOL}
	case v.NULL != nil:
		return &types.AttributeValueMemberNULL{Value: *v.NULL}
	case v.SS != nil:
		return &types.AttributeValueMemberSS{Value: values(v.SS)}
	case v.NS != nil:
		return &types.AttributeValueMemberNS{Value: values(v.NS)}
	case v.BS != nil:
		return &types.AttributeValueMemberBS{Value: cloneBytes(v.BS)}
	case v.L != nil:
		l := make([]types.AttributeValue, 0, len(v.L))
		for _, e := range v.L {
			if av := fromValue(e); av != nil {
				l = append(l, av)
			}
		}
		return &types.AttributeValueMemberL{Value: l}
	case v.M != nil:
		return &types.AttributeValueMemberM{Value: fromItem(v.M)}
	}
	return nil
}

// values dereferences a set's members.
func values(in []*string) []string {
	out := make([]string, 0, len(in))
	for _, s := range in {
		if s != nil {
			out = append(out, *s)
		}
	}
	return out
}
