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
	EnvDeliveryLease    = "DELIVERY_LEASE"
	EnvUnknownOutcome   = "UNKNOWN_OUTCOME"
	EnvTableRetryBudget = "TABLE_RETRY_BUDGET"
)

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
	// MaxDeliveryLease is the longest DELIVERY_LEASE: a try whose record
	// another invocation holds waits in the room until the lease ends.
	MaxDeliveryLease = 16 * time.Minute
	// DefaultFunctionTimeout is the attempt function's timeout, as
	// deployed by default: the Attempt's own deadline, within which it
	// delivers (see recordMargin) and records.
	DefaultFunctionTimeout = 60 * time.Second
)

// A delivery try waits within its execution (NextWait) only while it is
// short: at most MaxInlineWait, and only in the first InlineCycles Attempt
// cycles of an execution. Any other wait is the document's, in the room.
// MaxInlineWait is about where waiting in the room gets cheaper: an
// Express execution bills $1.04 per million for every second it waits (64
// MB at $0.00001667 per GB-second), a pass through the room about $4.4 per
// million (the Queue task's invocation, five DynamoDB writes with the
// index's, and the next execution's start).
const (
	MaxInlineWait = 5 * time.Second
	InlineCycles  = 2
)

// ExecutionBudget is how long after its execution started an Attempt may
// still call the consumer: an Attempt later than that (retries, a slow
// first try) sends the document to the room instead, and a delivery's
// deadline never passes it. It leaves an Express execution's five minutes
// room for the Queue or Park state after it (each at most about 35 s with
// its retries) and a margin.
const ExecutionBudget = 3*time.Minute + 30*time.Second

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
}

// WithDefaults returns c with every zero field set to its default.
func (c Config) WithDefaults() Config {
	c.MaxAttempts = cmp.Or(c.MaxAttempts, DefaultMaxAttempts)
	c.BackoffBase = cmp.Or(c.BackoffBase, DefaultBackoffBase)
	c.BackoffMax = cmp.Or(c.BackoffMax, DefaultBackoffMax)
	c.DeliveryLease = cmp.Or(c.DeliveryLease, DefaultDeliveryLease)
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
	check(c.DeliveryLease < time.Second || c.DeliveryLease > MaxDeliveryLease, EnvDeliveryLease,
		fmt.Sprintf("must be between 1s and %s", MaxDeliveryLease))
	check(c.TableRetryBudget < time.Minute, EnvTableRetryBudget, "must be at least 1m")
	check(c.UnknownOutcome != Redeliver && c.UnknownOutcome != Park, EnvUnknownOutcome,
		fmt.Sprintf("%q, want %q (at least once) or %q (at most once)", c.UnknownOutcome, Redeliver, Park))
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
