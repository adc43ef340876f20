package dynamo_test

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/dynamo"
)

func TestRoundTrip(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	halfOpen := fullRow("half-open")
	halfOpen.State = breaker.HalfOpen
	halfOpen.ForcedUntil, halfOpen.Actor, halfOpen.Reason = time.Time{}, "", ""
	for name, row := range map[string]breaker.Row{
		"fully populated forced open": fullRow("full"),
		"half open with leases":       halfOpen,
		"zero row":                    {Key: "zero", Version: 1},
		"key with separators":         {Key: "tenant#7/orders v2", State: breaker.Open, Version: 1},
	} {
		t.Run(name, func(t *testing.T) {
			require.NoError(t, e.store.Save(ctx, 0, row))
			got, err := e.store.Load(ctx, row.Key)
			require.NoError(t, err)
			assert.Equal(t, row, got)
		})
	}
}

func TestLoadMissingRowIsClosed(t *testing.T) {
	e := newEnv(t)
	got, err := e.store.Load(t.Context(), "never-written")
	require.NoError(t, err)
	assert.Equal(t, breaker.Row{Key: "never-written"}, got)
	assert.Equal(t, breaker.Closed, got.State)
}

func TestVersionSequence(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	full := fullRow("seq")
	// Each write replaces the whole row: attributes of an earlier write that
	// are zero now (times, actor, leases) must not survive.
	steps := []breaker.Row{
		{Key: "seq", State: breaker.Open, OpenUntil: full.OpenUntil},
		full,
		{Key: "seq", State: breaker.Closed, ClosedAt: full.ClosedAt},
		{Key: "seq"},
		{Key: "seq", State: breaker.HalfOpen, Leases: full.Leases[:1]},
	}
	for i, row := range steps {
		row.Version = int64(i + 1)
		require.NoError(t, e.store.Save(ctx, int64(i), row), "save version %d", row.Version)
		got, err := e.store.Load(ctx, "seq")
		require.NoError(t, err)
		assert.Equal(t, row, got, "after saving version %d", row.Version)
	}
}

func TestSaveConflicts(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	tests := []struct {
		name string
		prev int64
	}{
		{name: "new row where one exists", prev: 0},
		{name: "stale version", prev: 1},
		{name: "version from the future", prev: 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The stored row is at version 2 in every case.
			existing := fullRow(tt.name)
			require.NoError(t, e.store.Save(ctx, 0, existing))
			existing.Version = 2
			require.NoError(t, e.store.Save(ctx, 1, existing))

			next := breaker.Row{Key: tt.name, State: breaker.Open, Version: tt.prev + 1}
			err := e.store.Save(ctx, tt.prev, next)
			require.Error(t, err)
			assert.ErrorIs(t, err, breaker.ErrConflict)
			assert.Contains(t, err.Error(), `"`+tt.name+`"`)
			assert.Contains(t, err.Error(), "version "+strconv.FormatInt(tt.prev, 10))

			got, err := e.store.Load(ctx, tt.name)
			require.NoError(t, err)
			assert.Equal(t, existing, got, "a failed save must leave the row alone")
		})
	}
}

func TestSaveToMissingRowWithVersionConflicts(t *testing.T) {
	e := newEnv(t)
	err := e.store.Save(t.Context(), 3, breaker.Row{Key: "absent", Version: 4})
	assert.ErrorIs(t, err, breaker.ErrConflict)
}

func TestInvalidCallsAreRefused(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	tests := []struct {
		name    string
		prev    int64
		row     breaker.Row
		message string
	}{
		{name: "version not prev+1", prev: 0, row: breaker.Row{Key: "a", Version: 2}, message: "next version 2, want 1"},
		{name: "version unchanged", prev: 3, row: breaker.Row{Key: "a", Version: 3}, message: "next version 3, want 4"},
		{name: "negative prev", prev: -1, row: breaker.Row{Key: "a", Version: 0}, message: "negative previous version"},
		{name: "empty key", prev: 0, row: breaker.Row{Version: 1}, message: "empty key"},
		{name: "state with no name", prev: 0, row: breaker.Row{Key: "a", Version: 1, State: breaker.State(42)}, message: "State(42)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := e.store.Save(ctx, tt.prev, tt.row)
			require.Error(t, err)
			assert.ErrorIs(t, err, dynamo.ErrInvalidRow)
			assert.NotErrorIs(t, err, breaker.ErrConflict)
			assert.Contains(t, err.Error(), tt.message)
		})
	}
	got, err := e.store.Load(ctx, "a")
	require.NoError(t, err)
	assert.Equal(t, breaker.Row{Key: "a"}, got, "refused saves must write nothing")

	_, err = e.store.Load(ctx, "")
	assert.ErrorIs(t, err, dynamo.ErrInvalidRow)
}

// failingAPI answers every call with err, as DynamoDB does when throttling
// or unreachable.
type failingAPI struct{ err error }

func (f failingAPI) GetItem(context.Context, *dynamodb.GetItemInput, ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	return nil, f.err
}

func (f failingAPI) UpdateItem(context.Context, *dynamodb.UpdateItemInput, ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	return nil, f.err
}

func (f failingAPI) PutItem(context.Context, *dynamodb.PutItemInput, ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	return nil, f.err
}

func TestServiceErrorsAreWrappedNotConflicts(t *testing.T) {
	cause := errors.New("connection refused")
	store := dynamo.New(failingAPI{err: cause}, "breakers")
	ctx := t.Context()

	_, err := store.Load(ctx, "orders")
	require.Error(t, err)
	assert.ErrorIs(t, err, cause)
	assert.Contains(t, err.Error(), `load breaker "orders" from table "breakers"`)

	err = store.Save(ctx, 0, breaker.Row{Key: "orders", Version: 1})
	require.Error(t, err)
	assert.ErrorIs(t, err, cause)
	assert.NotErrorIs(t, err, breaker.ErrConflict)
	assert.Contains(t, err.Error(), `save breaker "orders" over version 0`)
}
