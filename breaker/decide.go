package breaker

import "time"

// rampPolls is how many times, at most, a message turned away by the ramp
// asks again before the ramp ends: each wait is a tenth of the ramp.
const rampPolls = 10

// Decide answers whether one message may be delivered now. It returns the
// decision, the row after it and whether the row changed and must be
// saved. p must pass Validate; zero fields take their defaults.
//
//   - CLOSED: Proceed; during the ramp after a close, with a probability
//     rising linearly from RampStart to 1, else Wait a tenth of the ramp.
//     The ramp needs no write.
//   - OPEN: Wait until OpenUntil, spread later by up to Jitter; at or after
//     OpenUntil, move to HALF_OPEN and grant a canary.
//   - HALF_OPEN: grant a canary while fewer than HalfOpenPermits leases are
//     unexpired, else Wait for the earliest expiry or PollInterval.
//   - FORCED_OPEN: Wait until ForcedUntil, at most CooldownMax.
//   - FORCED_CLOSED: Proceed.
//
// A forced mode whose ForcedUntil has passed is released to CLOSED first.
func Decide(p Policy, r Row, now time.Time, rnd Random) (Decision, Row, bool) {
	p = p.WithDefaults()
	changed := expireForced(&r, now)

	switch r.State {
	case Closed:
		return decideClosed(p, r, now, rnd), r, changed
	case Open:
		if now.Before(r.OpenUntil) {
			return wait(r, later(r.OpenUntil.Sub(now), p.Jitter, rnd.Float64())), r, changed
		}
		r = moveTo(r, HalfOpen, CauseCooldownElapsed, now)
		return grantCanary(p, r, now, rnd)
	case HalfOpen:
		return decideHalfOpen(p, r, now, rnd)
	case ForcedOpen:
		d := p.CooldownMax
		if !r.ForcedUntil.IsZero() {
			d = min(d, r.ForcedUntil.Sub(now))
		}
		return wait(r, later(d, p.Jitter, rnd.Float64())), r, changed
	case ForcedClosed:
		return proceed(r), r, changed
	default:
		// An unknown state (a row written by a newer version) admits
		// nothing rather than guessing.
		return wait(r, symmetric(p.PollInterval, p.Jitter, rnd.Float64())), r, changed
	}
}

func decideClosed(p Policy, r Row, now time.Time, rnd Random) Decision {
	if p.RampDuration <= 0 || r.ClosedAt.IsZero() {
		return proceed(r)
	}
	elapsed := max(now.Sub(r.ClosedAt), 0)
	if elapsed >= p.RampDuration {
		return proceed(r)
	}
	admit := p.RampStart + (1-p.RampStart)*float64(elapsed)/float64(p.RampDuration)
	if rnd.Float64() < admit {
		return proceed(r)
	}
	d := min(p.RampDuration/rampPolls, p.RampDuration-elapsed)
	return wait(r, symmetric(d, p.Jitter, rnd.Float64()))
}

func decideHalfOpen(p Policy, r Row, now time.Time, rnd Random) (Decision, Row, bool) {
	live, earliest := 0, time.Time{}
	for _, l := range r.Leases {
		if !l.Expires.After(now) {
			continue
		}
		live++
		if earliest.IsZero() || l.Expires.Before(earliest) {
			earliest = l.Expires
		}
	}
	if live < p.HalfOpenPermits {
		return grantCanary(p, r, now, rnd)
	}
	d := min(p.PollInterval, earliest.Sub(now))
	return wait(r, symmetric(d, p.Jitter, rnd.Float64())), r, false
}

// grantCanary adds a lease to a HALF_OPEN row, dropping expired ones so
// that a lost canary never holds a permit past its lease.
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

func wait(r Row, d time.Duration) Decision {
	return Decision{Verdict: Wait, Wait: max(d, time.Millisecond), State: r.State}
}
