package breaker

import (
	"context"
	"fmt"
	"slices"
	"sync"
)

// MemStore is an in-memory Store for tests and the local simulation. Save
// honours the version condition exactly as the DynamoDB store does, and
// rows are copied in and out so callers never share a Leases slice.
type MemStore struct {
	mu   sync.Mutex
	rows map[string]Row
}

var _ Store = (*MemStore)(nil)

// NewMemStore returns an empty MemStore.
func NewMemStore() *MemStore {
	return &MemStore{rows: make(map[string]Row)}
}

// Load returns the row for key, or Row{Key: key} when there is none.
func (m *MemStore) Load(ctx context.Context, key string) (Row, error) {
	if err := ctx.Err(); err != nil {
		return Row{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.rows[key]
	if !ok {
		return Row{Key: key}, nil
	}
	r.Leases = slices.Clone(r.Leases)
	return r, nil
}

// Save stores next if the stored version is prevVersion (0: no row yet)
// and next.Version is prevVersion+1; a stale prevVersion is ErrConflict.
func (m *MemStore) Save(ctx context.Context, prevVersion int64, next Row) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if next.Key == "" {
		return ErrEmptyKey
	}
	if next.Version != prevVersion+1 {
		return fmt.Errorf("breaker: save %q: version %d must be prevVersion+1 (%d)",
			next.Key, next.Version, prevVersion+1)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if stored := m.rows[next.Key].Version; stored != prevVersion {
		return fmt.Errorf("save %q at version %d, stored %d: %w", next.Key, prevVersion, stored, ErrConflict)
	}
	next.Leases = slices.Clone(next.Leases)
	m.rows[next.Key] = next
	return nil
}
