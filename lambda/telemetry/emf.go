package telemetry

import (
	"strconv"
	"time"
	"unicode/utf8"
)

// CloudWatch units the metrics use.
const (
	unitCount = "Count"
	unitNone  = "None"
)

// metric is one value of an EMF line.
type metric struct {
	name  string
	unit  string
	value int64
}

// unknownKey stands in for an empty breaker key: CloudWatch drops a line
// whose dimension value is empty.
const unknownKey = "unknown"

// appendLine appends one EMF line, newline included:
//
//	{"_aws":{"Timestamp":<ms>,"CloudWatchMetrics":[{"Namespace":"Redrive",
//	"Dimensions":[["Breaker"]],"Metrics":[{"Name":..,"Unit":..}]}]},
//	"Breaker":<key>,<name>:<value>...}
func appendLine(buf []byte, key string, at time.Time, metrics []metric) []byte {
	if key == "" {
		key = unknownKey
	}
	buf = append(buf, `{"_aws":{"Timestamp":`...)
	buf = strconv.AppendInt(buf, at.UnixMilli(), 10)
	buf = append(buf, `,"CloudWatchMetrics":[{"Namespace":"`+Namespace+`","Dimensions":[["`+Dimension+`"]],"Metrics":[`...)
	for i, m := range metrics {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, `{"Name":"`...)
		buf = append(buf, m.name...)
		buf = append(buf, `","Unit":"`...)
		buf = append(buf, m.unit...)
		buf = append(buf, `"}`...)
	}
	buf = append(buf, `]}]},"`+Dimension+`":`...)
	buf = appendJSONString(buf, key)
	for _, m := range metrics {
		buf = append(buf, `,"`...)
		buf = append(buf, m.name...)
		buf = append(buf, `":`...)
		buf = strconv.AppendInt(buf, m.value, 10)
	}
	return append(buf, "}\n"...)
}

// appendJSONString appends s as a JSON string; invalid UTF-8 becomes U+FFFD.
func appendJSONString(buf []byte, s string) []byte {
	const hex = "0123456789abcdef"
	buf = append(buf, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				buf = append(buf, `\ufffd`...)
			} else {
				buf = append(buf, s[i:i+size]...)
			}
			i += size
			continue
		}
		switch {
		case c == '"' || c == '\\':
			buf = append(buf, '\\', c)
		case c == '\n':
			buf = append(buf, `\n`...)
		case c == '\r':
			buf = append(buf, `\r`...)
		case c == '\t':
			buf = append(buf, `\t`...)
		case c < 0x20:
			buf = append(buf, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		default:
			buf = append(buf, c)
		}
		i++
	}
	return append(buf, '"')
}
