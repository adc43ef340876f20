// Package replaytest has the fault-injecting SQS client the replay's tests
// share.
package replaytest

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/redrive/redrive/clock"
)

// SQS is a replay's SQS client for tests: it notes when each message went
// to the DLQ and the visibility timeouts set, and fails a delete or a
// receive, cancels a run, or calls OnSend after a send, where a test asks. Set the fields between
// runs, not during one.
type SQS struct {
	*sqs.Client
	// Clock is the clock the sends are noted on.
	Clock clock.Clock
	// FailDeleteAt fails the delete that follows that send (1-based,
	// over every run; 0: none).
	FailDeleteAt int
	// CancelAt calls Cancel right after that send (1-based, over every
	// run), if Cancel is set.
	CancelAt int
	Cancel   context.CancelFunc
	// OnSend, if set, is called after each send that went through, as the
	// system would meet the message in the DLQ (a rule parking it again).
	OnSend func(ctx context.Context, in *sqs.SendMessageInput)
	// InFlightQuota fails a receive with SQS's OverLimit while that many
	// messages are in flight (received, and neither deleted nor made
	// visible again; a visibility timeout that runs out is not noticed;
	// 0: no quota), as SQS does at its quota.
	InFlightQuota int

	mu         sync.Mutex
	sent       []time.Time
	visibility []int32
	inFlight   int
}

// ReceiveMessage receives, unless InFlightQuota says the quota is reached.
func (f *SQS) ReceiveMessage(ctx context.Context, in *sqs.ReceiveMessageInput, optFns ...func(*sqs.Options)) (*sqs.ReceiveMessageOutput, error) {
	f.mu.Lock()
	full := f.InFlightQuota > 0 && f.inFlight >= f.InFlightQuota
	f.mu.Unlock()
	if full {
		return nil, &sqstypes.OverLimit{Message: aws.String("injected: too many messages in flight")}
	}
	out, err := f.Client.ReceiveMessage(ctx, in, optFns...)
	if err == nil {
		f.mu.Lock()
		f.inFlight += len(out.Messages)
		f.mu.Unlock()
	}
	return out, err
}

// Sent is when each send so far went, in order.
func (f *SQS) Sent() []time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.sent)
}

// Visibility lists the timeouts ChangeMessageVisibilityBatch set, in order.
func (f *SQS) Visibility() []int32 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.visibility)
}

// SendMessage sends and notes the send.
func (f *SQS) SendMessage(ctx context.Context, in *sqs.SendMessageInput, optFns ...func(*sqs.Options)) (*sqs.SendMessageOutput, error) {
	out, err := f.Client.SendMessage(ctx, in, optFns...)
	if err != nil {
		return out, err
	}
	f.mu.Lock()
	f.sent = append(f.sent, f.Clock.Now())
	n := len(f.sent)
	f.mu.Unlock()
	if f.OnSend != nil {
		f.OnSend(ctx, in)
	}
	if f.Cancel != nil && n == f.CancelAt {
		f.Cancel()
	}
	return out, nil
}

// ChangeMessageVisibilityBatch notes the timeouts, then sets them; a
// message made visible is no longer in flight.
func (f *SQS) ChangeMessageVisibilityBatch(ctx context.Context, in *sqs.ChangeMessageVisibilityBatchInput,
	optFns ...func(*sqs.Options)) (*sqs.ChangeMessageVisibilityBatchOutput, error) {
	f.mu.Lock()
	for _, e := range in.Entries {
		f.visibility = append(f.visibility, e.VisibilityTimeout)
		if e.VisibilityTimeout == 0 {
			f.inFlight--
		}
	}
	f.mu.Unlock()
	return f.Client.ChangeMessageVisibilityBatch(ctx, in, optFns...)
}

// DeleteMessage deletes, unless FailDeleteAt says this one fails.
func (f *SQS) DeleteMessage(ctx context.Context, in *sqs.DeleteMessageInput, optFns ...func(*sqs.Options)) (*sqs.DeleteMessageOutput, error) {
	f.mu.Lock()
	fail := f.FailDeleteAt > 0 && len(f.sent) == f.FailDeleteAt
	f.mu.Unlock()
	if fail {
		return nil, errors.New("injected: DeleteMessage failed")
	}
	out, err := f.Client.DeleteMessage(ctx, in, optFns...)
	if err == nil {
		f.mu.Lock()
		f.inFlight--
		f.mu.Unlock()
	}
	return out, err
}
