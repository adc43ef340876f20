package breaker

import (
	"slices"
	"time"
)

// Observe records the outcome of a delivery admitted with ticket t. It
// returns the row after it and whether the row changed and must be saved.
// p must pass Validate; zero fields take their defaults.
//
// Outcomes are ignored (changed=false) when the ticket's generation is not
// the row's (a late success must not close a breaker that re-opened
// meanwhile), when o is not a defined Outcome, in FORCED_OPEN (nothing is
// admitted there), and in OPEN and HALF_OPEN without an unexpired lease.
// Poison never counts toward tripping; Throttled never counts as a failure
// (it pauses admission, see Decide). In CLOSED and FORCED_CLOSED a success
// on a full window without failures changes nothing, so a healthy breaker
// writes nothing; FORCED_CLOSED records outcomes but never trips.
func Observe(p Policy, r Row, t Ticket, o Outcome, now time.Time, rnd Random) (Row, bool) {
	p = p.WithDefaults()
	changed := expireForced(&r, now)
	if t.Generation != r.Generation || !o.Valid() {
		return r, changed
	}

	switch r.State {
	case Closed, ForcedClosed:
		return observeClosed(p, r, o, now, rnd)
	case Open, HalfOpen:
		return observeCanary(p, r, t, o, now, rnd)
	default:
		return r, changed
	}
}

func observeClosed(p Policy, r Row, o Outcome, now time.Time, rnd Random) (Row, bool) {
	switch o {
	case Poison:
		r.Totals.Poison++
		return r, true
	case Throttled:
		r.Totals.Throttles++
		r.ThrottledUntil = now.Add(p.ThrottlePause)
		return r, true
	case Success:
		if r.ConsecutiveFailures == 0 && r.Window.healthy(p.WindowSize) {
			return r, false
		}
		r.Window = r.Window.push(false, p.WindowSize)
		r.ConsecutiveFailures = 0
		r.Totals.Successes++
		return r, true
	}

	r.Window = r.Window.push(true, p.WindowSize)
	r.ConsecutiveFailures++
	r.Totals.Failures++
	if r.State == ForcedClosed {
		return r, true
	}
	switch {
	case p.ConsecutiveFailures > 0 && r.ConsecutiveFailures >= p.ConsecutiveFailures:
		r = trip(p, r, CauseConsecutiveFailures, now, rnd)
	case r.Window.tripsOnRate(p):
		r = trip(p, r, CauseFailureRate, now, rnd)
	}
	return r, true
}

// observeCanary frees the probe's or canary's lease and counts its outcome.
// The OPEN breaker's probe: a success moves it to HALF_OPEN (the first of
// SuccessesToClose; when that is 1 it closes at once, one state change), a
// failure keeps it OPEN for the next, longer cooldown without a state
// change. A HALF_OPEN canary: enough successes close the breaker, one
// failure re-opens it. A poison or throttled canary says
// nothing about health: its permit is freed for the next one.
func observeCanary(p Policy, r Row, t Ticket, o Outcome, now time.Time, rnd Random) (Row, bool) {
	i := slices.IndexFunc(r.Leases, func(l Lease) bool { return l.ID == t.LeaseID })
	if t.LeaseID == "" || i < 0 || !r.Leases[i].Expires.After(now) {
		return r, false
	}
	r.Leases = slices.Delete(slices.Clone(r.Leases), i, i+1)

	switch o {
	case Poison:
		r.Totals.Poison++
	case Throttled:
		// No verdict on the target's health: the permit is free again,
		// after the throttle pause.
		r.Totals.Throttles++
		r.ThrottledUntil = now.Add(p.ThrottlePause)
	case Transient:
		r.Totals.Failures++
		if r.State == Open {
			r = reopen(p, r, now, rnd)
			break
		}
		r = trip(p, r, CauseCanaryFailure, now, rnd)
	case Success:
		r.Totals.Successes++
		if r.State == Open && p.SuccessesToClose > 1 {
			// One state change per write: a probe that is enough on
			// its own closes the breaker directly, below.
			r = moveTo(r, HalfOpen, CauseProbeSuccess, now)
		}
		r.CanarySuccesses++
		if r.CanarySuccesses >= p.SuccessesToClose {
			r = closeFresh(r, CauseCanarySuccesses, now, true)
			r.Totals.Closes++
		}
	}
	return r, true
}
