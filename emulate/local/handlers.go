package local

import (
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/redrive/redrive/admin"
	"github.com/redrive/redrive/claimcheck"
	"github.com/redrive/redrive/clock"
	"github.com/redrive/redrive/delivery/target"
	"github.com/redrive/redrive/dynamo"
	"github.com/redrive/redrive/emulate/executor"
	"github.com/redrive/redrive/lambda/telemetry"
	"github.com/redrive/redrive/lambda/typedhandler"
	"github.com/redrive/redrive/lambda/wire"
	"github.com/redrive/redrive/message"
	"github.com/redrive/redrive/park"
	"github.com/redrive/redrive/starter"
)

// Handlers are the real task handlers a Stack hosts, for tests that wrap
// one in the Registry (Register under its Function name replaces it).
type Handlers = wire.Handlers

// register builds the real handlers as their mains do, from their
// settings (see settings), on the Stack's clients, clock, seed and hooks,
// and hosts them and the consumer in the Registry.
func (s *Stack) register() error {
	s.rows = dynamo.New(s.dynamo.api, s.Table)
	cfg, err := wire.ConfigFromEnv(s.settings())
	if err != nil {
		return fmt.Errorf("local: function settings: %w", err)
	}
	if s.opts.Env == nil {
		s.typed(&cfg)
	}
	delivery := target.Clients{Lambda: s.lambda}
	if s.opts.DirectInvoke {
		delivery.Lambda = directInvoke{inv: s.invoker}
	}
	var db wire.DynamoDB = s.db
	if s.opts.WrapDynamoDB != nil {
		db = s.opts.WrapDynamoDB(db)
	}
	b := wire.NewBuilder(wire.Deps{
		Clients:     wire.Clients{DynamoDB: db, SFN: s.tasksSFN, ParkingLot: s.queues, Replay: s.queues, Delivery: delivery, S3: s.bodies},
		Clock:       s.Executor,
		Logger:      logger(s.opts.Logs, s.Executor),
		MetricLines: s.opts.Logs,
		Seed:        uint64(s.opts.Seed),
		Observe:     s.observe,
		WrapStore:   s.opts.WrapStore,
		WrapTarget:  s.opts.WrapTarget,
	})
	if s.Handlers, err = b.All(cfg); err != nil {
		return fmt.Errorf("local: %w", err)
	}
	s.breakers = b.Breakers()
	hosted := s.Handlers.ByName()
	hosted[FunctionConsumer] = typedhandler.New(s.Target.Handle)
	for name, h := range hosted {
		var fn executor.Function
		if name == FunctionAttempt {
			fn.Timeout = s.opts.AttemptTimeout
		}
		if err := s.Registry.RegisterFunction(name, h, fn); err != nil {
			return fmt.Errorf("local: %w", err)
		}
	}
	return nil
}

// logger is the handlers' JSON logger on w, each line stamped with clk,
// the stack's clock, as the handlers read it; on io.Discard (the default
// Logs) one that formats nothing, since a long simulation would spend a
// few percent of its time writing lines nobody reads.
func logger(w io.Writer, clk clock.Clock) *slog.Logger {
	if w == io.Discard {
		return slog.New(slog.DiscardHandler)
	}
	return telemetry.JSONLoggerOn(w, clk)
}

// settings is the functions' environment: the variables that wire them to
// the stack, over Options.Env (or, without it, the breaker key and start
// concurrency of the typed options), over the defaults: every message on
// the breaker "orders", and the consumer's error types (see Options).
func (s *Stack) settings() func(string) string {
	wiring := map[string]string{
		starter.EnvStateMachine:        s.RedriveARN,
		starter.EnvTable:               s.Table,
		wire.EnvReleaseStateMachineARN: s.ReleaseARN,
		park.EnvQueueURL:               s.ParkingLotURL,
		wire.EnvReleaseWorkers:         "1", // releases in line, so that a run repeats
		claimcheck.EnvBucket:           BodyBucket,
		admin.EnvDLQURL:                s.DLQURL,
		admin.EnvReplayShortPoll:       "true",                         // the queues are on the executor's clock
		park.EnvRetention:              park.DefaultRetention.String(), // the lot's, as createQueues makes it
		target.EnvKind:                 string(target.KindLambda),
		target.EnvFunction:             functionARN(FunctionConsumer),
		target.EnvSourceARN:            QueueARN(s.QueueName(SourceQueueName)),
	}
	user := s.opts.Env
	if user == nil {
		user = mapEnv(map[string]string{
			message.EnvKey:          s.opts.BreakerKey,
			message.EnvKeyAttribute: s.opts.BreakerKeyAttribute,
			message.EnvKeyPointer:   s.opts.BreakerKeyPointer,
			message.EnvKeyDefault:   message.DefaultKey,
			starter.EnvConcurrency:  fmt.Sprint(s.opts.StartConcurrency),
			park.EnvFIFOOnPark:      s.opts.FIFOOnPark,
		})
	}
	defaults := map[string]string{
		message.EnvKeyDefault:        DefaultBreakerKey,
		target.EnvPoisonErrorTypes:   strings.Join(s.opts.PoisonErrorTypes, ","),
		target.EnvThrottleErrorTypes: strings.Join(s.opts.ThrottleErrorTypes, ","),
	}
	return func(name string) string {
		if v, ok := wiring[name]; ok {
			return v
		}
		if v := user(name); v != "" {
			return v
		}
		return defaults[name]
	}
}

// typed sets the settings the typed options hold: the breaker policy, the
// attempt's retries, the room and its pace.
func (s *Stack) typed(cfg *wire.Config) {
	cfg.Attempt.Policy, cfg.Attempt.Retry = s.opts.Policy, s.opts.Attempt
	cfg.Attempt.Room.Pace = s.opts.Pace
	cfg.Starter.Pace = s.opts.Pace
}

// mapEnv is a getenv over a map.
func mapEnv(env map[string]string) func(string) string {
	return func(name string) string { return env[name] }
}
