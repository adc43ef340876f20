package wire

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/redrive/redrive/delivery/target"
)

// FromAWS returns the Builder of a Lambda function: AWSClients, the wall
// clock, Lambda's logger, metric lines on stdout and random seeds.
func FromAWS(ctx context.Context) (*Builder, error) {
	clients, err := AWSClients(ctx)
	if err != nil {
		return nil, err
	}
	return NewBuilder(Deps{Clients: clients}), nil
}

// AWSClients returns SDK clients from the default AWS configuration (in
// Lambda, the function's role and region).
func AWSClients(ctx context.Context) (Clients, error) {
	cfg, err := awsconfig.LoadDefaultConfig(ctx)
	if err != nil {
		return Clients{}, fmt.Errorf("wire: load AWS configuration: %w", err)
	}
	return clientsOf(cfg), nil
}

// clientsOf builds the clients on cfg. The DynamoDB, Step Functions and
// parking-lot clients keep the SDK's standard retries (throttling and
// transient service errors, 3 tries with backoff). The delivery clients
// make one try: an SDK retry would multiply the calls that reach a
// downstream that is already down, hidden from the breaker, which counts
// the failure and decides when to try again.
func clientsOf(cfg aws.Config) Clients {
	return Clients{
		DynamoDB:   dynamodb.NewFromConfig(cfg),
		SFN:        sfn.NewFromConfig(cfg),
		ParkingLot: sqs.NewFromConfig(cfg),
		S3:         s3.NewFromConfig(cfg),
		Replay:     sqs.NewFromConfig(cfg),
		Delivery: target.Clients{
			Lambda: lambda.NewFromConfig(cfg, func(o *lambda.Options) { o.RetryMaxAttempts = deliveryTries }),
			SQS:    sqs.NewFromConfig(cfg, func(o *sqs.Options) { o.RetryMaxAttempts = deliveryTries }),
		},
	}
}

// deliveryTries is how many times a delivery client sends one request.
const deliveryTries = 1
