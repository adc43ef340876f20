package breaker

import (
	"context"
	"errors"
)

// Store loads and conditionally saves breaker rows. Implementations must make
// Save atomic: it succeeds only when the stored version equals prev.Version
// (0 meaning "no row yet"), and it stores next with Version prev.Version+1.
type Store interface {
	// Load returns the row for key with a strongly consistent read; a
	// missing row is returned as Row{Key: key} (a new CLOSED breaker).
	Load(ctx context.Context, key string) (Row, error)
	// Save writes next on the condition that the stored version is
	// prevVersion; next.Version must be prevVersion+1. A failed condition
	// returns an error matching ErrConflict.
	Save(ctx context.Context, prevVersion int64, next Row) error
}

// ErrConflict reports that a conditional write lost a race: the row changed
// since it was loaded. Breaker retries it after a fresh load.
var ErrConflict = errors.New("breaker: conflicting write")
