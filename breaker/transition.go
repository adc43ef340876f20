package breaker

import (
	"fmt"
	"time"
)

// Causes of a state change, stored in Row.Cause and reported in Transition.
const (
	CauseConsecutiveFailures = "consecutive-failures"
	CauseFailureRate         = "failure-rate"
	CauseProbeSuccess        = "probe-success"
	CauseCanarySuccesses     = "canary-successes"
	CauseCanaryFailure       = "canary-failure"
	CauseForcedExpired       = "forced-expired"
	CauseReset               = "command-reset"
	CauseForceOpen           = "command-open"
	CauseForceClose          = "command-close"
	CauseRelease             = "command-release"
)

// Transition describes one change of a breaker's state (or generation), for
// a log line and a metric per change.
type Transition struct {
	// Key names the breaker.
	Key string
	// From and To are the states before and after; equal for a command
	// that kept the state (a reset of a CLOSED breaker).
	From, To State
	// Generation is the new generation.
	Generation int64
	// Cause is one of the Cause constants.
	Cause string
	// At is when the change happened.
	At time.Time
}

// transitionOf reports the change from before to after, if there was one:
// every state change bumps the generation.
func transitionOf(before, after Row) (Transition, bool) {
	if after.Generation == before.Generation {
		return Transition{}, false
	}
	return Transition{
		Key:        after.Key,
		From:       before.State,
		To:         after.State,
		Generation: after.Generation,
		Cause:      after.Cause,
		At:         after.ChangedAt,
	}, true
}

// moveTo records a state change: every change bumps the generation, which
// turns every outstanding ticket stale.
func moveTo(r Row, to State, cause string, now time.Time) Row {
	r.State = to
	r.Generation++
	r.ChangedAt = now
	r.Cause = cause
	r.Leases = nil
	r.CanarySuccesses = 0
	return r
}

// closeFresh returns r CLOSED with an empty window and no trips. held
// records ClosedAt, for closes after traffic was held back.
func closeFresh(r Row, cause string, now time.Time, held bool) Row {
	r = moveTo(r, Closed, cause, now)
	r.Window = Window{}
	r.ConsecutiveFailures = 0
	r.Trips = 0
	r.OpenUntil = time.Time{}
	r.ForcedUntil = time.Time{}
	if held {
		r.ClosedAt = now
	}
	return r
}

// trip opens r with the next, longer cooldown.
func trip(p Policy, r Row, cause string, now time.Time, rnd Random) Row {
	why := tripCause(p, r, cause)
	r = moveTo(r, Open, cause, now)
	return countTrip(p, r, why, now, rnd)
}

// reopen keeps an OPEN breaker open after its probe failed, for the next,
// longer cooldown: no state change, so tickets stay valid; the next probe
// goes when that cooldown ends. Its cause names what opened the breaker
// (r.Cause, kept while it stays OPEN), so that after an outage the row
// still says how it began.
func reopen(p Policy, r Row, now time.Time, rnd Random) Row {
	return countTrip(p, r, "the probe failed; opened by "+r.Cause, now, rnd)
}

// countTrip counts a trip of r at now, for the reason why, and sets the
// next, longer cooldown.
func countTrip(p Policy, r Row, why string, now time.Time, rnd Random) Row {
	r.Trips++
	r.Totals.Trips++
	r.LastTripAt, r.LastTripCause = now, why
	r.OpenUntil = now.Add(p.Cooldown(r.Trips, rnd.Float64()))
	return r
}

// tripCause says, for a person, why r trips for cause: what its counts
// were when it did.
func tripCause(p Policy, r Row, cause string) string {
	switch cause {
	case CauseConsecutiveFailures:
		return fmt.Sprintf("%d consecutive failures", r.ConsecutiveFailures)
	case CauseFailureRate:
		n := min(r.Window.Count, p.WindowSize)
		return fmt.Sprintf("%d failures of the last %d outcomes", r.Window.FailureCount(p.WindowSize), n)
	case CauseCanaryFailure:
		return "a canary failed"
	}
	return cause
}

// expireForced releases a forced mode whose ForcedUntil has passed, in
// place: it behaves as CLOSED with a fresh window from then on. It reports
// whether it changed r.
// At is r as it stands at now, without a write: a forced mode whose
// ForcedUntil has passed is CLOSED, as the next Admit would save it. A
// reader of the stored row (the room's controller) acts on it so, and does
// not wait on an end that has passed.
func (r Row) At(now time.Time) Row {
	expireForced(&r, now)
	return r
}

func expireForced(r *Row, now time.Time) bool {
	forced := r.State == ForcedOpen || r.State == ForcedClosed
	if !forced || r.ForcedUntil.IsZero() || now.Before(r.ForcedUntil) {
		return false
	}
	*r = closeFresh(*r, CauseForcedExpired, now, r.State == ForcedOpen)
	return true
}
