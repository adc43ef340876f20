package emulator

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/redrive/redrive/breaker/dynamostore"
	"github.com/redrive/redrive/internal/ddblocal"
	"github.com/redrive/redrive/internal/loopback"
	"github.com/redrive/redrive/internal/sqslocal"
)

// The local account and region: in every ARN the emulator makes, and the
// region its clients sign for (the emulators accept any).
const (
	Region  = "us-east-1"
	Account = "123456789012"
)

// Names of the table and queues the emulator creates.
const (
	// TableName is the table on the embedded DynamoDB; on an external
	// endpoint the table is TableName plus a unique suffix.
	TableName       = "redrive"
	DLQName         = "orders-dlq"
	ParkingLotName  = "orders-parking-lot"
	SourceQueueName = "orders"
)

// dlqVisibilityTimeout is the DLQ's visibility timeout in seconds: a
// record the starter could not start is received again after it.
const dlqVisibilityTimeout = "30"

// credentialsProvider signs requests to the local endpoints, which check
// no secret.
var credentialsProvider = credentials.NewStaticCredentialsProvider("local", "local", "")

// dynamoBackend is the DynamoDB endpoint and the table.
type dynamoBackend struct {
	client *dynamodb.Client
	url    string
	table  string
	server *server // minidyn; nil on an external endpoint
}

// startDynamo serves minidyn on addr, or uses endpoint when set, and
// creates the table from dynamostore's schema.
func startDynamo(ctx context.Context, addr, endpoint string) (*dynamoBackend, error) {
	b := &dynamoBackend{url: endpoint, table: TableName}
	if endpoint == "" {
		srv, err := listen("DynamoDB", addr, ddblocal.New())
		if err != nil {
			return nil, err
		}
		b.server, b.url = srv, srv.URL
	} else {
		b.table = TableName + "-" + rand.Text()[:12]
	}
	b.client = dynamodb.New(dynamodb.Options{HTTPClient: loopback.NewHTTPClient(), Region: Region, BaseEndpoint: aws.String(b.url), Credentials: credentialsProvider})
	if err := dynamostore.CreateTable(ctx, b.client, b.table); err != nil {
		return nil, errors.Join(fmt.Errorf("emulator: DynamoDB at %s: %w", b.url, err), b.close(ctx))
	}
	return b, nil
}

// close deletes the table of an external endpoint, or stops minidyn.
func (b *dynamoBackend) close(ctx context.Context) error {
	if b.server != nil {
		return b.server.close()
	}
	_, err := b.client.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(b.table)})
	if _, gone := errors.AsType[*ddbtypes.ResourceNotFoundException](err); err != nil && !gone {
		return fmt.Errorf("emulator: delete table %q at %s: %w", b.table, b.url, err)
	}
	return nil
}

// sqsBackend is the embedded SQS server and its queues.
type sqsBackend struct {
	client                                *sqs.Client
	queues                                *sqslocal.Server
	server                                *server
	dlqURL, parkingLotURL, sourceQueueURL string
}

// startSQS serves sqslocal on addr, on the wall clock, and creates the
// DLQ, the parking lot, and the source queue whose redrive policy sends to
// the DLQ, as a deployment has them.
func startSQS(ctx context.Context, addr string) (*sqsBackend, error) {
	queues, err := sqslocal.NewServer(sqslocal.Options{Account: Account, Region: Region})
	if err != nil {
		return nil, fmt.Errorf("emulator: %w", err)
	}
	srv, err := listen("SQS", addr, queues)
	if err != nil {
		queues.Close()
		return nil, err
	}
	b := &sqsBackend{
		queues: queues,
		server: srv,
		client: sqs.New(sqs.Options{HTTPClient: loopback.NewHTTPClient(), Region: Region, BaseEndpoint: aws.String(srv.URL), Credentials: credentialsProvider}),
	}
	for _, q := range []struct {
		name  string
		attrs map[string]string
		url   *string
	}{
		{DLQName, map[string]string{"VisibilityTimeout": dlqVisibilityTimeout}, &b.dlqURL},
		{ParkingLotName, nil, &b.parkingLotURL},
		{SourceQueueName, map[string]string{
			"RedrivePolicy": fmt.Sprintf(`{"deadLetterTargetArn":%q,"maxReceiveCount":"3"}`, queueARN(DLQName)),
		}, &b.sourceQueueURL},
	} {
		out, err := b.client.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(q.name), Attributes: q.attrs})
		if err != nil {
			return nil, errors.Join(fmt.Errorf("emulator: create queue %s: %w", q.name, err), b.close())
		}
		*q.url = aws.ToString(out.QueueUrl)
	}
	return b, nil
}

// close ends long polls and stops the server.
func (b *sqsBackend) close() error {
	b.queues.Close()
	return b.server.close()
}

// queueARN is the ARN of a local queue.
func queueARN(name string) string {
	return "arn:aws:sqs:" + Region + ":" + Account + ":" + name
}
