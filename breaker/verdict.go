package breaker

import (
	"fmt"
	"strings"
	"time"
)

// Verdict is what Decide tells a caller to do with one message.
type Verdict int

// The verdicts. The zero value is not a verdict, so a Decision that was
// never made is not mistaken for one.
const (
	// Proceed: deliver the message; report the outcome with the ticket.
	Proceed Verdict = iota + 1
	// Canary: deliver the message as a HALF_OPEN probe; the ticket holds a
	// lease that the outcome must present.
	Canary
	// Wait: do not deliver; ask again after Decision.Wait. Only callers
	// of a row in a state this version does not know (written by a newer
	// version) get it: nothing here will release them, so they ask again.
	Wait
	// Queue: do not deliver; wait in the waiting room until the
	// breaker's controller releases it (the breaker is open, its probe is
	// out, it has no free canary permit, it is forced open, or the target
	// is throttling).
	Queue
)

var verdictNames = [...]string{"", "PROCEED", "CANARY", "WAIT", "QUEUE"}

// String returns the verdict's name as logged, e.g. "CANARY".
func (v Verdict) String() string {
	if v < Proceed || int(v) >= len(verdictNames) {
		return fmt.Sprintf("Verdict(%d)", int(v))
	}
	return verdictNames[v]
}

// MarshalText writes the verdict's name, so task outputs read "QUEUE".
func (v Verdict) MarshalText() ([]byte, error) {
	if v < Proceed || int(v) >= len(verdictNames) {
		return nil, fmt.Errorf("breaker: invalid verdict %d", int(v))
	}
	return []byte(v.String()), nil
}

// Outcome is what happened to one admitted delivery.
type Outcome int

// The outcomes. The zero value is not an outcome, so a forgotten one is an
// error rather than a silent success.
const (
	// Success: the target accepted the message.
	Success Outcome = iota + 1
	// Transient: the target failed in a way that says something about its
	// health; it counts toward tripping.
	Transient
	// Poison: the message itself is bad; it never counts toward tripping.
	Poison
	// Throttled: the target turned the call away for load. It is not a
	// health failure: it never trips the breaker, it pauses admission for
	// the policy's ThrottlePause and it slows the waiting room's release.
	Throttled
)

var outcomeNames = [...]string{"", "SUCCESS", "TRANSIENT", "POISON", "THROTTLED"}

// Valid reports whether o is one of the defined outcomes.
func (o Outcome) Valid() bool {
	return o >= Success && int(o) < len(outcomeNames)
}

// String returns the outcome's name as logged, e.g. "TRANSIENT".
func (o Outcome) String() string {
	if !o.Valid() {
		return fmt.Sprintf("Outcome(%d)", int(o))
	}
	return outcomeNames[o]
}

// ParseOutcome is the inverse of String; it ignores case.
func ParseOutcome(name string) (Outcome, error) {
	for i, n := range outcomeNames {
		if n != "" && strings.EqualFold(n, name) {
			return Outcome(i), nil
		}
	}
	return 0, fmt.Errorf("breaker: unknown outcome %q (want success, transient, poison or throttled)", name)
}

// MarshalText writes the outcome's name.
func (o Outcome) MarshalText() ([]byte, error) {
	if !o.Valid() {
		return nil, fmt.Errorf("breaker: invalid outcome %d", int(o))
	}
	return []byte(o.String()), nil
}

// UnmarshalText reads an outcome's name, as ParseOutcome.
func (o *Outcome) UnmarshalText(text []byte) error {
	v, err := ParseOutcome(string(text))
	if err != nil {
		return err
	}
	*o = v
	return nil
}

// Ticket is what an admitted caller presents back with its outcome: the
// generation it was admitted under and, for a canary, its lease.
type Ticket struct {
	// Generation is the row's generation at admission; outcomes of an older
	// generation are ignored.
	Generation int64
	// LeaseID is the canary lease, empty for a Proceed.
	LeaseID string
}

// Decision is Decide's answer for one message.
type Decision struct {
	// Verdict says whether to deliver.
	Verdict Verdict
	// Ticket is set for Proceed and Canary.
	Ticket Ticket
	// Wait is how long to wait before asking again; positive for Wait,
	// zero otherwise.
	Wait time.Duration
	// State is the breaker's state after the decision.
	State State
	// Row is the row as the decision left it (saved when it changed).
	// Record starts from it, so an uncontended delivery try reads the
	// row once.
	Row Row
	// Lifted says this decision ended a timed FORCED_OPEN hold (its
	// ForcedUntil had passed): the messages it held wait in the room, and
	// the caller starts their release.
	Lifted bool
}
