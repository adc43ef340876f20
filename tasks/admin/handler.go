package admin

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/tasks/taskerr"
)

// Breaker is the part of *breaker.Breaker the handler calls.
type Breaker interface {
	Status(ctx context.Context, key string) (breaker.Row, error)
	Command(ctx context.Context, key string, c breaker.Command) (before, after breaker.Row, err error)
}

var _ Breaker = (*breaker.Breaker)(nil)

// Output is the admin function's result, the admin execution's output.
type Output struct {
	// Breaker is the breaker key.
	Breaker string `json:"breaker"`
	// Command is the command applied.
	Command string `json:"command"`
	// Changed is false for status and for a release of a breaker that was
	// not forced.
	Changed bool `json:"changed"`
	// Before and After summarise the row around the command; equal when
	// nothing changed.
	Before Summary `json:"before"`
	After  Summary `json:"after"`
}

// Launcher starts a breaker's releaser when none runs; *release.Launcher
// satisfies it.
type Launcher interface {
	Ensure(ctx context.Context, key string) (bool, error)
}

// Handler applies operators' commands to breakers.
type Handler struct {
	// Breaker reads and changes breaker rows.
	Breaker Breaker
	// Launcher, if set, starts the waiting room's releaser after a
	// command that lets messages through (reset, close, release).
	Launcher Launcher
	// Logger gets one line per command that may change a breaker.
	Logger *slog.Logger
	// Now is the clock "until" is checked against; the breaker's own.
	Now func() time.Time
}

// New returns a Handler on b that logs to logger and reads the wall clock.
func New(b Breaker, logger *slog.Logger) *Handler {
	return &Handler{Breaker: b, Logger: logger, Now: time.Now}
}

// Handle validates the request (an *InvalidCommand lists every problem),
// applies it, and returns the breaker's summary before and after. A
// command that keeps losing the conditional write is a
// *taskerr.BreakerContention; both are returned unwrapped so the state
// machine matches them by name.
func (h *Handler) Handle(ctx context.Context, in Input) (Output, error) {
	if h.Breaker == nil || h.Logger == nil || h.Now == nil {
		return Output{}, errors.New("admin: handler needs a Breaker, a Logger and a clock (use New)")
	}
	p, err := parse(in, h.Now())
	if err != nil {
		return Output{}, err
	}
	if p.change.Kind == 0 {
		row, err := h.Breaker.Status(ctx, p.key)
		if err != nil {
			return Output{}, fmt.Errorf("admin: status breaker %q: %w", p.key, err)
		}
		s := Summarize(row)
		return Output{Breaker: p.key, Command: p.command, Before: s, After: s}, nil
	}

	before, after, err := h.Breaker.Command(ctx, p.key, p.change)
	if c := taskerr.Contention(p.command, err); c != nil {
		return Output{}, c
	}
	if err != nil {
		return Output{}, fmt.Errorf("admin: %s breaker %q: %w", p.command, p.key, err)
	}
	changed := after.Version != before.Version
	h.log(ctx, p, changed, before, after)
	if h.Launcher != nil && (after.State == breaker.Closed || after.State == breaker.ForcedClosed) {
		if _, err := h.Launcher.Ensure(ctx, p.key); err != nil {
			// The command stands; the room's own timeout brings its messages back.
			h.Logger.WarnContext(ctx, "could not start the waiting room's releaser", "breaker", p.key, "error", err.Error())
		}
	}
	return Output{Breaker: p.key, Command: p.command, Changed: changed, Before: Summarize(before), After: Summarize(after)}, nil
}

// log writes the command's audit line.
func (h *Handler) log(ctx context.Context, p parsed, changed bool, before, after breaker.Row) {
	attrs := []any{"breaker", p.key, "command", p.command, "actor", p.change.Actor, "reason", p.change.Reason,
		"changed", changed, "from", before.State.String(), "to", after.State.String(), "generation", after.Generation}
	if !p.change.Until.IsZero() {
		attrs = append(attrs, "until", p.change.Until)
	}
	h.Logger.InfoContext(ctx, "breaker command", attrs...)
}
