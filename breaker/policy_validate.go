package breaker

import (
	"errors"
	"fmt"
	"math"
)

// PolicyError names one invalid Policy field, its value and what is wrong
// with it, e.g. "breaker: policy WindowSize 65: must be at most 64".
type PolicyError struct {
	// Field is the Policy field's name.
	Field string
	// Value is the field's value after defaults.
	Value any
	// Problem says what the value must be instead.
	Problem string
}

// Error implements error.
func (e *PolicyError) Error() string {
	return fmt.Sprintf("breaker: policy %s %v: %s", e.Field, e.Value, e.Problem)
}

// Validate reports every invalid field of p (after defaults), joined into
// one error of *PolicyError values; nil means p is usable.
func (p Policy) Validate() error {
	p = p.WithDefaults()
	var errs []error
	check := func(bad bool, field string, value any, problem string) {
		if bad {
			errs = append(errs, &PolicyError{Field: field, Value: value, Problem: problem})
		}
	}

	check(p.WindowSize < 1, "WindowSize", p.WindowSize, "must be positive")
	check(p.WindowSize > maxWindow, "WindowSize", p.WindowSize, fmt.Sprintf("must be at most %d", maxWindow))
	check(p.MinimumCalls < 1, "MinimumCalls", p.MinimumCalls, "must be positive")
	check(p.MinimumCalls > p.WindowSize && p.WindowSize >= 1, "MinimumCalls", p.MinimumCalls,
		fmt.Sprintf("must be at most WindowSize (%d)", p.WindowSize))
	check(math.IsNaN(p.FailureRateThreshold) || p.FailureRateThreshold > 1, "FailureRateThreshold",
		p.FailureRateThreshold, "must be in (0, 1], or negative to disable")
	check(p.ConsecutiveFailures < 0 && p.FailureRateThreshold < 0, "ConsecutiveFailures", p.ConsecutiveFailures,
		"and FailureRateThreshold are both disabled: the breaker could never trip")

	check(p.CooldownBase < 0, "CooldownBase", p.CooldownBase, "must be positive")
	check(math.IsNaN(p.CooldownMultiplier) || math.IsInf(p.CooldownMultiplier, 0) || p.CooldownMultiplier < 1,
		"CooldownMultiplier", p.CooldownMultiplier, "must be at least 1")
	check(p.CooldownMax < p.CooldownBase, "CooldownMax", p.CooldownMax,
		fmt.Sprintf("must be at least CooldownBase (%v)", p.CooldownBase))
	check(math.IsNaN(p.Jitter) || p.Jitter >= 1, "Jitter", p.Jitter, "must be in [0, 1), or negative to disable")

	check(p.HalfOpenPermits < 1, "HalfOpenPermits", p.HalfOpenPermits, "must be positive")
	check(p.CanaryLease < 0, "CanaryLease", p.CanaryLease, "must be positive")
	check(p.SuccessesToClose < 1, "SuccessesToClose", p.SuccessesToClose, "must be positive")
	check(p.PollInterval < 0, "PollInterval", p.PollInterval, "must be positive")
	check(p.ThrottlePause < 0, "ThrottlePause", p.ThrottlePause, "must be positive")

	return errors.Join(errs...)
}
