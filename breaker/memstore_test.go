package breaker_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/breaker"
)

func TestMemStore(t *testing.T) {
	ctx := context.Background()
	row := func(version int64) breaker.Row {
		return breaker.Row{Key: "k", Version: version, Generation: version,
			Leases: []breaker.Lease{{ID: "a", Expires: t0.Add(time.Minute)}}}
	}

	t.Run("a missing row is a new closed breaker", func(t *testing.T) {
		r, err := breaker.NewMemStore().Load(ctx, "k")
		require.NoError(t, err)
		assert.Equal(t, breaker.Row{Key: "k"}, r)
	})

	t.Run("save is conditional on the version", func(t *testing.T) {
		s := breaker.NewMemStore()
		require.NoError(t, s.Save(ctx, 0, row(1)))
		assert.ErrorIs(t, s.Save(ctx, 0, row(1)), breaker.ErrConflict, "create when the row exists")
		require.NoError(t, s.Save(ctx, 1, row(2)))
		assert.ErrorIs(t, s.Save(ctx, 1, row(2)), breaker.ErrConflict, "a stale version")
		assert.ErrorIs(t, s.Save(ctx, 5, row(6)), breaker.ErrConflict, "a version from the future")
		r, err := s.Load(ctx, "k")
		require.NoError(t, err)
		assert.Equal(t, row(2), r)
	})

	t.Run("the next version must follow the previous", func(t *testing.T) {
		err := breaker.NewMemStore().Save(ctx, 0, row(3))
		require.Error(t, err)
		assert.NotErrorIs(t, err, breaker.ErrConflict)
		assert.EqualError(t, err, `breaker: save "k": version 3 must be prevVersion+1 (1)`)
	})

	t.Run("a row without a key is refused", func(t *testing.T) {
		assert.ErrorIs(t, breaker.NewMemStore().Save(ctx, 0, breaker.Row{Version: 1}), breaker.ErrEmptyKey)
	})

	t.Run("rows are copied in and out", func(t *testing.T) {
		s := breaker.NewMemStore()
		in := row(1)
		require.NoError(t, s.Save(ctx, 0, in))
		in.Leases[0].ID = "changed after save"
		out, err := s.Load(ctx, "k")
		require.NoError(t, err)
		out.Leases[0].ID = "changed after load"
		again, err := s.Load(ctx, "k")
		require.NoError(t, err)
		assert.Equal(t, "a", again.Leases[0].ID)
	})

	t.Run("a cancelled context is refused", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		s := breaker.NewMemStore()
		_, err := s.Load(cctx, "k")
		assert.ErrorIs(t, err, context.Canceled)
		assert.ErrorIs(t, s.Save(cctx, 0, row(1)), context.Canceled)
	})
}
