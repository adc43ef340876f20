package attempt

import (
	"math"
	"time"
)

// backoff is the wait after a message's tries-th transient failure: the
// exponential step BackoffBase * 2^(tries-1), capped at BackoffMax, with
// equal jitter: half the step fixed and half random (r in [0, 1)).
//
// Equal rather than full jitter: the breaker already spreads the load of
// many messages while the target is down; this backoff is for a message
// that fails while the breaker stays closed, and full jitter could retry
// it within a second of its failure, which is no backoff at all.
func (c Config) backoff(tries int, r float64) time.Duration {
	step := c.BackoffBase
	for i := 1; i < tries && step < c.BackoffMax; i++ {
		step *= 2
	}
	step = min(step, c.BackoffMax)
	return step/2 + time.Duration(r*float64(step/2))
}

// waitSeconds is d as a Wait state's whole seconds, rounded up, at least 1.
func waitSeconds(d time.Duration) int {
	return max(1, int(math.Ceil(d.Seconds())))
}
