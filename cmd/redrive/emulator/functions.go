package emulator

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/breaker/dynamostore"
	"github.com/redrive/redrive/statemachine/local"
	"github.com/redrive/redrive/tasks/admin"
	"github.com/redrive/redrive/tasks/attempt"
	"github.com/redrive/redrive/tasks/config"
	"github.com/redrive/redrive/tasks/continuer"
	"github.com/redrive/redrive/tasks/delivery"
	"github.com/redrive/redrive/tasks/park"
	"github.com/redrive/redrive/tasks/starter"
	"github.com/redrive/redrive/tasks/target"
	"github.com/redrive/redrive/tasks/telemetry"
)

// The functions the Lambda server hosts, by name.
const (
	FunctionStarter   = "starter"
	FunctionAttempt   = "attempt"
	FunctionPark      = "park"
	FunctionContinuer = "continuer"
	FunctionAdmin     = "admin"
	// FunctionConsumer is the simulated consumer, the attempt's target.
	FunctionConsumer = "consumer"
)

// FunctionARN is the ARN of a hosted function.
func FunctionARN(name string) string {
	return "arn:aws:lambda:" + Region + ":" + Account + ":function:" + name
}

// clients are the SDK clients the functions call, each on its endpoint.
type clients struct {
	dynamo *dynamodb.Client
	sqs    *sqs.Client
	sfn    *sfn.Client
	lambda *lambda.Client
}

// wiring is what connects the functions to the emulator's endpoints.
type wiring struct {
	table, redriveARN, parkingLotURL string
}

// env is the functions' environment: w's variables over user's.
func (w wiring) env(user func(string) string) func(string) string {
	return settings(map[string]string{
		starter.EnvStateMachine: w.redriveARN,
		starter.EnvTable:        w.table,
		park.EnvQueueURL:        w.parkingLotURL,
		target.EnvKind:          string(target.KindLambda),
		target.EnvFunction:      FunctionARN(FunctionConsumer),
		target.EnvSourceARN:     queueARN(SourceQueueName),
	}, user)
}

// register builds the handlers as the Lambda mains do, from getenv, on
// clock now, and hosts them in reg with the consumer. Every bad setting is
// reported, by variable.
func register(reg *local.Registry, c clients, getenv func(string) string, now func() time.Time, consumer *switchTarget, logs io.Writer) error {
	logger := telemetry.JSONLogger(logs)
	metrics := telemetry.NewMetrics(logs, logger, now)

	env := config.From(getenv)
	policy := config.Policy(env)
	targetCfg := target.FromEnv(env)
	table := env.Required(starter.EnvTable)
	starterCfg, starterErr := starter.ConfigFromEnv(getenv)
	parkCfg, parkErr := park.ConfigFromEnv(getenv)
	attemptCfg, attemptErr := attempt.ConfigFromEnv(getenv)
	if err := errors.Join(env.Err(), starterErr, parkErr, attemptErr); err != nil {
		return fmt.Errorf("emulator: function settings: %w", err)
	}

	b, err := breaker.New(dynamostore.New(c.dynamo, table), policy,
		breaker.WithClock(now), breaker.WithObserver(metrics.OnTransition))
	if err != nil {
		return fmt.Errorf("emulator: breaker: %w", err)
	}
	tgt, err := target.New(targetCfg, target.Clients{Lambda: c.lambda})
	if err != nil {
		return fmt.Errorf("emulator: %w", err)
	}
	lot := &park.Lot{SQS: c.sqs, Config: parkCfg.Lot, Metrics: metrics, Logger: logger}
	adminHandler := admin.New(b, logger)
	adminHandler.Now = now

	handlers := map[string]any{
		FunctionStarter: (&starter.Handler{SFN: c.sfn, Lot: lot, Config: starterCfg, Metrics: metrics, Logger: logger, Now: now}).Handle,
		FunctionAttempt: (&attempt.Handler{
			Breaker: b, Ledger: delivery.New(c.dynamo, table, now), Target: tgt, Metrics: metrics,
			Logger: logger, Now: now, Rand: breaker.NewRandom(uint64(now().UnixNano())), Config: attemptCfg,
		}).Handle,
		FunctionPark:      (&park.Handler{Lot: lot, Now: now}).Handle,
		FunctionContinuer: (&continuer.Handler{SFN: c.sfn, Logger: logger}).Handle,
		FunctionAdmin:     adminHandler.Handle,
		FunctionConsumer:  consumer.Handle,
	}
	for name, h := range handlers {
		if err := reg.Register(name, h); err != nil {
			return fmt.Errorf("emulator: %w", err)
		}
	}
	return nil
}
