// Command attempt is the Lambda function behind the attempt state
// machine's Attempt state (an Express execution per delivery try): admit
// by the breaker, deliver to the target under the delivery ledger, record
// the outcome, say what comes next. Settings: TABLE_NAME; MAX_ATTEMPTS,
// BACKOFF_BASE, BACKOFF_MAX, DELIVERY_LEASE (attempt.ConfigFromEnv);
// BREAKER_* (config.Policy); TARGET_KIND, TARGET_FUNCTION,
// TARGET_QUEUE_URL, TARGET_SOURCE_ARN, POISON_ERROR_TYPES (target.FromEnv);
// RELEASE_STATE_MACHINE_ARN, ROOM_TTL; BODY_BUCKET (the claim check).
package main

import (
	"context"
	"log"
	"os"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/redrive/redrive/lambda/wire"
)

func main() {
	cfg, err := wire.AttemptConfigFromEnv(os.Getenv)
	if err != nil {
		log.Fatalf("attempt: %v", err)
	}
	b, err := wire.FromAWS(context.Background())
	if err != nil {
		log.Fatalf("attempt: %v", err)
	}
	h, err := b.Attempt(cfg)
	if err != nil {
		log.Fatalf("attempt: %v", err)
	}
	lambda.Start(h.Handle)
}
