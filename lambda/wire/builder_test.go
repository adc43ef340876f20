package wire_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/admin"
	"github.com/redrive/redrive/attempt"
	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/breaker/breakertest"
	"github.com/redrive/redrive/delivery/target"
	"github.com/redrive/redrive/lambda/telemetry"
	"github.com/redrive/redrive/lambda/wire"
	"github.com/redrive/redrive/message"
	"github.com/redrive/redrive/park"
	"github.com/redrive/redrive/park/lotindex"
	"github.com/redrive/redrive/room"
	"github.com/redrive/redrive/room/pace"
	"github.com/redrive/redrive/room/release"
	"github.com/redrive/redrive/starter"
)

// t0 is where the test clocks start.
var t0 = time.Date(2026, 5, 4, 10, 0, 0, 0, time.UTC)

// tripOnFirst is a jitter-free policy that trips on one transient failure.
var tripOnFirst = breaker.Policy{ConsecutiveFailures: 1, FailureRateThreshold: -1, Jitter: -1}

// document is a new execution's document for a message on breaker key.
func document(t *testing.T, id, key string) json.RawMessage {
	t.Helper()
	doc, err := message.NewDocument(message.Message{ID: id, Body: `{"order":42}`}, t0)
	require.NoError(t, err)
	doc.BreakerKey = key
	raw, err := json.Marshal(doc)
	require.NoError(t, err)
	return raw
}

func TestAttemptAndAdminShareTheDepsButNotTheStoreWrapper(t *testing.T) {
	ddb, table := newTable(t)
	clock := breakertest.NewClock(t0)
	lambda := &consumer{}
	var logs, metrics bytes.Buffer
	var wrapped *countingStore
	var changes []breaker.Transition
	sfnClient := &startRecorder{}
	b := wire.NewBuilder(wire.Deps{
		Clients:     wire.Clients{DynamoDB: ddb, SFN: sfnClient, Delivery: target.Clients{Lambda: lambda}},
		Clock:       clock,
		Logger:      telemetry.JSONLogger(&logs),
		MetricLines: &metrics,
		Seed:        7,
		Observe:     func(t breaker.Transition) { changes = append(changes, t) },
		WrapStore: func(s breaker.Store) breaker.Store {
			wrapped = &countingStore{Store: s}
			return wrapped
		},
	})
	attemptH, err := b.Attempt(wire.AttemptConfig{
		Table: table, Policy: tripOnFirst,
		Target: target.Config{Kind: target.KindLambda, Function: "orders-consumer"},
		Room:   roomConfig(table),
	})
	require.NoError(t, err)
	adminH, err := b.Admin(admin.Config{Table: table}, roomConfig(table))
	require.NoError(t, err)
	require.NotNil(t, wrapped, "the attempt's store is wrapped")
	ctx := context.Background()

	out, err := attemptH.Handle(ctx, document(t, "m-1", "orders"))
	require.NoError(t, err)
	assert.Equal(t, message.NextDone, out.Next)
	assert.Equal(t, []string{"orders-consumer"}, lambda.calls, "delivered through the Delivery client")
	assert.Positive(t, wrapped.loads.Load(), "admitted through the wrapped store")

	lambda.failing = true
	out, err = attemptH.Handle(ctx, document(t, "m-2", "orders"))
	require.NoError(t, err)
	assert.Equal(t, message.NextRoom, out.Next, "the trip sends it to the room")
	require.Len(t, changes, 1, "the trip reached Observe")
	assert.Equal(t, breaker.Open, changes[0].To)
	assert.Equal(t, t0, changes[0].At, "the breaker reads Deps.Clock")
	assert.Empty(t, sfnClient.started(), "nothing to release while OPEN")

	loads := wrapped.loads.Load()
	clock.Advance(time.Hour)
	res, err := adminH.Handle(ctx, admin.Input{Request: admin.Request{Command: "reset", Breaker: "orders", Reason: "test"}, ExecutionName: "op"})
	require.NoError(t, err)
	assert.True(t, res.Changed)
	assert.Equal(t, loads, wrapped.loads.Load(), "the admin's store is not wrapped")
	require.Len(t, changes, 2, "the admin's breaker reports to Observe too")
	assert.Equal(t, breaker.Closed, changes[1].To)
	assert.Equal(t, t0.Add(time.Hour), changes[1].At)
	assert.Equal(t, []startedExecution{{Machine: releaseARN, Name: "release-orders-a1"}}, sfnClient.started(),
		"the reset starts the breaker's controller, on the room's settings and the shared SFN client")

	// The failure that trips routes m-2 to the room (Queued); no message
	// waits out the cooldown in its execution and the Attempt writes no
	// room gauges: the controller does both.
	assert.Equal(t, []string{"Delivered", telemetry.StateMetric, "Trips", "Transient", "Queued", telemetry.StateMetric},
		metricNames(t, &metrics), "one metric writer for both handlers")
	assert.Contains(t, logs.String(), `"breaker state change"`)
	assert.Len(t, b.Breakers(), 2)
}

func TestSeedReplaysAndSeparatesTheRandomness(t *testing.T) {
	backoff := func(seed uint64) []float64 {
		b := wire.NewBuilder(wire.Deps{
			Clients: wire.Clients{DynamoDB: unusedDynamoDB{}, SFN: unusedSFN{}, Delivery: target.Clients{Lambda: &consumer{}}},
			Seed:    seed, MetricLines: &bytes.Buffer{}, Logger: telemetry.JSONLogger(&bytes.Buffer{}),
		})
		h, err := b.Attempt(wire.AttemptConfig{
			Table: "t", Target: target.Config{Kind: target.KindLambda, Function: "c"}, Room: roomConfig("t"),
		})
		require.NoError(t, err)
		out := make([]float64, 4)
		for i := range out {
			out[i] = h.Rand.Float64()
		}
		return out
	}
	assert.Equal(t, backoff(7), backoff(7), "one seed, one sequence")
	assert.NotEqual(t, backoff(7), backoff(8))
	assert.NotEqual(t, backoff(0), backoff(0), "seed 0 is a random seed")
	assert.Equal(t, backoff(7), breakerSequence(9), "the backoff's sequence is the seed's third (offset 2)")
}

// breakerSequence is breaker.NewRandom(seed)'s first four numbers.
func breakerSequence(seed uint64) []float64 {
	r := breaker.NewRandom(seed)
	out := make([]float64, 4)
	for i := range out {
		out[i] = r.Float64()
	}
	return out
}

func TestHandlersAreBuiltOnTheirSettingsAndDeps(t *testing.T) {
	clock := breakertest.NewClock(t0)
	lot := park.LotConfig{QueueURL: "http://sqs.local/123456789012/lot", MaxMessageSize: 2048}
	clients := wire.Clients{SFN: unusedSFN{}, ParkingLot: unusedSQS{}, DynamoDB: unusedDynamoDB{}}
	b := wire.NewBuilder(wire.Deps{Clients: clients, Clock: clock, MetricLines: &bytes.Buffer{}, Logger: telemetry.JSONLogger(&bytes.Buffer{})})
	starterCfg := starter.Config{
		StateMachineARN: "arn:aws:states:us-east-1:123456789012:stateMachine:redrive",
		Lot:             lot, TargetKind: target.KindLambda, Concurrency: 2,
	}

	t.Run("starter with the lambda target records no returns", func(t *testing.T) {
		h, err := b.Starter(starterCfg)
		require.NoError(t, err)
		assert.Equal(t, clients.SFN, h.SFN)
		assert.Equal(t, starterCfg, h.Config)
		assert.Equal(t, &park.Lot{SQS: clients.ParkingLot, Config: lot, Metrics: h.Metrics, Logger: h.Logger, Clock: clock}, h.Lot, "no table: no index")
		assert.Nil(t, h.Gate)
		assert.Nil(t, h.Breaker)
		assert.Equal(t, t0, h.Clock.Now())
	})
	t.Run("starter with the sqs target records returns on a breaker", func(t *testing.T) {
		cfg := starterCfg
		cfg.TargetKind, cfg.Table, cfg.Policy = target.KindSQS, "redrive", breaker.Policy{WindowSize: 10, MinimumCalls: 5}
		cfg.ControllerStateMachineARN = releaseARN
		before := len(b.Breakers())
		h, err := b.Starter(cfg)
		require.NoError(t, err)
		require.Len(t, b.Breakers(), before+1)
		br := b.Breakers()[before]
		assert.Same(t, br, h.Breaker)
		assert.Equal(t, cfg.Policy.WithDefaults(), br.Policy())
	})
	t.Run("starter with a table paces and indexes the lot there", func(t *testing.T) {
		cfg := starterCfg
		cfg.Table, cfg.ControllerStateMachineARN = "redrive", releaseARN
		h, err := b.Starter(cfg)
		require.NoError(t, err)
		// It reads the breakers' states and sends what would only wait to
		// the room, starting the breaker's controller.
		assert.NotNil(t, h.Breaker, "the lambda target's starter reads the breaker too")
		assert.NotNil(t, h.States)
		assert.Equal(t, room.New(clients.DynamoDB, "redrive", wire.DefaultRoomTTL), h.Room)
		launcher, ok := h.Launcher.(*release.Launcher)
		require.True(t, ok, "launcher %T", h.Launcher)
		assert.Equal(t, releaseARN, launcher.StateMachineARN)
		assert.Equal(t, clients.SFN, launcher.SFN)
		assert.Equal(t, pace.NewStore(clients.DynamoDB, "redrive"), h.Gate)
		got, ok := h.Lot.(*park.Lot)
		require.True(t, ok)
		assert.Equal(t, lotindex.New(clients.DynamoDB, "redrive"), got.Index)
	})
	t.Run("park", func(t *testing.T) {
		h, err := b.Park(park.Config{Lot: lot})
		require.NoError(t, err)
		got, ok := h.Lot.(*park.Lot)
		require.True(t, ok)
		assert.Equal(t, lot, got.Config)
		assert.Equal(t, clients.ParkingLot, got.SQS)
		assert.Nil(t, got.Index, "no table, no index")
		assert.Equal(t, t0, h.Clock.Now())
	})
	t.Run("park with a table indexes the lot there", func(t *testing.T) {
		h, err := b.Park(park.Config{Lot: lot, Table: "redrive"})
		require.NoError(t, err)
		got, ok := h.Lot.(*park.Lot)
		require.True(t, ok)
		assert.Equal(t, lotindex.New(clients.DynamoDB, "redrive"), got.Index)
	})
	t.Run("attempt and release get their settings defaulted", func(t *testing.T) {
		b := wire.NewBuilder(wire.Deps{Clients: wire.Clients{SFN: unusedSFN{}, DynamoDB: unusedDynamoDB{},
			Delivery: target.Clients{Lambda: &consumer{}}}, MetricLines: &bytes.Buffer{}, Logger: telemetry.JSONLogger(&bytes.Buffer{})})
		rc := roomConfig("t")
		rc.AttemptStateMachineARN, rc.Pace = "arn:aws:states:us-east-1:123456789012:stateMachine:redrive", pace.Policy{Max: 50}
		a, err := b.Attempt(wire.AttemptConfig{
			Table: "t", Retry: attempt.Config{MaxAttempts: 3}, Target: target.Config{Kind: target.KindLambda, Function: "c"}, Room: rc,
		})
		require.NoError(t, err)
		assert.Equal(t, attempt.Config{MaxAttempts: 3}.WithDefaults(), a.Config)
		r, err := b.Release(rc, breaker.Policy{})
		require.NoError(t, err)
		assert.Equal(t, pace.Policy{Max: 50}.WithDefaults(), r.Launcher.Policy)
	})
}

func TestMissingClientsAndBadSettingsAreNamed(t *testing.T) {
	lot := park.LotConfig{QueueURL: "http://sqs.local/123456789012/lot", MaxMessageSize: park.DefaultMaxMessageSize}
	starterCfg := starter.Config{
		StateMachineARN: "arn:aws:states:us-east-1:123456789012:stateMachine:redrive",
		Lot:             lot, TargetKind: target.KindSQS, Table: "redrive", Concurrency: 1,
	}
	attemptCfg := wire.AttemptConfig{Table: "t", Target: target.Config{Kind: target.KindLambda, Function: "c"}, Room: roomConfig("t")}
	tests := []struct {
		name    string
		clients wire.Clients
		build   func(b *wire.Builder) error
		want    []string
		missing bool
	}{
		{
			name:  "starter without clients",
			build: func(b *wire.Builder) error { _, err := b.Starter(starterCfg); return err },
			want:  []string{"wire: starter:", "the starter function needs Clients.SFN and Clients.ParkingLot and Clients.DynamoDB"}, missing: true,
		},
		{
			name: "starter with bad settings", clients: wire.Clients{SFN: unusedSFN{}, ParkingLot: unusedSQS{}, DynamoDB: unusedDynamoDB{}},
			build: func(b *wire.Builder) error {
				cfg := starterCfg
				cfg.Concurrency, cfg.Lot.QueueURL = 0, ""
				_, err := b.Starter(cfg)
				return err
			},
			want: []string{"PARKING_LOT_URL", "START_CONCURRENCY"},
		},
		{
			name:  "attempt without DynamoDB or SFN",
			build: func(b *wire.Builder) error { _, err := b.Attempt(attemptCfg); return err },
			want:  []string{"the attempt function needs Clients.DynamoDB and Clients.SFN"}, missing: true,
		},
		{
			name: "attempt without the target's client", clients: wire.Clients{DynamoDB: unusedDynamoDB{}, SFN: unusedSFN{}},
			build: func(b *wire.Builder) error { _, err := b.Attempt(attemptCfg); return err },
			want:  []string{"TARGET_KIND=lambda needs a Lambda client"},
		},
		{
			name: "attempt with bad settings", clients: wire.Clients{DynamoDB: unusedDynamoDB{}, SFN: unusedSFN{}},
			build: func(b *wire.Builder) error {
				_, err := b.Attempt(wire.AttemptConfig{Policy: breaker.Policy{Jitter: 2}, Target: target.Config{Kind: "smtp"}})
				return err
			},
			want: []string{"TABLE_NAME", "Jitter", "TARGET_KIND", "RELEASE_STATE_MACHINE_ARN"},
		},
		{
			name:    "attempt with a room TTL the room rejects",
			clients: wire.Clients{DynamoDB: unusedDynamoDB{}, SFN: unusedSFN{}, Delivery: target.Clients{Lambda: &consumer{}}},
			build: func(b *wire.Builder) error {
				cfg := attemptCfg
				cfg.Room.TTL = 30 * time.Minute
				_, err := b.Attempt(cfg)
				return err
			},
			want: []string{"ROOM_TTL"},
		},
		{
			name: "waitroom without clients",
			build: func(b *wire.Builder) error {
				_, err := b.WaitingRoom(roomConfig("t"))
				return err
			},
			want: []string{"wire: waitroom:", "the waitroom function needs Clients.DynamoDB and Clients.SFN"}, missing: true,
		},
		{
			name: "release with bad settings", clients: wire.Clients{DynamoDB: unusedDynamoDB{}, SFN: unusedSFN{}},
			build: func(b *wire.Builder) error {
				_, err := b.Release(wire.RoomConfig{Pace: pace.Policy{Backoff: 1}}, breaker.Policy{})
				return err
			},
			want: []string{"wire: release:", "TABLE_NAME", "RELEASE_STATE_MACHINE_ARN", "RELEASE_BACKOFF"},
		},
		{
			name: "starter with a table but no DynamoDB", clients: wire.Clients{SFN: unusedSFN{}, ParkingLot: unusedSQS{}},
			build: func(b *wire.Builder) error {
				cfg := starterCfg
				cfg.TargetKind = target.KindLambda
				_, err := b.Starter(cfg)
				return err
			},
			want: []string{"the starter function needs Clients.DynamoDB"}, missing: true,
		},
		{
			name: "park with a table but no DynamoDB", clients: wire.Clients{ParkingLot: unusedSQS{}},
			build: func(b *wire.Builder) error { _, err := b.Park(park.Config{Lot: lot, Table: "redrive"}); return err },
			want:  []string{"the park function needs Clients.DynamoDB"}, missing: true,
		},
		{
			name:  "park without SQS",
			build: func(b *wire.Builder) error { _, err := b.Park(park.Config{Lot: lot}); return err },
			want:  []string{"the park function needs Clients.ParkingLot"}, missing: true,
		},
		{
			name: "park with bad settings", clients: wire.Clients{ParkingLot: unusedSQS{}},
			build: func(b *wire.Builder) error { _, err := b.Park(park.Config{}); return err },
			want:  []string{"PARKING_LOT_URL", "PARKING_LOT_MAX_MESSAGE_SIZE"},
		},
		{
			name:  "admin without a table or DynamoDB",
			build: func(b *wire.Builder) error { _, err := b.Admin(admin.Config{}, wire.RoomConfig{}); return err },
			want:  []string{"TABLE_NAME: required", "the admin function needs Clients.DynamoDB"}, missing: true,
		},
		{
			name: "all, every function's problems", clients: wire.Clients{DynamoDB: unusedDynamoDB{}},
			build: func(b *wire.Builder) error {
				_, err := b.All(wire.Config{Starter: starterCfg, Attempt: attemptCfg, Park: park.Config{Lot: lot}})
				return err
			},
			want: []string{"wire: starter:", "wire: attempt:", "wire: park:", "wire: admin:",
				"wire: waitroom:", "wire: release:"},
			missing: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := wire.NewBuilder(wire.Deps{Clients: tt.clients, MetricLines: &bytes.Buffer{}, Logger: telemetry.JSONLogger(&bytes.Buffer{})})
			err := tt.build(b)
			require.Error(t, err)
			for _, part := range tt.want {
				assert.ErrorContains(t, err, part)
			}
			assert.Equal(t, tt.missing, errors.Is(err, wire.ErrMissingClient))
			assert.Empty(t, b.Breakers(), "nothing built")
		})
	}
}

func TestAllByName(t *testing.T) {
	ddb, table := newTable(t)
	b := wire.NewBuilder(wire.Deps{
		Clients: wire.Clients{
			DynamoDB: ddb, SFN: unusedSFN{}, ParkingLot: unusedSQS{}, Delivery: target.Clients{Lambda: &consumer{}},
		},
		MetricLines: &bytes.Buffer{}, Logger: telemetry.JSONLogger(&bytes.Buffer{}),
	})
	cfg, err := wire.ConfigFromEnv(envOf(with(localEnv, map[string]string{"TABLE_NAME": table})))
	require.NoError(t, err)
	h, err := b.All(cfg)
	require.NoError(t, err)
	byName := h.ByName()
	assert.Len(t, byName, 6)
	for _, name := range []string{
		wire.FunctionStarter, wire.FunctionAttempt, wire.FunctionPark, wire.FunctionAdmin,
		wire.FunctionWaitRoom, wire.FunctionRelease,
	} {
		assert.NotNil(t, byName[name], name)
	}
	assert.Len(t, b.Breakers(), 4, "the attempt's, the admin's, the controller's and the starter's (it reads the states with a table, whatever its target); the waiting room has none")
	assert.NotNil(t, h.Release.Metrics, "the controller writes the room's gauges the stack's alarms watch")
	assert.Same(t, h.Attempt.Metrics, h.Release.Metrics, "one metric writer")

	_, err = byName[wire.FunctionAdmin].Invoke(context.Background(), []byte(`{"request":{"command":"status","breaker":"orders"}}`))
	assert.Equal(t, &admin.UnknownBreaker{Breaker: "orders"}, err, "admin registered as its Handle method")
}
