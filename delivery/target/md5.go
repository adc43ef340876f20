package target

import (
	"crypto/md5"
	"encoding/binary"
	"encoding/hex"
	"maps"
	"slices"

	"github.com/aws/aws-lambda-go/events"
)

// md5OfBody is the md5OfBody SQS puts in an event record: the hex MD5 of
// the body's bytes.
func md5OfBody(body string) string {
	sum := md5.Sum([]byte(body))
	return hex.EncodeToString(sum[:])
}

// md5OfMessageAttributes is the md5OfMessageAttributes SQS puts in an event
// record, computed as SQS documents it: for each attribute in name order,
// the name, the data type and the value, each prefixed by its 4-byte
// big-endian length, with a transport byte (1 string, 2 binary) before the
// value. No attributes: "".
func md5OfMessageAttributes(attrs map[string]events.SQSMessageAttribute) string {
	if len(attrs) == 0 {
		return ""
	}
	var buf []byte
	for _, name := range slices.Sorted(maps.Keys(attrs)) {
		a := attrs[name]
		buf = appendLengthPrefixed(buf, []byte(name))
		buf = appendLengthPrefixed(buf, []byte(a.DataType))
		if a.StringValue != nil {
			buf = append(buf, 1)
			buf = appendLengthPrefixed(buf, []byte(*a.StringValue))
		} else {
			buf = append(buf, 2)
			buf = appendLengthPrefixed(buf, a.BinaryValue)
		}
	}
	sum := md5.Sum(buf)
	return hex.EncodeToString(sum[:])
}

// appendLengthPrefixed appends b with its 4-byte big-endian length.
func appendLengthPrefixed(dst, b []byte) []byte {
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(b)))
	return append(dst, b...)
}
