package dynamo_test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"

	"github.com/redrive/redrive/dynamo"
)

// TestReaderIntegers reads integers as DynamoDB and the emulators write
// them: digits, or a whole number in a float's form; a fraction or text
// is a problem naming the attribute, and every problem is reported.
func TestReaderIntegers(t *testing.T) {
	item := map[string]types.AttributeValue{
		"plain": n("1764000000000"), "float": n("1.764e+12"), "half": n("1.5"), "text": s("ten"),
	}
	r := dynamo.Read(item)
	assert.Equal(t, int64(1764000000000), r.Int64("plain", true))
	assert.Equal(t, int64(1764000000000), r.Int64("float", true))
	assert.NoError(t, r.Err())
	assert.Zero(t, r.Int64("half", true))
	assert.Zero(t, r.Int64("text", true))
	assert.Zero(t, r.Int64("absent", true))
	assert.EqualError(t, r.Err(), `attribute "half": want a 64-bit integer, got "1.5"; `+
		`attribute "text": want a number (N), got S; attribute "absent": missing`)
}
