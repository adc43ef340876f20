package ddbmem

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// sortValue is a sort key attribute's value, compared as DynamoDB orders
// a key of its type: strings and binary by bytes, numbers by value.
type sortValue struct {
	kind byte // 'S', 'N' or 'B'; 0 for an index without a sort key
	s    string
	n    float64
}

// sortValueOf reads a key attribute; false for a type that cannot be a
// key, a binary value without bytes, or a missing attribute (nil).
func sortValueOf(v types.AttributeValue) (sortValue, bool) {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return sortValue{kind: 'S', s: v.Value}, true
	case *types.AttributeValueMemberN:
		n, err := strconv.ParseFloat(v.Value, 64)
		return sortValue{kind: 'N', s: v.Value, n: n}, err == nil
	case *types.AttributeValueMemberB:
		return sortValue{kind: 'B', s: string(v.Value)}, v.Value != nil
	}
	return sortValue{}, false
}

// compare orders two values of one key attribute.
func (v sortValue) compare(w sortValue) int {
	if v.kind != w.kind {
		return cmp.Compare(v.kind, w.kind)
	}
	if v.kind == 'N' {
		return cmp.Compare(v.n, w.n)
	}
	return strings.Compare(v.s, w.s)
}

// entry is an item's place in an index partition: its sort key value, and
// its primary key (ties are ordered by it).
type entry struct {
	sort sortValue
	pk   string
}

// compareEntries orders entries by sort key, then primary key.
func compareEntries(a, b entry) int {
	if c := a.sort.compare(b.sort); c != 0 {
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
	half := len(c) / 2
	right := slices.Clone(c[half:])
	o.chunks[ci] = c[:half:half]
	o.chunks = slices.Insert(o.chunks, ci+1, right)
}

// remove takes e out of the list, if it is there.
func (o *ordered) remove(e entry) {
	if len(o.chunks) == 0 {
		return
	}
	ci := o.chunkFor(e)
	c := o.chunks[ci]
	i, found := slices.BinarySearchFunc(c, e, compareEntries)
	if !found {
		return
	}
	o.n--
	if len(c) == 1 {
		o.chunks = slices.Delete(o.chunks, ci, ci+1)
		return
	}
	o.chunks[ci] = slices.Delete(c, i, i+1)
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

// keyString is a key attribute's value as a map key: its type and value,
// so that a string and a number of the same digits differ.
func keyString(av types.AttributeValue) (string, bool) {
	v, ok := sortValueOf(av)
	if !ok {
		return "", false
	}
	if v.kind == 'N' {
		v.s = strconv.FormatFloat(v.n, 'g', -1, 64) // 1.0 and 1 are one key
	}
	return string(v.kind) + v.s, true
}
