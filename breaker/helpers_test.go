package breaker_test

import (
	"math/rand/v2"
	"time"

	"github.com/redrive/redrive/breaker"
)

// t0 is the tests' fixed starting time.
var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// testPolicy is small and jitter-free, so expected values are exact.
var testPolicy = breaker.Policy{
	ConsecutiveFailures:  3,
	WindowSize:           10,
	MinimumCalls:         5,
	FailureRateThreshold: 0.5,
	CooldownBase:         10 * time.Second,
	CooldownMultiplier:   2,
	CooldownMax:          60 * time.Second,
	Jitter:               -1,
	HalfOpenPermits:      2,
	CanaryLease:          30 * time.Second,
	SuccessesToClose:     2,
	PollInterval:         5 * time.Second,
	ThrottlePause:        2 * time.Second,
}

// fixedRandom is a hand-written Random: Float64 always returns f, Uint64
// counts up so lease IDs stay unique.
type fixedRandom struct {
	f float64
	n uint64
}

func (r *fixedRandom) Float64() float64 { return r.f }
func (r *fixedRandom) Uint64() uint64   { r.n++; return r.n }

// seeded returns a deterministic Random for statistical tests.
func seeded(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seed+1)) }

// openRow returns an OPEN row after trips trips, open until until, with
// no probe out.
func openRow(trips int, until time.Time) breaker.Row {
	return breaker.Row{Key: "k", State: breaker.Open, Generation: 4, Trips: trips, OpenUntil: until, ChangedAt: t0}
}

// probingRow is openRow past its cooldown with the probe's lease out.
func probingRow(trips int, until time.Time, probe breaker.Lease) breaker.Row {
	r := openRow(trips, until)
	r.Leases = []breaker.Lease{probe}
	return r
}

// halfOpenRow returns a HALF_OPEN row holding the given leases.
func halfOpenRow(leases ...breaker.Lease) breaker.Row {
	return breaker.Row{Key: "k", State: breaker.HalfOpen, Generation: 5, Trips: 1, Leases: leases, ChangedAt: t0}
}

// healthyRow is a CLOSED row with a full window of successes.
func healthyRow() breaker.Row {
	return breaker.Row{Key: "k", State: breaker.Closed, Generation: 2, Window: breaker.Window{Count: 10}}
}

// step is one state change: from, to and why.
type step struct {
	from, to breaker.State
	cause    string
}

// allowedSteps lists every state change the breaker may make; anything
// else is a bug. A failed probe keeps an OPEN breaker OPEN without a state
// change, so it is not a step.
var allowedSteps = func() map[step]bool {
	s := map[step]bool{
		{breaker.Closed, breaker.Open, breaker.CauseConsecutiveFailures}:   true,
		{breaker.Closed, breaker.Open, breaker.CauseFailureRate}:           true,
		{breaker.Open, breaker.HalfOpen, breaker.CauseProbeSuccess}:        true,
		{breaker.Open, breaker.Closed, breaker.CauseCanarySuccesses}:       true, // a probe's success when SuccessesToClose is 1
		{breaker.HalfOpen, breaker.Closed, breaker.CauseCanarySuccesses}:   true,
		{breaker.HalfOpen, breaker.Open, breaker.CauseCanaryFailure}:       true,
		{breaker.ForcedOpen, breaker.Closed, breaker.CauseForcedExpired}:   true,
		{breaker.ForcedClosed, breaker.Closed, breaker.CauseForcedExpired}: true,
		{breaker.ForcedOpen, breaker.Closed, breaker.CauseRelease}:         true,
		{breaker.ForcedClosed, breaker.Closed, breaker.CauseRelease}:       true,
	}
	for _, from := range []breaker.State{breaker.Closed, breaker.Open, breaker.HalfOpen, breaker.ForcedOpen, breaker.ForcedClosed} {
		s[step{from, breaker.Closed, breaker.CauseReset}] = true
		s[step{from, breaker.ForcedOpen, breaker.CauseForceOpen}] = true
		s[step{from, breaker.ForcedClosed, breaker.CauseForceClose}] = true
	}
	return s
}()

// lease returns a canary lease.
func lease(id string, expires time.Time) breaker.Lease {
	return breaker.Lease{ID: id, Expires: expires}
}
