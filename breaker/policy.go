package breaker

import "time"

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
	// CooldownMax caps the cooldown. Default 15m.
	CooldownMax time.Duration
	// Jitter spreads cooldowns and WAIT durations by up to this fraction
	// (0.2 = +/-20%), so waiters do not wake together. Default 0.2; in
	// [0, 1); negative disables.
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
	// PollInterval is how long a caller waits before asking again when
	// every HALF_OPEN permit is taken, so a freed permit or a close is
	// noticed soon without a busy loop. Default 5s.
	PollInterval time.Duration

	// RampDuration is how long after a close the admission probability
	// grows from RampStart to 1. Default 5m; negative disables the ramp.
	RampDuration time.Duration
	// RampStart is the admission probability right after a close.
	// Default 0.1; in (0, 1].
	RampStart float64
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
	defaultCooldownMax          = 15 * time.Minute
	defaultJitter               = 0.2
	defaultHalfOpenPermits      = 1
	defaultCanaryLease          = 2 * time.Minute
	defaultSuccessesToClose     = 2
	defaultPollInterval         = 5 * time.Second
	defaultRampDuration         = 5 * time.Minute
	defaultRampStart            = 0.1
)

// WithDefaults returns p with every zero field set to its documented
// default. Negative values that mean "disabled" are kept.
func (p Policy) WithDefaults() Policy {
	setDefault(&p.ConsecutiveFailures, defaultConsecutiveFailures)
	setDefault(&p.WindowSize, defaultWindowSize)
	setDefault(&p.MinimumCalls, defaultMinimumCalls)
	setDefault(&p.FailureRateThreshold, defaultFailureRateThreshold)
	setDefault(&p.CooldownBase, defaultCooldownBase)
	setDefault(&p.CooldownMultiplier, defaultCooldownMultiplier)
	setDefault(&p.CooldownMax, defaultCooldownMax)
	setDefault(&p.Jitter, defaultJitter)
	setDefault(&p.HalfOpenPermits, defaultHalfOpenPermits)
	setDefault(&p.CanaryLease, defaultCanaryLease)
	setDefault(&p.SuccessesToClose, defaultSuccessesToClose)
	setDefault(&p.PollInterval, defaultPollInterval)
	setDefault(&p.RampDuration, defaultRampDuration)
	setDefault(&p.RampStart, defaultRampStart)
	return p
}

func setDefault[T comparable](field *T, def T) {
	var zero T
	if *field == zero {
		*field = def
	}
}
