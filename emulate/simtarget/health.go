package simtarget

import (
	"fmt"
	"time"
)

// Health is the condition of the simulated downstream.
type Health int

// The conditions a Phase can put the target in.
const (
	// Healthy accepts every record (within capacity).
	Healthy Health = iota
	// Down fails every invocation with *Unavailable.
	Down
	// Degraded fails each record with *Unavailable with the phase's
	// ErrorRate, drawn from the target's seeded randomness.
	Degraded
)

var healthNames = [...]string{"HEALTHY", "DOWN", "DEGRADED"}

// String returns the health's name, e.g. "DOWN".
func (h Health) String() string {
	if h < 0 || int(h) >= len(healthNames) {
		return fmt.Sprintf("Health(%d)", int(h))
	}
	return healthNames[h]
}

// Phase is one stretch of the health schedule: from From until the next
// phase's From, the target is in Health.
type Phase struct {
	// From is when the phase starts (executor time).
	From time.Time
	// Health is the condition during the phase.
	Health Health
	// ErrorRate is the share of records that fail while Degraded, in
	// (0, 1]; it must be 0 for the other conditions.
	ErrorRate float64
}

// Schedule is a target's health over time: phases in increasing order of
// From. Before the first phase, and with no phases, the target is healthy.
type Schedule []Phase

// Validate reports the first phase that is out of order or inconsistent,
// by its index.
func (s Schedule) Validate() error {
	for i, p := range s {
		switch {
		case p.From.IsZero():
			return fmt.Errorf("simtarget: schedule phase %d: From is zero", i)
		case i > 0 && !p.From.After(s[i-1].From):
			return fmt.Errorf("simtarget: schedule phase %d: From %s is not after phase %d's %s",
				i, p.From.Format(time.RFC3339Nano), i-1, s[i-1].From.Format(time.RFC3339Nano))
		case p.Health < Healthy || p.Health > Degraded:
			return fmt.Errorf("simtarget: schedule phase %d: unknown health %d", i, int(p.Health))
		case p.Health == Degraded && (!(p.ErrorRate > 0) || p.ErrorRate > 1):
			return fmt.Errorf("simtarget: schedule phase %d: DEGRADED needs an ErrorRate in (0, 1], got %v", i, p.ErrorRate)
		case p.Health != Degraded && p.ErrorRate != 0:
			return fmt.Errorf("simtarget: schedule phase %d: ErrorRate %v is only for DEGRADED, not %s", i, p.ErrorRate, p.Health)
		}
	}
	return nil
}

// At returns the phase in force at t; a healthy phase before the first.
func (s Schedule) At(t time.Time) Phase {
	current := Phase{Health: Healthy}
	for _, p := range s {
		if p.From.After(t) {
			break
		}
		current = p
	}
	return current
}

// Outage is the schedule of a target that is down from start for d, then
// healthy.
func Outage(start time.Time, d time.Duration) Schedule {
	return Schedule{{From: start, Health: Down}, {From: start.Add(d), Health: Healthy}}
}
