package breaker

import (
	"math/rand/v2"
	"time"
)

// Defaults of a Breaker's options.
const (
	// DefaultMaxConflictRetries is how many times a change is retried after
	// losing the conditional write.
	DefaultMaxConflictRetries = 8
	// DefaultConflictBackoff caps the random pause before a retry.
	DefaultConflictBackoff = 20 * time.Millisecond
)

// Option configures a Breaker in New.
type Option func(*Breaker)

// WithClock sets where the Breaker reads the time; default time.Now. The
// local executor passes its virtual clock.
func WithClock(now func() time.Time) Option {
	return func(b *Breaker) { b.now = now }
}

// WithRandom sets the randomness for jitter and lease IDs; it must be
// safe for concurrent use (see NewRandom). Default: NewRandom with a random
// seed.
func WithRandom(rnd Random) Option {
	return func(b *Breaker) { b.rnd = rnd }
}

// WithSeed is WithRandom(NewRandom(seed)): reproducible decisions.
func WithSeed(seed uint64) Option {
	return WithRandom(NewRandom(seed))
}

// WithMaxConflictRetries bounds the retries after a lost conditional write;
// default DefaultMaxConflictRetries.
func WithMaxConflictRetries(n int) Option {
	return func(b *Breaker) { b.maxRetries = n }
}

// WithConflictBackoff caps the random pause before each retry, doubling
// from 1ms up to ceiling; 0 retries at once. Default DefaultConflictBackoff.
func WithConflictBackoff(ceiling time.Duration) Option {
	return func(b *Breaker) { b.backoff = ceiling }
}

// WithObserver is called after every saved state change, for a log line
// and a metric; it runs on the caller's goroutine, so it must be quick and
// safe for concurrent use.
func WithObserver(observe func(Transition)) Option {
	return func(b *Breaker) { b.observer = observe }
}

func defaultOptions(b *Breaker) {
	b.now = time.Now
	b.rnd = NewRandom(rand.Uint64())
	b.maxRetries = DefaultMaxConflictRetries
	b.backoff = DefaultConflictBackoff
}
