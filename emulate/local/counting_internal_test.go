package local

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestFunctionName(t *testing.T) {
	tests := map[string]string{
		"attempt":      "attempt",
		"attempt:live": "attempt",
		"arn:aws:lambda:us-east-1:123456789012:function:attempt":   "attempt",
		"arn:aws:lambda:us-east-1:123456789012:function:attempt:7": "attempt",
		"123456789012:function:consumer":                           "consumer",
	}
	for in, want := range tests {
		t.Run(in, func(t *testing.T) {
			assert.Equal(t, want, functionName(in))
		})
	}
}
