package message

import (
	"fmt"
	"maps"
	"strings"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// Message is an SQS message as received from the DLQ: what is redriven, and
// what the parking lot keeps.
type Message struct {
	// ID is the SQS message id of this copy (a new one per queue hop).
	ID string `json:"messageId"`
	// Body is the payload, unchanged.
	Body string `json:"body"`
	// Attributes are SQS system attributes (SentTimestamp,
	// ApproximateReceiveCount, ...): read-only, never sent on.
	Attributes map[string]string `json:"attributes,omitempty"`
	// MessageAttributes are the sender's attributes, sent on with the body.
	MessageAttributes map[string]Attribute `json:"messageAttributes,omitempty"`
}

// Attribute is one SQS message attribute. SQS's list values are reserved
// and never set, so they are not carried.
type Attribute struct {
	// DataType is "String", "Number", "Binary", or one of those with a
	// custom suffix ("String.tenant").
	DataType string `json:"dataType"`
	// StringValue is set for String and Number types.
	StringValue string `json:"stringValue,omitempty"`
	// BinaryValue is set for Binary types (base64 in JSON).
	BinaryValue []byte `json:"binaryValue,omitempty"`
}

// IsString reports whether the attribute holds text: a String or Number
// type, custom suffix or not.
func (a Attribute) IsString() bool {
	return baseType(a.DataType) == "String" || baseType(a.DataType) == "Number"
}

// Check reports an attribute SQS would refuse: a data type that is not
// String, Number or Binary (a custom suffix allowed), or no value.
func (a Attribute) Check() error {
	switch base := baseType(a.DataType); {
	case base != "String" && base != "Number" && base != "Binary":
		return fmt.Errorf("data type %q is not String, Number or Binary", a.DataType)
	case base == "Binary" && len(a.BinaryValue) == 0, base != "Binary" && a.StringValue == "":
		return fmt.Errorf("%s attribute without a value", a.DataType)
	}
	return nil
}

func baseType(dataType string) string {
	base, _, _ := strings.Cut(dataType, ".")
	return base
}

// StringAttribute is a String attribute holding s.
func StringAttribute(s string) Attribute {
	return Attribute{DataType: "String", StringValue: s}
}

// FromEvent converts a record of an SQS event (what the starter receives).
func FromEvent(e events.SQSMessage) Message {
	m := Message{ID: e.MessageId, Body: e.Body}
	if len(e.Attributes) > 0 {
		m.Attributes = maps.Clone(e.Attributes)
	}
	for name, a := range e.MessageAttributes {
		m.setAttribute(name, eventAttribute(a))
	}
	return m
}

// eventAttribute converts an SQS event record's message attribute.
func eventAttribute(a events.SQSMessageAttribute) Attribute {
	return Attribute{DataType: a.DataType, StringValue: aws.ToString(a.StringValue), BinaryValue: a.BinaryValue}
}

// Event converts m back into an SQS event record, as a consumer Lambda
// receives it from its queue. The caller sets EventSourceARN and AWSRegion;
// receipt handle and MD5 digests stay empty (there is no queue behind it).
func (m Message) Event() events.SQSMessage {
	e := events.SQSMessage{
		MessageId:   m.ID,
		Body:        m.Body,
		Attributes:  maps.Clone(m.Attributes),
		EventSource: "aws:sqs",
	}
	if e.Attributes == nil {
		e.Attributes = map[string]string{}
	}
	e.MessageAttributes = make(map[string]events.SQSMessageAttribute, len(m.MessageAttributes))
	for name, a := range m.MessageAttributes {
		ea := events.SQSMessageAttribute{DataType: a.DataType, BinaryValue: a.BinaryValue, StringListValues: []string{}, BinaryListValues: [][]byte{}}
		if a.IsString() {
			ea.StringValue = aws.String(a.StringValue)
		}
		e.MessageAttributes[name] = ea
	}
	return e
}

// FromSQS converts a message read with the SQS SDK's ReceiveMessage (the
// parking lot, a test reading a queue).
func FromSQS(msg sqstypes.Message) Message {
	m := Message{ID: aws.ToString(msg.MessageId), Body: aws.ToString(msg.Body)}
	if len(msg.Attributes) > 0 {
		m.Attributes = maps.Clone(msg.Attributes)
	}
	for name, a := range msg.MessageAttributes {
		m.setAttribute(name, Attribute{DataType: aws.ToString(a.DataType), StringValue: aws.ToString(a.StringValue), BinaryValue: a.BinaryValue})
	}
	return m
}

// SQSAttributes returns m's message attributes for the SQS SDK's
// SendMessage; nil when there are none.
func (m Message) SQSAttributes() map[string]sqstypes.MessageAttributeValue {
	if len(m.MessageAttributes) == 0 {
		return nil
	}
	out := make(map[string]sqstypes.MessageAttributeValue, len(m.MessageAttributes))
	for name, a := range m.MessageAttributes {
		v := sqstypes.MessageAttributeValue{DataType: aws.String(a.DataType), BinaryValue: a.BinaryValue}
		if a.IsString() {
			v.StringValue = aws.String(a.StringValue)
		}
		out[name] = v
	}
	return out
}

// setAttribute sets one message attribute, making the map on first use.
func (m *Message) setAttribute(name string, a Attribute) {
	if m.MessageAttributes == nil {
		m.MessageAttributes = map[string]Attribute{}
	}
	m.MessageAttributes[name] = a
}
