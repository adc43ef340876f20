package park

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/redrive/redrive/clock"
	"github.com/redrive/redrive/message"
	"github.com/redrive/redrive/rules"
)

// Input is the Park state's payload: the execution's document (with
// "failure" set when a Catch sent it) and the execution's ARN.
type Input struct {
	// Document is the execution document, kept raw so that a document
	// that does not decode is parked as it is rather than lost.
	Document json.RawMessage `json:"document"`
	// ExecutionARN is $$.Execution.Id.
	ExecutionARN string `json:"executionArn"`
}

// Parker is the parking lot the handler sends to; *Lot is one.
type Parker interface {
	Park(ctx context.Context, msg message.Message, rec Record) (Parked, error)
}

var _ Parker = (*Lot)(nil)

// Redeemer fetches a claim-checked body back; *claimcheck.Store is one.
type Redeemer interface {
	Redeem(ctx context.Context, doc message.Document) (message.Document, error)
}

// Handler is the Park task.
type Handler struct {
	// Lot sends to the parking lot.
	Lot Parker
	// Bodies, if set, gives a claim-checked message its body back, so the
	// lot holds the original; without it such a message is parked as its
	// document.
	Bodies Redeemer
	// Clock stamps the Record; default clock.Wall.
	Clock clock.Clock
	// Turns, if set, ends a parked FIFO message's turn in its group, so
	// the rest of the group goes on (as SQS's own dead-letter queue does);
	// without it (or when that fails) the next one takes the turn over
	// after room.StaleTurn.
	Turns Turns
	// Holds, if set (FIFO_ON_PARK=hold), holds a parked FIFO message's
	// group first: a hold rule on the group (rules.OnGroup) keeps the rest
	// of it waiting in the room, in its order, until a person removes the
	// rule. Nil: the group goes on.
	Holds Holder
}

// Holder adds the hold rule of a FIFO group; *rules.Store is one.
type Holder interface {
	Load(ctx context.Context) (rules.Book, error)
	Add(ctx context.Context, spec rules.Spec, actor, reason string, until, now time.Time) (rules.Rule, error)
}

// holdActor is the actor of the hold rules the Park task adds.
const holdActor = "redrive park task (FIFO_ON_PARK=hold)"

// Turns ends FIFO messages' turns in their groups, and holds a group
// behind a hold rule; waitroom.Turns is one.
type Turns interface {
	Advance(ctx context.Context, doc message.Document) error
	Hold(ctx context.Context, doc message.Document, ruleID string) error
}

// Handle parks the input's message: the document's message with its
// lineage, history and park reason, or, for a document that does not
// decode, the document's own JSON as the body with a reason saying so.
// Errors (SendMessage, ErrTooLarge) are returned, for the state machine to
// retry and finally fail as ParkFailed with the message in its input.
func (h *Handler) Handle(ctx context.Context, in Input) (Parked, error) {
	clk := h.Clock
	if clk == nil {
		clk = clock.Wall
	}
	in, lost := h.redeem(ctx, in)
	msg, rec := parcelOf(in, clk.Now())
	if lost != nil {
		// The body cannot be had back: the message is parked as its
		// document (with the body's reference), never dropped.
		rec.Reason = "body unavailable: " + lost.Error() + "; parked as its document, with the body's S3 reference"
	}
	p, err := h.Lot.Park(ctx, msg, rec)
	if err != nil {
		return Parked{}, fmt.Errorf("park task: %w", err)
	}
	p.TurnNotEnded = h.endTurn(ctx, in.Document, rec, clk.Now())
	return p, nil
}

// endTurn ends the turn of a parked FIFO message (raw, its document) in
// its group, holding the group first with FIFO_ON_PARK=hold, and returns
// why it could not; "" when it did, or for a standard queue's message.
// The turn not ended stays with the parked message: the group goes on
// after room.StaleTurn.
func (h *Handler) endTurn(ctx context.Context, raw json.RawMessage, rec Record, now time.Time) string {
	var doc message.Document
	if h.Turns == nil || json.Unmarshal(raw, &doc) != nil || doc.FIFO == nil {
		return ""
	}
	var err error
	if h.Holds != nil {
		var rule string
		if rule, err = h.hold(ctx, doc, rec, now); err == nil {
			err = h.Turns.Hold(ctx, doc, rule)
		}
	} else {
		err = h.Turns.Advance(ctx, doc)
	}
	if err != nil {
		return message.BoundReason(err.Error())
	}
	return ""
}

// hold adds the hold rule of doc's group, parked with rec at now, unless
// one is in force (a retried park's), and returns its id.
func (h *Handler) hold(ctx context.Context, doc message.Document, rec Record, now time.Time) (string, error) {
	group := doc.FIFO.GroupID
	book, err := h.Holds.Load(ctx)
	if err != nil {
		return "", fmt.Errorf("hold group %q: %w", group, err)
	}
	for _, r := range book.Rules {
		if r.On == rules.OnGroup && r.Equals == group && r.Action == rules.Hold && r.ActiveAt(now) {
			return r.ID, nil
		}
	}
	reason := message.Truncate(fmt.Sprintf("group %s held behind its parked message %s (%s); remove this rule to let the rest of the group go on, in its order",
		group, rec.OriginID, rec.Reason), rules.MaxText)
	r, err := h.Holds.Add(ctx, rules.Spec{On: rules.OnGroup, Equals: group, Action: rules.Hold}, holdActor, reason, time.Time{}, now)
	if err != nil {
		return "", fmt.Errorf("hold group %q: %w", group, err)
	}
	return r.ID, nil
}

// redeem puts a claim-checked body back into in's document; when it
// cannot, it returns in as it is and why.
func (h *Handler) redeem(ctx context.Context, in Input) (Input, error) {
	if h.Bodies == nil {
		return in, nil
	}
	var doc message.Document
	if json.Unmarshal(in.Document, &doc) != nil || doc.BodyRef == nil {
		return in, nil
	}
	full, err := h.Bodies.Redeem(ctx, doc)
	if err != nil {
		return in, err
	}
	body, err := json.Marshal(full)
	if err != nil {
		return in, fmt.Errorf("encode the document of %s: %w", doc.OriginID, err)
	}
	in.Document = body
	return in, nil
}

// parcelOf is the message and Record to park for in. A document that
// does not decode, or has no message body, is parked as its own JSON. An
// execution's document always has an origin id and attempt; one started by
// hand may not, so the Record falls back to the message id or the
// execution name, and attempt 1, keeping it a lineage the starter can read.
func parcelOf(in Input, now time.Time) (message.Message, Record) {
	var doc message.Document
	err := json.Unmarshal(in.Document, &doc)
	if err == nil && doc.Message.Body == "" {
		err = errors.New("no message body")
	}
	if err != nil {
		rec := Record{
			Lineage:      message.Lineage{OriginID: executionName(in.ExecutionARN), Attempt: 1},
			Reason:       fmt.Sprintf("invalid document: %v", err),
			ExecutionARN: in.ExecutionARN,
			ParkedAt:     now,
		}
		body := string(in.Document)
		if body == "" {
			body = "null"
		}
		return message.Message{ID: rec.OriginID, Body: body}, rec
	}
	rec := RecordOf(doc, in.ExecutionARN, now)
	if rec.OriginID == "" {
		rec.OriginID = doc.Message.ID
	}
	if rec.OriginID == "" {
		rec.OriginID = executionName(in.ExecutionARN)
	}
	rec.Attempt = max(rec.Attempt, 1)
	return doc.Message, rec
}

// executionName is the last part of an execution ARN
// (arn:aws:states:<region>:<account>:execution:<machine>:<name>).
func executionName(arn string) string {
	return arn[strings.LastIndexByte(arn, ':')+1:]
}
