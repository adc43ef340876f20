// Command park is the Lambda function behind the attempt state machine's
// Park state: it sends a message to the parking lot with its lineage and
// failure history (its claim-checked body fetched back from BODY_BUCKET),
// and records it in the parking lot's index. Settings: PARKING_LOT_URL,
// PARKING_LOT_MAX_MESSAGE_SIZE, PARKING_LOT_RETENTION, TABLE_NAME for the
// index, BODY_BUCKET.
package main

import (
	"context"
	"log"
	"os"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/redrive/redrive/lambda/wire"
	"github.com/redrive/redrive/park"
)

func main() {
	cfg, err := park.ConfigFromEnv(os.Getenv)
	if err != nil {
		log.Fatalf("park: %v", err)
	}
	b, err := wire.FromAWS(context.Background())
	if err != nil {
		log.Fatalf("park: %v", err)
	}
	h, err := b.Park(cfg)
	if err != nil {
		log.Fatalf("park: %v", err)
	}
	lambda.Start(h.Handle)
}
