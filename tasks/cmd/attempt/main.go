// Command attempt is the Lambda function behind the redrive state
// machine's Attempt state: admit by the breaker, deliver to the target
// under the delivery ledger, record the outcome, say what comes next.
// Settings: TABLE_NAME; MAX_ATTEMPTS, BACKOFF_BASE, BACKOFF_MAX, MAX_CYCLES,
// DELIVERY_LEASE (attempt.ConfigFromEnv); BREAKER_* (config.Policy);
// TARGET_KIND, TARGET_FUNCTION, TARGET_QUEUE_URL, TARGET_SOURCE_ARN,
// POISON_ERROR_TYPES (target.FromEnv).
package main

import (
	"context"
	"errors"
	"log"
	"math/rand/v2"
	"os"
	"time"

	"github.com/aws/aws-lambda-go/lambda"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	awslambda "github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/breaker/dynamostore"
	"github.com/redrive/redrive/tasks/attempt"
	"github.com/redrive/redrive/tasks/config"
	"github.com/redrive/redrive/tasks/delivery"
	"github.com/redrive/redrive/tasks/target"
	"github.com/redrive/redrive/tasks/telemetry"
)

func main() {
	cfg, cfgErr := attempt.ConfigFromEnv(os.Getenv)
	env := config.From(os.Getenv)
	table := env.Required("TABLE_NAME")
	policy := config.Policy(env)
	targetCfg := target.FromEnv(env)
	if err := errors.Join(cfgErr, env.Err()); err != nil {
		log.Fatalf("attempt: %v", err)
	}
	aws, err := awsconfig.LoadDefaultConfig(context.Background())
	if err != nil {
		log.Fatalf("attempt: load AWS configuration: %v", err)
	}
	clients := target.Clients{Lambda: awslambda.NewFromConfig(aws), SQS: sqs.NewFromConfig(aws)}
	tgt, err := target.New(targetCfg, clients)
	if err != nil {
		log.Fatalf("attempt: %v", err)
	}
	logger := telemetry.NewLogger()
	metrics := telemetry.NewMetrics(os.Stdout, logger, nil)
	ddb := dynamodb.NewFromConfig(aws)
	rnd := breaker.NewRandom(rand.Uint64())
	b, err := breaker.New(dynamostore.New(ddb, table), policy,
		breaker.WithRandom(rnd), breaker.WithObserver(metrics.OnTransition))
	if err != nil {
		log.Fatalf("attempt: %v", err)
	}
	h := &attempt.Handler{
		Breaker: b,
		Ledger:  delivery.New(ddb, table, nil),
		Target:  tgt,
		Metrics: metrics,
		Logger:  logger,
		Now:     time.Now,
		Rand:    rnd,
		Config:  cfg,
	}
	lambda.Start(h.Handle)
}
