// Command release is the Lambda function behind the release state
// machine's Release state: one tick of a breaker's releaser, resuming the
// waiting room's oldest messages at the pace the target takes. Settings:
// TABLE_NAME; RELEASE_STATE_MACHINE_ARN, ROOM_TIMEOUT, ROOM_MAX_WAIT,
// RELEASE_*; BREAKER_* (wire.RoomFromEnv).
package main

import (
	"context"
	"log"
	"os"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/redrive/redrive/lambda/wire"
)

func main() {
	cfg, policy, err := wire.RoomFromEnv(os.Getenv)
	if err != nil {
		log.Fatalf("release: %v", err)
	}
	b, err := wire.FromAWS(context.Background())
	if err != nil {
		log.Fatalf("release: %v", err)
	}
	h, err := b.Release(cfg, policy)
	if err != nil {
		log.Fatalf("release: %v", err)
	}
	lambda.Start(h.Handle)
}
