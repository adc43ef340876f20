package admin

import (
	"math/bits"
	"time"

	"github.com/redrive/redrive/breaker"
)

// Summary is what an operator needs to see of a breaker row.
type Summary struct {
	// State is the breaker's mode, e.g. "FORCED_OPEN".
	State string `json:"state"`
	// Generation counts state changes; Version counts writes (0: no row).
	Generation int64 `json:"generation"`
	Version    int64 `json:"version"`
	// ForcedUntil ends a forced mode; absent means until released.
	ForcedUntil time.Time `json:"forcedUntil,omitzero"`
	// WindowFailures of the WindowCount most recent outcomes failed.
	WindowFailures int `json:"windowFailures"`
	WindowCount    int `json:"windowCount"`
	// ConsecutiveFailures counts transient failures since the last success.
	ConsecutiveFailures int `json:"consecutiveFailures"`
	// Trips counts trips since the last close (it drives the cooldown).
	Trips int `json:"trips"`
	// TotalTrips counts every trip since the breaker was made; LastTripAt
	// and LastTripCause say when and why it last tripped, e.g. "5
	// consecutive failures". A close clears none of them.
	TotalTrips    int64     `json:"totalTrips"`
	LastTripAt    time.Time `json:"lastTripAt,omitzero"`
	LastTripCause string    `json:"lastTripCause,omitempty"`
	// OpenUntil ends an OPEN cooldown.
	OpenUntil time.Time `json:"openUntil,omitzero"`
	// ChangedAt and Cause say when and why the state last changed.
	ChangedAt time.Time `json:"changedAt,omitzero"`
	Cause     string    `json:"cause,omitempty"`
	// Actor and Reason are from the last manual command.
	Actor  string `json:"actor,omitempty"`
	Reason string `json:"reason,omitempty"`
}

// Summarize returns r's summary. The window's failure bits are stored
// masked to the policy's window size, so counting them needs no policy.
func Summarize(r breaker.Row) Summary {
	return Summary{
		State:               r.State.String(),
		Generation:          r.Generation,
		Version:             r.Version,
		ForcedUntil:         r.ForcedUntil,
		WindowFailures:      bits.OnesCount64(r.Window.Failures),
		WindowCount:         r.Window.Count,
		ConsecutiveFailures: r.ConsecutiveFailures,
		Trips:               r.Trips,
		TotalTrips:          r.Totals.Trips,
		LastTripAt:          r.LastTripAt,
		LastTripCause:       r.LastTripCause,
		OpenUntil:           r.OpenUntil,
		ChangedAt:           r.ChangedAt,
		Cause:               r.Cause,
		Actor:               r.Actor,
		Reason:              r.Reason,
	}
}
