package pace

import (
	"math"
	"time"
)

// Policy tunes how fast the waiting room is released. The zero value of
// every field means its documented default.
type Policy struct {
	// Start is the release rate (messages per second) a releaser starts
	// from. Default 10.
	Start float64
	// Max caps the release rate of one controller: each released message
	// is one Express StartExecution, whose quota (6,000 a second in every
	// Region) every breaker key and the starter share. Default 3,000.
	Max float64
	// Backoff multiplies the rate after the target throttled, once slow
	// start is over (the first throttle halves it, as TCP does). Default
	// 0.9; in (0, 1).
	Backoff float64
	// Tick is how often a releaser adjusts the rate; each tick's releases
	// are spread across it. Default 1s.
	Tick time.Duration
	// Lease is how long a releaser holds its breaker's pace row without
	// renewing it; a releaser that died is replaced after it. Default 1m.
	Lease time.Duration
}

// The documented defaults.
const (
	defaultStart   = 10
	defaultMax     = 3000
	defaultBackoff = 0.9
	defaultTick    = time.Second
	defaultLease   = time.Minute
)

// WithDefaults returns p with every zero field set to its default.
func (p Policy) WithDefaults() Policy {
	if p.Start == 0 {
		p.Start = defaultStart
	}
	if p.Max == 0 {
		p.Max = defaultMax
	}
	if p.Backoff == 0 {
		p.Backoff = defaultBackoff
	}
	if p.Tick == 0 {
		p.Tick = defaultTick
	}
	if p.Lease == 0 {
		p.Lease = defaultLease
	}
	return p
}

// Validate reports the invalid fields of p (after defaults).
func (p Policy) Validate() error {
	p = p.WithDefaults()
	switch {
	case !(p.Start > 0) || math.IsInf(p.Start, 0):
		return &PolicyError{Field: "Start", Value: p.Start, Problem: "must be a positive rate"}
	case !(p.Max >= p.Start) || math.IsInf(p.Max, 0):
		return &PolicyError{Field: "Max", Value: p.Max, Problem: "must be at least Start"}
	case !(p.Backoff > 0 && p.Backoff < 1):
		return &PolicyError{Field: "Backoff", Value: p.Backoff, Problem: "must be in (0, 1)"}
	case p.Tick < 10*time.Millisecond:
		return &PolicyError{Field: "Tick", Value: p.Tick, Problem: "must be at least 10ms"}
	case p.Lease < 3*p.Tick:
		return &PolicyError{Field: "Lease", Value: p.Lease, Problem: "must be at least three ticks"}
	}
	return nil
}

// State is one breaker key's pace: the release rate its releaser found and
// the releaser's lease. It is one item in the breaker table.
type State struct {
	// Key is the breaker key.
	Key string
	// Version is the optimistic-concurrency counter (0: no item yet).
	Version int64
	// Epoch numbers releasers: each new lease takes the next epoch, and a
	// releaser whose epoch is no longer the row's stops.
	Epoch int64
	// ReleaserUntil is the current releaser's lease.
	ReleaserUntil time.Time
	// Rate is the release rate in messages per second; 0 before the first
	// tick of an epoch.
	Rate float64
	// Ceiling is the rate at the last throttle; 0 during slow start.
	Ceiling float64
	// SeenThrottles is the breaker's throttle count at the last tick.
	SeenThrottles int64
	// Full says the last tick released all its quota, so the rate was used
	// and may grow.
	Full bool
	// Carry is the fraction of a message the last tick's quota left over.
	Carry float64
}

// Step is one tick of the rate controller: throttles is the breaker's
// lifetime throttle count (breaker.Totals.Throttles). It returns the state
// after the tick and how many messages the tick releases.
//
// The first tick of an epoch releases Start per second. After a tick whose
// quota was used in full, the rate doubles (slow start) until the first
// throttle, which halves it. Then, up to 95% of the rate at the last
// throttle (the ceiling), it grows per tick by a quarter of the way there
// or by 2% (at least one message per second), whichever is more; from
// there to the ceiling by 0.2% (at least a quarter), probing gently where
// the target gave way before, as each throttle costs a pause and a cut;
// past the ceiling, where the target takes more than it did, by 1%. A
// tick that finds new throttles multiplies it by Backoff instead.
// Growth is clocked by the releases that were used, so a room that ran
// short does not inflate the rate.
func (p Policy) Step(s State, throttles int64) (State, int) {
	p = p.WithDefaults()
	switch {
	case s.Rate == 0:
		s.Rate, s.Ceiling, s.Carry, s.Full = p.Start, 0, 0, false
	case throttles > s.SeenThrottles && s.Ceiling == 0:
		s.Ceiling, s.Rate = s.Rate, max(1, s.Rate/2)
	case throttles > s.SeenThrottles:
		s.Ceiling, s.Rate = s.Rate, max(1, s.Rate*p.Backoff)
	case s.Full && s.Ceiling == 0:
		s.Rate *= 2
	case s.Full && s.Rate < 0.95*s.Ceiling:
		s.Rate += max(1, s.Rate*0.02, (0.95*s.Ceiling-s.Rate)/4)
	case s.Full && s.Rate < s.Ceiling:
		s.Rate += max(0.25, s.Rate*0.002)
	case s.Full:
		s.Rate += max(0.25, s.Rate*0.01)
	}
	s.Rate = min(s.Rate, p.Max)
	s.SeenThrottles = throttles
	quota := s.Rate*p.Tick.Seconds() + s.Carry
	n := int(quota)
	s.Carry = quota - float64(n)
	return s, n
}
