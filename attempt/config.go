package attempt

import (
	"cmp"
	"fmt"
	"time"

	"github.com/redrive/redrive/lambda/config"
)

// The environment variables Config is read from.
const (
	EnvMaxAttempts      = "MAX_ATTEMPTS"
	EnvBackoffBase      = "BACKOFF_BASE"
	EnvBackoffMax       = "BACKOFF_MAX"
	EnvMaxCycles        = "MAX_CYCLES"
	EnvDeliveryLease    = "DELIVERY_LEASE"
	EnvUnknownOutcome   = "UNKNOWN_OUTCOME"
	EnvTableRetryBudget = "TABLE_RETRY_BUDGET"
)

// The environment variables of the room's timeouts, read with the room's
// settings (lambda/wire) by every function that routes to the room.
const (
	EnvRoomTimeout = "ROOM_TIMEOUT"
	EnvRoomMaxWait = "ROOM_MAX_WAIT"
)

// maxTaskTimeout is Step Functions' limit on a task's TimeoutSeconds.
const maxTaskTimeout = 365 * 24 * time.Hour

// What a delivery whose outcome is unknown does (UNKNOWN_OUTCOME): the
// Attempt that made it died while the consumer call was in flight, and
// the next one takes its delivery record over when its lease ends.
const (
	// Redeliver delivers it again: at least once, for consumers that
	// deduplicate on the idempotency key (the lineage's origin id).
	Redeliver = "redeliver"
	// Park parks it with reason "unknown outcome": at most once; a person
	// decides.
	Park = "park"
)

// Defaults of Config's fields.
const (
	DefaultMaxAttempts   = 5
	DefaultBackoffBase   = 30 * time.Second
	DefaultBackoffMax    = 15 * time.Minute
	DefaultDeliveryLease = 5 * time.Minute
	// DefaultTableRetryBudget is how long a message waits out a table that
	// keeps failing before it is parked.
	DefaultTableRetryBudget = 6 * time.Hour
	// MaxDeliveryLease is the longest DELIVERY_LEASE: the redrive state
	// machine retries DeliveryInProgress for 963 s in all, and a lease must
	// end before those retries run out, or a message whose Attempt died
	// mid-delivery would be parked instead of taken over.
	MaxDeliveryLease = 16 * time.Minute
	// DefaultFunctionTimeout is the attempt function's timeout, as
	// deployed by default: the Attempt's own deadline, within which it
	// delivers (see recordMargin) and records.
	DefaultFunctionTimeout = 60 * time.Second
	// DefaultRoomTimeout bounds the stay of a room's watcher: far above
	// the probe cadence (CooldownMax), so a release, not the timeout,
	// normally ends the wait; each timeout costs one more Attempt cycle.
	DefaultRoomTimeout = time.Hour
	// DefaultRoomMaxWait bounds the stay of every other message in the
	// room: above the outages and drains a room is meant for, so that
	// they cost no cycles.
	DefaultRoomMaxWait = 6 * time.Hour
	// DefaultMaxCycles keeps an execution's history far below Step
	// Functions' 25,000-event limit. One cycle costs at most 13 events: the
	// Attempt Task state 5 (TaskStateEntered, TaskScheduled, TaskStarted,
	// TaskSucceeded, TaskStateExited), the Route Choice 2, then either the
	// Cooldown Wait 2 or the WaitingRoom Task 6 (TaskSubmitted, and
	// TaskSucceeded or TaskTimedOut). 500 cycles are at most 6,500 events,
	// leaving room for the 3 events (TaskScheduled, TaskStarted,
	// TaskFailed) each Lambda retry adds; at a 15-minute cooldown they also
	// span more than five days.
	DefaultMaxCycles = 500
	// MaxMaxCycles is the largest MAX_CYCLES allowed: at most 19,500 events
	// of cycles, still 5,500 short of the limit.
	MaxMaxCycles = 1500
)

// Config tunes the per-message retry. The zero value of a field means its
// default.
type Config struct {
	// MaxAttempts is how many delivery tries a message gets per DLQ round
	// trip before it is parked as exhausted. MAX_ATTEMPTS, default 5.
	MaxAttempts int
	// BackoffBase is the wait after a message's first transient failure;
	// it doubles per try (BackoffBase * 2^(tries-1)). BACKOFF_BASE,
	// default 30s.
	BackoffBase time.Duration
	// BackoffMax caps the per-message backoff. BACKOFF_MAX, default 15m.
	BackoffMax time.Duration
	// MaxCycles is how many Attempt cycles one execution runs before it
	// continues as a new execution. MAX_CYCLES, default DefaultMaxCycles,
	// at most MaxMaxCycles.
	MaxCycles int
	// DeliveryLease is how long a delivery record stays IN_PROGRESS before
	// another invocation may take it over; it must exceed the Attempt
	// function's timeout. DELIVERY_LEASE, default 5m.
	DeliveryLease time.Duration
	// TableRetryBudget is how long a message waits out a table that keeps
	// failing its Attempt (TableUnavailable) before it is parked with that
	// reason. TABLE_RETRY_BUDGET, default 6h, at least 1m.
	TableRetryBudget time.Duration
	// UnknownOutcome is what a delivery whose outcome is unknown does:
	// Redeliver or Park. UNKNOWN_OUTCOME, default Redeliver.
	UnknownOutcome string
	// RoomTimeout bounds the stay of a room's watcher (room.Watch): one
	// message at a time per room that attempts again after it, so a room
	// whose releases stopped while its watcher waits is back at its
	// breaker within that. ROOM_TIMEOUT (read with the room's settings),
	// default 1h, at most 1 year (Step Functions' task timeout limit).
	RoomTimeout time.Duration
	// RoomMaxWait bounds the stay of every other message in the room.
	// ROOM_MAX_WAIT (read with the room's settings), default the larger of
	// 6h and RoomTimeout, between RoomTimeout and 1 year.
	RoomMaxWait time.Duration
}

// WithDefaults returns c with every zero field set to its default.
func (c Config) WithDefaults() Config {
	c.MaxAttempts = cmp.Or(c.MaxAttempts, DefaultMaxAttempts)
	c.MaxCycles = cmp.Or(c.MaxCycles, DefaultMaxCycles)
	c.BackoffBase = cmp.Or(c.BackoffBase, DefaultBackoffBase)
	c.BackoffMax = cmp.Or(c.BackoffMax, DefaultBackoffMax)
	c.DeliveryLease = cmp.Or(c.DeliveryLease, DefaultDeliveryLease)
	c.RoomTimeout = cmp.Or(c.RoomTimeout, DefaultRoomTimeout)
	c.RoomMaxWait = cmp.Or(c.RoomMaxWait, max(DefaultRoomMaxWait, c.RoomTimeout))
	c.UnknownOutcome = cmp.Or(c.UnknownOutcome, Redeliver)
	c.TableRetryBudget = cmp.Or(c.TableRetryBudget, DefaultTableRetryBudget)
	return c
}

// Validate reports every field of c (defaults applied) that is out of
// range, each by its variable; nil when c is usable.
func (c Config) Validate() error {
	return config.Join(c.problems())
}

// problems lists what is wrong with c (defaults applied), by variable.
func (c Config) problems() []*config.VarError {
	c = c.WithDefaults()
	var out []*config.VarError
	check := func(bad bool, name, problem string) {
		if bad {
			out = append(out, &config.VarError{Name: name, Problem: problem})
		}
	}
	check(c.MaxAttempts < 1, EnvMaxAttempts, "must be at least 1")
	check(c.BackoffBase < time.Second, EnvBackoffBase, "must be at least 1s (a Wait state counts whole seconds)")
	check(c.BackoffMax < c.BackoffBase, EnvBackoffMax, fmt.Sprintf("must be at least %s (%s)", EnvBackoffBase, c.BackoffBase))
	check(c.MaxCycles < 1 || c.MaxCycles > MaxMaxCycles, EnvMaxCycles,
		fmt.Sprintf("must be between 1 and %d (up to 13 history events per cycle; the limit is 25,000)", MaxMaxCycles))
	check(c.DeliveryLease < time.Second || c.DeliveryLease > MaxDeliveryLease, EnvDeliveryLease,
		fmt.Sprintf("must be between 1s and %s: the state machine retries DeliveryInProgress for 16m3s, and a lease must end before that", MaxDeliveryLease))
	check(c.TableRetryBudget < time.Minute, EnvTableRetryBudget, "must be at least 1m")
	check(c.UnknownOutcome != Redeliver && c.UnknownOutcome != Park, EnvUnknownOutcome,
		fmt.Sprintf("%q, want %q (at least once) or %q (at most once)", c.UnknownOutcome, Redeliver, Park))
	badTimeout := c.RoomTimeout < time.Minute || c.RoomTimeout > maxTaskTimeout
	check(badTimeout, EnvRoomTimeout, "must be between 1m and 8760h (a year, Step Functions' task timeout limit)")
	check(!badTimeout && (c.RoomMaxWait < c.RoomTimeout || c.RoomMaxWait > maxTaskTimeout), EnvRoomMaxWait,
		fmt.Sprintf("must be between %s (%s) and 8760h (a year, Step Functions' task timeout limit)", EnvRoomTimeout, c.RoomTimeout))
	return out
}

// ConfigFromEnv reads a Config through getenv (unset: the default); the
// error names every bad variable.
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	env := config.From(getenv)
	c := Config{
		MaxAttempts:      env.PositiveInt(EnvMaxAttempts, DefaultMaxAttempts),
		BackoffBase:      env.PositiveDuration(EnvBackoffBase, DefaultBackoffBase),
		BackoffMax:       env.PositiveDuration(EnvBackoffMax, DefaultBackoffMax),
		MaxCycles:        env.PositiveInt(EnvMaxCycles, DefaultMaxCycles),
		DeliveryLease:    env.PositiveDuration(EnvDeliveryLease, DefaultDeliveryLease),
		UnknownOutcome:   env.String(EnvUnknownOutcome, Redeliver),
		TableRetryBudget: env.PositiveDuration(EnvTableRetryBudget, DefaultTableRetryBudget),
	}
	if env.Err() != nil {
		return c, env.Err() // ranges are checked on parsed values only
	}
	env.FailAll(c.problems())
	return c, env.Err()
}
