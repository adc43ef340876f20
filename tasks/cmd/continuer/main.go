// Command continuer is the Lambda function behind the redrive state
// machine's Continue state: it carries a redrive on in a new execution.
// It needs no settings: the state machine comes from the execution's ARN.
package main

import (
	"context"
	"log"

	"github.com/aws/aws-lambda-go/lambda"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/sfn"

	"github.com/redrive/redrive/tasks/continuer"
	"github.com/redrive/redrive/tasks/telemetry"
)

func main() {
	aws, err := awsconfig.LoadDefaultConfig(context.Background())
	if err != nil {
		log.Fatalf("continuer: load AWS configuration: %v", err)
	}
	h := &continuer.Handler{SFN: sfn.NewFromConfig(aws), Logger: telemetry.NewLogger()}
	lambda.Start(h.Handle)
}
