package message_test

import (
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/stretchr/testify/assert"

	"github.com/redrive/redrive/message"
)

func TestSQSRoundTrip(t *testing.T) {
	msg := decodeGolden[message.Message](t, "message.json")
	sent := msg.SQSAttributes()
	assert.Equal(t, sqstypes.MessageAttributeValue{DataType: aws.String("String"), StringValue: aws.String("acme")}, sent["tenant"])
	assert.Equal(t, sqstypes.MessageAttributeValue{DataType: aws.String("Number.int"), StringValue: aws.String("3")}, sent["priority"])
	assert.Equal(t, sqstypes.MessageAttributeValue{DataType: aws.String("Binary"), BinaryValue: []byte{0xde, 0xad, 0xbe, 0xef}}, sent["signature"])

	// What ReceiveMessage returns for it.
	received := sqstypes.Message{
		MessageId:         aws.String(msg.ID),
		Body:              aws.String(msg.Body),
		Attributes:        map[string]string{},
		MessageAttributes: sent,
	}
	for name, v := range msg.Attributes {
		received.Attributes[name] = v
	}
	assert.Equal(t, msg, message.FromSQS(received))
}

func TestSQSAttributesNone(t *testing.T) {
	assert.Nil(t, message.Message{ID: "m"}.SQSAttributes())
	got := message.FromSQS(sqstypes.Message{MessageId: aws.String("m"), Body: aws.String("b")})
	assert.Equal(t, message.Message{ID: "m", Body: "b"}, got)
}

func TestEventRoundTrip(t *testing.T) {
	msg := decodeGolden[message.Message](t, "message.json")
	assert.Equal(t, msg, message.FromEvent(msg.Event()))

	bare := message.Message{ID: "m", Body: "b"}
	event := bare.Event()
	assert.NotNil(t, event.Attributes, "consumers may range over it")
	assert.NotNil(t, event.MessageAttributes)
	assert.Equal(t, "aws:sqs", event.EventSource)
	assert.Equal(t, bare, message.FromEvent(event))
	assert.Equal(t, message.Message{ID: "m"}, message.FromEvent(events.SQSMessage{MessageId: "m"}))
}

func TestAttributeIsString(t *testing.T) {
	for dataType, want := range map[string]bool{
		"String": true, "Number": true, "String.json": true, "Number.float": true,
		"Binary": false, "Binary.gif": false, "": false, "Strings": false,
	} {
		t.Run(dataType, func(t *testing.T) {
			assert.Equal(t, want, message.Attribute{DataType: dataType}.IsString())
		})
	}
}
