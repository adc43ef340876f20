package dynamo_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/dynamo"
	"github.com/redrive/redrive/emulate/ddbtest"
)

// env is a store on a fresh table of the test backend, with the raw client
// for writing and inspecting items directly.
type env struct {
	store   *dynamo.Store
	client  *dynamodb.Client
	table   string
	backend string
}

func newEnv(tb testing.TB) env {
	tb.Helper()
	client, backend := ddbtest.Client(tb)
	table := ddbtest.CreateTable(tb, client, func(ctx context.Context, name string) error {
		return dynamo.CreateTable(ctx, client, name)
	})
	tb.Logf("backend %s, table %s", backend, table)
	return env{store: dynamo.New(client, table), client: client, table: table, backend: backend}
}

// fullRow has every field of a Row set to a distinct non-zero value.
func fullRow(key string) breaker.Row {
	t0 := time.Date(2025, 3, 14, 15, 9, 26, 535897932, time.UTC)
	return breaker.Row{
		Key:                 key,
		State:               breaker.ForcedOpen,
		Version:             1,
		Generation:          7,
		Window:              breaker.Window{Failures: 1<<63 | 1<<40 | 5, Count: 64},
		ConsecutiveFailures: 3,
		Trips:               2,
		LastTripAt:          t0.Add(-time.Minute),
		LastTripCause:       "3 consecutive failures",
		OpenUntil:           t0.Add(90 * time.Second),
		ClosedAt:            t0.Add(-time.Hour),
		ThrottledUntil:      t0.Add(time.Second),
		ChangedAt:           t0,
		Cause:               "operator",
		Leases: []breaker.Lease{
			{ID: "canary-1", Expires: t0.Add(2 * time.Minute)},
			{ID: "canary-2", Expires: t0.Add(2*time.Minute + time.Nanosecond)},
		},
		CanarySuccesses: 1,
		ForcedUntil:     t0.Add(24 * time.Hour),
		Actor:           "alice@example.com",
		Reason:          "downstream maintenance, ticket OPS-42",
		Totals:          breaker.Totals{Successes: 11, Failures: 22, Poison: 33, Stale: 44, Trips: 55, Closes: 66, Throttles: 77},
		Recorded:        []string{"o-1#1#1", "o-2#3-m0a1b2c3d#2"},
	}
}

// maxIncrementAttempts bounds increment so that a store that never lets a
// write through fails the test instead of hanging it.
const maxIncrementAttempts = 10_000

// increment adds one failure to key's totals the way a breaker writes: load,
// change, conditional save, and again after a fresh load on conflict. It
// returns the version it wrote and how many conflicts it met on the way.
func increment(ctx context.Context, store breaker.Store, key string) (version int64, conflicts int, err error) {
	for range maxIncrementAttempts {
		row, err := store.Load(ctx, key)
		if err != nil {
			return 0, conflicts, err
		}
		prev := row.Version
		row.Version++
		row.Totals.Failures++
		err = store.Save(ctx, prev, row)
		if errors.Is(err, breaker.ErrConflict) {
			conflicts++
			continue
		}
		if err != nil {
			return 0, conflicts, fmt.Errorf("increment: %w", err)
		}
		return row.Version, conflicts, nil
	}
	return 0, conflicts, fmt.Errorf("increment %q: no write after %d conflicts", key, conflicts)
}
