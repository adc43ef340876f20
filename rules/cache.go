package rules

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/redrive/redrive/clock"
)

// CacheTTL is how long a Cache serves the rules it read before it reads
// them again: a change applies within this time of being made.
const CacheTTL = 30 * time.Second

// Loader reads the rules; *Store is one.
type Loader interface {
	Load(ctx context.Context) (Book, error)
}

var _ Loader = (*Store)(nil)

// Source gives the rules in force; *Cache is one.
type Source interface {
	Rules(ctx context.Context) (Set, error)
}

var _ Source = (*Cache)(nil)

// Cache serves the rules in force, reading them again once CacheTTL has
// passed. When a read fails it keeps serving the rules it has (logged),
// and tries again at the next call. It is safe for concurrent use.
type Cache struct {
	loader Loader
	clock  clock.Clock
	logger *slog.Logger

	mu     sync.Mutex
	set    Set
	loaded bool
	at     time.Time
}

// NewCache returns a Cache reading loader, on clk, logging failed reads to
// logger.
func NewCache(loader Loader, clk clock.Clock, logger *slog.Logger) *Cache {
	return &Cache{loader: loader, clock: clk, logger: logger}
}

// Rules returns the rules in force. The error is a failed read when no
// rules were ever read: the caller cannot tell whether a rule applies.
func (c *Cache) Rules(ctx context.Context) (Set, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.clock.Now()
	if c.loaded && now.Sub(c.at) < CacheTTL {
		return c.set, nil
	}
	b, err := c.loader.Load(ctx)
	if err != nil {
		if !c.loaded {
			return Set{}, err
		}
		c.logger.WarnContext(ctx, "could not read the routing rules; using the ones read before", "readAt", c.at, "error", err.Error())
		return c.set, nil
	}
	c.set, c.loaded, c.at = NewSet(b.Rules), true, now
	return c.set, nil
}
