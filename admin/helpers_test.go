package admin_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/admin"
	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/breaker/breakertest"
	"github.com/redrive/redrive/dynamo"
	"github.com/redrive/redrive/emulate/ddbtest"
	"github.com/redrive/redrive/test/roomtest"
)

// t0 is the tests' fixed starting time.
var t0 = time.Date(2026, 1, 2, 15, 0, 0, 0, time.UTC)

// policy is jitter-free so cooldowns in expected outputs are exact.
var policy = breaker.Policy{ConsecutiveFailures: 3, Jitter: -1, CooldownBase: time.Minute}

// fixture is an admin Handler over a real breaker on the real DynamoDB
// store (minidyn, or DDB_ENDPOINT), with a manual clock and a captured log.
type fixture struct {
	handler *admin.Handler
	breaker *breaker.Breaker
	store   breaker.Store
	clock   *breakertest.Clock
	log     *bytes.Buffer
	// launcher records the controllers the handler starts.
	launcher *roomtest.Launcher
	// client and table hold the rows, for writing one the store cannot read.
	client *dynamodb.Client
	table  string
}

// newFixture builds a fixture; wrap, when given, wraps the DynamoDB store
// (to inject failures).
func newFixture(t *testing.T, wrap func(breaker.Store) breaker.Store) fixture {
	t.Helper()
	client, backend := ddbtest.Client(t)
	table := ddbtest.CreateTable(t, client, func(ctx context.Context, name string) error {
		return dynamo.CreateTable(ctx, client, name)
	})
	t.Logf("backend %s, table %s", backend, table)
	var store breaker.Store = dynamo.New(client, table)
	if wrap != nil {
		store = wrap(store)
	}
	clock := breakertest.NewClock(t0)
	b, err := breaker.New(store, policy, breaker.Options{Clock: clock, Random: breaker.NewRandom(1), ConflictBackoff: -1, MaxConflictRetries: 2})
	require.NoError(t, err)
	var log bytes.Buffer
	h := admin.New(b, slog.New(slog.NewJSONHandler(&log, nil)))
	h.Clock = clock
	launcher := &roomtest.Launcher{}
	h.Launcher = launcher
	h.Repair = dynamo.New(client, table)
	return fixture{handler: h, breaker: b, store: store, clock: clock, log: &log, launcher: launcher,
		client: client, table: table}
}

// trip opens key's breaker with consecutive transient failures.
func (f fixture) trip(t *testing.T, key string) {
	t.Helper()
	for range policy.ConsecutiveFailures {
		d, err := f.breaker.Admit(t.Context(), key)
		require.NoError(t, err)
		require.Equal(t, breaker.Proceed, d.Verdict)
		_, err = f.breaker.Record(t.Context(), key, d.Row, d.Ticket, breaker.Transient)
		require.NoError(t, err)
	}
	row, err := f.breaker.Status(t.Context(), key)
	require.NoError(t, err)
	require.Equal(t, breaker.Open, row.State)
}

// problemsOf runs request, the JSON an operator starts the admin state
// machine with, and returns the problems of the *InvalidCommand it must
// fail with.
func (f fixture) problemsOf(t *testing.T, request string) []admin.Problem {
	t.Helper()
	var in admin.Input
	require.NoError(t, json.Unmarshal([]byte(`{"request": `+request+`, "executionName": "ops-1"}`), &in))
	_, err := f.handler.Handle(t.Context(), in)
	var invalid *admin.InvalidCommand
	require.ErrorAs(t, err, &invalid)
	return invalid.Problems
}

// command runs one request through the handler as the admin state machine
// sends it.
func (f fixture) command(t *testing.T, r admin.Request) (admin.Output, error) {
	t.Helper()
	return f.handler.Handle(t.Context(), admin.Input{Request: r, ExecutionName: "ops-1"})
}
