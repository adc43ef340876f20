package starter

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	sfntypes "github.com/aws/aws-sdk-go-v2/service/sfn/types"

	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/lambda/telemetry"
	"github.com/redrive/redrive/message"
	"github.com/redrive/redrive/park"
	"github.com/redrive/redrive/room/waitroom"
	"github.com/redrive/redrive/rules"
)

// throttles tells a throttling error from others, by the codes the SDK's
// retryer treats as throttling (ThrottlingException among them).
var throttles = retry.IsErrorThrottles(retry.DefaultThrottles)

// process turns one DLQ record into an execution, or parks it; a non-nil
// error leaves the record in the DLQ for a later batch.
//
//   - A malformed lineage attribute or envelope, or a document that does
//     not validate (a lineage whose history is out of range, a record
//     without a message id): parked as poison.
//   - A body too large for a document goes to the claim-check store
//     (Bodies), the document carrying its reference; a document still
//     over MaxInputBytes (no store, or its attributes): parked as
//     oversize.
//   - Started: done. With the sqs target, a message back with lineage
//     carries its consumer's failure in its history, and once started the
//     failure is recorded on its breaker (see recordReturn).
//   - ExecutionAlreadyExists: a duplicate delivery of the DLQ message
//     (the execution name is the origin id and attempt); done, counted as
//     a Duplicate. A duplicate that arrives while the first execution is
//     still running with a byte-identical input gets Step Functions'
//     idempotent success instead and looks like a start; receivedAt and
//     ApproximateReceiveCount make that input differ in practice.
//   - InvalidExecutionInput: Step Functions will never take it; parked.
//   - Throttling (counted as StartThrottled) and any other error, and a
//     park that failed: retried.
//
// A record that would only wait (wait), and every FIFO message, is not
// started: its document goes straight to its breaker's room (entered
// reports that it did), a FIFO message in line behind its group, and
// Handle makes sure the breaker's controller runs.
func (h *Handler) process(ctx context.Context, p prepared, wait bool) (entered bool, err error) {
	msg, doc, now := p.msg, p.doc, p.now
	if p.err != nil {
		return false, h.parkMalformed(ctx, msg, p.err, now)
	}
	returned := doc.Attempt > 1 && !doc.Replayed() && h.Config.RecordsReturns()
	if returned {
		doc.AddFailure(returnFailure(now, doc.Attempt-1))
	}
	if err := doc.Validate(); err != nil {
		doc.ParkReason = message.BoundReason("poison: " + strings.ReplaceAll(err.Error(), "\n", "; "))
		return false, h.park(ctx, doc.Message, park.RecordOf(doc, "", now))
	}
	if rule := h.quarantine(ctx, doc); rule != nil {
		doc.ParkReason = message.BoundReason("quarantined: " + rule.Describe())
		h.Metrics.Count(doc.BreakerKey, telemetry.Quarantined, 1)
		return false, h.park(ctx, doc.Message, park.RecordOf(doc, "", now))
	}

	if h.Bodies != nil {
		if _, err := h.Bodies.Check(ctx, &doc); err != nil {
			h.Logger.ErrorContext(ctx, "could not keep the body in the claim-check bucket; the message stays in the DLQ",
				slog.String("messageId", msg.ID), slog.Any("error", err))
			return false, fmt.Errorf("starter: %w", err)
		}
	}
	doc.Execution = &message.Execution{StartTime: now}
	input, err := doc.Input()
	if err != nil {
		return false, fmt.Errorf("starter: encode document of %q: %w", msg.ID, err)
	}
	if len(input) > MaxInputBytes {
		doc.ParkReason = message.BoundReason(fmt.Sprintf("oversize: %d bytes exceeds the %d-byte limit on an execution input (Step Functions' %d less %d of headroom)",
			len(input), MaxInputBytes, StepFunctionsPayloadLimit, InputHeadroom))
		return false, h.park(ctx, doc.Message, park.RecordOf(doc, "", now))
	}

	name := doc.ExecutionName()
	log := h.Logger.With(slog.String("messageId", msg.ID), slog.String("originId", doc.OriginID),
		slog.Int("attempt", doc.Attempt), slog.String("breaker", doc.BreakerKey), slog.String("execution", name))
	if wait {
		return true, h.enter(ctx, doc, now, returned, log)
	}
	out, err := h.SFN.StartExecution(ctx, &sfn.StartExecutionInput{
		StateMachineArn: aws.String(h.Config.StateMachineARN),
		Name:            aws.String(name),
		Input:           aws.String(string(input)),
	})
	if _, ok := errors.AsType[*sfntypes.ExecutionAlreadyExists](err); ok {
		h.Metrics.Count(doc.BreakerKey, telemetry.Duplicates, 1)
		log.InfoContext(ctx, "duplicate DLQ delivery: execution already exists")
		return false, nil
	}
	if invalid, ok := errors.AsType[*sfntypes.InvalidExecutionInput](err); ok {
		doc.ParkReason = message.BoundReason("poison: Step Functions refused the execution input: " + invalid.ErrorMessage())
		return false, h.park(ctx, doc.Message, park.RecordOf(doc, "", now))
	}
	if err != nil {
		if throttles.IsErrorThrottle(err) == aws.TrueTernary {
			h.Metrics.Count(doc.BreakerKey, telemetry.StartThrottled, 1)
		}
		log.ErrorContext(ctx, "start execution failed; the message stays in the DLQ", slog.Any("error", err))
		return false, fmt.Errorf("starter: start %s: %w", name, err)
	}
	log.InfoContext(ctx, "execution started", slog.String("executionArn", aws.ToString(out.ExecutionArn)))
	if returned {
		h.recordReturn(ctx, doc.BreakerKey, log)
	}
	return false, nil
}

// enter puts doc in its breaker's room instead of starting it: it would
// only wait, or it is a FIFO message, which goes in line behind its
// group (a second delivery of one is a Duplicate). An error keeps the
// record in the DLQ.
func (h *Handler) enter(ctx context.Context, doc message.Document, now time.Time, returned bool, log *slog.Logger) error {
	if h.Room == nil {
		return fmt.Errorf("starter: %s would wait, and there is no room", doc.RoomID())
	}
	waitroom.KeepBody(ctx, h.RoomBodies, &doc, log)
	e, err := waitroom.Entry(doc, now)
	fresh := true
	if err == nil && e.Place != nil {
		fresh, err = h.Room.EnterInLine(ctx, e)
	} else if err == nil {
		err = h.Room.Enter(ctx, e)
	}
	if err == nil && !fresh {
		h.Metrics.Count(doc.BreakerKey, telemetry.Duplicates, 1)
		log.InfoContext(ctx, "duplicate DLQ delivery: already in line in its group", slog.String("group", doc.FIFO.GroupID))
		return nil
	}
	h.Metrics.Count(doc.BreakerKey, telemetry.Queued, 1)
	if err != nil {
		log.ErrorContext(ctx, "could not enter the waiting room; the message stays in the DLQ", slog.Any("error", err))
		return fmt.Errorf("starter: enter %s in the room: %w", doc.RoomID(), err)
	}
	log.InfoContext(ctx, "waiting in the room")
	if returned {
		h.recordReturn(ctx, doc.BreakerKey, log)
	}
	return nil
}

// quarantine returns the routing rule that quarantines doc, if any. Rules
// that cannot be read are logged and skipped here: the Attempt reads them
// again before it delivers.
func (h *Handler) quarantine(ctx context.Context, doc message.Document) *rules.Rule {
	if h.Rules == nil {
		return nil
	}
	set, err := h.Rules.Rules(ctx)
	if err != nil {
		h.Logger.WarnContext(ctx, "could not read the routing rules; the Attempt applies them", slog.String("messageId", doc.Message.ID), slog.Any("error", err))
		return nil
	}
	return set.Match(h.now(), doc.BreakerKey, doc.Message).Quarantine
}

// prepared is a DLQ record read into its execution document, or the error
// that makes it unreadable.
type prepared struct {
	msg message.Message
	doc message.Document
	err error
	now time.Time
}

// prepare reads record: its document and breaker key.
func (h *Handler) prepare(ctx context.Context, record events.SQSMessage) prepared {
	p := prepared{msg: message.FromEvent(record), now: h.now()}
	p.doc, p.err = message.NewDocument(p.msg, p.now)
	if p.err == nil {
		p.doc.BreakerKey = h.key(ctx, p.doc.Message)
	}
	return p
}

// waits marks the records of a batch that go to the room: every FIFO
// message (its group's order is kept there), and the others that would
// only wait, per breaker key: all of them while their breaker is not
// CLOSED (or FORCED_CLOSED), else the ones beyond what the Gate admits.
// Without a Room only the FIFO messages wait (and fail: see enter); a
// breaker or Gate that fails lets them go (the Attempt still asks the
// breaker), with a warning.
func (h *Handler) waits(ctx context.Context, batch []prepared) []bool {
	waits := make([]bool, len(batch))
	for i, p := range batch {
		waits[i] = p.err == nil && p.doc.FIFO != nil
	}
	if h.Room == nil {
		return waits
	}
	keys, byKey := byBreaker(batch, func(i int) bool { return batch[i].err == nil && !waits[i] })
	for _, key := range keys {
		idx := byKey[key]
		allowed := 0
		if h.letsThrough(ctx, key) {
			if allowed = h.admit(ctx, key, len(idx)); allowed < len(idx) {
				h.Metrics.Count(key, telemetry.Paced, int64(len(idx)-allowed))
			}
		}
		for _, i := range idx[allowed:] {
			waits[i] = true
		}
	}
	return waits
}

// letsThrough reports whether key's breaker lets messages through (CLOSED
// or FORCED_CLOSED), by a row at most about a second old; a row that
// cannot be read lets them through.
func (h *Handler) letsThrough(ctx context.Context, key string) bool {
	if h.States == nil {
		return true
	}
	row, err := h.States.Row(ctx, key)
	if err != nil {
		h.Logger.WarnContext(ctx, "could not read the breaker; its messages go to the Attempt", slog.String("breaker", key), slog.Any("error", err))
		return true
	}
	row = row.At(h.now()) // a forced mode whose end passed is CLOSED
	return row.State == breaker.Closed || row.State == breaker.ForcedClosed
}

// admit is how many of n fresh arrivals of key the Gate lets go at once;
// all of them without a Gate or when it fails. A room the Gate finds
// stalled (messages in it, no controller) gets its controller started.
func (h *Handler) admit(ctx context.Context, key string, n int) int {
	if h.Gate == nil {
		return n
	}
	a, err := h.Gate.Admit(ctx, key, n, h.Config.Pace, h.now())
	if err != nil {
		h.Logger.WarnContext(ctx, "could not pace the batch; its messages go to the breaker", slog.String("breaker", key), slog.Any("error", err))
		return n
	}
	if a.Stalled {
		if _, err := h.Launcher.Ensure(ctx, key); err != nil {
			h.Metrics.Count(key, telemetry.ReleaserNotStarted, 1)
			h.Logger.WarnContext(ctx, "the room holds messages no controller releases, and one could not be started", slog.String("breaker", key), slog.Any("error", err))
		}
	}
	return a.Allowed
}

// ensureControllers makes sure the controller of every key whose room
// records entered runs; when it cannot be started, those records are
// failed too, so the DLQ delivers them again (their entries are replaced,
// and the next try starts the controller).
func (h *Handler) ensureControllers(ctx context.Context, batch []prepared, entered, failed []bool) {
	keys, byKey := byBreaker(batch, func(i int) bool { return entered[i] && !failed[i] })
	for _, key := range keys {
		if _, err := h.Launcher.Ensure(ctx, key); err != nil {
			h.Metrics.Count(key, telemetry.ReleaserNotStarted, 1)
			h.Logger.ErrorContext(ctx, "could not start the breaker's controller; its messages stay in the DLQ", slog.String("breaker", key), slog.Any("error", err))
			for _, i := range byKey[key] {
				failed[i] = true
			}
		}
	}
}

// byBreaker groups the records of batch that keep says to keep by their
// breaker key: the keys in the order they first appear, and each key's
// record indexes.
func byBreaker(batch []prepared, keep func(i int) bool) ([]string, map[string][]int) {
	byKey := map[string][]int{}
	var keys []string
	for i := range batch {
		if !keep(i) {
			continue
		}
		key := batch[i].doc.BreakerKey
		if _, seen := byKey[key]; !seen {
			keys = append(keys, key)
		}
		byKey[key] = append(byKey[key], i)
	}
	return keys, byKey
}

// key is the message's breaker key, or the fallback key (logged) when the
// configured attribute or pointer does not give one.
func (h *Handler) key(ctx context.Context, msg message.Message) string {
	key, err := h.Config.Keys.Select(msg)
	if err != nil {
		key = h.Config.Keys.Fallback()
		h.Logger.WarnContext(ctx, "no breaker key in the message; using the fallback key",
			slog.String("messageId", msg.ID), slog.String("breaker", key), slog.Any("error", err))
	}
	return key
}

// parkMalformed parks a message whose lineage attribute or envelope does
// not decode, as it arrived, with a new lineage (its own id as origin,
// attempt 1) and the undecodable attribute kept in the Record.
func (h *Handler) parkMalformed(ctx context.Context, msg message.Message, cause error, now time.Time) error {
	rec := park.Record{
		Lineage:          message.Lineage{OriginID: msg.ID, Attempt: 1},
		BreakerKey:       h.key(ctx, msg),
		MessageGroupID:   msg.Attributes[message.AttrMessageGroupID],
		Reason:           "poison: " + cause.Error(),
		MalformedLineage: attributeText(msg.MessageAttributes[message.AttributeName]),
		ParkedAt:         now,
	}
	return h.park(ctx, msg, rec)
}

// attributeText is an attribute's value as text: its string, or its bytes
// in base64.
func attributeText(a message.Attribute) string {
	if a.IsString() {
		return a.StringValue
	}
	if len(a.BinaryValue) == 0 {
		return ""
	}
	return base64.StdEncoding.EncodeToString(a.BinaryValue)
}

// park sends msg to the parking lot; an error keeps the record in the DLQ.
func (h *Handler) park(ctx context.Context, msg message.Message, rec park.Record) error {
	if _, err := h.Lot.Park(ctx, msg, rec); err != nil {
		h.Logger.ErrorContext(ctx, "park failed; the message stays in the DLQ",
			slog.String("messageId", msg.ID), slog.String("reason", rec.Reason), slog.Any("error", err))
		return fmt.Errorf("starter: %w", err)
	}
	return nil
}
