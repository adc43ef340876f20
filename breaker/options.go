package breaker

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/redrive/redrive/clock"
)

// Defaults of a Breaker's Options.
const (
	// DefaultMaxConflictRetries is how many times a change is retried after
	// losing the conditional write.
	DefaultMaxConflictRetries = 8
	// DefaultConflictBackoff caps the random pause before a retry.
	DefaultConflictBackoff = 20 * time.Millisecond
)

// Options tunes how a Breaker runs; its Policy says how it decides. The
// zero value means the defaults, each given with its field.
type Options struct {
	// Clock is where the Breaker reads the time. Default clock.Wall; a
	// local stack passes its executor's clock.
	Clock clock.Clock
	// Random is the randomness for jitter and lease IDs; it must be safe
	// for concurrent use. Default: NewRandom with a random seed; pass
	// NewRandom(seed) for reproducible decisions.
	Random Random
	// MaxConflictRetries bounds the retries after a lost conditional
	// write. Default DefaultMaxConflictRetries; it may not be negative.
	MaxConflictRetries int
	// ConflictBackoff caps the random pause before each retry, doubling
	// from 1ms up to it. Default DefaultConflictBackoff; a negative value
	// retries at once.
	ConflictBackoff time.Duration
	// Observer, if set, is called after every saved state change, for a
	// log line and a metric; it runs on the caller's goroutine, so it must
	// be quick and safe for concurrent use.
	Observer func(Transition)
	// ClosedRowMaxAge is how old a CLOSED (or FORCED_CLOSED) row Admit may
	// decide on without reading it again, when the decision would not
	// change it: the hot path of a healthy breaker then reads its row at
	// most once per ClosedRowMaxAge per Breaker (per warm function), so
	// one key takes thousands of deliveries a second under DynamoDB's
	// per-partition read limit. The price: a trip another function made
	// is noticed up to ClosedRowMaxAge late (the outcomes admitted on the
	// older row count under its generation, so none of them can close a
	// breaker that opened). Default 0: every Admit reads the row.
	ClosedRowMaxAge time.Duration
}

// withDefaults fills the zero fields.
func (o Options) withDefaults() Options {
	if o.Clock == nil {
		o.Clock = clock.Wall
	}
	if o.Random == nil {
		o.Random = NewRandom(rand.Uint64())
	}
	o.MaxConflictRetries = cmp.Or(o.MaxConflictRetries, DefaultMaxConflictRetries)
	o.ConflictBackoff = cmp.Or(o.ConflictBackoff, DefaultConflictBackoff)
	return o
}

// validate checks the fields that have no default for every value.
func (o Options) validate() error {
	if o.ClosedRowMaxAge < 0 {
		return fmt.Errorf("breaker: options: ClosedRowMaxAge %v: must not be negative", o.ClosedRowMaxAge)
	}
	if o.MaxConflictRetries < 0 {
		return fmt.Errorf("breaker: options: MaxConflictRetries %d: must not be negative", o.MaxConflictRetries)
	}
	return nil
}
