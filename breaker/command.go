package breaker

import (
	"fmt"
	"time"
)

// CommandKind is an operator's manual command.
type CommandKind int

// The commands, as an operator names them in the admin input.
const (
	// Reset returns the breaker to CLOSED with an empty window and no trips.
	Reset CommandKind = iota + 1
	// ForceOpen holds the breaker open (FORCED_OPEN), optionally until a time.
	ForceOpen
	// ForceClose holds the breaker closed (FORCED_CLOSED), optionally until
	// a time: outcomes are recorded but never trip it.
	ForceClose
	// Release ends a forced mode: back to CLOSED with an empty window. On a
	// breaker that is not forced it is a no-op, so a repeated release (an
	// admin execution retried) is harmless.
	Release
)

var commandNames = [...]string{"", "reset", "open", "close", "release"}

// String returns the command's name as an operator types it, e.g. "open".
func (k CommandKind) String() string {
	if k < Reset || int(k) >= len(commandNames) {
		return fmt.Sprintf("CommandKind(%d)", int(k))
	}
	return commandNames[k]
}

// ParseCommandKind is the inverse of String.
func ParseCommandKind(name string) (CommandKind, error) {
	for i, n := range commandNames {
		if n != "" && n == name {
			return CommandKind(i), nil
		}
	}
	return 0, fmt.Errorf("breaker: unknown command %q (want reset, open, close or release)", name)
}

// Command is one manual change of a breaker, with who asked and why.
type Command struct {
	// Kind is what to do.
	Kind CommandKind
	// Until ends a ForceOpen or ForceClose; zero means until released.
	Until time.Time
	// Actor and Reason are stored on the row for the audit trail.
	Actor, Reason string
}

// Validate reports a command that cannot be applied at now.
func (c Command) Validate(now time.Time) error {
	switch c.Kind {
	case Reset, Release:
		if !c.Until.IsZero() {
			return fmt.Errorf("breaker: command %s: until is only for open and close", c.Kind)
		}
	case ForceOpen, ForceClose:
		if !c.Until.IsZero() && !c.Until.After(now) {
			return fmt.Errorf("breaker: command %s: until %s is not after now (%s)",
				c.Kind, c.Until.Format(time.RFC3339), now.Format(time.RFC3339))
		}
	default:
		return fmt.Errorf("breaker: unknown command %s", c.Kind)
	}
	return nil
}

// ApplyCommand applies an operator's command to r at now. It returns the
// row after it and whether it changed; every applied command records Actor
// and Reason and bumps the generation once, so outstanding tickets turn
// stale. A forced mode past its ForcedUntil is still forced until the next
// call: Release releases it, the other commands replace it.
func ApplyCommand(r Row, c Command, now time.Time) (Row, bool, error) {
	if err := c.Validate(now); err != nil {
		return r, false, err
	}
	switch c.Kind {
	case Reset:
		held := r.State != Closed && r.State != ForcedClosed
		r = closeFresh(r, CauseReset, now, held)
	case ForceOpen:
		r = moveTo(r, ForcedOpen, CauseForceOpen, now)
		r.ForcedUntil = c.Until
	case ForceClose:
		r = moveTo(r, ForcedClosed, CauseForceClose, now)
		r.ForcedUntil = c.Until
	case Release:
		if r.State != ForcedOpen && r.State != ForcedClosed {
			return r, false, nil
		}
		r = closeFresh(r, CauseRelease, now, r.State == ForcedOpen)
	}
	r.Actor, r.Reason = c.Actor, c.Reason
	return r, true, nil
}
