// Command starter is the Lambda function on the DLQ's event source: it
// starts one attempt execution per message, puts in the room what would
// only wait (its breaker not CLOSED, beyond the pace) and parks what
// cannot be started. Settings: STATE_MACHINE_ARN, PARKING_LOT_URL,
// TARGET_KIND, the breaker key (BREAKER_KEY, BREAKER_KEY_ATTRIBUTE or
// BREAKER_KEY_POINTER, and BREAKER_KEY_DEFAULT), START_CONCURRENCY,
// PARKING_LOT_RETENTION, BODY_BUCKET; with TABLE_NAME (the breakers, the
// pace, the room, the parking lot's index) RELEASE_STATE_MACHINE_ARN,
// ROOM_TTL and the BREAKER_* policy (the Attempt function's).
package main

import (
	"context"
	"log"
	"os"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/redrive/redrive/lambda/wire"
	"github.com/redrive/redrive/starter"
)

func main() {
	cfg, err := starter.ConfigFromEnv(os.Getenv)
	if err != nil {
		log.Fatalf("starter: %v", err)
	}
	b, err := wire.FromAWS(context.Background())
	if err != nil {
		log.Fatalf("starter: %v", err)
	}
	h, err := b.Starter(cfg)
	if err != nil {
		log.Fatalf("starter: %v", err)
	}
	lambda.Start(h.Handle)
}
