package sim

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"time"

	"github.com/redrive/redrive/breaker"
)

// ErrInvalidScenario is matched (errors.Is) by every *FieldError.
var ErrInvalidScenario = errors.New("sim: invalid scenario")

// FieldError names one invalid scenario field by its path in the file,
// e.g. "scenarios/x.yaml: target.capacity: must be > 0".
type FieldError struct {
	// File is the scenario file, or "" for a scenario built in code.
	File string
	// Path is the field's path, e.g. "target.health[1].error_rate".
	Path string
	// Problem says what is wrong.
	Problem string
}

// Error implements error.
func (e *FieldError) Error() string {
	if e.File == "" {
		return fmt.Sprintf("scenario: %s: %s", e.Path, e.Problem)
	}
	return fmt.Sprintf("%s: %s: %s", e.File, e.Path, e.Problem)
}

// Unwrap makes every FieldError match ErrInvalidScenario.
func (e *FieldError) Unwrap() error { return ErrInvalidScenario }

// Limits a scenario must stay within, so a run stays a local simulation.
const (
	maxMessages   = 1_000_000
	maxTenants    = 1000
	maxHorizon    = 7 * 24 * time.Hour
	maxCapacity   = 100_000
	maxBulkRate   = 500 // SQS's MaxNumberOfMessagesPerSecond
	maxRetries    = 100
	maxReceives   = 1000 // SQS's maxReceiveCount
	maxVisibility = 12 * time.Hour
)

// Validate reports every invalid field, joined; nil means s can run.
func (s Scenario) Validate() error {
	v := validator{}
	v.check(s.Name == "", "name", "must not be empty")
	v.check(s.Seed == 0, "seed", "must not be 0 (0 would mean a different default seed per component)")
	v.check(s.Horizon <= 0 || s.Horizon > maxHorizon, "horizon", fmt.Sprintf("must be in (0, %v], got %v", maxHorizon, s.Horizon))

	v.messages(s.Messages, s.Horizon)
	v.target(s.Target)

	v.policy(s.Breaker)

	r := s.Retry
	v.check(r.MaxAttempts < 1 || r.MaxAttempts > maxRetries, "retry.max_attempts", fmt.Sprintf("must be 1 to %d, got %d", maxRetries, r.MaxAttempts))
	v.check(r.BackoffBase < time.Second, "retry.backoff_base", fmt.Sprintf("must be at least 1s, got %v", r.BackoffBase))
	v.check(r.BackoffMax < r.BackoffBase, "retry.backoff_max", fmt.Sprintf("must be at least backoff_base (%v), got %v", r.BackoffBase, r.BackoffMax))

	b := s.Bulk
	v.check(b.Rate < 1 || b.Rate > maxBulkRate, "bulk.rate", fmt.Sprintf("must be 1 to %d messages per second, as SQS allows, got %d", maxBulkRate, b.Rate))
	v.check(b.Every < time.Second, "bulk.every", fmt.Sprintf("must be at least 1s, got %v", b.Every))
	v.check(b.MaxReceiveCount < 1 || b.MaxReceiveCount > maxReceives, "bulk.max_receive_count", fmt.Sprintf("must be 1 to %d, got %d", maxReceives, b.MaxReceiveCount))
	v.check(b.VisibilityTimeout < time.Second || b.VisibilityTimeout > maxVisibility, "bulk.visibility_timeout", fmt.Sprintf("must be 1s to %v, got %v", maxVisibility, b.VisibilityTimeout))
	v.check(b.Concurrency < 2 || b.Concurrency > 1000, "bulk.concurrency", fmt.Sprintf("must be 2 to 1000, as Lambda's event source allows, got %d", b.Concurrency))
	if _, err := s.QuotaProfile(); err != nil {
		v.fail("quotas", fmt.Sprintf("must be none, standard or large, got %q", s.Quotas))
	}
	v.check(s.AttemptType != "" && s.AttemptType != "express" && s.AttemptType != "standard", "attempt_type",
		fmt.Sprintf("must be express or standard, got %q", s.AttemptType))
	v.check(s.DuplicateStarts < 0, "duplicate_starts", fmt.Sprintf("must be >= 0 (0 = none), got %d", s.DuplicateStarts))
	v.check(s.FIFOOnPark != "" && s.FIFOOnPark != "continue" && s.FIFOOnPark != "hold", "fifo_on_park",
		fmt.Sprintf(`must be "continue" or "hold", got %q`, s.FIFOOnPark))
	v.check(s.FIFOOnPark != "" && s.Messages.Groups == 0, "fifo_on_park", "only for a FIFO scenario (messages.groups above 0)")
	v.check(s.LiftHoldsAt < 0 || (s.LiftHoldsAt > 0 && s.FIFOOnPark != "hold"), "lift_holds_at",
		fmt.Sprintf(`must be 0 or, with fifo_on_park "hold", a time from the start, got %s`, s.LiftHoldsAt))
	v.check(s.OpenExecutionsLimit < 0, "open_executions_limit", fmt.Sprintf("must be >= 0 (0 = the quota), got %d", s.OpenExecutionsLimit))
	return errors.Join(v.errs...)
}

// messages checks the scenario's messages, which arrive before horizon.
func (v *validator) messages(m Messages, horizon time.Duration) {
	v.check(m.Count < 1 || m.Count > maxMessages, "messages.count", fmt.Sprintf("must be 1 to %d, got %d", maxMessages, m.Count))
	v.check(m.Start < 0, "messages.start", fmt.Sprintf("must be >= 0, got %v", m.Start))
	v.check(m.Start >= horizon, "messages.start", fmt.Sprintf("%v is not before the horizon %v", m.Start, horizon))
	v.check(!finite(m.Rate) || m.Rate < 0, "messages.rate", fmt.Sprintf("must be >= 0 (0 = all at once), got %v", m.Rate))
	v.check(!finite(m.Poison) || m.Poison < 0 || m.Poison >= 1, "messages.poison", fmt.Sprintf("must be in [0, 1), got %v", m.Poison))
	v.check(m.Tenants < 1 || m.Tenants > maxTenants, "messages.tenants", fmt.Sprintf("must be 1 to %d, got %d", maxTenants, m.Tenants))
	v.check(m.Groups < 0 || m.Groups > m.Count, "messages.groups", fmt.Sprintf("must be 0 (a standard queue) to messages.count (%d), got %d", m.Count, m.Groups))
	if b := m.BodyBytes; b.Max != 0 || b.Min != 0 {
		v.check(b.Min < 0 || b.Max < b.Min || b.Max > MaxBodyBytes, "messages.body_bytes",
			fmt.Sprintf("want 0 <= min <= max <= %d, got min %d, max %d", MaxBodyBytes, b.Min, b.Max))
	}
}

// target checks the simulated consumer and its health phases.
func (v *validator) target(t Target) {
	v.check(t.Capacity <= 0 || t.Capacity > maxCapacity, "target.capacity", fmt.Sprintf("must be > 0 and at most %d, got %d", maxCapacity, t.Capacity))
	v.check(t.Latency < 0 || t.Latency >= time.Minute, "target.latency", fmt.Sprintf("must be in [0, 1m), got %v", t.Latency))
	for i, p := range t.Health {
		path := fmt.Sprintf("target.health[%d]", i)
		v.check(p.At < 0, path+".at", fmt.Sprintf("must be >= 0, got %v", p.At))
		if i > 0 {
			v.check(p.At <= t.Health[i-1].At, path+".at", fmt.Sprintf("%v is not after the previous phase's %v", p.At, t.Health[i-1].At))
		}
		switch p.State {
		case StateHealthy, StateDown:
			v.check(p.ErrorRate != 0, path+".error_rate", fmt.Sprintf("only for %q, not %q", StateDegraded, p.State))
		case StateDegraded:
			v.check(!finite(p.ErrorRate) || p.ErrorRate <= 0 || p.ErrorRate > 1, path+".error_rate", fmt.Sprintf("must be in (0, 1], got %v", p.ErrorRate))
		default:
			v.fail(path+".state", fmt.Sprintf("must be %q, %q or %q, got %q", StateHealthy, StateDown, StateDegraded, p.State))
		}
	}

}

// validator collects FieldErrors.
type validator struct{ errs []error }

func (v *validator) check(bad bool, path, problem string) {
	if bad {
		v.fail(path, problem)
	}
}

func (v *validator) fail(path, problem string) {
	v.errs = append(v.errs, &FieldError{Path: path, Problem: problem})
}

// policy checks the breaker policy with the breaker's own rules and names
// each bad field by its scenario name.
func (v *validator) policy(b Breaker) {
	err := b.Policy().Validate()
	if err == nil {
		return
	}
	joined, ok := err.(interface{ Unwrap() []error })
	if !ok {
		v.fail("breaker", err.Error())
		return
	}
	for _, e := range joined.Unwrap() {
		var pe *breaker.PolicyError
		if !errors.As(e, &pe) {
			v.fail("breaker", e.Error())
			continue
		}
		v.fail("breaker."+yamlName(reflect.TypeFor[Breaker](), pe.Field), fmt.Sprintf("%v: %s", pe.Value, pe.Problem))
	}
}

// yamlName is the yaml name of t's Go field, or the Go name if it has none.
func yamlName(t reflect.Type, field string) string {
	if f, ok := t.FieldByName(field); ok {
		if name := tagName(f); name != "" {
			return name
		}
	}
	return field
}

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }
