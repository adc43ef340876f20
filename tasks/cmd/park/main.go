// Command park is the Lambda function behind the redrive state machine's
// Park state: it sends a message to the parking lot with its lineage and
// failure history. Settings: PARKING_LOT_URL, PARKING_LOT_MAX_MESSAGE_SIZE.
package main

import (
	"context"
	"log"
	"os"

	"github.com/aws/aws-lambda-go/lambda"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/redrive/redrive/tasks/park"
	"github.com/redrive/redrive/tasks/telemetry"
)

func main() {
	cfg, err := park.ConfigFromEnv(os.Getenv)
	if err != nil {
		log.Fatalf("park: %v", err)
	}
	aws, err := awsconfig.LoadDefaultConfig(context.Background())
	if err != nil {
		log.Fatalf("park: load AWS configuration: %v", err)
	}
	logger := telemetry.NewLogger()
	lot := &park.Lot{
		SQS:     sqs.NewFromConfig(aws),
		Config:  cfg.Lot,
		Metrics: telemetry.NewMetrics(os.Stdout, logger, nil),
		Logger:  logger,
	}
	lambda.Start((&park.Handler{Lot: lot}).Handle)
}
