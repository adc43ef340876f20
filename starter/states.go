package starter

import (
	"context"
	"sync"
	"time"

	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/clock"
)

// StatesMaxAge is how old a breaker row the starter acts on may be: a
// trip is noticed by the starter at most this late (its messages then
// meet the breaker at their Attempt, which reads it afresh).
const StatesMaxAge = time.Second

// States is a cache of breaker rows, each read at most once per
// StatesMaxAge per warm function, so that one breaker key's arrivals cost
// one read a second of its row, not one per batch. It is safe for
// concurrent use.
type States struct {
	breaker Breaker
	clock   clock.Clock
	mu      sync.Mutex
	rows    map[string]cachedRow
}

// cachedRow is a row and when it was read.
type cachedRow struct {
	row  breaker.Row
	read time.Time
}

// NewStates returns a cache of b's rows on c.
func NewStates(b Breaker, c clock.Clock) *States {
	return &States{breaker: b, clock: c, rows: map[string]cachedRow{}}
}

// Row returns key's row, read again when the cached one is older than
// StatesMaxAge.
func (s *States) Row(ctx context.Context, key string) (breaker.Row, error) {
	now := s.clock.Now()
	s.mu.Lock()
	c, ok := s.rows[key]
	s.mu.Unlock()
	if ok && now.Sub(c.read) < StatesMaxAge {
		return c.row, nil
	}
	row, err := s.breaker.Status(ctx, key)
	if err != nil {
		return breaker.Row{}, err
	}
	s.mu.Lock()
	if len(s.rows) >= maxCachedRows {
		// Many keys: start afresh rather than grow without bound.
		clear(s.rows)
	}
	s.rows[key] = cachedRow{row: row, read: now}
	s.mu.Unlock()
	return row, nil
}

// maxCachedRows bounds how many keys' rows a warm function keeps.
const maxCachedRows = 10000
