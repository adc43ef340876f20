// Command admin is the Lambda function behind the admin state machine: it
// applies an operator's command (status, reset, open, close, release) to a
// breaker row. Settings: TABLE_NAME.
package main

import (
	"context"
	"log"
	"os"

	"github.com/aws/aws-lambda-go/lambda"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/breaker/dynamostore"
	"github.com/redrive/redrive/tasks/admin"
	"github.com/redrive/redrive/tasks/telemetry"
)

func main() {
	cfg, err := admin.ConfigFromEnv(os.Getenv)
	if err != nil {
		log.Fatalf("admin: %v", err)
	}
	aws, err := awsconfig.LoadDefaultConfig(context.Background())
	if err != nil {
		log.Fatalf("admin: load AWS configuration: %v", err)
	}
	logger := telemetry.NewLogger()
	metrics := telemetry.NewMetrics(os.Stdout, logger, nil)
	// Commands need no policy: the default only satisfies breaker.New.
	b, err := breaker.New(dynamostore.New(dynamodb.NewFromConfig(aws), cfg.Table), breaker.Policy{},
		breaker.WithObserver(metrics.OnTransition))
	if err != nil {
		log.Fatalf("admin: %v", err)
	}
	lambda.Start(admin.New(b, logger).Handle)
}
