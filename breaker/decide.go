package breaker

import "time"

// Decide answers whether one message may be delivered now. It returns the
// decision, the row after it and whether the row changed and must be
// saved. p must pass Validate; zero fields take their defaults.
//
//   - CLOSED and FORCED_CLOSED: Proceed, unless the target throttled a call
//     less than ThrottlePause ago: Queue.
//   - OPEN before OpenUntil: Queue. Nobody waits out the cooldown in an
//     execution: the breaker's controller waits it out and releases the
//     probe from the room, so the cooldown costs no write.
//   - OPEN at or after OpenUntil: the probe, a Canary that leaves the
//     breaker OPEN until it succeeds; while it is out (its lease is live),
//     or while the target's throttle pause lasts after a throttled probe,
//     Queue.
//   - HALF_OPEN: a Canary while fewer than HalfOpenPermits leases are
//     unexpired and the target is not throttling, else Queue.
//   - FORCED_OPEN: Queue, timed or not; the controller waits a timed hold
//     out and releases the room when it ends.
//   - A state this version does not know (a row written by a newer
//     version): Wait, admitting nothing; no controller of this version
//     releases a message for it, so the caller asks again later.
//
// Queue and Wait change nothing of their own. A forced mode whose
// ForcedUntil has passed is released to CLOSED first (a write, and
// Decision.Lifted when it ended a FORCED_OPEN hold).
func Decide(p Policy, r Row, now time.Time, rnd Random) (Decision, Row, bool) {
	p = p.WithDefaults()
	held := r.State == ForcedOpen
	changed := expireForced(&r, now)
	d, r, changed := decide(p, r, now, rnd, changed)
	d.Lifted = held && r.State != ForcedOpen
	return d, r, changed
}

// decide is Decide on a row whose expired forced mode was released.
func decide(p Policy, r Row, now time.Time, rnd Random, changed bool) (Decision, Row, bool) {
	switch r.State {
	case Closed, ForcedClosed:
		if now.Before(r.ThrottledUntil) {
			return queue(r), r, changed
		}
		return proceed(r), r, changed
	case Open:
		return decideOpen(p, r, now, rnd, changed)
	case HalfOpen:
		if liveLeases(r, now) < p.HalfOpenPermits && !now.Before(r.ThrottledUntil) {
			return grantCanary(p, r, now, rnd)
		}
		return queue(r), r, false
	case ForcedOpen:
		return queue(r), r, changed
	default:
		// An unknown state (a row written by a newer version) admits
		// nothing rather than guessing.
		return wait(r, symmetric(p.PollInterval, p.Jitter, rnd.Float64())), r, changed
	}
}

// decideOpen grants the probe once the cooldown is over, no probe is out
// and the target is not throttling; everyone else queues.
func decideOpen(p Policy, r Row, now time.Time, rnd Random, changed bool) (Decision, Row, bool) {
	if now.Before(r.OpenUntil) || liveLeases(r, now) > 0 || now.Before(r.ThrottledUntil) {
		// A throttled probe's successor waits the pause out in the room
		// rather than probing at once (and again, at the same instant,
		// while the target throttles).
		return queue(r), r, changed
	}
	return grantCanary(p, r, now, rnd)
}

// liveLeases counts the leases that have not expired at now.
func liveLeases(r Row, now time.Time) int {
	live := 0
	for _, l := range r.Leases {
		if l.Expires.After(now) {
			live++
		}
	}
	return live
}

// grantCanary adds a lease to the row, dropping expired ones so that a lost
// canary never holds a permit past its lease.
func grantCanary(p Policy, r Row, now time.Time, rnd Random) (Decision, Row, bool) {
	leases := make([]Lease, 0, p.HalfOpenPermits)
	for _, l := range r.Leases {
		if l.Expires.After(now) {
			leases = append(leases, l)
		}
	}
	lease := Lease{ID: newLeaseID(rnd), Expires: now.Add(p.CanaryLease)}
	r.Leases = append(leases, lease)
	d := Decision{Verdict: Canary, Ticket: Ticket{Generation: r.Generation, LeaseID: lease.ID}, State: r.State}
	return d, r, true
}

func proceed(r Row) Decision {
	return Decision{Verdict: Proceed, Ticket: Ticket{Generation: r.Generation}, State: r.State}
}

func queue(r Row) Decision {
	return Decision{Verdict: Queue, State: r.State}
}

func wait(r Row, d time.Duration) Decision {
	return Decision{Verdict: Wait, Wait: max(d, time.Millisecond), State: r.State}
}
