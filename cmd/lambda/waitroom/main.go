// Command waitroom is the Lambda function behind the attempt state
// machine's Queue state: it stores a waiting message's document in its
// breaker's room and makes sure the breaker's controller runs. Settings:
// TABLE_NAME; RELEASE_STATE_MACHINE_ARN, ROOM_TTL, RELEASE_*; BODY_BUCKET,
// where a waiting document's body over 4 KiB goes (wire.RoomFromEnv).
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
