package waitroom

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	"github.com/redrive/redrive/clock"
	"github.com/redrive/redrive/lambda/retryable"
	"github.com/redrive/redrive/message"
	"github.com/redrive/redrive/room"
)

// Launcher starts a breaker's controller when none runs;
// *release.Launcher satisfies it.
type Launcher interface {
	Ensure(ctx context.Context, key string) (bool, error)
}

// Handler stores a waiting message's document in its breaker's room, then
// makes sure the breaker's controller runs. Every field but Bodies is
// required.
type Handler struct {
	// Room holds the documents.
	Room *room.Room
	// Launcher starts the controller.
	Launcher Launcher
	// Logger gets one line per entry.
	Logger *slog.Logger
	// Clock stamps the entry.
	Clock clock.Clock
	// Bodies, if set, keeps in S3 the body of a document that would wait
	// with one over claimcheck.RoomThreshold (a claimcheck.Store
	// ForRoom): each pass through the room writes the document's item
	// three times. Nil leaves every body in its document.
	Bodies Checker
}

// Checker moves a body too large for a waiting document to the claim-check
// store; *claimcheck.Store is one.
type Checker interface {
	Check(ctx context.Context, doc *message.Document) (bool, error)
}

// KeepBody has bodies (nil: none) keep doc's body when it is too large for
// a document that waits in the room. When that fails, doc waits with its
// body, which fits the item all the same, and log says so.
func KeepBody(ctx context.Context, bodies Checker, doc *message.Document, log *slog.Logger) {
	if bodies == nil {
		return
	}
	if _, err := bodies.Check(ctx, doc); err != nil {
		log.WarnContext(ctx, "could not keep the waiting message's body in the claim-check bucket; it waits in its document",
			"error", err.Error())
	}
}

// Output is the Queue state's result: where the document waits.
type Output struct {
	// BreakerKey is the room's key.
	BreakerKey string `json:"breakerKey"`
	// NotBefore is when the message may go; zero means at the pace.
	NotBefore time.Time `json:"notBefore,omitzero"`
	// ControllerStarted says this entry started the breaker's controller
	// (false: one ran already).
	ControllerStarted bool `json:"controllerStarted"`
}

// Handle enters the document (the attempt state machine's state, as the
// Attempt routed it), as the input of the message's next execution.
func (h *Handler) Handle(ctx context.Context, event json.RawMessage) (Output, error) {
	out, err := h.enter(ctx, event)
	return out, retryable.Name("waitroom", err, func(err error) bool {
		switch err.(type) {
		case *InvalidEntry, *ControllerNotStarted, *TooManyFailedRuns:
			return true
		}
		return false
	})
}

// enter is Handle before its errors are named.
func (h *Handler) enter(ctx context.Context, event json.RawMessage) (Output, error) {
	doc, err := message.ParseDocument(event)
	if err != nil {
		return Output{}, &InvalidEntry{Problem: err.Error()}
	}
	if doc.Failure != nil {
		// Lambda could not run this execution's Attempt: the next run
		// tries again, a few times.
		if doc.FailedRuns++; doc.FailedRuns >= MaxFailedRuns {
			return Output{}, &TooManyFailedRuns{Runs: doc.FailedRuns, Last: *doc.Failure}
		}
	}
	KeepBody(ctx, h.Bodies, &doc, h.Logger.With("breaker", doc.BreakerKey, "originId", doc.OriginID))
	e, err := Entry(doc, h.Clock.Now())
	if err != nil {
		return Output{}, err
	}
	if err := h.Room.Enter(ctx, e); err != nil {
		return Output{}, fmt.Errorf("waitroom: %w", err)
	}
	out := Output{BreakerKey: e.Key, NotBefore: e.NotBefore}
	if out.ControllerStarted, err = h.Launcher.Ensure(ctx, e.Key); err != nil {
		return out, &ControllerNotStarted{Breaker: e.Key, Cause: err.Error()}
	}
	h.Logger.InfoContext(ctx, "waiting", "breaker", doc.BreakerKey, "originId", doc.OriginID, "attempt", doc.Attempt,
		"notBefore", e.NotBefore, "heldBy", doc.HeldBy, "controllerStarted", out.ControllerStarted)
	return out, nil
}

// Entry is doc's room entry at now: the input of its next execution (the
// next run, its cycles counted afresh, its routing and execution
// cleared), in line by when it last had its turn, to go no sooner than
// doc.NotBefore; a FIFO message's entry has its place in its group.
func Entry(doc message.Document, now time.Time) (room.Entry, error) {
	notBefore := doc.NotBefore
	place, err := placeOf(doc)
	if err != nil {
		return room.Entry{}, &InvalidEntry{Problem: err.Error()}
	}
	doc.Runs++
	doc.Cycles, doc.Next, doc.WaitSeconds, doc.NotBefore, doc.Execution, doc.Failure = 0, "", 0, time.Time{}, nil, nil
	input, err := doc.Input()
	if err != nil {
		return room.Entry{}, &InvalidEntry{Problem: "encode the document: " + err.Error()}
	}
	return room.Entry{Key: doc.BreakerKey, MessageID: doc.RoomID(), Document: input, EnteredAt: now,
		Since: doc.LastTurn(), NotBefore: notBefore, Place: place}, nil
}

// placeOf is a FIFO message's place in its group, nil for a standard
// queue's message.
func placeOf(doc message.Document) (*room.Place, error) {
	f := doc.FIFO
	if f == nil {
		return nil, nil
	}
	seq, err := room.PadSequence(f.SequenceNumber)
	if err != nil {
		return nil, err
	}
	return &room.Place{Group: f.GroupID, Sequence: seq, Prev: f.Prev}, nil
}

// Turns ends the turns of FIFO messages in their groups; the Attempt
// (delivered) and the Park task (parked) call it.
type Turns struct {
	// Room keeps the groups' turns.
	Room *room.Room
}

// Advance ends doc's turn in its group once it is delivered or parked, so
// the next message of the group may go; a standard queue's message has
// none, and nothing is written.
func (t Turns) Advance(ctx context.Context, doc message.Document) error {
	return t.Hold(ctx, doc, "")
}

// Hold ends doc's turn in its group, parked, and holds the group behind
// the hold rule ruleID ("": Advance) until the rule is lifted.
func (t Turns) Hold(ctx context.Context, doc message.Document, ruleID string) error {
	place, err := placeOf(doc)
	if err != nil || place == nil {
		return err
	}
	if ruleID == "" {
		return t.Room.Advance(ctx, doc.BreakerKey, doc.RoomID(), *place)
	}
	return t.Room.Hold(ctx, doc.BreakerKey, doc.RoomID(), *place, ruleID)
}

// MaxFailedRuns is how many executions of one round trip may fail to run
// their Attempt before the message is parked.
const MaxFailedRuns = 5

// TooManyFailedRuns reports a message whose Attempt Lambda could not run
// MaxFailedRuns times: the state machine parks it, with the last failure.
type TooManyFailedRuns struct {
	// Runs counts the failed runs.
	Runs int
	// Last is the last one's failure.
	Last message.TaskFailure
}

// Error implements error.
func (e *TooManyFailedRuns) Error() string {
	return fmt.Sprintf("waitroom: the Attempt could not run in %d executions; the last: %s: %s", e.Runs, e.Last.Error, e.Last.Cause)
}

// InvalidEntry reports a payload the room cannot take: the state machine
// parks it.
type InvalidEntry struct {
	// Problem says what is wrong.
	Problem string
}

// Error implements error.
func (e *InvalidEntry) Error() string { return "waitroom: invalid entry: " + e.Problem }

// ControllerNotStarted reports a document that is in the room while its
// breaker's controller could not be started: the state machine tries
// again, then ends the execution all the same (the message is safe in the
// room; the minute's sweep, the next entry or an operator's release starts
// the controller).
type ControllerNotStarted struct {
	// Breaker is the breaker key.
	Breaker string
	// Cause is the failure.
	Cause string
}

// Error implements error.
func (e *ControllerNotStarted) Error() string {
	return fmt.Sprintf("waitroom: the document is in breaker %q's room, but its controller could not be started: %s", e.Breaker, e.Cause)
}
