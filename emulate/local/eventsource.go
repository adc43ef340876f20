package local

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/redrive/redrive/emulate/executor"
	"github.com/redrive/redrive/emulate/sqslocal"
	"github.com/redrive/redrive/message"
)

// SourceStats counts what the DLQ's event source did.
type SourceStats struct {
	// Polls counts ReceiveMessage calls.
	Polls int64
	// Batches counts starter invocations.
	Batches int64
	// Records counts records handed to the starter.
	Records int64
	// Deleted counts records deleted from the DLQ after the starter took
	// them.
	Deleted int64
	// Retried counts records left in the DLQ to reappear after the
	// visibility timeout: the starter's batch item failures, and every
	// record of an invocation that failed.
	Retried int64
	// FunctionErrors counts starter invocations that failed as a whole.
	FunctionErrors int64
}

// eventSource emulates Lambda's SQS event source mapping on the DLQ, with
// ReportBatchItemFailures: it receives batches of up to batchSize records,
// invokes the function with them, deletes the records the function did
// not report as failures, and leaves the others to reappear after the
// visibility timeout. A function error leaves the whole batch.
//
// On the virtual clock it runs on the executor's timeline. Instead of
// polling an empty queue forever (the executor's Run would never return),
// it polls while messages are visible, then sleeps until the earliest
// in-flight or delayed message is due, and stops when the queue is empty;
// sending to the DLQ wakes it (wake). A poll that finds nothing changes
// nothing, so this is the mapping's behaviour without the empty polls. A
// service (a scaled clock) long-polls instead, as the mapping does (run).
type eventSource struct {
	exec      *executor.Executor
	sqs       queueAPI
	server    *sqslocal.Server
	queueName string
	queueURL  string
	queueARN  string
	invoker   executor.Invoker
	function  string
	batchSize int
	window    time.Duration // the batching window: how long after a send it polls
	fail      func(error)   // reports an error the run must surface (virtual clock)
	logger    *slog.Logger  // reports an error a service carries on after
	service   bool          // long-polls (run) rather than being woken

	mu       sync.Mutex
	next     time.Time // the poll scheduled to run; zero when idle
	unpolled int       // messages sent since the last poll began
	stats    SourceStats
}

// longPoll is the mapping's long-poll wait, in seconds, and errorPause
// how long a service's source waits after a failed poll.
const (
	longPoll   = 20
	errorPause = time.Second
)

// run long-polls until ctx ends, as a service's event source.
func (s *eventSource) run(ctx context.Context) {
	for ctx.Err() == nil {
		if _, err := s.pollOnce(ctx, longPoll); err != nil && ctx.Err() == nil {
			s.logger.ErrorContext(ctx, "DLQ event source: the batch stays in the DLQ", "queueUrl", s.queueURL, "error", err.Error())
			s.exec.Sleep(ctx, errorPause)
		}
	}
}

// wake makes sure the source polls at at or earlier; a service's source
// polls all the time.
func (s *eventSource) wake(at time.Time) {
	if s.service {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.next.IsZero() && !s.next.After(at) {
		return
	}
	s.next = at
	s.exec.At(at, func(ctx context.Context) { s.poll(ctx, at) })
}

// sent wakes the source for n messages sent to the DLQ at at: once its
// batching window has passed, so that the messages sent meanwhile go in
// full batches, or at once when the messages sent since it last polled
// fill a batch, as the mapping invokes a full batch without waiting.
func (s *eventSource) sent(at time.Time, n int) {
	s.mu.Lock()
	s.unpolled += n
	full := s.unpolled >= s.batchSize
	s.mu.Unlock()
	if full {
		s.wake(at)
		return
	}
	s.wake(at.Add(s.window))
}

// poll drains the visible messages batch by batch, then schedules the next
// poll. A poll that was superseded by an earlier one does nothing.
func (s *eventSource) poll(ctx context.Context, at time.Time) {
	s.mu.Lock()
	current := s.next.Equal(at)
	if current {
		s.next, s.unpolled = time.Time{}, 0
	}
	s.mu.Unlock()
	if !current {
		return
	}
	for {
		n, err := s.pollOnce(ctx, 0)
		if err != nil {
			s.fail(fmt.Errorf("local: DLQ event source: %w", err))
			return
		}
		if n == 0 {
			break
		}
	}
	if err := s.scheduleNext(); err != nil {
		s.fail(fmt.Errorf("local: DLQ event source: %w", err))
	}
}

// scheduleNext wakes the source when the earliest message left on the
// queue becomes visible; with none left it stays idle.
func (s *eventSource) scheduleNext() error {
	due, err := s.server.NextDue(s.queueName)
	if err != nil {
		return err
	}
	next := due.Next
	if soon := s.exec.Now().Add(time.Second); due.Visible && (next.IsZero() || soon.Before(next)) {
		// Visible yet not received just now: poll again a second later,
		// as the mapping's pollers would, rather than spin.
		next = soon
	}
	if !next.IsZero() {
		s.wake(next)
	}
	return nil
}

// pollOnce receives one batch, waiting up to wait seconds for one, and
// hands it to the function; it returns how many records it received.
func (s *eventSource) pollOnce(ctx context.Context, wait int32) (int, error) {
	out, err := s.sqs.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{
		QueueUrl:                    aws.String(s.queueURL),
		MaxNumberOfMessages:         int32(s.batchSize),
		WaitTimeSeconds:             wait,
		MessageSystemAttributeNames: []sqstypes.MessageSystemAttributeName{sqstypes.MessageSystemAttributeNameAll},
		MessageAttributeNames:       []string{"All"},
	})
	s.count(func(st *SourceStats) { st.Polls++ })
	if err != nil {
		return 0, fmt.Errorf("receive from %s: %w", s.queueURL, err)
	}
	if len(out.Messages) == 0 {
		return 0, nil
	}
	for _, batch := range invokeBatches(out.Messages) {
		failed, err := s.invoke(ctx, batch)
		if err != nil {
			return 0, err
		}
		if err := s.deleteDone(ctx, batch, failed); err != nil {
			return 0, err
		}
	}
	return len(out.Messages), nil
}

// maxInvokePayload is Lambda's limit on a synchronous invocation's
// payload, which an SQS event source keeps its batches under.
const maxInvokePayload = 6 << 20

// invokeBatches splits received messages into batches whose events stay
// under maxInvokePayload, as Lambda's event source does with large
// messages (ten of SQS's 1 MiB would be 10 MiB); a batch holds at least
// one message.
func invokeBatches(msgs []sqstypes.Message) [][]sqstypes.Message {
	var out [][]sqstypes.Message
	start, size := 0, 0
	for i, m := range msgs {
		// A record is its body and attributes plus about 1 KiB of
		// fields; base64 attributes and JSON escaping add the rest.
		n := 2*len(aws.ToString(m.Body)) + 2<<10
		for _, a := range m.MessageAttributes {
			n += 2 * (len(aws.ToString(a.StringValue)) + len(a.BinaryValue))
		}
		if i > start && size+n > maxInvokePayload {
			out = append(out, msgs[start:i])
			start, size = i, 0
		}
		size += n
	}
	return append(out, msgs[start:])
}

// invoke runs the function on a batch and returns the ids of the records
// to leave on the queue. As Lambda does, a function error, an invalid
// response, or a failure naming no record of the batch fails the whole
// batch. An invocation that fails outright is an error, which stops the
// source: retrying could not help.
func (s *eventSource) invoke(ctx context.Context, msgs []sqstypes.Message) (map[string]bool, error) {
	ev := events.SQSEvent{Records: make([]events.SQSMessage, len(msgs))}
	all := make(map[string]bool, len(msgs))
	for i, m := range msgs {
		ev.Records[i] = s.record(m)
		all[aws.ToString(m.MessageId)] = true
	}
	payload, err := json.Marshal(ev)
	if err != nil {
		return nil, fmt.Errorf("encode event: %w", err)
	}
	s.count(func(st *SourceStats) { st.Batches++; st.Records += int64(len(msgs)) })
	inv, err := s.invoker.Invoke(ctx, s.function, payload)
	if err != nil {
		// The function could not be invoked at all (it does not exist,
		// the event is too large): a broken stack, not a retry.
		return nil, err
	}
	if inv.FunctionError != "" {
		s.count(func(st *SourceStats) { st.FunctionErrors++ })
		return all, nil
	}
	var resp events.SQSEventResponse
	if err := json.Unmarshal(inv.Payload, &resp); err != nil {
		s.count(func(st *SourceStats) { st.FunctionErrors++ })
		return all, nil
	}
	failed := map[string]bool{}
	for _, f := range resp.BatchItemFailures {
		if !all[f.ItemIdentifier] {
			return all, nil
		}
		failed[f.ItemIdentifier] = true
	}
	return failed, nil
}

// record is the event record Lambda builds from a received message.
func (s *eventSource) record(m sqstypes.Message) events.SQSMessage {
	r := message.FromSQS(m).Event()
	r.ReceiptHandle = aws.ToString(m.ReceiptHandle)
	r.Md5OfBody = aws.ToString(m.MD5OfBody)
	r.Md5OfMessageAttributes = aws.ToString(m.MD5OfMessageAttributes)
	r.EventSourceARN = s.queueARN
	r.AWSRegion = region
	return r
}

// deleteDone deletes the records not in failed.
func (s *eventSource) deleteDone(ctx context.Context, msgs []sqstypes.Message, failed map[string]bool) error {
	var entries []sqstypes.DeleteMessageBatchRequestEntry
	for i, m := range msgs {
		if failed[aws.ToString(m.MessageId)] {
			continue
		}
		entries = append(entries, sqstypes.DeleteMessageBatchRequestEntry{
			Id: aws.String(strconv.Itoa(i)), ReceiptHandle: m.ReceiptHandle,
		})
	}
	s.count(func(st *SourceStats) { st.Retried += int64(len(msgs) - len(entries)) })
	if len(entries) == 0 {
		return nil
	}
	out, err := s.sqs.DeleteMessageBatch(ctx, &sqs.DeleteMessageBatchInput{QueueUrl: aws.String(s.queueURL), Entries: entries})
	if err != nil {
		return fmt.Errorf("delete %d records from %s: %w", len(entries), s.queueURL, err)
	}
	s.count(func(st *SourceStats) { st.Deleted += int64(len(out.Successful)) })
	var errs []error
	for _, f := range out.Failed {
		errs = append(errs, fmt.Errorf("delete record %s: %s: %s", aws.ToString(f.Id), aws.ToString(f.Code), aws.ToString(f.Message)))
	}
	return errors.Join(errs...)
}

// count changes the stats under the lock.
func (s *eventSource) count(f func(*SourceStats)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f(&s.stats)
}

// snapshot returns the stats so far.
func (s *eventSource) snapshot() SourceStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stats
}
