package emulator

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/redrive/redrive/statemachine/local"
	"github.com/redrive/redrive/tasks/message"
)

// Event source settings, as a Lambda SQS event source mapping on the DLQ
// would have them.
const (
	batchSize = 10
	// longPoll is the mapping's long-poll wait, in seconds.
	longPoll = 20
	// errorPause is how long the poller waits after a failed call.
	errorPause = time.Second
)

// eventSource emulates Lambda's SQS event source mapping on the DLQ with
// ReportBatchItemFailures, in real time: it long-polls the queue, invokes
// the function with each batch, deletes the records the function did not
// report as failures, and leaves the others to reappear after the
// visibility timeout. A function error leaves the whole batch.
type eventSource struct {
	sqs      *sqs.Client
	queueURL string
	queueARN string
	invoker  local.Invoker
	function string
	logger   *slog.Logger
}

// run polls until ctx ends.
func (s *eventSource) run(ctx context.Context) {
	for ctx.Err() == nil {
		if err := s.pollOnce(ctx); err != nil && ctx.Err() == nil {
			s.logger.ErrorContext(ctx, "DLQ event source", "queueUrl", s.queueURL, "error", err.Error())
			t := time.NewTimer(errorPause)
			select {
			case <-ctx.Done():
			case <-t.C:
			}
			t.Stop()
		}
	}
}

// pollOnce receives one batch and hands it to the function.
func (s *eventSource) pollOnce(ctx context.Context) error {
	out, err := s.sqs.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{
		QueueUrl:                    aws.String(s.queueURL),
		MaxNumberOfMessages:         batchSize,
		WaitTimeSeconds:             longPoll,
		MessageSystemAttributeNames: []sqstypes.MessageSystemAttributeName{sqstypes.MessageSystemAttributeNameAll},
		MessageAttributeNames:       []string{"All"},
	})
	if err != nil {
		return fmt.Errorf("receive: %w", err)
	}
	if len(out.Messages) == 0 {
		return nil
	}
	return s.deleteDone(ctx, out.Messages, s.invoke(ctx, out.Messages))
}

// invoke runs the function on a batch and returns the ids of the records
// to leave on the queue: the batch item failures, or, as Lambda does, the
// whole batch when the invocation fails, its response does not decode, or
// a failure names no record of the batch.
func (s *eventSource) invoke(ctx context.Context, msgs []sqstypes.Message) map[string]bool {
	ev := events.SQSEvent{Records: make([]events.SQSMessage, len(msgs))}
	all := make(map[string]bool, len(msgs))
	for i, m := range msgs {
		r := message.FromSQS(m).Event()
		r.ReceiptHandle = aws.ToString(m.ReceiptHandle)
		r.Md5OfBody = aws.ToString(m.MD5OfBody)
		r.Md5OfMessageAttributes = aws.ToString(m.MD5OfMessageAttributes)
		r.EventSourceARN, r.AWSRegion = s.queueARN, Region
		ev.Records[i] = r
		all[r.MessageId] = true
	}
	payload, err := json.Marshal(ev)
	if err != nil {
		s.logger.ErrorContext(ctx, "DLQ event source: encode the batch", "error", err.Error())
		return all
	}
	inv, err := s.invoker.Invoke(ctx, s.function, payload)
	if err != nil || inv.FunctionError != "" {
		s.logger.ErrorContext(ctx, "DLQ event source: the function failed; the batch stays in the DLQ",
			"function", s.function, "error", fmt.Sprint(err), "payload", string(inv.Payload))
		return all
	}
	var resp events.SQSEventResponse
	if err := json.Unmarshal(inv.Payload, &resp); err != nil {
		s.logger.ErrorContext(ctx, "DLQ event source: the response does not decode; the batch stays in the DLQ", "error", err.Error())
		return all
	}
	failed := map[string]bool{}
	for _, f := range resp.BatchItemFailures {
		if !all[f.ItemIdentifier] {
			return all
		}
		failed[f.ItemIdentifier] = true
	}
	return failed
}

// deleteDone deletes the records not in failed.
func (s *eventSource) deleteDone(ctx context.Context, msgs []sqstypes.Message, failed map[string]bool) error {
	var entries []sqstypes.DeleteMessageBatchRequestEntry
	for i, m := range msgs {
		if !failed[aws.ToString(m.MessageId)] {
			entries = append(entries, sqstypes.DeleteMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), ReceiptHandle: m.ReceiptHandle})
		}
	}
	if len(entries) == 0 {
		return nil
	}
	out, err := s.sqs.DeleteMessageBatch(ctx, &sqs.DeleteMessageBatchInput{QueueUrl: aws.String(s.queueURL), Entries: entries})
	if err != nil {
		return fmt.Errorf("delete %d records: %w", len(entries), err)
	}
	if len(out.Failed) > 0 {
		f := out.Failed[0]
		return fmt.Errorf("delete %d of %d records failed, first %s: %s", len(out.Failed), len(entries), aws.ToString(f.Code), aws.ToString(f.Message))
	}
	return nil
}
