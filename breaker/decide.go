package breaker

import "time"

// Decide answers whether one message may be delivered now. It returns the
// decision, the row after it and whether the row changed and must be
// saved. p must pass Validate; zero fields take their defaults.
//
//   - CLOSED and FORCED_CLOSED: Proceed, unless the target throttled a call
//     less than ThrottlePause ago: Queue.
//   - OPEN before OpenUntil: the first caller while there is no live scout
//     becomes the scout (Wait until OpenUntil; the row keeps its lease in
//     ScoutUntil); everyone else Queues.
//   - OPEN at or after OpenUntil: the probe, a Canary that leaves the
//     breaker OPEN until it succeeds; while it is out, Queue.
//   - HALF_OPEN: a Canary while fewer than HalfOpenPermits leases are
//     unexpired, else Queue.
//   - FORCED_OPEN: Queue; a timed hold (ForcedUntil set) has a scout as
//     OPEN has, who waits until the hold ends, so that the end is noticed
//     then and the room released (Decision.Lifted), not when the room's
//     timeout brings everyone back at once.
//
// A forced mode whose ForcedUntil has passed is released to CLOSED first.
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
		if r.ForcedUntil.IsZero() || now.Before(r.ScoutUntil) {
			return queue(r), r, changed
		}
		r.ScoutUntil = r.ForcedUntil.Add(p.CanaryLease)
		return wait(r, r.ForcedUntil.Sub(now)), r, true
	default:
		// An unknown state (a row written by a newer version) admits
		// nothing rather than guessing.
		return wait(r, symmetric(p.PollInterval, p.Jitter, rnd.Float64())), r, changed
	}
}

// decideOpen elects the scout before the cooldown ends and grants the probe
// after it.
func decideOpen(p Policy, r Row, now time.Time, rnd Random, changed bool) (Decision, Row, bool) {
	if !now.Before(r.OpenUntil) {
		if liveLeases(r, now) > 0 {
			return queue(r), r, changed
		}
		if now.Before(r.ThrottledUntil) {
			// The last probe was throttled: the next waits out the pause,
			// one scout as for the cooldown, rather than probing at once
			// (and again, at the same instant, while the target throttles).
			if now.Before(r.ScoutUntil) {
				return queue(r), r, changed
			}
			r.ScoutUntil = r.ThrottledUntil.Add(p.CanaryLease)
			return wait(r, r.ThrottledUntil.Sub(now)), r, true
		}
		r.ScoutUntil = time.Time{}
		return grantCanary(p, r, now, rnd)
	}
	if now.Before(r.ScoutUntil) {
		return queue(r), r, changed
	}
	r.ScoutUntil = r.OpenUntil.Add(p.CanaryLease)
	return wait(r, r.OpenUntil.Sub(now)), r, true
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
