package target

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	lambdatypes "github.com/aws/aws-sdk-go-v2/service/lambda/types"
	"github.com/redrive/redrive/message"
)

// MaxInvokePayload is Lambda's limit on a synchronous invocation's request
// (6 MB): a larger event can never be delivered by Invoke.
const MaxInvokePayload = 6 << 20

// requestTooLarge is the Lambda error code for a request over the limit; a
// payload this target refuses before sending is reported the same way.
const requestTooLarge = "RequestTooLargeException"

// InvokeAPI is the one Lambda client call the lambda target makes, with the
// SDK's signature so *lambda.Client satisfies it.
type InvokeAPI interface {
	Invoke(ctx context.Context, params *lambda.InvokeInput, optFns ...func(*lambda.Options)) (*lambda.InvokeOutput, error)
}

var _ InvokeAPI = (*lambda.Client)(nil)

// lambdaTarget invokes the consumer function synchronously with the
// one-record SQS event its event source mapping would have sent.
type lambdaTarget struct {
	client     InvokeAPI
	function   string
	sourceARN  string
	region     string
	classifier Classifier
}

// Deliver invokes the consumer with doc's message. A function error is
// classified by its errorType; the record reported in batchItemFailures is
// a transient BatchItemFailure; an Invoke error is transient with its code
// as ErrorType, except a payload over MaxInvokePayload, which is poison.
func (t *lambdaTarget) Deliver(ctx context.Context, doc message.Document) Result {
	if err := doc.Validate(); err != nil {
		return poison("InvalidDocument", err.Error())
	}
	payload, err := t.event(doc)
	if err != nil {
		return poison("InvalidDocument", err.Error())
	}
	if len(payload) > MaxInvokePayload {
		return poison(requestTooLarge, fmt.Sprintf(
			"the SQS event for message %q is %d bytes, over Lambda's %d-byte limit for a synchronous invocation: Invoke can never deliver it",
			doc.Message.ID, len(payload), MaxInvokePayload))
	}
	out, err := t.client.Invoke(ctx, &lambda.InvokeInput{
		FunctionName:   aws.String(t.function),
		InvocationType: lambdatypes.InvocationTypeRequestResponse,
		Payload:        payload,
	})
	if err != nil {
		return apiFailure(fmt.Errorf("invoke %q: %w", t.function, err), requestTooLarge)
	}
	if kind := aws.ToString(out.FunctionError); kind != "" {
		errorType, msg := functionError(kind, out.Payload)
		return t.classifier.Classify(errorType, msg)
	}
	if why := batchItemFailure(out.Payload, doc.Message.ID); why != "" {
		return transient(BatchItemFailure, why)
	}
	return Delivered()
}

// event is the SQS event the consumer receives: one record with doc's
// message, unchanged, plus the lineage in the "redrive" attribute. Unlike
// SendMessage, an event has no attribute limit, so the lineage is never
// wrapped in an envelope: the consumer always gets the original body. The
// receipt handle is empty: the message is on no queue the consumer could
// delete it from.
func (t *lambdaTarget) event(doc message.Document) ([]byte, error) {
	lineage, err := json.Marshal(doc.Lineage())
	if err != nil {
		return nil, fmt.Errorf("encode lineage of %q: %w", doc.OriginID, err)
	}
	msg := doc.Message
	msg.MessageAttributes = maps.Clone(msg.MessageAttributes)
	if msg.MessageAttributes == nil {
		msg.MessageAttributes = map[string]message.Attribute{}
	}
	msg.MessageAttributes[message.AttributeName] = message.StringAttribute(string(lineage))

	record := msg.Event()
	record.EventSourceARN = t.sourceARN
	record.AWSRegion = t.region
	record.Md5OfBody = md5OfBody(record.Body)
	record.Md5OfMessageAttributes = md5OfMessageAttributes(record.MessageAttributes)
	payload, err := json.Marshal(events.SQSEvent{Records: []events.SQSMessage{record}})
	if err != nil {
		return nil, fmt.Errorf("encode SQS event for %q: %w", doc.Message.ID, err)
	}
	return payload, nil
}
