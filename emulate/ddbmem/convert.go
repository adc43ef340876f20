package ddbmem

import (
	"fmt"
	"slices"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	mtypes "github.com/truora/minidyn/types"
)

// Conversions between the SDK's form of items and values and the
// interpreter's (minidyn's types.Item), for what callers pass an
// expression (its values; a Key) and for what an update or a projection
// makes. The table keeps items as records (see record).

// cloneBytes deep-copies a binary set.
func cloneBytes(in [][]byte) [][]byte {
	out := make([][]byte, len(in))
	for i, b := range in {
		out[i] = slices.Clone(b)
	}
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
