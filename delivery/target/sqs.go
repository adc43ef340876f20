package target

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/redrive/redrive/message"
)

// traceHeader is the system attribute that carries an X-Ray trace across
// SQS; it is received in a message's attributes and sent as a message
// system attribute.
const traceHeader = "AWSTraceHeader"

// sqsPoisonCodes are the SendMessage errors about the message itself: a
// body with characters SQS refuses, a message over the queue's size limit
// or an attribute SQS refuses (both InvalidParameterValue). Sent again,
// they fail again.
var sqsPoisonCodes = []string{"InvalidMessageContents", "InvalidParameterValue"}

// SendMessageAPI is the one SQS client call the sqs target makes, with the
// SDK's signature so *sqs.Client satisfies it.
type SendMessageAPI interface {
	SendMessage(ctx context.Context, params *sqs.SendMessageInput, optFns ...func(*sqs.Options)) (*sqs.SendMessageOutput, error)
}

var _ SendMessageAPI = (*sqs.Client)(nil)

// sqsTarget sends the message back to the source queue, for its consumer
// to receive as before. Success means sent: a message that fails again
// comes back to the DLQ with its lineage, and the starter records that
// failure against its breaker.
type sqsTarget struct {
	client   SendMessageAPI
	queueURL string
}

// Deliver sends doc's message, body unchanged, with its lineage in the
// "redrive" attribute, or in an envelope when the message already has the
// 10 attributes SQS allows. SendMessage errors are transient with their
// code as ErrorType, except the ones about the message (sqsPoisonCodes).
// To a FIFO queue the message goes in its group, with a deduplication id
// of its round trip, so a send retried within SQS's
// five-minute deduplication interval is not a second message.
func (t *sqsTarget) Deliver(ctx context.Context, doc message.Document) Result {
	if err := doc.Validate(); err != nil {
		return poison("InvalidDocument", err.Error())
	}
	fifo := message.IsFIFOQueue(t.queueURL)
	if fifo && doc.FIFO == nil {
		return poison("NotFIFO", "the target is a FIFO queue, and the message came from a standard queue: it has no message group")
	}
	msg, _, err := message.ForRedrive(doc)
	if err != nil {
		return poison("InvalidDocument", err.Error())
	}
	in := &sqs.SendMessageInput{
		QueueUrl:          aws.String(t.queueURL),
		MessageBody:       aws.String(msg.Body),
		MessageAttributes: msg.SQSAttributes(),
	}
	if fifo {
		// One deduplication id per round trip: every try of it is one
		// message, the next round trip's (back from the DLQ) another.
		in.MessageGroupId, in.MessageDeduplicationId = aws.String(doc.FIFO.GroupID), aws.String(message.DeduplicationID(doc.RoomID()))
	}
	if trace := doc.Message.Attributes[traceHeader]; trace != "" {
		in.MessageSystemAttributes = map[string]sqstypes.MessageSystemAttributeValue{
			traceHeader: {DataType: aws.String("String"), StringValue: aws.String(trace)},
		}
	}
	if _, err := t.client.SendMessage(ctx, in); err != nil {
		return apiFailure(fmt.Errorf("send message %q to %s: %w", doc.Message.ID, t.queueURL, err), sqsPoisonCodes...)
	}
	return Delivered()
}
