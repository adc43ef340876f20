package localrun

import (
	"fmt"

	"github.com/redrive/redrive/breaker/dynamostore"
	"github.com/redrive/redrive/statemachine/local"
	"github.com/redrive/redrive/tasks/admin"
	"github.com/redrive/redrive/tasks/assemble"
	"github.com/redrive/redrive/tasks/message"
	"github.com/redrive/redrive/tasks/park"
	"github.com/redrive/redrive/tasks/starter"
	"github.com/redrive/redrive/tasks/target"
	"github.com/redrive/redrive/tasks/telemetry"
)

// Handlers are the real task handlers a Stack hosts, for tests that wrap
// one in the Registry (Register under its Function name replaces it).
type Handlers = assemble.Handlers

// register builds the real handlers as their mains do, but on the Stack's
// clients, clock, seed and hooks, and hosts them and the consumer in the
// Registry.
func (s *Stack) register() error {
	s.rows = dynamostore.New(s.DynamoDB, s.Table)
	startCfg, err := starter.ConfigFromEnv(mapEnv(map[string]string{
		starter.EnvStateMachine: s.RedriveARN,
		park.EnvQueueURL:        s.ParkingLotURL,
		target.EnvKind:          string(target.KindLambda),
		message.EnvKey:          s.opts.BreakerKey,
		message.EnvKeyAttribute: s.opts.BreakerKeyAttribute,
		message.EnvKeyPointer:   s.opts.BreakerKeyPointer,
		starter.EnvConcurrency:  fmt.Sprint(s.opts.StartConcurrency),
		starter.EnvTable:        s.Table,
	}))
	if err != nil {
		return fmt.Errorf("localrun: starter: %w", err)
	}
	startCfg.Pace = s.opts.Pace
	delivery := target.Clients{Lambda: s.lambdaClient()}
	if s.opts.DirectInvoke {
		delivery.Lambda = directInvoke{inv: s.invoker}
	}
	var db assemble.DynamoDB = s.db
	if s.opts.WrapDynamoDB != nil {
		db = s.opts.WrapDynamoDB(db)
	}
	b := assemble.NewBuilder(assemble.Deps{
		Clients:     assemble.Clients{DynamoDB: db, SFN: s.SFN, ParkingLot: s.SQS, Delivery: delivery},
		Clock:       s.Executor,
		Logger:      telemetry.JSONLogger(s.opts.Logs),
		MetricLines: s.opts.Logs,
		Seed:        uint64(s.opts.Seed),
		Observe:     s.observe,
		WrapStore:   s.opts.WrapStore,
		WrapTarget:  s.opts.WrapTarget,
	})
	s.Handlers, err = b.All(assemble.Config{
		Starter: startCfg,
		Attempt: assemble.AttemptConfig{
			Table: s.Table, Policy: s.opts.Policy, Retry: s.opts.Attempt,
			Target: target.Config{
				Kind: target.KindLambda, Function: functionARN(FunctionConsumer), SourceARN: queueARN(SourceQueueName),
				PoisonErrorTypes: s.opts.PoisonErrorTypes, ThrottleErrorTypes: s.opts.ThrottleErrorTypes,
			},
			Room: assemble.RoomConfig{Table: s.Table, ReleaseStateMachineARN: s.ReleaseARN, Timeout: s.opts.RoomTimeout, Pace: s.opts.Pace},
		},
		Park:  park.Config{Lot: startCfg.Lot},
		Admin: admin.Config{Table: s.Table},
	})
	if err != nil {
		return fmt.Errorf("localrun: %w", err)
	}
	s.breakers = b.Breakers()
	hosted := s.Handlers.ByName()
	hosted[FunctionConsumer] = s.Target.Handle
	for name, h := range hosted {
		var opts []local.FunctionOption
		if name == FunctionAttempt {
			opts = append(opts, local.Timeout(s.opts.AttemptTimeout))
		}
		if err := s.Registry.Register(name, h, opts...); err != nil {
			return fmt.Errorf("localrun: %w", err)
		}
	}
	return nil
}

// mapEnv is a getenv over a map.
func mapEnv(env map[string]string) func(string) string {
	return func(name string) string { return env[name] }
}
