package sqslocal_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/redrive/redrive/emulate/sqslocal"
)

// The expected digests are published reference values of SQS's algorithm
// (the AWS SDK for Java's samples and LocalStack's test), not outputs of
// this package.
func TestMD5OfMessageAttributes(t *testing.T) {
	tests := []struct {
		name  string
		attrs map[string]sqslocal.MessageAttribute
		want  string
	}{
		{
			name: "two strings, given out of order",
			attrs: map[string]sqslocal.MessageAttribute{
				"test_attribute_name_2": {DataType: "String", StringValue: "test_attribute_value_2"},
				"test_attribute_name_1": {DataType: "String", StringValue: "test_attribute_value_1"},
			},
			want: "d53f3b558fe951154770f25cb63dbba9",
		},
		{
			name:  "binary",
			attrs: map[string]sqslocal.MessageAttribute{"test_attribute_name": {DataType: "Binary", BinaryValue: []byte("test_attribute_value")}},
			want:  "23f6bd27ea87aab7dfeadcc9aebee495",
		},
		{
			name:  "number uses the string transport type",
			attrs: map[string]sqslocal.MessageAttribute{"timestamp": {DataType: "Number", StringValue: "1493147359900"}},
			want:  "235c5c510d26fb653d073faed50ae77c",
		},
		{name: "none", attrs: nil, want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, sqslocal.MD5OfMessageAttributes(tt.attrs))
		})
	}
}

func TestMD5OfMessageAttributesSeparatesTypeAndValue(t *testing.T) {
	// The length prefixes keep a custom type label from running into the
	// value: the same bytes split differently must digest differently.
	a := map[string]sqslocal.MessageAttribute{"n": {DataType: "String.ab", StringValue: "c"}}
	b := map[string]sqslocal.MessageAttribute{"n": {DataType: "String.a", StringValue: "bc"}}
	assert.NotEqual(t, sqslocal.MD5OfMessageAttributes(a), sqslocal.MD5OfMessageAttributes(b))
}

func TestMD5OfBody(t *testing.T) {
	// RFC 1321's test suite.
	assert.Equal(t, "900150983cd24fb0d6963f7d28e17f72", sqslocal.MD5OfBody("abc"))
	assert.Equal(t, "f96b697d7cb7938d525a2f31aaf161d0", sqslocal.MD5OfBody("message digest"))
}
