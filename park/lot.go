package park

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/redrive/redrive/clock"
	"github.com/redrive/redrive/lambda/telemetry"
	"github.com/redrive/redrive/message"
	"github.com/redrive/redrive/park/lotindex"
)

// SendMessageAPI is the one SQS call the parking lot makes, with the SDK's
// signature so *sqs.Client satisfies it.
type SendMessageAPI interface {
	SendMessage(ctx context.Context, params *sqs.SendMessageInput, optFns ...func(*sqs.Options)) (*sqs.SendMessageOutput, error)
}

var _ SendMessageAPI = (*sqs.Client)(nil)

// Counter adds to a metric of a breaker; *telemetry.Metrics is one.
type Counter interface {
	Count(key string, name telemetry.Name, n int64)
}

var _ Counter = (*telemetry.Metrics)(nil)

// Indexer records a parked message in the parking lot's index;
// *lotindex.Index is one.
type Indexer interface {
	Put(ctx context.Context, e lotindex.Entry) error
}

var _ Indexer = (*lotindex.Index)(nil)

// indexTimeout bounds recording a parked message in the index, on the
// Lot's clock, so that a slow table cannot make the park's invocation time
// out: its retry would park the message again.
const indexTimeout = 3 * time.Second

// Lot sends messages to the parking-lot queue. It is safe for concurrent
// use.
type Lot struct {
	// SQS sends the message.
	SQS SendMessageAPI
	// Config says where and how large.
	Config LotConfig
	// Index, if set, records each parked message in the parking lot's
	// index; nil indexes nothing.
	Index Indexer
	// Metrics counts each parked message; Logger logs it.
	Metrics Counter
	Logger  *slog.Logger
	// Clock bounds the index write (indexTimeout); nil is the wall clock.
	Clock clock.Clock
}

// Parked is what Lot.Park did; it is also the Park task's output.
type Parked struct {
	// QueueURL is the parking lot the message was sent to.
	QueueURL string `json:"queueUrl"`
	// MessageID is the parked message's new SQS message id.
	MessageID string `json:"messageId"`
	// Enveloped reports that the message was wrapped in an envelope because
	// all its attributes were taken.
	Enveloped bool `json:"enveloped"`
	// Reason says why it was parked.
	Reason string `json:"reason"`
	// Truncated reports that the Record was shortened to fit.
	Truncated bool `json:"truncated,omitempty"`
	// RecordInLogOnly reports that the message was at the size limit
	// already: it was parked exactly as it arrived, and its Record is only
	// in the "message parked" log line.
	RecordInLogOnly bool `json:"recordInLogOnly,omitempty"`
	// TurnNotEnded, for a FIFO message, says why its turn in its group
	// could not be ended: the group's next message takes it over after
	// room.StaleTurn.
	TurnNotEnded string `json:"turnNotEnded,omitempty"`
}

// Park sends msg (the original message, unwrapped, without a lineage
// attribute of its own) to the parking lot with rec in its "redrive"
// attribute, or in an envelope when msg already uses all 10 attributes.
// A FIFO parking lot keeps the message in its group (its breaker key's
// when it has none) with a deduplication id of its Key, so a park retried
// within SQS's five-minute deduplication interval is not a second copy.
//
// When the Record would push the message over the parking lot's size
// limit, the Record is shrunk until it fits, least useful part first: the
// task failure's cause and the malformed lineage copy are cut to 1 KiB,
// then history failures are dropped oldest first, then the cause and the
// copy go; the Record is marked truncated. A message at the size limit
// already (SQS allows 1 MiB, so the starter parks such a message as
// oversize) has no room for any Record: it is parked exactly as it
// arrived, and the whole Record is written to the log line instead
// (RecordInLogOnly). A message over the limit as it is fails with
// ErrTooLarge; that and any SendMessage error are returned, and the caller
// keeps the message (the starter leaves it in the DLQ, the state machine
// retries Park).
//
// Once the message is in the lot, it is recorded in the index (see
// lotindex), from the whole Record, under the message's Key. A failure to
// do so does not fail the park, which is done: it is logged and counted
// as ParkIndexFailed.
//
// Park sends whatever the index holds: a park retried after its send went
// through (its invocation failed after it) puts a second copy of the
// message in the lot. The copies have one Key, so the index lists the
// message once, and a replay moves one copy and deletes the others unsent
// (lotindex.Index.Take), at whatever step the first try failed.
func (l *Lot) Park(ctx context.Context, msg message.Message, whole Record) (Parked, error) {
	out, enveloped, rec, inLog, err := fit(msg, whole, l.Config.MaxMessageSize)
	if err != nil {
		return Parked{}, err
	}
	in := &sqs.SendMessageInput{
		QueueUrl:          aws.String(l.Config.QueueURL),
		MessageBody:       aws.String(out.Body),
		MessageAttributes: out.SQSAttributes(),
	}
	if message.IsFIFOQueue(l.Config.QueueURL) {
		in.MessageGroupId, in.MessageDeduplicationId = aws.String(cmp.Or(rec.MessageGroupID, rec.BreakerKey)), aws.String(message.DeduplicationID(rec.OriginID, strconv.Itoa(rec.Attempt), rec.MessageTag))
	}
	sent, err := l.SQS.SendMessage(ctx, in)
	if err != nil {
		return Parked{}, fmt.Errorf("park message %q (origin %q) in %s: %w", msg.ID, rec.OriginID, l.Config.QueueURL, err)
	}
	p := Parked{
		QueueURL:        l.Config.QueueURL,
		MessageID:       aws.ToString(sent.MessageId),
		Enveloped:       enveloped,
		Reason:          rec.Reason,
		Truncated:       rec.Truncated,
		RecordInLogOnly: inLog,
	}
	l.Metrics.Count(rec.BreakerKey, telemetry.Parked, 1)
	attrs := []slog.Attr{
		slog.String("originId", rec.OriginID),
		slog.Int("attempt", rec.Attempt),
		slog.String("breaker", rec.BreakerKey),
		slog.String("reason", rec.Reason),
		slog.String("parkedMessageId", p.MessageID),
		slog.Bool("enveloped", enveloped),
		slog.Bool("truncated", rec.Truncated),
		slog.String("executionArn", rec.ExecutionARN),
	}
	if inLog {
		attrs = append(attrs, slog.Any("record", rec))
	}
	l.Logger.LogAttrs(ctx, slog.LevelWarn, "message parked", attrs...)
	l.index(ctx, entryOf(msg, whole, p.MessageID, l.Config.retention()))
	return p, nil
}

// index records e in the index, if the Lot has one; a failure is logged
// and counted, never returned.
func (l *Lot) index(ctx context.Context, e lotindex.Entry) {
	if l.Index == nil {
		return
	}
	clk := l.Clock
	if clk == nil {
		clk = clock.Wall
	}
	ctx, cancel := clk.WithDeadline(ctx, clk.Now().Add(indexTimeout))
	defer cancel()
	if err := l.Index.Put(ctx, e); err != nil {
		l.Metrics.Count(e.Breaker, telemetry.ParkIndexFailed, 1)
		l.Logger.LogAttrs(ctx, slog.LevelError, "parked message not indexed: it is in the parking lot, but `redrive parked` will not show it",
			slog.String("originId", e.OriginID), slog.String("breaker", e.Breaker),
			slog.String("parkedMessageId", e.MessageID), slog.Any("error", err))
	}
}

// entryOf is the index entry of msg, parked with rec as messageID in a lot
// that keeps it for retention.
func entryOf(msg message.Message, rec Record, messageID string, retention time.Duration) lotindex.Entry {
	return lotindex.Entry{
		Breaker:   rec.BreakerKey,
		Reason:    lotindex.ReasonClass(rec.Reason),
		ErrorType: rec.ErrorType(),
		Group:     rec.MessageGroupID,
		OriginID:  rec.OriginID,
		Attempt:   rec.Attempt,
		Tag:       rec.MessageTag,
		ParkedAt:  rec.ParkedAt,
		MessageID: messageID,
		Size:      len(msg.Body),
		Expires:   rec.ParkedAt.Add(retention),
	}
}
