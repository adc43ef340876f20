package local

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/redrive/redrive/message"
)

// Sent is a message a test sent to the DLQ.
type Sent struct {
	// ID is the SQS message id, the message's origin id.
	ID string
	// Body is the message's body.
	Body string
	// At is when it was sent (executor time).
	At time.Time
}

// SendToDLQ sends msgs to the DLQ now, as a failing consumer's queue would
// move them there, wakes the event source, and returns their message ids.
// Only Body and MessageAttributes of each message are used, and on a FIFO
// stack its MessageGroupId system attribute, its group.
func (s *Stack) SendToDLQ(ctx context.Context, msgs ...message.Message) ([]string, error) {
	ids := make([]string, 0, len(msgs))
	for i, m := range msgs {
		in := &sqs.SendMessageInput{
			QueueUrl:          aws.String(s.DLQURL),
			MessageBody:       aws.String(m.Body),
			MessageAttributes: m.SQSAttributes(),
		}
		if s.opts.FIFO {
			in.MessageGroupId = aws.String(m.Attributes[message.AttrMessageGroupID])
		}
		out, err := s.queues.SendMessage(ctx, in)
		if err != nil {
			return ids, fmt.Errorf("local: send message %d of %d to the DLQ: %w", i+1, len(msgs), err)
		}
		id := aws.ToString(out.MessageId)
		ids = append(ids, id)
		s.mu.Lock()
		s.sent = append(s.sent, Sent{ID: id, Body: m.Body, At: s.Executor.Now()})
		s.mu.Unlock()
	}
	s.source.sent(s.Executor.Now(), len(msgs))
	return ids, nil
}

// SendToDLQAt sends msgs to the DLQ at t on the executor's timeline (now,
// if t has passed); a failure is returned by the next RunUntilDrained or
// RunUntil. Sent lists them once sent.
func (s *Stack) SendToDLQAt(t time.Time, msgs ...message.Message) {
	s.Executor.At(t, func(ctx context.Context) {
		if _, err := s.SendToDLQ(ctx, msgs...); err != nil {
			s.fail(err)
		}
	})
}

// Sent lists the messages sent to the DLQ so far, in order.
func (s *Stack) Sent() []Sent {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Sent(nil), s.sent...)
}

// SentCount is len(Sent()), without the copy.
func (s *Stack) SentCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.sent)
}

// ThrottleStartExecution makes Step Functions refuse StartExecution with
// ThrottlingException from from until until (executor time).
func (s *Stack) ThrottleStartExecution(from, until time.Time) {
	s.throttle.throttle(from, until)
}

// RunUntilDrained runs the executor until nothing is left to do: the DLQ
// is empty and every execution has ended. It returns the first error of
// the run (an event source or send failure), or ctx's error if ctx ends
// first; a permanent outage never drains, so give ctx a deadline.
func (s *Stack) RunUntilDrained(ctx context.Context) error {
	if err := s.Executor.Run(ctx); err != nil {
		return fmt.Errorf("local: run: %w", err)
	}
	return s.takeErrors()
}

// RunUntil runs the executor up to t, leaving its clock at t, and returns
// the first error of the run.
func (s *Stack) RunUntil(ctx context.Context, t time.Time) error {
	if err := s.Executor.RunUntil(ctx, t); err != nil {
		return fmt.Errorf("local: run until %s: %w", t.Format(time.RFC3339), err)
	}
	return s.takeErrors()
}
