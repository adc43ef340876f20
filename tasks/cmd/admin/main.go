// Command admin is the Lambda function behind the admin state machine: it
// applies an operator's command (status, reset, open, close, release) to a
// breaker row. Settings: TABLE_NAME.
package main

import (
	"context"
	"log"
	"os"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/redrive/redrive/tasks/admin"
	"github.com/redrive/redrive/tasks/assemble"
)

func main() {
	cfg, err := admin.ConfigFromEnv(os.Getenv)
	if err != nil {
		log.Fatalf("admin: %v", err)
	}
	b, err := assemble.FromAWS(context.Background())
	if err != nil {
		log.Fatalf("admin: %v", err)
	}
	h, err := b.Admin(cfg)
	if err != nil {
		log.Fatalf("admin: %v", err)
	}
	lambda.Start(h.Handle)
}
