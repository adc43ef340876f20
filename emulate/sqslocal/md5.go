package sqslocal

import (
	"crypto/md5"
	"encoding/binary"
	"encoding/hex"
	"maps"
	"slices"
	"strings"
)

// Transport type bytes of the message-attribute digest.
const (
	transportString byte = 1
	transportBinary byte = 2
)

// MD5OfBody is the MD5OfMessageBody / MD5OfBody SQS returns: the hex MD5
// of the body's UTF-8 bytes.
func MD5OfBody(body string) string {
	sum := md5.Sum([]byte(body))
	return hex.EncodeToString(sum[:])
}

// MD5OfMessageAttributes is the MD5OfMessageAttributes SQS returns (and
// the md5OfMessageAttributes of a Lambda SQS event record), computed as the
// SQS developer guide specifies: for each attribute in ascending name
// order, the name, the data type, one transport byte (1 for String and
// Number, 2 for Binary) and the value, each of name, type and value
// preceded by its length as a 4-byte big-endian integer. It is "" for no
// attributes, where SQS omits the field.
func MD5OfMessageAttributes(attrs map[string]MessageAttribute) string {
	if len(attrs) == 0 {
		return ""
	}
	h := md5.New()
	var buf []byte
	for _, name := range slices.Sorted(maps.Keys(attrs)) {
		a := attrs[name]
		buf = appendLengthPrefixed(buf[:0], []byte(name))
		buf = appendLengthPrefixed(buf, []byte(a.DataType))
		if baseType(a.DataType) == "Binary" {
			buf = append(buf, transportBinary)
			buf = appendLengthPrefixed(buf, a.BinaryValue)
		} else {
			buf = append(buf, transportString)
			buf = appendLengthPrefixed(buf, []byte(a.StringValue))
		}
		h.Write(buf)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// appendLengthPrefixed appends b preceded by its 4-byte big-endian length.
func appendLengthPrefixed(dst, b []byte) []byte {
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(b)))
	return append(dst, b...)
}

// baseType is a data type without its custom label: "Number" for
// "Number.float".
func baseType(dataType string) string {
	base, _, _ := strings.Cut(dataType, ".")
	return base
}
