package waitroom

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"

	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/clock"
	"github.com/redrive/redrive/lambda/retryable"
	"github.com/redrive/redrive/message"
	"github.com/redrive/redrive/room"
)

// Input is the WaitingRoom state's payload: the execution's document and
// the task token its execution waits on.
type Input struct {
	// Document is the execution document; its breaker key and lineage
	// name the entry.
	Document json.RawMessage `json:"document"`
	// TaskToken is $$.Task.Token.
	TaskToken string `json:"taskToken"`
}

// Breaker is the part of *breaker.Breaker the handler calls.
type Breaker interface {
	Status(ctx context.Context, key string) (breaker.Row, error)
}

// Launcher starts a releaser when none runs; *release.Launcher satisfies
// it.
type Launcher interface {
	Ensure(ctx context.Context, key string) (bool, error)
}

// Handler stores a turned-away message's task token in the room, then makes
// sure the room has a releaser if the breaker lets messages through (the
// Attempt saw it turn the message away, but it may have closed since).
// Every field is required.
type Handler struct {
	// Room holds the tokens.
	Room *room.Room
	// Breaker tells whether a releaser should run.
	Breaker Breaker
	// Launcher starts the releaser.
	Launcher Launcher
	// Logger gets one line per entry.
	Logger *slog.Logger
	// Clock stamps the entry.
	Clock clock.Clock
}

// Handle enters the message. Its result is ignored: the execution resumes
// when a releaser sends the token's success, or when the state times out.
func (h *Handler) Handle(ctx context.Context, in Input) (struct{}, error) {
	out, err := h.enter(ctx, in)
	return out, retryable.Name("waitroom", err, func(err error) bool { _, ok := err.(*InvalidEntry); return ok })
}

// enter is Handle before its errors are named.
func (h *Handler) enter(ctx context.Context, in Input) (struct{}, error) {
	doc, err := message.ParseDocument(in.Document)
	if err != nil {
		return struct{}{}, &InvalidEntry{Problem: err.Error()}
	}
	if in.TaskToken == "" {
		return struct{}{}, &InvalidEntry{Problem: "taskToken is empty"}
	}
	e := room.Entry{Key: doc.BreakerKey, MessageID: doc.RoomID(), Token: in.TaskToken, EnteredAt: h.Clock.Now(), Since: doc.LastTurn()}
	if doc.HeldBy != "" {
		// A routing rule holds it: it waits in the rule's room, which no
		// releaser releases; removing the rule does.
		e.Key = room.HoldKey(doc.HeldBy)
	}
	if err := h.Room.Enter(ctx, e); err != nil {
		return struct{}{}, fmt.Errorf("waitroom: %w", err)
	}
	if doc.HeldBy != "" {
		h.Logger.InfoContext(ctx, "held", "breaker", doc.BreakerKey, "originId", doc.OriginID, "attempt", doc.Attempt, "rule", doc.HeldBy)
		return struct{}{}, nil
	}
	row, err := h.Breaker.Status(ctx, doc.BreakerKey)
	if err != nil {
		return struct{}{}, fmt.Errorf("waitroom: entered, but: %w", err)
	}
	started := false
	switch row.State {
	case breaker.Closed, breaker.ForcedClosed, breaker.HalfOpen:
		if started, err = h.Launcher.Ensure(ctx, doc.BreakerKey); err != nil {
			return struct{}{}, fmt.Errorf("waitroom: entered, but: %w", err)
		}
	}
	h.Logger.InfoContext(ctx, "waiting", "breaker", doc.BreakerKey, "originId", doc.OriginID, "attempt", doc.Attempt,
		"breakerState", row.State.String(), "releaserStarted", started)
	return struct{}{}, nil
}

// InvalidEntry reports a payload the room cannot take: the state machine
// routes it back to the Attempt, which parks a malformed document.
type InvalidEntry struct {
	// Problem says what is wrong.
	Problem string
}

// Error implements error.
func (e *InvalidEntry) Error() string { return "waitroom: invalid entry: " + e.Problem }
