package asl

import (
	"cmp"
	"strings"
	"time"
	"unicode/utf8"
)

// compareValues compares a and b as the kind's type; ok is false when either
// is not of that type (a comparison that cannot match).
func compareValues(kind choiceKind, a, b any) (c int, ok bool) {
	switch kind {
	case kindString:
		x, ok1 := a.(string)
		y, ok2 := b.(string)
		return compareUTF16(x, y), ok1 && ok2
	case kindNumeric:
		return compareNumbers(a, b)
	case kindBoolean:
		x, ok1 := a.(bool)
		y, ok2 := b.(bool)
		if x == y {
			return 0, ok1 && ok2
		}
		return 1, ok1 && ok2
	case kindTimestamp:
		x, ok1 := asTimestamp(a)
		y, ok2 := asTimestamp(b)
		return x.Compare(y), ok1 && ok2
	}
	return 0, false
}

// compareNumbers compares two JSON numbers, exactly when both are integers.
func compareNumbers(a, b any) (int, bool) {
	if x, ok := toInt64(a); ok {
		if y, ok := toInt64(b); ok {
			return cmp.Compare(x, y), true
		}
	}
	x, ok1 := toFloat(a)
	y, ok2 := toFloat(b)
	return cmp.Compare(x, y), ok1 && ok2
}

// compareUTF16 orders strings by UTF-16 code units, as Java's
// String.compareTo (which Step Functions uses) does.
func compareUTF16(a, b string) int {
	for a != "" && b != "" {
		ra, na := utf8.DecodeRuneInString(a)
		rb, nb := utf8.DecodeRuneInString(b)
		if ra != rb {
			ka, kb := utf16Lead(ra), utf16Lead(rb)
			if ka == kb { // both outside the BMP with the same high surrogate
				return cmp.Compare(ra, rb)
			}
			return cmp.Compare(ka, kb)
		}
		a, b = a[na:], b[nb:]
	}
	return cmp.Compare(len(a), len(b))
}

// utf16Lead returns the first UTF-16 code unit of r.
func utf16Lead(r rune) rune {
	if r >= 0x10000 {
		return 0xD800 + (r-0x10000)>>10
	}
	return r
}

// asTimestamp returns a timestamp operand: a literal compiled to
// time.Time, or a string value parsed now.
func asTimestamp(v any) (time.Time, bool) {
	switch t := v.(type) {
	case time.Time:
		return t, true
	case string:
		return parseChoiceTimestamp(t)
	}
	return time.Time{}, false
}

// parseChoiceTimestamp parses an RFC 3339 timestamp with the ASL's extra
// rules: an uppercase T between date and time, and an uppercase Z (or a
// numeric offset) for the zone.
func parseChoiceTimestamp(s string) (time.Time, bool) {
	if len(s) < len("2006-01-02T15:04:05Z") || s[10] != 'T' || strings.ContainsAny(s, "tz") {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	return t, err == nil
}
