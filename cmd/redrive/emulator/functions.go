package emulator

import (
	"fmt"
	"io"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/redrive/redrive/internal/clock"
	"github.com/redrive/redrive/statemachine/local"
	"github.com/redrive/redrive/tasks/assemble"
	"github.com/redrive/redrive/tasks/park"
	"github.com/redrive/redrive/tasks/starter"
	"github.com/redrive/redrive/tasks/target"
	"github.com/redrive/redrive/tasks/telemetry"
)

// The functions the Lambda server hosts, by name.
const (
	FunctionStarter   = assemble.FunctionStarter
	FunctionAttempt   = assemble.FunctionAttempt
	FunctionPark      = assemble.FunctionPark
	FunctionContinuer = assemble.FunctionContinuer
	FunctionAdmin     = assemble.FunctionAdmin
	FunctionWaitRoom  = assemble.FunctionWaitRoom
	FunctionRelease   = assemble.FunctionRelease
	// FunctionConsumer is the simulated consumer, the attempt's target.
	FunctionConsumer = "consumer"
)

// FunctionARN is the ARN of a hosted function.
func FunctionARN(name string) string {
	return assemble.FunctionARN(Region, Account, name)
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
	table, redriveARN, releaseARN, parkingLotURL string
}

// env is the functions' environment: w's variables over user's.
func (w wiring) env(user func(string) string) func(string) string {
	return settings(map[string]string{
		starter.EnvStateMachine:            w.redriveARN,
		starter.EnvTable:                   w.table,
		assemble.EnvReleaseStateMachineARN: w.releaseARN,
		park.EnvQueueURL:                   w.parkingLotURL,
		target.EnvKind:                     string(target.KindLambda),
		target.EnvFunction:                 FunctionARN(FunctionConsumer),
		target.EnvSourceARN:                queueARN(SourceQueueName),
	}, user)
}

// register builds the handlers as the Lambda mains do, from getenv, on
// the emulator's clients and clock (the releaser sleeps on it too), and
// hosts them in reg with the consumer. Every bad setting is reported, by
// variable.
func register(reg *local.Registry, c clients, getenv func(string) string, clk clock.Clock, consumer *switchTarget, logs io.Writer) error {
	cfg, err := assemble.ConfigFromEnv(getenv)
	if err != nil {
		return fmt.Errorf("emulator: function settings: %w", err)
	}
	b := assemble.NewBuilder(assemble.Deps{
		Clients: assemble.Clients{
			DynamoDB: c.dynamo, SFN: c.sfn, ParkingLot: c.sqs, Delivery: target.Clients{Lambda: c.lambda},
		},
		Clock:       clk,
		Logger:      telemetry.JSONLogger(logs),
		MetricLines: logs,
	})
	handlers, err := b.All(cfg)
	if err != nil {
		return fmt.Errorf("emulator: %w", err)
	}
	hosted := handlers.ByName()
	hosted[FunctionConsumer] = consumer.Handle
	for name, h := range hosted {
		if err := reg.Register(name, h); err != nil {
			return fmt.Errorf("emulator: %w", err)
		}
	}
	return nil
}
