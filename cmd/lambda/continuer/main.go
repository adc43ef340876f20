// Command continuer is the Lambda function behind the redrive state
// machine's Continue state: it carries a redrive on in a new execution.
// It needs no settings: the state machine comes from the execution's ARN.
package main

import (
	"context"
	"log"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/redrive/redrive/lambda/wire"
)

func main() {
	b, err := wire.FromAWS(context.Background())
	if err != nil {
		log.Fatalf("continuer: %v", err)
	}
	h, err := b.Continuer()
	if err != nil {
		log.Fatalf("continuer: %v", err)
	}
	lambda.Start(h.Handle)
}
