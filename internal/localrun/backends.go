package localrun

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"net/http"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/redrive/redrive/breaker/dynamostore"
	"github.com/redrive/redrive/internal/ddblocal"
	"github.com/redrive/redrive/internal/sqslocal"
	"github.com/redrive/redrive/statemachine/local"
)

// EnvDynamoDBEndpoint names the variable that points a Stack at an external
// DynamoDB-compatible endpoint (dynalite, DynamoDB Local), as the tests'
// ddbtest does.
const EnvDynamoDBEndpoint = "DDB_ENDPOINT"

// region is the region every local client signs for.
const region = "us-east-1"

// maxConns keeps loopback connections reusable when many handlers call at
// once (Workers > 1).
const maxConns = 128

// credentialsProvider signs requests to the local endpoints, which check
// no secret.
var credentialsProvider = credentials.NewStaticCredentialsProvider("local", "local", "")

// pooledHTTPClient is an SDK HTTP client with a connection pool sized for
// concurrent handlers.
func pooledHTTPClient() *awshttp.BuildableClient {
	return awshttp.NewBuildableClient().WithTransportOptions(func(t *http.Transport) {
		t.MaxIdleConns = maxConns
		t.MaxIdleConnsPerHost = maxConns
	})
}

// dynamoBackend is the DynamoDB endpoint and table of a Stack.
type dynamoBackend struct {
	client  *dynamodb.Client
	table   string
	name    string // "minidyn" or "DDB_ENDPOINT=<url>"
	dropped bool   // the table is deleted on close (external endpoint)
}

// startDynamo connects to endpoint, or runs minidyn in process when it is
// empty, and creates the table from dynamostore's schema: "redrive" on minidyn,
// a uniquely named one on a shared endpoint (deleted on close).
func startDynamo(ctx context.Context, endpoint string) (*dynamoBackend, error) {
	b := &dynamoBackend{table: "redrive", name: "minidyn"}
	var httpClient aws.HTTPClient = pooledHTTPClient()
	if endpoint == "" {
		endpoint, httpClient = "http://minidyn.localrun", inProcess(ddblocal.New())
	} else {
		b.name = EnvDynamoDBEndpoint + "=" + endpoint
		b.table = "redrive-local-" + rand.Text()[:12]
		b.dropped = true
	}
	b.client = dynamodb.New(dynamodb.Options{
		Region:       region,
		BaseEndpoint: aws.String(endpoint),
		Credentials:  credentialsProvider,
		HTTPClient:   httpClient,
		Retryer:      aws.NopRetryer{},
	})
	if err := dynamostore.CreateTable(ctx, b.client, b.table); err != nil {
		return nil, errors.Join(fmt.Errorf("localrun: DynamoDB (%s): %w", b.name, err), b.close(ctx))
	}
	return b, nil
}

// close deletes a table made on a shared endpoint.
func (b *dynamoBackend) close(ctx context.Context) error {
	if !b.dropped {
		return nil
	}
	_, err := b.client.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(b.table)})
	if _, gone := errors.AsType[*types.ResourceNotFoundException](err); err != nil && !gone {
		return fmt.Errorf("localrun: delete table %q: %w", b.table, err)
	}
	return nil
}

// newSQSServer is the embedded SQS server on the executor's clock, with
// message ids and receipt handles from a reader seeded by seed.
func newSQSServer(e *local.Executor, seed int64) (*sqslocal.Server, error) {
	var key [32]byte
	binary.LittleEndian.PutUint64(key[:], uint64(seed))
	return sqslocal.NewServer(sqslocal.Options{
		Now: e.Now,
		After: func(d time.Duration) <-chan time.Time {
			c := make(chan time.Time, 1)
			e.At(e.Now().Add(d), func(context.Context) { c <- e.Now() })
			return c
		},
		Rand: mrand.NewChaCha8(key),
	})
}
