package simtarget

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// PoisonMarker makes a message poison for a demo consumer: a body that
// contains it fails with PoisonMessage (see BodyContains).
const PoisonMarker = "poison"

// Behaviour is how a demo consumer behaves from its start: healthy, down,
// or flaky (failing a share of the records), either for good or for a
// while and healthy after.
type Behaviour struct {
	// Health is the condition from the start.
	Health Health
	// ErrorRate is the share of records that fail while flaky, in (0, 1].
	ErrorRate float64
	// For is how long Health lasts on the target's clock; 0 means for
	// good.
	For time.Duration
}

// ParseBehaviour reads a --target value:
//
//	healthy           always healthy
//	down[:DURATION]   down (for DURATION on the target's clock, e.g. down:2m)
//	flaky:RATE[:DURATION]
//	                  fails the share RATE of records, e.g. flaky:0.3:5m
func ParseBehaviour(spec string) (Behaviour, error) {
	parts := strings.Split(spec, ":")
	var b Behaviour
	durationAt := 1
	switch parts[0] {
	case "healthy":
		if len(parts) > 1 {
			return b, fmt.Errorf("simtarget: target %q: healthy takes no arguments", spec)
		}
		return b, nil
	case "down":
		b.Health = Down
	case "flaky":
		b.Health = Degraded
		if len(parts) < 2 {
			return b, fmt.Errorf("simtarget: target %q: want flaky:RATE[:DURATION], e.g. flaky:0.3", spec)
		}
		rate, err := strconv.ParseFloat(parts[1], 64)
		if err != nil || !(rate > 0) || rate > 1 {
			return b, fmt.Errorf("simtarget: target %q: rate %q: want a number in (0, 1]", spec, parts[1])
		}
		b.ErrorRate = rate
		durationAt = 2
	default:
		return b, fmt.Errorf("simtarget: target %q: want healthy, down[:DURATION] or flaky:RATE[:DURATION]", spec)
	}
	switch {
	case len(parts) > durationAt+1:
		return b, fmt.Errorf("simtarget: target %q: too many ':'-separated parts", spec)
	case len(parts) == durationAt+1:
		d, err := time.ParseDuration(parts[durationAt])
		if err != nil || d <= 0 {
			return b, fmt.Errorf("simtarget: target %q: duration %q: want a positive duration, e.g. 2m", spec, parts[durationAt])
		}
		b.For = d
	}
	return b, nil
}

// Schedule is b as a simtarget schedule starting at start.
func (b Behaviour) Schedule(start time.Time) Schedule {
	if b.Health == Healthy {
		return nil
	}
	s := Schedule{{From: start, Health: b.Health, ErrorRate: b.ErrorRate}}
	if b.For > 0 {
		s = append(s, Phase{From: start.Add(b.For), Health: Healthy})
	}
	return s
}

// String is b as ParseBehaviour reads it.
func (b Behaviour) String() string {
	var s string
	switch b.Health {
	case Healthy:
		return "healthy"
	case Down:
		s = "down"
	default:
		s = "flaky:" + strconv.FormatFloat(b.ErrorRate, 'g', -1, 64)
	}
	if b.For > 0 {
		s += ":" + b.For.String()
	}
	return s
}
