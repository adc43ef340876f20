package localrun

import (
	"fmt"

	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/breaker/dynamostore"
	"github.com/redrive/redrive/tasks/admin"
	"github.com/redrive/redrive/tasks/attempt"
	"github.com/redrive/redrive/tasks/continuer"
	"github.com/redrive/redrive/tasks/delivery"
	"github.com/redrive/redrive/tasks/message"
	"github.com/redrive/redrive/tasks/park"
	"github.com/redrive/redrive/tasks/starter"
	"github.com/redrive/redrive/tasks/target"
	"github.com/redrive/redrive/tasks/telemetry"
)

// Handlers are the real task handlers a Stack hosts, for tests that wrap
// one in the Registry (Register under its Function name replaces it).
type Handlers struct {
	Starter   *starter.Handler
	Attempt   *attempt.Handler
	Park      *park.Handler
	Continuer *continuer.Handler
	Admin     *admin.Handler
}

// register builds the real handlers as their mains do, but on the Stack's
// clients and clock, and hosts them and the consumer in the Registry.
func (s *Stack) register() error {
	now := s.Executor.Now
	logger := telemetry.JSONLogger(s.opts.Logs)
	metrics := telemetry.NewMetrics(s.opts.Logs, logger, now)
	lot := &park.Lot{SQS: s.SQS, Config: park.LotConfig{QueueURL: s.ParkingLotURL, MaxMessageSize: park.DefaultMaxMessageSize},
		Metrics: metrics, Logger: logger}
	s.rows = dynamostore.New(s.DynamoDB, s.Table)

	newBreaker := func(store breaker.Store, seed int64) (*breaker.Breaker, error) {
		b, err := breaker.New(store, s.opts.Policy, breaker.WithClock(now), breaker.WithSeed(uint64(seed)),
			breaker.WithObserver(func(t breaker.Transition) {
				metrics.OnTransition(t)
				s.observe(t)
			}))
		if err != nil {
			return nil, fmt.Errorf("localrun: %w", err)
		}
		s.breakers = append(s.breakers, b)
		return b, nil
	}

	startCfg, err := starter.ConfigFromEnv(mapEnv(map[string]string{
		starter.EnvStateMachine: s.RedriveARN,
		park.EnvQueueURL:        s.ParkingLotURL,
		target.EnvKind:          string(target.KindLambda),
		message.EnvKey:          s.opts.BreakerKey,
		message.EnvKeyAttribute: s.opts.BreakerKeyAttribute,
		message.EnvKeyPointer:   s.opts.BreakerKeyPointer,
		starter.EnvConcurrency:  fmt.Sprint(s.opts.StartConcurrency),
	}))
	if err != nil {
		return fmt.Errorf("localrun: starter: %w", err)
	}

	var store breaker.Store = dynamostore.New(s.db, s.Table)
	if s.opts.WrapStore != nil {
		store = s.opts.WrapStore(store)
	}
	attemptBreaker, err := newBreaker(store, s.opts.Seed)
	if err != nil {
		return err
	}
	if err := s.opts.Attempt.Validate(); err != nil {
		return fmt.Errorf("localrun: attempt: %w", err)
	}
	clients := target.Clients{Lambda: s.lambdaClient()}
	if s.opts.DirectInvoke {
		clients.Lambda = directInvoke{inv: s.invoker}
	}
	tgt, err := target.New(target.Config{
		Kind: target.KindLambda, Function: functionARN(FunctionConsumer), SourceARN: queueARN(SourceQueueName),
		PoisonErrorTypes: s.opts.PoisonErrorTypes,
	}, clients)
	if err != nil {
		return fmt.Errorf("localrun: %w", err)
	}

	adminBreaker, err := newBreaker(dynamostore.New(s.db, s.Table), s.opts.Seed+1)
	if err != nil {
		return err
	}
	adminHandler := admin.New(adminBreaker, logger)
	adminHandler.Now = now

	s.Handlers = Handlers{
		Starter: &starter.Handler{SFN: s.SFN, Lot: lot, Config: startCfg, Metrics: metrics, Logger: logger, Now: now},
		Attempt: &attempt.Handler{
			Breaker: attemptBreaker, Ledger: delivery.New(s.db, s.Table, now), Target: tgt,
			Metrics: metrics, Logger: logger, Now: now, Rand: breaker.NewRandom(uint64(s.opts.Seed) + 2),
			Config: s.opts.Attempt,
		},
		Park:      &park.Handler{Lot: lot, Now: now},
		Continuer: &continuer.Handler{SFN: s.SFN, Logger: logger},
		Admin:     adminHandler,
	}
	handlers := map[string]any{
		FunctionStarter:   s.Handlers.Starter.Handle,
		FunctionAttempt:   s.Handlers.Attempt.Handle,
		FunctionPark:      s.Handlers.Park.Handle,
		FunctionContinuer: s.Handlers.Continuer.Handle,
		FunctionAdmin:     s.Handlers.Admin.Handle,
		FunctionConsumer:  s.Target.Handle,
	}
	for name, h := range handlers {
		if err := s.Registry.Register(name, h); err != nil {
			return fmt.Errorf("localrun: %w", err)
		}
	}
	return nil
}

// mapEnv is a getenv over a map.
func mapEnv(env map[string]string) func(string) string {
	return func(name string) string { return env[name] }
}
