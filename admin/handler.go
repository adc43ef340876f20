package admin

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/clock"
	"github.com/redrive/redrive/dynamo"
	"github.com/redrive/redrive/lambda/retryable"
	"github.com/redrive/redrive/park/replay"
	"github.com/redrive/redrive/rules"
)

// Breaker is the part of *breaker.Breaker the handler calls.
type Breaker interface {
	Status(ctx context.Context, key string) (breaker.Row, error)
	Command(ctx context.Context, key string, c breaker.Command) (before, after breaker.Row, err error)
}

var _ Breaker = (*breaker.Breaker)(nil)

// Repairer reads and overwrites a breaker row that does not decode (a
// corrupt item, or one a newer version wrote); *dynamo.Store
// satisfies it.
type Repairer interface {
	Raw(ctx context.Context, key string) (map[string]any, error)
	Replace(ctx context.Context, row breaker.Row) (breaker.Row, error)
}

var _ Repairer = (*dynamo.Store)(nil)

// Output is the admin function's result, the admin execution's output.
type Output struct {
	// Breaker is the breaker key; empty for rule commands.
	Breaker string `json:"breaker,omitempty"`
	// Command is the command applied.
	Command string `json:"command"`
	// Changed is false for status and for a release of a breaker that was
	// not forced.
	Changed bool `json:"changed"`
	// Before and After summarise the row around a breaker command; equal
	// when nothing changed.
	Before *Summary `json:"before,omitempty"`
	After  *Summary `json:"after,omitempty"`
	// Unreadable says why the stored row did not decode, and Raw is the
	// item as stored (DynamoDB JSON), so a person can see it; reset
	// replaces such a row.
	Unreadable string         `json:"unreadable,omitempty"`
	Raw        map[string]any `json:"raw,omitempty"`

	// Rule is the rule a rule-add added or a rule-remove removed.
	Rule *rules.Rule `json:"rule,omitempty"`
	// InForce counts the rules in force after a rule command.
	InForce *int `json:"inForce,omitempty"`
	// Rules and Audit are a page of rule-list: rules in force, then the
	// trail of the last changes, oldest first; Next, when more remain, is
	// the next request's "next" (see MaxPageBytes).
	Rules []rules.Rule   `json:"rules,omitempty"`
	Audit []rules.Change `json:"audit,omitempty"`
	Next  string         `json:"next,omitempty"`
	// Replay is what a replay command did.
	Replay *ReplayOutput `json:"replay,omitempty"`
	// Notes say what the operator may not expect, such as a rule on a
	// breaker key that has no breaker yet.
	Notes []string `json:"notes,omitempty"`
}

// Launcher starts a breaker's controller when none runs;
// *release.Launcher satisfies it.
type Launcher interface {
	Restart(ctx context.Context, key string) error
}

// Handler applies operators' commands to breakers.
type Handler struct {
	// Breaker reads and changes breaker rows.
	Breaker Breaker
	// Launcher, if set, starts the breaker's controller after a command
	// that lets messages through (reset, close, release), so its room is
	// released.
	Launcher Launcher
	// Repair, if set, shows (status) and replaces (reset) a row that does
	// not decode; without it such a row fails the command.
	Repair Repairer
	// Logger gets one line per command that may change a breaker.
	Logger *slog.Logger
	// Clock is the clock "until" is checked against; the breaker's own.
	Clock clock.Clock
	// Rules, if set, keeps the routing rules; without it the rule
	// commands fail.
	Rules RuleStore
	// Replayer, if set, runs the replay command; without it the command
	// fails.
	Replayer *replay.Replayer
}

// New returns a Handler on b that logs to logger and reads the wall clock.
func New(b Breaker, logger *slog.Logger) *Handler {
	return &Handler{Breaker: b, Logger: logger, Clock: clock.Wall}
}

// Handle validates the request (an *InvalidCommand lists every problem),
// applies it, and returns the breaker's summary before and after. A status
// of a key no breaker has is an *UnknownBreaker. A command that keeps
// losing the conditional write is a *retryable.BreakerContention, any
// other failure a *retryable.Unexpected; all are returned unwrapped so the
// state machine sees their names.
func (h *Handler) Handle(ctx context.Context, in Input) (Output, error) {
	out, err := h.handle(ctx, in)
	return out, retryable.Name("admin", err, func(err error) bool {
		switch err.(type) {
		case *InvalidCommand, *UnknownBreaker, *retryable.BreakerContention:
			return true
		}
		return false
	})
}

// handle is Handle before its errors are named.
func (h *Handler) handle(ctx context.Context, in Input) (Output, error) {
	if h.Breaker == nil || h.Logger == nil || h.Clock == nil {
		return Output{}, errors.New("admin: handler needs a Breaker, a Logger and a clock (use New)")
	}
	if isRuleCommand(in.Request.Command) {
		return h.handleRule(ctx, in)
	}
	if in.Request.Command == CommandReplay {
		return h.handleReplay(ctx, in)
	}
	p, err := parse(in, h.Clock.Now())
	if err != nil {
		return Output{}, err
	}
	if p.change.Kind == 0 {
		row, err := h.Breaker.Status(ctx, p.key)
		if h.unreadable(err) {
			return h.showUnreadable(ctx, p, err)
		}
		if err != nil {
			return Output{}, fmt.Errorf("admin: status breaker %q: %w", p.key, err)
		}
		if row.Version == 0 {
			return Output{}, &UnknownBreaker{Breaker: p.key}
		}
		s := Summarize(row)
		return Output{Breaker: p.key, Command: p.command, Before: &s, After: &s}, nil
	}

	before, after, err := h.Breaker.Command(ctx, p.key, p.change)
	if h.unreadable(err) && p.change.Kind == breaker.Reset {
		return h.replaceUnreadable(ctx, p, err)
	}
	if c := retryable.Contention(p.command, err); c != nil {
		return Output{}, c
	}
	if err != nil {
		return Output{}, fmt.Errorf("admin: %s breaker %q: %w", p.command, p.key, err)
	}
	changed := after.Version != before.Version
	h.log(ctx, p, changed, before, after)
	out := Output{Breaker: p.key, Command: p.command, Changed: changed, Before: ptr(Summarize(before)), After: ptr(Summarize(after))}
	if after.State == breaker.Closed || after.State == breaker.ForcedClosed {
		out.Notes = h.startController(ctx, p.key)
	}
	return out, nil
}

// startController starts a new controller of key (taking over from one
// that may be waiting out a cooldown the command ended), if the handler
// has a Launcher. A failure is logged and returned as a note for the
// operator: the command stands, and the next message to arrive starts a
// controller; running the command again tries again.
func (h *Handler) startController(ctx context.Context, key string) []string {
	if h.Launcher == nil {
		return nil
	}
	err := h.Launcher.Restart(ctx, key)
	if err == nil {
		return nil
	}
	h.Logger.WarnContext(ctx, "could not start the breaker's controller", "breaker", key, "error", err.Error())
	return []string{fmt.Sprintf("the command stands, but the breaker's controller could not be started (%v): "+
		"its room is released when the next message arrives; run the command again to try again", err)}
}

// unreadable reports an error of a row that does not decode, when the
// handler can repair it.
func (h *Handler) unreadable(err error) bool {
	return h.Repair != nil && errors.Is(err, dynamo.ErrMalformed)
}

// showUnreadable is status of a row that does not decode: why, and the
// item as stored.
func (h *Handler) showUnreadable(ctx context.Context, p parsed, why error) (Output, error) {
	raw, err := h.raw(ctx, p, why)
	if err != nil {
		return Output{}, err
	}
	return Output{Breaker: p.key, Command: p.command, Unreadable: why.Error(), Raw: raw}, nil
}

// raw reads p's row, which did not decode (why), as stored.
func (h *Handler) raw(ctx context.Context, p parsed, why error) (map[string]any, error) {
	raw, err := h.Repair.Raw(ctx, p.key)
	if err != nil {
		return nil, fmt.Errorf("admin: %s breaker %q: %w; reading it as stored: %w", p.command, p.key, why, err)
	}
	return raw, nil
}

// replaceUnreadable is reset of a row that does not decode: the row is
// replaced by a fresh CLOSED one, audited like any command.
func (h *Handler) replaceUnreadable(ctx context.Context, p parsed, why error) (Output, error) {
	raw, err := h.raw(ctx, p, why)
	if err != nil {
		return Output{}, err
	}
	now := h.Clock.Now()
	after, err := h.Repair.Replace(ctx, breaker.Row{Key: p.key, State: breaker.Closed, Cause: breaker.CauseReset,
		ChangedAt: now, ClosedAt: now, Actor: p.change.Actor, Reason: p.change.Reason})
	if c := retryable.Contention(p.command, err); c != nil {
		return Output{}, c
	}
	if err != nil {
		return Output{}, fmt.Errorf("admin: reset breaker %q: replace the row that does not decode: %w", p.key, err)
	}
	h.log(ctx, p, true, breaker.Row{}, after)
	h.Logger.WarnContext(ctx, "replaced a breaker row that did not decode", "breaker", p.key, "unreadable", why.Error(), "raw", raw)
	return Output{Breaker: p.key, Command: p.command, Changed: true, After: ptr(Summarize(after)), Unreadable: why.Error(), Raw: raw,
		Notes: h.startController(ctx, p.key)}, nil
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

// ptr returns a pointer to s.
func ptr(s Summary) *Summary { return &s }
