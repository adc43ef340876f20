package breaker

import (
	"math"
	"time"
)

// Cooldown is how long the breaker stays OPEN after its trips-th consecutive
// trip: CooldownBase * CooldownMultiplier^(trips-1), spread by +/-Jitter,
// then capped at CooldownMax (so the cap is a true bound on how late a
// recovery is noticed). u is a random number in [0, 1) (0 gives the
// shortest cooldown, values near 1 the longest).
func (p Policy) Cooldown(trips int, u float64) time.Duration {
	p = p.WithDefaults()
	base := float64(p.CooldownBase) * math.Pow(p.CooldownMultiplier, float64(max(trips, 1)-1))
	if !(base < float64(p.CooldownMax)) { // also catches +Inf
		base = float64(p.CooldownMax)
	}
	return min(symmetric(time.Duration(base), p.Jitter, u), p.CooldownMax)
}

// symmetric spreads d by +/-j: u=0 gives d*(1-j), u->1 gives d*(1+j).
// A negative j means no jitter.
func symmetric(d time.Duration, j, u float64) time.Duration {
	if j <= 0 {
		return d
	}
	return time.Duration(float64(d) * (1 + j*(2*u-1)))
}
