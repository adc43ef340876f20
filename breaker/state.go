package breaker

import (
	"fmt"
	"time"
)

// State is the mode a breaker is in.
type State int

// The breaker states. The zero value is Closed, so a missing row is a closed
// breaker.
const (
	Closed State = iota
	Open
	HalfOpen
	ForcedOpen
	ForcedClosed
)

var stateNames = [...]string{"CLOSED", "OPEN", "HALF_OPEN", "FORCED_OPEN", "FORCED_CLOSED"}

// String returns the state's name as stored and logged, e.g. "HALF_OPEN".
func (s State) String() string {
	if s < 0 || int(s) >= len(stateNames) {
		return fmt.Sprintf("State(%d)", int(s))
	}
	return stateNames[s]
}

// ParseState is the inverse of String.
func ParseState(name string) (State, error) {
	for i, n := range stateNames {
		if n == name {
			return State(i), nil
		}
	}
	return 0, fmt.Errorf("breaker: unknown state %q", name)
}

// Row is the persisted state of one breaker: exactly one store item.
// Every write is conditional on Version, which increases by one per write.
type Row struct {
	// Key names the breaker (e.g. "orders" or a tenant id).
	Key string
	// State is the breaker's mode.
	State State
	// Version is the optimistic-concurrency counter: 0 means the row does
	// not exist yet; every write stores Version+1 on the condition that the
	// stored version is still Version.
	Version int64
	// Generation increases on every change of State (and on reset); an
	// outcome admitted under an older generation is ignored.
	Generation int64

	// Window holds the most recent outcomes for the failure-rate trip.
	Window Window
	// ConsecutiveFailures counts transient failures since the last success.
	ConsecutiveFailures int
	// Trips counts trips and failed probes since the last close; it drives
	// the cooldown growth.
	Trips int
	// LastTripAt and LastTripCause are when and why the breaker last
	// tripped (a change to OPEN, or a failed probe that kept it OPEN),
	// e.g. "5 consecutive failures"; unlike Trips they outlive a close.
	// Totals.Trips counts every trip since the row was made.
	LastTripAt    time.Time
	LastTripCause string

	// OpenUntil is when an OPEN breaker's cooldown ends.
	OpenUntil time.Time
	// ClosedAt is when the breaker last closed after being held open.
	ClosedAt time.Time
	// ThrottledUntil pauses admission after the target throttled a call:
	// until then callers wait in the room.
	ThrottledUntil time.Time
	// ChangedAt is when State last changed.
	ChangedAt time.Time
	// Cause says why State last changed, one of the Cause constants.
	Cause string

	// Leases are the canary permits in use: the OPEN breaker's one probe,
	// or the HALF_OPEN canaries.
	Leases []Lease
	// CanarySuccesses counts canary successes in the current HALF_OPEN.
	CanarySuccesses int

	// ForcedUntil ends a FORCED_OPEN or FORCED_CLOSED mode; zero means
	// until released.
	ForcedUntil time.Time
	// Actor and Reason describe the last manual command.
	Actor  string
	Reason string

	// Totals are lifetime counters, for status and for auditing.
	Totals Totals
	// Recorded names the latest deliveries whose outcome changed the row
	// (RecordOnce), oldest first, at most MaxRecorded: a retried delivery
	// try that finds itself here is not counted again.
	Recorded []string
}

// MaxRecorded bounds Row.Recorded: far more than the outcomes a row takes
// in the seconds a retried Attempt needs, while the row stays small.
const MaxRecorded = 32

// Window is a count-based sliding window of up to 64 outcomes kept as a
// bitset: bit 0 is the newest outcome, a set bit a failure.
type Window struct {
	// Failures has bit i set when the i-th newest outcome was a failure.
	Failures uint64
	// Count is how many outcomes the window holds (at most the policy's
	// WindowSize).
	Count int
}

// Lease is one HALF_OPEN canary permit.
type Lease struct {
	// ID identifies the canary; the outcome must present it.
	ID string
	// Expires is when the permit frees itself if no outcome arrives.
	Expires time.Time
}

// Totals are lifetime counters kept on the row. Successes of a healthy
// breaker are not written (they would change nothing else), so Successes
// counts only successes recorded by a write.
type Totals struct {
	// Successes counts successes recorded by a write.
	Successes int64
	// Failures counts transient failures of the current generation.
	Failures int64
	// Poison counts poison outcomes of the current generation.
	Poison int64
	// Stale is kept at zero: outcomes of an older generation are dropped
	// without a write, so that a trip is not followed by one write per
	// call that was in flight.
	Stale int64
	// Trips counts trips since the row was made, never reset:
	// transitions to OPEN, and failed probes that keep an OPEN breaker
	// open for a longer cooldown.
	Trips int64
	// Closes counts automatic recoveries, HALF_OPEN to CLOSED.
	Closes int64
	// Throttles counts calls the target throttled; the room's controller
	// compares it between ticks to slow down.
	Throttles int64
}
