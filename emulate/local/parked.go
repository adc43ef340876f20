package local

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/redrive/redrive/message"
	"github.com/redrive/redrive/park"
)

// Parked is a message received from the parking lot.
type Parked struct {
	// Message is the parked message as an operator would move it back:
	// the original body and attributes (unwrapped from an envelope), with
	// the Record in the "redrive" attribute.
	Message message.Message
	// Record is the "redrive" attribute decoded: lineage, history and why
	// it was parked.
	Record park.Record
	// Enveloped reports that the message came wrapped in an envelope.
	Enveloped bool
}

// ReceiveParked receives and deletes every message in the parking lot, as
// an operator draining it would, and decodes each one's Record.
func (s *Stack) ReceiveParked(ctx context.Context) ([]Parked, error) {
	var out []Parked
	for {
		got, err := s.SQS.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{
			QueueUrl:                    aws.String(s.ParkingLotURL),
			MaxNumberOfMessages:         10,
			MessageSystemAttributeNames: []sqstypes.MessageSystemAttributeName{sqstypes.MessageSystemAttributeNameAll},
			MessageAttributeNames:       []string{"All"},
		})
		if err != nil {
			return out, fmt.Errorf("local: receive from the parking lot: %w", err)
		}
		if len(got.Messages) == 0 {
			return out, nil
		}
		for _, m := range got.Messages {
			p, err := decodeParked(m)
			if err != nil {
				return out, err
			}
			if _, err := s.SQS.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(s.ParkingLotURL), ReceiptHandle: m.ReceiptHandle}); err != nil {
				return out, fmt.Errorf("local: delete parked message %s: %w", p.Message.ID, err)
			}
			out = append(out, p)
		}
	}
}

// MovedByRedrivePolicy is the park reason of a message SQS moved to the
// parking lot from the DLQ itself, after the DLQ's maxReceiveCount
// receives, without a record of Redrive's.
const MovedByRedrivePolicy = "moved by the DLQ's redrive policy: received too often without an execution"

// decodeParked unwraps a parking-lot message and decodes its Record.
func decodeParked(m sqstypes.Message) (Parked, error) {
	msg, enveloped, err := message.Unwrap(message.FromSQS(m))
	if err != nil {
		return Parked{}, fmt.Errorf("local: parked message %s: %w", aws.ToString(m.MessageId), err)
	}
	attr, ok := msg.MessageAttributes[message.AttributeName]
	if !ok {
		// SQS moved it from the DLQ by the DLQ's redrive policy: it was
		// received dlqMaxReceives times and never started (the account's
		// quotas refused its execution every time). Its id is its origin.
		return Parked{Message: msg, Enveloped: enveloped, Record: park.Record{
			Lineage: message.Lineage{OriginID: msg.ID, Attempt: 1}, Reason: MovedByRedrivePolicy}}, nil
	}
	var rec park.Record
	if err := json.Unmarshal([]byte(attr.StringValue), &rec); err != nil {
		return Parked{}, fmt.Errorf("local: parked message %s: %q attribute: %w", msg.ID, message.AttributeName, err)
	}
	return Parked{Message: msg, Record: rec, Enveloped: enveloped}, nil
}
