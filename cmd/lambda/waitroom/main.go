// Command waitroom is the Lambda function behind the redrive state
// machine's WaitingRoom state (invoked with .waitForTaskToken): it stores
// the turned-away message's task token in the waiting room and starts the
// room's releaser if the breaker lets messages through. Settings:
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
	cfg, _, err := wire.RoomFromEnv(os.Getenv)
	if err != nil {
		log.Fatalf("waitroom: %v", err)
	}
	b, err := wire.FromAWS(context.Background())
	if err != nil {
		log.Fatalf("waitroom: %v", err)
	}
	h, err := b.WaitingRoom(cfg)
	if err != nil {
		log.Fatalf("waitroom: %v", err)
	}
	lambda.Start(h.Handle)
}
