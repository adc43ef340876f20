package sqslocal

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// Client calls a Server in process, with the aws-sdk-go-v2 SQS client's
// method signatures for the message operations, so it fits where an
// interface that *sqs.Client satisfies is expected. Each method converts
// the SDK input to the server's, runs the handler ServeHTTP runs for the
// action and converts the answer, without HTTP, JSON or the SDK's
// middleware. Validation, message IDs, receipt handles, digests, the
// draws on Options.Rand and the request IDs are those of the same call
// through *sqs.Client over HTTP, and so are the errors, wrapped as the SDK
// wraps them:
//
//   - a missing required parameter is the SDK's smithy.InvalidParamsError,
//     before the call reaches the server;
//   - a context done before the call is its error, and a long poll ends
//     when its context does, with the SDK's *smithy.CanceledError;
//   - a server error is the typed error the SDK makes of it for the
//     operation (*types.QueueDoesNotExist, say) or a
//     *smithy.GenericAPIError, with the legacy code as ErrorCode(), inside
//     an *awshttp.ResponseError with the HTTP status and request ID;
//   - a message body that is not valid UTF-8, which the server has with
//     U+FFFD as the SDK's JSON sends it, is sent, and the call fails with
//     the text of the SDK's error for a body digest that is not the
//     caller's.
//
// All are inside a *smithy.OperationError. Unlike the SDK, the Client
// does not retry (the server fails with a 5xx only when Options.Rand
// does) and leaves the outputs' ResultMetadata empty. The optFns are
// accepted for the signatures and ignored. A Client is safe for
// concurrent use.
type Client struct {
	s    *Server
	base string
}

// Client returns an in-process client of s. baseURL (scheme://host[:port])
// starts the queue URLs the client is answered with, as the Host of an
// HTTP client's requests does.
func (s *Server) Client(baseURL string) *Client {
	return &Client{s: s, base: baseURL}
}

// The operations the Client implements, by their SDK names.
const (
	opSendMessage                  = "SendMessage"
	opSendMessageBatch             = "SendMessageBatch"
	opReceiveMessage               = "ReceiveMessage"
	opDeleteMessage                = "DeleteMessage"
	opDeleteMessageBatch           = "DeleteMessageBatch"
	opChangeMessageVisibility      = "ChangeMessageVisibility"
	opChangeMessageVisibilityBatch = "ChangeMessageVisibilityBatch"
	opGetQueueURL                  = "GetQueueUrl"
	opGetQueueAttributes           = "GetQueueAttributes"
)

// SendMessage is (*sqs.Client).SendMessage, in process.
func (c *Client) SendMessage(ctx context.Context, params *sqs.SendMessageInput, _ ...func(*sqs.Options)) (*sqs.SendMessageOutput, error) {
	if params == nil {
		params = &sqs.SendMessageInput{}
	}
	p := smithy.InvalidParamsError{Context: "SendMessageInput"}
	in := &sendMessageInput{QueueURL: aws.ToString(required(&p, noEntry, "QueueUrl", params.QueueUrl))}
	in.sendEntry = sendEntryIn(&p, noEntry, &types.SendMessageBatchRequestEntry{
		MessageBody:             params.MessageBody,
		DelaySeconds:            params.DelaySeconds,
		MessageAttributes:       params.MessageAttributes,
		MessageSystemAttributes: params.MessageSystemAttributes,
		MessageDeduplicationId:  params.MessageDeduplicationId,
		MessageGroupId:          params.MessageGroupId,
	})
	out, err := invoke(ctx, c, opSendMessage, p, (*Server).sendMessage, in)
	if err != nil {
		return nil, err
	}
	r := out.(sendResult)
	if in.MessageBody != params.MessageBody { // wirePtr changed it
		if bad := checksumMismatch(*params.MessageBody, &r); bad != "" {
			return nil, checksumError(opSendMessage, bad)
		}
	}
	return &sqs.SendMessageOutput{
		MessageId:                    &r.MessageID,
		MD5OfMessageBody:             &r.MD5OfMessageBody,
		MD5OfMessageAttributes:       nonEmpty(&r.MD5OfMessageAttributes),
		MD5OfMessageSystemAttributes: nonEmpty(&r.MD5OfMessageSystemAttributes),
		SequenceNumber:               nonEmpty(&r.SequenceNumber),
	}, nil
}

// SendMessageBatch is (*sqs.Client).SendMessageBatch, in process.
func (c *Client) SendMessageBatch(ctx context.Context, params *sqs.SendMessageBatchInput, _ ...func(*sqs.Options)) (*sqs.SendMessageBatchOutput, error) {
	if params == nil {
		params = &sqs.SendMessageBatchInput{}
	}
	p := smithy.InvalidParamsError{Context: "SendMessageBatchInput"}
	in := &sendMessageBatchInput{QueueURL: aws.ToString(required(&p, noEntry, "QueueUrl", params.QueueUrl))}
	in.Entries = batchIn(&p, params.Entries, func(i int, e *types.SendMessageBatchRequestEntry) sendEntry {
		return sendEntryIn(&p, i, e)
	})
	out, err := invoke(ctx, c, opSendMessageBatch, p, (*Server).sendMessageBatch, in)
	if err != nil {
		return nil, err
	}
	o := out.(*batchOutput[sendResult])
	if bad := batchChecksumMismatches(params.Entries, in.Entries, o); bad != "" {
		return nil, checksumError(opSendMessageBatch, "message checksum errors"+bad)
	}
	ok, failed := batchOut(o, func(r *sendResult) types.SendMessageBatchResultEntry {
		return types.SendMessageBatchResultEntry{
			Id:                           &r.ID,
			MessageId:                    &r.MessageID,
			MD5OfMessageBody:             &r.MD5OfMessageBody,
			MD5OfMessageAttributes:       nonEmpty(&r.MD5OfMessageAttributes),
			MD5OfMessageSystemAttributes: nonEmpty(&r.MD5OfMessageSystemAttributes),
			SequenceNumber:               nonEmpty(&r.SequenceNumber),
		}
	})
	return &sqs.SendMessageBatchOutput{Successful: ok, Failed: failed}, nil
}

// ReceiveMessage is (*sqs.Client).ReceiveMessage, in process. A long poll
// ends when ctx does, failing as the SDK's call does then.
func (c *Client) ReceiveMessage(ctx context.Context, params *sqs.ReceiveMessageInput, _ ...func(*sqs.Options)) (*sqs.ReceiveMessageOutput, error) {
	if params == nil {
		params = &sqs.ReceiveMessageInput{}
	}
	p := smithy.InvalidParamsError{Context: "ReceiveMessageInput"}
	//lint:ignore SA1019 the SDK still sends the legacy member, which the server honours
	legacyNames := params.AttributeNames
	in := &receiveMessageInput{
		QueueURL:                    aws.ToString(required(&p, noEntry, "QueueUrl", params.QueueUrl)),
		AttributeNames:              wireStrings(legacyNames),
		MessageSystemAttributeNames: wireStrings(params.MessageSystemAttributeNames),
		MessageAttributeNames:       wireStrings(params.MessageAttributeNames),
		MaxNumberOfMessages:         nonZero(params.MaxNumberOfMessages),
		VisibilityTimeout:           nonZero(params.VisibilityTimeout),
		WaitTimeSeconds:             nonZero(params.WaitTimeSeconds),
	}
	out, err := invoke(ctx, c, opReceiveMessage, p, (*Server).receiveMessage, in)
	if err != nil {
		return nil, err
	}
	msgs := out.(receiveMessageOutput).Messages
	if len(msgs) == 0 {
		// The server ends a long poll whose context is done with no
		// messages; the SDK's call fails then, the response unread.
		if err := ctx.Err(); err != nil {
			return nil, responseError(opReceiveMessage, 0, "", &smithy.CanceledError{Err: err})
		}
		return &sqs.ReceiveMessageOutput{}, nil
	}
	res := &sqs.ReceiveMessageOutput{Messages: make([]types.Message, len(msgs))}
	for i := range msgs {
		res.Messages[i] = messageOut(&msgs[i])
	}
	return res, nil
}

// DeleteMessage is (*sqs.Client).DeleteMessage, in process.
func (c *Client) DeleteMessage(ctx context.Context, params *sqs.DeleteMessageInput, _ ...func(*sqs.Options)) (*sqs.DeleteMessageOutput, error) {
	if params == nil {
		params = &sqs.DeleteMessageInput{}
	}
	p := smithy.InvalidParamsError{Context: "DeleteMessageInput"}
	in := &deleteMessageInput{
		QueueURL:      aws.ToString(required(&p, noEntry, "QueueUrl", params.QueueUrl)),
		ReceiptHandle: aws.ToString(required(&p, noEntry, "ReceiptHandle", params.ReceiptHandle)),
	}
	if _, err := invoke(ctx, c, opDeleteMessage, p, (*Server).deleteMessage, in); err != nil {
		return nil, err
	}
	return &sqs.DeleteMessageOutput{}, nil
}

// DeleteMessageBatch is (*sqs.Client).DeleteMessageBatch, in process.
func (c *Client) DeleteMessageBatch(ctx context.Context, params *sqs.DeleteMessageBatchInput, _ ...func(*sqs.Options)) (*sqs.DeleteMessageBatchOutput, error) {
	if params == nil {
		params = &sqs.DeleteMessageBatchInput{}
	}
	p := smithy.InvalidParamsError{Context: "DeleteMessageBatchInput"}
	in := &receiptBatchInput{QueueURL: aws.ToString(required(&p, noEntry, "QueueUrl", params.QueueUrl))}
	in.Entries = batchIn(&p, params.Entries, func(i int, e *types.DeleteMessageBatchRequestEntry) receiptEntry {
		return receiptEntryIn(&p, i, e.Id, e.ReceiptHandle, nil)
	})
	out, err := invoke(ctx, c, opDeleteMessageBatch, p, (*Server).deleteMessageBatch, in)
	if err != nil {
		return nil, err
	}
	ok, failed := batchOut(out.(*batchOutput[batchID]), func(b *batchID) types.DeleteMessageBatchResultEntry {
		return types.DeleteMessageBatchResultEntry{Id: &b.ID}
	})
	return &sqs.DeleteMessageBatchOutput{Successful: ok, Failed: failed}, nil
}

// ChangeMessageVisibility is (*sqs.Client).ChangeMessageVisibility, in
// process.
func (c *Client) ChangeMessageVisibility(ctx context.Context, params *sqs.ChangeMessageVisibilityInput, _ ...func(*sqs.Options)) (*sqs.ChangeMessageVisibilityOutput, error) {
	if params == nil {
		params = &sqs.ChangeMessageVisibilityInput{}
	}
	p := smithy.InvalidParamsError{Context: "ChangeMessageVisibilityInput"}
	in := &changeVisibilityInput{
		QueueURL:          aws.ToString(required(&p, noEntry, "QueueUrl", params.QueueUrl)),
		ReceiptHandle:     aws.ToString(required(&p, noEntry, "ReceiptHandle", params.ReceiptHandle)),
		VisibilityTimeout: intOf(params.VisibilityTimeout),
	}
	if _, err := invoke(ctx, c, opChangeMessageVisibility, p, (*Server).changeMessageVisibility, in); err != nil {
		return nil, err
	}
	return &sqs.ChangeMessageVisibilityOutput{}, nil
}

// ChangeMessageVisibilityBatch is
// (*sqs.Client).ChangeMessageVisibilityBatch, in process.
func (c *Client) ChangeMessageVisibilityBatch(ctx context.Context, params *sqs.ChangeMessageVisibilityBatchInput, _ ...func(*sqs.Options)) (*sqs.ChangeMessageVisibilityBatchOutput, error) {
	if params == nil {
		params = &sqs.ChangeMessageVisibilityBatchInput{}
	}
	p := smithy.InvalidParamsError{Context: "ChangeMessageVisibilityBatchInput"}
	in := &receiptBatchInput{QueueURL: aws.ToString(required(&p, noEntry, "QueueUrl", params.QueueUrl))}
	in.Entries = batchIn(&p, params.Entries, func(i int, e *types.ChangeMessageVisibilityBatchRequestEntry) receiptEntry {
		return receiptEntryIn(&p, i, e.Id, e.ReceiptHandle, intOf(e.VisibilityTimeout))
	})
	out, err := invoke(ctx, c, opChangeMessageVisibilityBatch, p, (*Server).changeMessageVisibilityBatch, in)
	if err != nil {
		return nil, err
	}
	ok, failed := batchOut(out.(*batchOutput[batchID]), func(b *batchID) types.ChangeMessageVisibilityBatchResultEntry {
		return types.ChangeMessageVisibilityBatchResultEntry{Id: &b.ID}
	})
	return &sqs.ChangeMessageVisibilityBatchOutput{Successful: ok, Failed: failed}, nil
}

// GetQueueUrl is (*sqs.Client).GetQueueUrl, in process.
func (c *Client) GetQueueUrl(ctx context.Context, params *sqs.GetQueueUrlInput, _ ...func(*sqs.Options)) (*sqs.GetQueueUrlOutput, error) {
	if params == nil {
		params = &sqs.GetQueueUrlInput{}
	}
	p := smithy.InvalidParamsError{Context: "GetQueueUrlInput"}
	in := &getQueueURLInput{
		QueueName:              aws.ToString(required(&p, noEntry, "QueueName", params.QueueName)),
		QueueOwnerAWSAccountID: aws.ToString(wirePtr(params.QueueOwnerAWSAccountId)),
	}
	out, err := invoke(ctx, c, opGetQueueURL, p, (*Server).getQueueURL, in)
	if err != nil {
		return nil, err
	}
	r := out.(queueURLOutput)
	return &sqs.GetQueueUrlOutput{QueueUrl: &r.QueueURL}, nil
}

// GetQueueAttributes is (*sqs.Client).GetQueueAttributes, in process.
func (c *Client) GetQueueAttributes(ctx context.Context, params *sqs.GetQueueAttributesInput, _ ...func(*sqs.Options)) (*sqs.GetQueueAttributesOutput, error) {
	if params == nil {
		params = &sqs.GetQueueAttributesInput{}
	}
	p := smithy.InvalidParamsError{Context: "GetQueueAttributesInput"}
	in := &getQueueAttributesInput{
		QueueURL:       aws.ToString(required(&p, noEntry, "QueueUrl", params.QueueUrl)),
		AttributeNames: wireStrings(params.AttributeNames),
	}
	out, err := invoke(ctx, c, opGetQueueAttributes, p, (*Server).getQueueAttributes, in)
	if err != nil {
		return nil, err
	}
	res := &sqs.GetQueueAttributesOutput{}
	if attrs := out.(getQueueAttributesOutput).Attributes; len(attrs) > 0 {
		res.Attributes = attrs // a fresh map, which JSON omits when empty
	}
	return res, nil
}

// invoke runs operation op, the server's handler h on in, as the SDK's
// client does over HTTP: missing required parameters (p), then a done ctx,
// fail the call before it reaches the server, and a server error comes
// back as the SDK reports it. The call takes the next request ID, as
// ServeHTTP does.
func invoke[In any](ctx context.Context, c *Client, op string, p smithy.InvalidParamsError, h func(*Server, call, *In) (any, *apiError), in *In) (any, error) {
	if p.Len() > 0 {
		return nil, &smithy.OperationError{ServiceID: sqs.ServiceID, OperationName: op, Err: p}
	}
	if err := ctx.Err(); err != nil {
		return nil, &smithy.OperationError{ServiceID: sqs.ServiceID, OperationName: op, Err: err}
	}
	n := c.s.requests.Add(1)
	out, err := h(c.s, call{ctx: ctx, base: c.base}, in)
	if err != nil {
		return nil, responseError(op, err.kind.status, requestID(n), sdkError(op, err))
	}
	return out, nil
}

// responseError is err as the SDK's client reports a failed response to
// op: with its HTTP status and request ID, in the operation's error.
func responseError(op string, status int, requestID string, err error) error {
	return &smithy.OperationError{ServiceID: sqs.ServiceID, OperationName: op, Err: &awshttp.ResponseError{
		ResponseError: &smithyhttp.ResponseError{Response: &smithyhttp.Response{Response: &http.Response{StatusCode: status}}, Err: err},
		RequestID:     requestID,
	}}
}

// checksumMismatch returns, as the SDK's check of a sent message's body
// digest words it, why r's MD5OfMessageBody is not the MD5 of body, the
// caller's; "" when it is. They differ only for a body that is not valid
// UTF-8, which the server has as wireString makes it: the message is
// sent, and the SDK's call fails.
func checksumMismatch(body string, r *sendResult) string {
	if sum := MD5OfBody(body); sum != r.MD5OfMessageBody {
		return fmt.Sprintf("message %s has invalid checksum, expected MD5 checksum %s, got %s", r.MessageID, r.MD5OfMessageBody, sum)
	}
	return ""
}

// batchChecksumMismatches returns checksumMismatch of each sent entry of a
// batch whose body wirePtr changed, in the order of the entries, each on
// a line of its own; "" if none.
func batchChecksumMismatches(entries []types.SendMessageBatchRequestEntry, sent []sendEntry, o *batchOutput[sendResult]) string {
	var bad strings.Builder
	for i := range entries {
		if sent[i].MessageBody == entries[i].MessageBody {
			continue
		}
		for j := range o.Successful {
			if r := &o.Successful[j]; r.ID == sent[i].ID {
				if m := checksumMismatch(*entries[i].MessageBody, r); m != "" {
					bad.WriteString("\n\t" + m)
				}
			}
		}
	}
	return bad.String()
}

// checksumError is the SDK's error for op when a sent message's body
// digest is not the caller's, as checksumMismatch explains.
func checksumError(op, mismatch string) error {
	return &smithy.OperationError{ServiceID: sqs.ServiceID, OperationName: op, Err: fmt.Errorf("message checksum validation failed, %w", errors.New(mismatch))}
}

// typedError is an error the SDK reports with a type of its own when one
// of ops answers with it.
type typedError struct {
	ops   []string
	typed func(message, code *string) error
}

var (
	// allOps are every operation of the Client; batchOps its batch ones.
	allOps = []string{
		opSendMessage, opSendMessageBatch, opReceiveMessage, opDeleteMessage, opDeleteMessageBatch,
		opChangeMessageVisibility, opChangeMessageVisibilityBatch, opGetQueueURL, opGetQueueAttributes,
	}
	batchOps = []string{opSendMessageBatch, opDeleteMessageBatch, opChangeMessageVisibilityBatch}
)

// sdkErrors lists, for each of the server's errors, the Client's
// operations whose SDK deserializers make a typed error of it
// (awsAwsjson10_deserializeOpError<Operation> in the SDK's
// deserializers.go), and that error. Any other error, or the same one
// answered to another operation (InvalidAttributeName to ReceiveMessage,
// say), is a *smithy.GenericAPIError.
var sdkErrors = map[errorKind]typedError{
	errInvalidAddress: {allOps, func(m, c *string) error {
		return &types.InvalidAddress{Message: m, ErrorCodeOverride: c}
	}},
	errQueueDoesNotExist: {allOps, func(m, c *string) error {
		return &types.QueueDoesNotExist{Message: m, ErrorCodeOverride: c}
	}},
	errUnsupportedOperation: {allOps, func(m, c *string) error {
		return &types.UnsupportedOperation{Message: m, ErrorCodeOverride: c}
	}},
	errInvalidMessageContents: {[]string{opSendMessage}, func(m, c *string) error {
		return &types.InvalidMessageContents{Message: m, ErrorCodeOverride: c}
	}},
	errBatchRequestTooLong: {[]string{opSendMessageBatch}, func(m, c *string) error {
		return &types.BatchRequestTooLong{Message: m, ErrorCodeOverride: c}
	}},
	errEmptyBatchRequest: {batchOps, func(m, c *string) error {
		return &types.EmptyBatchRequest{Message: m, ErrorCodeOverride: c}
	}},
	errTooManyEntries: {batchOps, func(m, c *string) error {
		return &types.TooManyEntriesInBatchRequest{Message: m, ErrorCodeOverride: c}
	}},
	errInvalidBatchEntryID: {batchOps, func(m, c *string) error {
		return &types.InvalidBatchEntryId{Message: m, ErrorCodeOverride: c}
	}},
	errBatchEntryIdsNotDistinct: {batchOps, func(m, c *string) error {
		return &types.BatchEntryIdsNotDistinct{Message: m, ErrorCodeOverride: c}
	}},
	errReceiptHandleIsInvalid: {[]string{opDeleteMessage, opChangeMessageVisibility}, func(m, c *string) error {
		return &types.ReceiptHandleIsInvalid{Message: m, ErrorCodeOverride: c}
	}},
	errMessageNotInflight: {[]string{opChangeMessageVisibility}, func(_, c *string) error {
		// The SDK's model has no message member for this one.
		return &types.MessageNotInflight{ErrorCodeOverride: c}
	}},
	errInvalidAttributeName: {[]string{opGetQueueAttributes}, func(m, c *string) error {
		return &types.InvalidAttributeName{Message: m, ErrorCodeOverride: c}
	}},
}

// sdkError is e as the SDK's deserializer of op makes it: the typed error
// of sdkErrors, else a *smithy.GenericAPIError, each with e's message and
// legacy code (the x-amzn-query-error header's, the SDK's ErrorCode()).
func sdkError(op string, e *apiError) error {
	message, code := e.message, e.kind.code
	if t, ok := sdkErrors[e.kind]; ok && slices.Contains(t.ops, op) {
		return t.typed(&message, &code)
	}
	return &smithy.GenericAPIError{Code: code, Message: message}
}

// noEntry is the entry index of a field of the input itself rather than
// of a batch entry.
const noEntry = -1

// required returns v as the server decodes it and, as the SDK's
// validators do, records it in p when it is absent: the field of batch
// entry i, or of the input with noEntry.
func required(p *smithy.InvalidParamsError, i int, field string, v *string) *string {
	if v == nil {
		addMissing(p, fieldPath(i, ""), field)
	}
	return wirePtr(v)
}

// addMissing records the required field at path (a nested path such as
// Entries[0], or "" for a field of the input) as missing, as the SDK's
// validators do.
func addMissing(p *smithy.InvalidParamsError, path, field string) {
	if path == "" {
		p.Add(smithy.NewErrParamRequired(field))
		return
	}
	var nested smithy.InvalidParamsError
	nested.Add(smithy.NewErrParamRequired(field))
	p.AddNested(path, nested)
}

// fieldPath is the path in the SDK's validation errors of sub (a nested
// path such as MessageAttributes["a"], or "") in batch entry i, or in the
// input itself with noEntry.
func fieldPath(i int, sub string) string {
	if i == noEntry {
		return sub
	}
	path := "Entries[" + strconv.Itoa(i) + "]"
	if sub != "" {
		path += "." + sub
	}
	return path
}

// batchIn converts a batch's entries with conv, recording absent Entries
// as the SDK's validators do.
func batchIn[E, T any](p *smithy.InvalidParamsError, entries []E, conv func(i int, e *E) T) []T {
	if entries == nil {
		addMissing(p, "", "Entries")
		return nil
	}
	out := make([]T, len(entries))
	for i := range entries {
		out[i] = conv(i, &entries[i])
	}
	return out
}

// sendEntryIn converts a message to send: entry i of a batch, or with
// noEntry the fields of SendMessage (which has no Id), recording its
// missing required fields.
func sendEntryIn(p *smithy.InvalidParamsError, i int, e *types.SendMessageBatchRequestEntry) sendEntry {
	var id *string
	if i != noEntry {
		id = required(p, i, "Id", e.Id)
	}
	return sendEntry{
		ID:                      aws.ToString(id),
		MessageBody:             required(p, i, "MessageBody", e.MessageBody),
		DelaySeconds:            nonZero(e.DelaySeconds),
		MessageAttributes:       attributesIn(p, i, "MessageAttributes", e.MessageAttributes),
		MessageSystemAttributes: attributesIn(p, i, "MessageSystemAttributes", e.MessageSystemAttributes),
		MessageDeduplicationID:  wirePtr(e.MessageDeduplicationId),
		MessageGroupID:          wirePtr(e.MessageGroupId),
	}
}

// receiptEntryIn converts entry i of DeleteMessageBatch or
// ChangeMessageVisibilityBatch, recording its missing required fields.
func receiptEntryIn(p *smithy.InvalidParamsError, i int, id, handle *string, timeout *int) receiptEntry {
	return receiptEntry{
		ID:                aws.ToString(required(p, i, "Id", id)),
		ReceiptHandle:     aws.ToString(required(p, i, "ReceiptHandle", handle)),
		VisibilityTimeout: timeout,
	}
}

// attributeValue is a message attribute or message system attribute
// value: the SDK has a type for each, of one shape.
type attributeValue interface {
	types.MessageAttributeValue | types.MessageSystemAttributeValue
}

// attributesIn converts the message (system) attributes of the input
// field called field, of batch entry i or of the input with noEntry,
// recording each without a DataType as the SDK's validators do. Binary
// values are copied, as the server keeps them.
func attributesIn[V attributeValue](p *smithy.InvalidParamsError, i int, field string, in map[string]V) map[string]wireAttribute {
	if in == nil {
		return nil
	}
	out := make(map[string]wireAttribute, len(in))
	for name, v := range in {
		a := types.MessageAttributeValue(v)
		if a.DataType == nil {
			addMissing(p, fieldPath(i, fmt.Sprintf("%s[%q]", field, name)), "DataType")
		}
		out[wireString(name)] = wireAttribute{
			MessageAttribute: MessageAttribute{
				DataType:    aws.ToString(wirePtr(a.DataType)),
				StringValue: aws.ToString(wirePtr(a.StringValue)),
				BinaryValue: bytes.Clone(a.BinaryValue),
			},
			// The server only checks that these are absent.
			StringListValues: a.StringListValues,
			BinaryListValues: a.BinaryListValues,
		}
	}
	return out
}

// batchOut converts a batch call's answer: the successful entries with
// conv, and the failed ones.
func batchOut[T, R any](o *batchOutput[T], conv func(*T) R) ([]R, []types.BatchResultErrorEntry) {
	ok := make([]R, len(o.Successful))
	for i := range o.Successful {
		ok[i] = conv(&o.Successful[i])
	}
	failed := make([]types.BatchResultErrorEntry, len(o.Failed))
	for i := range o.Failed {
		f := &o.Failed[i]
		failed[i] = types.BatchResultErrorEntry{Id: &f.ID, Code: &f.Code, Message: &f.Message, SenderFault: f.SenderFault}
	}
	return ok, failed
}

// messageOut converts a received message. The server's answer is fresh,
// so the SDK message points into it and takes its Attributes map.
func messageOut(m *wireMessage) types.Message {
	return types.Message{
		MessageId:              &m.MessageID,
		ReceiptHandle:          &m.ReceiptHandle,
		MD5OfBody:              &m.MD5OfBody,
		Body:                   &m.Body,
		Attributes:             m.Attributes,
		MD5OfMessageAttributes: nonEmpty(&m.MD5OfMessageAttributes),
		MessageAttributes:      attributesOut(m.MessageAttributes),
	}
}

// attributesOut converts a received message's attributes as the SDK
// decodes them: empty values absent, binary values copies of the
// server's.
func attributesOut(in map[string]MessageAttribute) map[string]types.MessageAttributeValue {
	if len(in) == 0 {
		return nil
	}
	out := make(map[string]types.MessageAttributeValue, len(in))
	for name, a := range in {
		v := types.MessageAttributeValue{DataType: aws.String(a.DataType)}
		if a.StringValue != "" {
			v.StringValue = aws.String(a.StringValue)
		}
		if len(a.BinaryValue) > 0 {
			v.BinaryValue = bytes.Clone(a.BinaryValue)
		}
		out[name] = v
	}
	return out
}

// nonEmpty is s as the SDK decodes a member the server omits when empty:
// nil for "".
func nonEmpty(s *string) *string {
	if *s == "" {
		return nil
	}
	return s
}

// nonZero is v as the SDK sends an optional integer: absent when zero.
func nonZero(v int32) *int {
	if v == 0 {
		return nil
	}
	return intOf(v)
}

// intOf is v as the server decodes an integer the SDK always sends.
func intOf(v int32) *int {
	n := int(v)
	return &n
}

// wireStrings is a list of names as the server decodes it.
func wireStrings[S ~string](in []S) []string {
	if in == nil {
		return nil
	}
	out := make([]string, len(in))
	for i, s := range in {
		out[i] = wireString(string(s))
	}
	return out
}

// wirePtr is *v as the server decodes it (see wireString): v itself when
// that is the same, nil for nil.
func wirePtr(v *string) *string {
	if v == nil || utf8.ValidString(*v) {
		return v
	}
	s := wireString(*v)
	return &s
}

// wireString is s as the server decodes it from the SDK's JSON, whose
// encoder writes each byte that is not part of valid UTF-8 as U+FFFD.
func wireString(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			b.WriteRune(utf8.RuneError)
		} else {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}
