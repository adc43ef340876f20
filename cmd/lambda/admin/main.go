// Command admin is the Lambda function behind the admin state machine: it
// applies an operator's command (status, reset, open, close, release) to a
// breaker row, and starts the breaker's controller (taking over from one
// that waits out a cooldown) after a command that lets messages through;
// it manages the routing rules; and it runs a replay of the parking lot.
// Settings: TABLE_NAME; PARKING_LOT_URL and DLQ_URL (the replay);
// RELEASE_STATE_MACHINE_ARN, ROOM_TTL, RELEASE_* (wire.RoomFromEnv).
package main

import (
	"context"
	"errors"
	"log"
	"os"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/redrive/redrive/admin"
	"github.com/redrive/redrive/lambda/wire"
)

func main() {
	cfg, err := admin.ConfigFromEnv(os.Getenv)
	rc, _, roomErr := wire.RoomFromEnv(os.Getenv)
	if err := errors.Join(err, roomErr); err != nil {
		log.Fatalf("admin: %v", err)
	}
	b, err := wire.FromAWS(context.Background())
	if err != nil {
		log.Fatalf("admin: %v", err)
	}
	h, err := b.Admin(cfg, rc)
	if err != nil {
		log.Fatalf("admin: %v", err)
	}
	lambda.Start(h.Handle)
}
