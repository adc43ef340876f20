// Command release is the Lambda function behind the release (controller)
// state machine's Release state: the ticks of a breaker's controller,
// which waits out cooldowns and releases the room in line at the pace the
// target takes, one Express execution of the attempt state machine per
// message. Settings: TABLE_NAME; STATE_MACHINE_ARN (the attempt state
// machine), RELEASE_STATE_MACHINE_ARN, ROOM_TTL, RELEASE_*,
// RELEASE_WORKERS; BREAKER_* (wire.RoomFromEnv).
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
