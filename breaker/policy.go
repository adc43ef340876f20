package breaker

import (
	"cmp"
	"time"
)

// Policy configures a breaker. The zero value of every field means its
// documented default, so Policy{} is a usable policy.
type Policy struct {
	// ConsecutiveFailures trips the breaker after this many transient
	// failures in a row. Default 5; negative disables this trip.
	ConsecutiveFailures int
	// WindowSize is how many recent outcomes the failure-rate trip looks at.
	// Default 20; at most 64.
	WindowSize int
	// MinimumCalls is how many outcomes the window must hold before the
	// failure rate can trip it. Default 10; at most WindowSize.
	MinimumCalls int
	// FailureRateThreshold trips the breaker when the share of failures in
	// the window reaches it. Default 0.5; in (0, 1]; negative disables.
	FailureRateThreshold float64

	// CooldownBase is the first OPEN cooldown. Default 30s.
	CooldownBase time.Duration
	// CooldownMultiplier grows the cooldown per consecutive trip:
	// CooldownBase * CooldownMultiplier^(trips-1). Default 2; at least 1.
	CooldownMultiplier float64
	// CooldownMax caps the cooldown, jitter included: a recovered target
	// is noticed within CooldownMax. Default 90s, which also keeps a
	// 30-minute outage under 30 probes.
	CooldownMax time.Duration
	// Jitter spreads cooldowns and WAIT durations by up to this fraction
	// (0.2 = +/-20%), so breakers and waiters do not wake together.
	// Default 0.2; in [0, 1); negative disables.
	Jitter float64

	// HalfOpenPermits is how many canaries may be out at once in HALF_OPEN.
	// Default 1.
	HalfOpenPermits int
	// CanaryLease is how long a canary permit is held before it frees
	// itself, so a lost canary cannot strand the breaker. Default 2m.
	CanaryLease time.Duration
	// SuccessesToClose is how many canary successes close the breaker.
	// Default 2.
	SuccessesToClose int
	// PollInterval is how long a caller waits before asking again when it
	// cannot read the row's state (a row written by a newer version).
	// Default 5s.
	PollInterval time.Duration

	// ThrottlePause is how long admission pauses after the target
	// throttled a call: callers wait in the room, so a burst does not run
	// past the target's capacity while the controller slows down. Default
	// 500ms.
	ThrottlePause time.Duration
}

// maxWindow is the largest WindowSize: the window is one uint64 bitset.
const maxWindow = 64

// The documented defaults, applied by WithDefaults to zero fields.
const (
	defaultConsecutiveFailures  = 5
	defaultWindowSize           = 20
	defaultMinimumCalls         = 10
	defaultFailureRateThreshold = 0.5
	defaultCooldownBase         = 30 * time.Second
	defaultCooldownMultiplier   = 2
	defaultCooldownMax          = 90 * time.Second
	defaultJitter               = 0.2
	defaultHalfOpenPermits      = 1
	defaultCanaryLease          = 2 * time.Minute
	defaultSuccessesToClose     = 2
	defaultPollInterval         = 5 * time.Second
	defaultThrottlePause        = 500 * time.Millisecond
)

// WithDefaults returns p with every zero field set to its documented
// default. Negative values that mean "disabled" are kept.
func (p Policy) WithDefaults() Policy {
	p.ConsecutiveFailures = cmp.Or(p.ConsecutiveFailures, defaultConsecutiveFailures)
	p.WindowSize = cmp.Or(p.WindowSize, defaultWindowSize)
	p.MinimumCalls = cmp.Or(p.MinimumCalls, defaultMinimumCalls)
	p.FailureRateThreshold = cmp.Or(p.FailureRateThreshold, defaultFailureRateThreshold)
	p.CooldownBase = cmp.Or(p.CooldownBase, defaultCooldownBase)
	p.CooldownMultiplier = cmp.Or(p.CooldownMultiplier, defaultCooldownMultiplier)
	p.CooldownMax = cmp.Or(p.CooldownMax, defaultCooldownMax)
	p.Jitter = cmp.Or(p.Jitter, defaultJitter)
	p.HalfOpenPermits = cmp.Or(p.HalfOpenPermits, defaultHalfOpenPermits)
	p.CanaryLease = cmp.Or(p.CanaryLease, defaultCanaryLease)
	p.SuccessesToClose = cmp.Or(p.SuccessesToClose, defaultSuccessesToClose)
	p.PollInterval = cmp.Or(p.PollInterval, defaultPollInterval)
	p.ThrottlePause = cmp.Or(p.ThrottlePause, defaultThrottlePause)
	return p
}
