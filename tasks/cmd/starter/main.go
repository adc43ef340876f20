// Command starter is the Lambda function on the DLQ's event source: it
// starts one redrive execution per message and parks what cannot be
// started. Settings: STATE_MACHINE_ARN, PARKING_LOT_URL, TARGET_KIND, the
// breaker key (BREAKER_KEY, BREAKER_KEY_ATTRIBUTE or BREAKER_KEY_POINTER,
// and BREAKER_KEY_DEFAULT), START_CONCURRENCY, and with TARGET_KIND=sqs
// TABLE_NAME and the BREAKER_* policy (the Attempt function's).
package main

import (
	"context"
	"log"
	"os"

	"github.com/aws/aws-lambda-go/lambda"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/breaker/dynamostore"
	"github.com/redrive/redrive/tasks/park"
	"github.com/redrive/redrive/tasks/starter"
	"github.com/redrive/redrive/tasks/telemetry"
)

func main() {
	cfg, err := starter.ConfigFromEnv(os.Getenv)
	if err != nil {
		log.Fatalf("starter: %v", err)
	}
	aws, err := awsconfig.LoadDefaultConfig(context.Background())
	if err != nil {
		log.Fatalf("starter: load AWS configuration: %v", err)
	}
	logger := telemetry.NewLogger()
	metrics := telemetry.NewMetrics(os.Stdout, logger, nil)
	h := &starter.Handler{
		SFN:     sfn.NewFromConfig(aws),
		Lot:     &park.Lot{SQS: sqs.NewFromConfig(aws), Config: cfg.Lot, Metrics: metrics, Logger: logger},
		Config:  cfg,
		Metrics: metrics,
		Logger:  logger,
	}
	if cfg.RecordsReturns() {
		h.Breaker, err = breaker.New(dynamostore.New(dynamodb.NewFromConfig(aws), cfg.Table), cfg.Policy,
			breaker.WithObserver(metrics.OnTransition))
		if err != nil {
			log.Fatalf("starter: %v", err)
		}
	}
	lambda.Start(h.Handle)
}
