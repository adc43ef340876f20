package ddbmem

import (
	"encoding/binary"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// entry is an item's place in an index partition: its sort key string
// (see sortKey; "" for an index without a sort key), and its primary key
// (ties are ordered by it). Both are substrings of the item's record
// where they can be, so an entry adds no allocation of its own.
type entry struct {
	sort, pk string
}

// compareEntries orders entries by sort key, then primary key.
func compareEntries(a, b entry) int {
	if c := strings.Compare(a.sort, b.sort); c != 0 {
		return c
	}
	return strings.Compare(a.pk, b.pk)
}

// chunkMax bounds a chunk of an ordered list: inserting or removing moves
// at most this many entries.
const chunkMax = 512

// ordered is a sorted list of entries kept in chunks of at most chunkMax,
// so that inserting and removing cost O(log n + chunkMax) however long
// the list: a waiting room of a million entries is one partition.
type ordered struct {
	chunks [][]entry
	n      int
}

// chunkFor is the index of the chunk e belongs in: the first whose last
// entry is not before e, or the last chunk.
func (o *ordered) chunkFor(e entry) int {
	i, _ := slices.BinarySearchFunc(o.chunks, e, func(c []entry, e entry) int { return compareEntries(c[len(c)-1], e) })
	return min(i, len(o.chunks)-1)
}

// insert adds e, which must not be in the list.
func (o *ordered) insert(e entry) {
	o.n++
	if len(o.chunks) == 0 {
		o.chunks = append(o.chunks, []entry{e})
		return
	}
	ci := o.chunkFor(e)
	c := o.chunks[ci]
	i, _ := slices.BinarySearchFunc(c, e, compareEntries)
	c = slices.Insert(c, i, e)
	if len(c) <= chunkMax {
		o.chunks[ci] = c
		return
	}
	// Both halves are copies, of their own size: c may have grown well
	// past chunkMax, and its tail would keep the records of the entries
	// moved alive.
	half := len(c) / 2
	o.chunks[ci] = slices.Clone(c[:half])
	o.chunks = slices.Insert(o.chunks, ci+1, slices.Clone(c[half:]))
}

// find returns the chunk e belongs in and e's index in it, and whether
// e is there.
func (o *ordered) find(e entry) (ci, i int, found bool) {
	if len(o.chunks) == 0 {
		return 0, 0, false
	}
	ci = o.chunkFor(e)
	i, found = slices.BinarySearchFunc(o.chunks[ci], e, compareEntries)
	return ci, i, found
}

// remove takes e out of the list, if it is there.
func (o *ordered) remove(e entry) {
	ci, i, found := o.find(e)
	if !found {
		return
	}
	o.n--
	if c := o.chunks[ci]; len(c) > 1 {
		o.chunks[ci] = slices.Delete(c, i, i+1)
		return
	}
	o.chunks = slices.Delete(o.chunks, ci, ci+1)
}

// replace puts e in the place of the entry equal to it, if there is one:
// e shares the memory of an item's new record, the entry that of its old
// one.
func (o *ordered) replace(e entry) {
	if ci, i, found := o.find(e); found {
		o.chunks[ci][i] = e
	}
}

// each calls fn on the entries in order (reversed unless forward) until
// it returns false.
func (o *ordered) each(forward bool, fn func(entry) bool) {
	if forward {
		for _, c := range o.chunks {
			for _, e := range c {
				if !fn(e) {
					return
				}
			}
		}
		return
	}
	for ci := len(o.chunks) - 1; ci >= 0; ci-- {
		c := o.chunks[ci]
		for i := len(c) - 1; i >= 0; i-- {
			if !fn(c[i]) {
				return
			}
		}
	}
}

// keyString is a key attribute's value (a caller's) as a map key: its
// type and value, so that a string and a number of the same digits
// differ; false for a type that cannot be a key, a binary value without
// bytes, or a missing attribute (nil). It is the key string a record
// gives the same value (see valueKey).
func keyString(av types.AttributeValue) (string, bool) {
	switch v := av.(type) {
	case *types.AttributeValueMemberS:
		return string(tagS) + v.Value, true
	case *types.AttributeValueMemberN:
		if n, ok := numberText(v.Value); ok {
			return string(tagN) + n, true
		}
	case *types.AttributeValueMemberB:
		if v.Value != nil {
			return string(tagB) + string(v.Value), true
		}
	}
	return "", false
}

// valueKey is the key string (see keyString) of a record's tagged value,
// "" (no attribute) included; that of a string or binary value is the
// tagged value itself, sharing the record's memory, and so is that of a
// number written as it is formatted.
func valueKey(tagged string) (string, bool) {
	if tagged == "" {
		return "", false
	}
	switch tagged[0] {
	case tagS, tagB:
		return tagged, true
	case tagN:
		n, ok := numberText(tagged[1:])
		switch {
		case !ok:
			return "", false
		case n == tagged[1:]:
			return tagged, true
		}
		return string(tagN) + n, true
	}
	return "", false
}

// numberText is a number as a key writes it, so that 1.0 and 1 are one
// key: digits itself when that is how it formats; false when it does not
// parse.
func numberText(digits string) (string, bool) {
	f, err := strconv.ParseFloat(digits, 64)
	if err != nil {
		return "", false
	}
	var buf [32]byte
	b := strconv.AppendFloat(buf[:0], f, 'g', -1, 64)
	if string(b) == digits {
		return digits, true
	}
	return string(b), true
}

// sortKey is a sort key attribute's value (a record's tagged value, ""
// when missing) as a string that orders as DynamoDB orders a key of its
// type, strings and binary by bytes, numbers by value, after its type
// tag; false as for valueKey. A string's or binary's is the tagged value
// itself; a number's is its float64 made to order as bytes (see
// numberSort).
func sortKey(tagged string) (string, bool) {
	if tagged == "" {
		return "", false
	}
	switch tagged[0] {
	case tagS, tagB:
		return tagged, true
	case tagN:
		f, err := strconv.ParseFloat(tagged[1:], 64)
		if err != nil {
			return "", false
		}
		return numberSort(f), true
	}
	return "", false
}

// numberSort is a number's sort key: its tag, then its float64's bits,
// big-endian, with the sign bit flipped (all bits for a negative number)
// so that the bytes order as cmp.Compare orders the numbers: NaN first,
// and -0 as 0.
func numberSort(f float64) string {
	var bits uint64 // NaN: below every number
	if f == f {
		if f == 0 {
			f = 0 // -0
		}
		bits = math.Float64bits(f)
		if bits>>63 == 1 {
			bits = ^bits
		} else {
			bits |= 1 << 63
		}
	}
	return string(binary.BigEndian.AppendUint64([]byte{tagN}, bits))
}
