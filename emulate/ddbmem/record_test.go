package ddbmem

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// s is a string value.
func s(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }

// b is a binary value.
func b(v []byte) types.AttributeValue { return &types.AttributeValueMemberB{Value: v} }

// TestRecordRoundTrip encodes items of every type, the edge cases of each
// included, and expects them back as put (decode), as read (binary values
// without bytes left out, but in binary sets), and in the interpreter's
// form as the SDK's form converts to it.
func TestRecordRoundTrip(t *testing.T) {
	long := strings.Repeat("x", 300) // a length of two varint bytes
	put := map[string]types.AttributeValue{
		"pk":   s("k"),
		"":     s("empty name"),
		long:   s(long),
		"n":    &types.AttributeValueMemberN{Value: "1.50"},
		"b":    b([]byte{0, 0xff}),
		"b0":   b([]byte{}),
		"bnil": b(nil),
		"t":    &types.AttributeValueMemberBOOL{Value: true},
		"f":    &types.AttributeValueMemberBOOL{},
		"null": &types.AttributeValueMemberNULL{Value: true},
		"nul0": &types.AttributeValueMemberNULL{},
		"ss":   &types.AttributeValueMemberSS{Value: []string{"b", "a", ""}},
		"ss0":  &types.AttributeValueMemberSS{},
		"ns":   &types.AttributeValueMemberNS{Value: []string{"2", "1"}},
		"bs":   &types.AttributeValueMemberBS{Value: [][]byte{nil, {}, []byte("x")}},
		"bs0":  &types.AttributeValueMemberBS{},
		"l":    &types.AttributeValueMemberL{Value: []types.AttributeValue{s("e"), b(nil), &types.AttributeValueMemberL{}, &types.AttributeValueMemberM{}}},
		"l0":   &types.AttributeValueMemberL{},
		"m":    &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"z": b(nil), "a": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{long: s("deep")}}}},
		"m0":   &types.AttributeValueMemberM{},
	}
	stored := map[string]types.AttributeValue{
		"pk":   s("k"),
		"":     s("empty name"),
		long:   s(long),
		"n":    &types.AttributeValueMemberN{Value: "1.50"},
		"b":    b([]byte{0, 0xff}),
		"b0":   b([]byte{}),
		"bnil": b(nil),
		"t":    &types.AttributeValueMemberBOOL{Value: true},
		"f":    &types.AttributeValueMemberBOOL{},
		"null": &types.AttributeValueMemberNULL{Value: true},
		"nul0": &types.AttributeValueMemberNULL{},
		"ss":   &types.AttributeValueMemberSS{Value: []string{"b", "a", ""}},
		"ss0":  &types.AttributeValueMemberSS{Value: []string{}},
		"ns":   &types.AttributeValueMemberNS{Value: []string{"2", "1"}},
		"bs":   &types.AttributeValueMemberBS{Value: [][]byte{nil, {}, []byte("x")}},
		"bs0":  &types.AttributeValueMemberBS{Value: [][]byte{}},
		"l":    &types.AttributeValueMemberL{Value: []types.AttributeValue{s("e"), b(nil), &types.AttributeValueMemberL{Value: []types.AttributeValue{}}, &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{}}}},
		"l0":   &types.AttributeValueMemberL{Value: []types.AttributeValue{}},
		"m":    &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"z": b(nil), "a": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{long: s("deep")}}}},
		"m0":   &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{}},
	}
	db := New()
	r, err := db.encode(put)
	require.NoError(t, err)
	require.Equal(t, stored, r.decode(false), "as put")

	read := r.decode(false)
	delete(read, "bnil")
	read["l"].(*types.AttributeValueMemberL).Value = slices.Delete(read["l"].(*types.AttributeValueMemberL).Value, 1, 2)
	delete(read["m"].(*types.AttributeValueMemberM).Value, "z")
	require.Equal(t, read, r.read(), "as read")

	want, err := toItem(r.decode(false))
	require.NoError(t, err)
	require.Equal(t, want, r.interpreted(), "in the interpreter's form")

	again, err := db.encode(stored)
	require.NoError(t, err)
	assert.Equal(t, r, again, "equal items encode alike")
	assert.Equal(t, map[string]types.AttributeValue{"pk": s("k"), "n": stored["n"]}, r.readAttrs("pk", "n", "missing", ""))
}

// TestEncodeErrors expects a value of no attribute type named by its
// attribute, nested ones by each map's attribute, as toItem does.
func TestEncodeErrors(t *testing.T) {
	for _, item := range []map[string]types.AttributeValue{
		{"a": s("x"), "bad": nil},
		{"m": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"inner": &types.UnknownUnionMember{Tag: "X"}}}},
		{"l": &types.AttributeValueMemberL{Value: []types.AttributeValue{s("x"), nil}}},
	} {
		_, want := toItem(item)
		require.Error(t, want)
		_, err := New().encode(item)
		assert.EqualError(t, err, want.Error())
	}
}

// TestKeyStrings expects the key strings a record gives its key
// attributes to be those of the values as a caller passes them, those of
// strings, binary values and numbers written as they format sharing the
// record's memory.
func TestKeyStrings(t *testing.T) {
	for _, c := range []struct {
		v      types.AttributeValue
		shared bool
	}{
		{s("k"), true}, {s(""), true}, {b([]byte("k")), true}, {b([]byte{}), true}, {b(nil), false},
		{&types.AttributeValueMemberN{Value: "1"}, true}, {&types.AttributeValueMemberN{Value: "1.0"}, false},
		{&types.AttributeValueMemberN{Value: "-0"}, true}, {&types.AttributeValueMemberN{Value: "01"}, false}, {&types.AttributeValueMemberN{Value: "x"}, false},
		{&types.AttributeValueMemberBOOL{Value: true}, false}, {nil, false},
	} {
		item := map[string]types.AttributeValue{"other": s("o")}
		if c.v != nil {
			item["k"] = c.v
		}
		r, err := New().encode(item)
		require.NoError(t, err)
		want, wok := keyString(c.v)
		got, ok := r.keyOf("k")
		assert.Equal(t, wok, ok, "%#v", c.v)
		assert.Equal(t, want, got, "%#v", c.v)
		start := uintptr(unsafe.Pointer(unsafe.StringData(string(r))))
		p := uintptr(unsafe.Pointer(unsafe.StringData(got)))
		assert.Equal(t, c.shared, p >= start && p < start+uintptr(len(r)), "%#v shares the record's memory", c.v)
	}
}

// TestNumberSort expects numbers' sort keys to order as their float64s
// do under cmp.Compare.
func TestNumberSort(t *testing.T) {
	nums := []float64{math.NaN(), math.Inf(-1), -math.MaxFloat64, -1e10, -2.5, -1, -math.SmallestNonzeroFloat64,
		math.Copysign(0, -1), 0, math.SmallestNonzeroFloat64, 1, 1.5, 2, 1e10, math.MaxFloat64, math.Inf(1)}
	for _, x := range nums {
		for _, y := range nums {
			assert.Equal(t, cmp.Compare(x, y), strings.Compare(numberSort(x), numberSort(y)), "%v, %v", x, y)
		}
	}
	for _, text := range []string{"1", "1.0", "01", "1e0"} {
		k, ok := sortKey(string(tagN) + text)
		require.True(t, ok)
		assert.Equal(t, numberSort(1), k, text)
	}
	_, ok := sortKey(string(tagN) + "1e400")
	assert.False(t, ok, "out of range")
	_, ok = sortKey(string(tagN) + strconv.Quote("x"))
	assert.False(t, ok, "not a number")
}
