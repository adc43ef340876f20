package ddbmem

import (
	"fmt"
	"slices"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	mtypes "github.com/truora/minidyn/types"
)

// toItem converts an SDK item to the interpreter's form, copying it.
func toItem(in map[string]types.AttributeValue) (map[string]*mtypes.Item, error) {
	if in == nil {
		return nil, nil
	}
	out := make(map[string]*mtypes.Item, len(in))
	for k, v := range in {
		it, err := toValue(v)
		if err != nil {
			return nil, fmt.Errorf("attribute %q: %w", k, err)
		}
		out[k] = it
	}
	return out, nil
}

// toValue converts one SDK attribute value.
func toValue(v types.AttributeValue) (*mtypes.Item, error) {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return &mtypes.Item{S: &v.Value}, nil
	case *types.AttributeValueMemberN:
		return &mtypes.Item{N: &v.Value}, nil
	case *types.AttributeValueMemberB:
		return &mtypes.Item{B: slices.Clone(v.Value)}, nil
	case *types.AttributeValueMemberBOOL:
		b := v.Value
		return &mtypes.Item{BOOL: &b}, nil
	case *types.AttributeValueMemberNULL:
		b := v.Value
		return &mtypes.Item{NULL: &b}, nil
	case *types.AttributeValueMemberSS:
		return &mtypes.Item{SS: ptrs(v.Value)}, nil
	case *types.AttributeValueMemberNS:
		return &mtypes.Item{NS: ptrs(v.Value)}, nil
	case *types.AttributeValueMemberBS:
		bs := make([][]byte, len(v.Value))
		for i, b := range v.Value {
			bs[i] = slices.Clone(b)
		}
		return &mtypes.Item{BS: bs}, nil
	case *types.AttributeValueMemberL:
		l := make([]*mtypes.Item, len(v.Value))
		for i, e := range v.Value {
			it, err := toValue(e)
			if err != nil {
				return nil, err
			}
			l[i] = it
		}
		return &mtypes.Item{L: l}, nil
	case *types.AttributeValueMemberM:
		m, err := toItem(v.Value)
		if err != nil {
			return nil, err
		}
		if m == nil {
			m = map[string]*mtypes.Item{}
		}
		return &mtypes.Item{M: m}, nil
	}
	return nil, fmt.Errorf("unsupported attribute value %T", v)
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

// fromItem converts an item back to the SDK's form, copying it.
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
		bs := make([][]byte, len(v.BS))
		for i, b := range v.BS {
			bs[i] = slices.Clone(b)
		}
		return &types.AttributeValueMemberBS{Value: bs}
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

// cloneItem deep-copies a stored item, for an update to work on.
func cloneItem(in map[string]*mtypes.Item) map[string]*mtypes.Item {
	out := make(map[string]*mtypes.Item, len(in))
	for k, v := range in {
		out[k] = cloneValue(v)
	}
	return out
}

// cloneValue deep-copies one value.
func cloneValue(v *mtypes.Item) *mtypes.Item {
	if v == nil {
		return nil
	}
	c := *v
	if v.S != nil {
		s := *v.S
		c.S = &s
	}
	if v.N != nil {
		n := *v.N
		c.N = &n
	}
	if v.BOOL != nil {
		b := *v.BOOL
		c.BOOL = &b
	}
	if v.NULL != nil {
		b := *v.NULL
		c.NULL = &b
	}
	c.B = slices.Clone(v.B)
	if v.SS != nil {
		c.SS = ptrs(values(v.SS))
	}
	if v.NS != nil {
		c.NS = ptrs(values(v.NS))
	}
	if v.BS != nil {
		c.BS = make([][]byte, len(v.BS))
		for i, b := range v.BS {
			c.BS[i] = slices.Clone(b)
		}
	}
	if v.L != nil {
		c.L = make([]*mtypes.Item, len(v.L))
		for i, e := range v.L {
			c.L[i] = cloneValue(e)
		}
	}
	if v.M != nil {
		c.M = cloneItem(v.M)
	}
	return &c
}

// keysOf returns an item's attributes named in names.
func keysOf(item map[string]*mtypes.Item, names ...string) map[string]*mtypes.Item {
	out := make(map[string]*mtypes.Item, len(names))
	for _, n := range names {
		if v, ok := item[n]; ok && n != "" {
			out[n] = v
		}
	}
	return out
}
