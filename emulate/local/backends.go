package local

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/redrive/redrive/clock"
	"github.com/redrive/redrive/dynamo"
	"github.com/redrive/redrive/emulate/ddbmem"
	"github.com/redrive/redrive/emulate/ddbserver"
	"github.com/redrive/redrive/emulate/loopback"
	"github.com/redrive/redrive/emulate/sqslocal"
	"github.com/redrive/redrive/lambda/wire"
)

// region is the region every local client signs for.
const region = "us-east-1"

// credentialsProvider signs requests to the local endpoints, which check
// no secret.
var credentialsProvider = credentials.NewStaticCredentialsProvider("local", "local", "")

// dynamoBackend is the DynamoDB endpoint and table of a Stack.
type dynamoBackend struct {
	client  *dynamodb.Client // nil with Options.InProcess
	api     wire.DynamoDB    // the client, or the in-process table
	mem     *ddbmem.DB       // the in-process table, nil on an endpoint
	url     string
	table   string
	name    string             // "minidyn" or "DynamoDBEndpoint=<url>"
	dropped bool               // the table is deleted on close (external endpoint)
	local   *ddbserver.Handler // the embedded one; nil on an external endpoint
}

// startDynamo connects to Options.DynamoDBEndpoint, or serves minidyn
// (behind ddbserver, which, for a service, expires items by their TTL on its
// clock), and creates the table from dynamo's schema: "redrive" on
// minidyn, with TTL on dynamo.TTLAttr as deployed, or a uniquely
// named one on a shared endpoint (deleted on close).
func (s *Stack) startDynamo(ctx context.Context) (*dynamoBackend, error) {
	b := &dynamoBackend{url: s.opts.DynamoDBEndpoint, table: "redrive", name: "minidyn"}
	if s.opts.InProcess {
		db := ddbmem.New()
		if _, err := db.CreateTable(ctx, dynamo.TableInput(b.table)); err != nil {
			return nil, fmt.Errorf("local: DynamoDB (in process): %w", err)
		}
		b.api, b.mem, b.name = db, db, "in process (ddbmem)"
		return b, nil
	}
	var httpClient aws.HTTPClient = loopback.NewHTTPClient()
	restored := false
	if b.url == "" {
		b.local = ddbserver.New(s.expiryClock())
		var err error
		if restored, err = s.restoreFrom(stateDynamoDB, b.local.Restore); err != nil {
			return nil, err
		}
		if b.url, httpClient, err = s.endpoint("DynamoDB", "dynamodb", s.addr(func(a *Addresses) string { return a.DynamoDB }), b.local); err != nil {
			return nil, err
		}
	} else {
		b.name = "DynamoDBEndpoint=" + b.url
		b.table = "redrive-local-" + rand.Text()[:12]
		b.dropped = true
	}
	b.client = dynamodb.New(dynamodb.Options{
		Region:       region,
		BaseEndpoint: aws.String(b.url),
		Credentials:  credentialsProvider,
		HTTPClient:   httpClient,
		Retryer:      aws.NopRetryer{},
	})
	b.api = b.client
	if err := dynamo.CreateTable(ctx, b.client, b.table); err != nil {
		return nil, errors.Join(fmt.Errorf("local: DynamoDB (%s): %w", b.name, err), b.close(ctx))
	}
	if restored {
		if err := roomIndexOf(ctx, b.client, b.table); err != nil {
			return nil, fmt.Errorf("local: state %s: %w", s.opts.State, err)
		}
	}
	if b.dropped || restored {
		return b, nil // a shared endpoint's TTL is its own; a restored table has its own
	}
	_, err := b.client.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String(b.table),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String(dynamo.TTLAttr), Enabled: aws.Bool(true)}})
	if err != nil {
		return nil, fmt.Errorf("local: DynamoDB (%s): enable TTL: %w", b.name, err)
	}
	return b, nil
}

// roomIndexOf checks that table has the room's index, dynamo.RoomIndex:
// a table restored from the state of a version from before it has the
// legacy one only, which nothing queries (and an index cannot be added to
// a restored table here). It asks DescribeTable: minidyn fails a Query
// on an index a table lacks by panicking.
func roomIndexOf(ctx context.Context, api *dynamodb.Client, table string) error {
	out, err := api.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	if err != nil {
		return fmt.Errorf("describe table %q: %w", table, err)
	}
	var names []string
	if out.Table != nil {
		for _, ix := range out.Table.GlobalSecondaryIndexes {
			if aws.ToString(ix.IndexName) == dynamo.RoomIndex {
				return nil
			}
			names = append(names, aws.ToString(ix.IndexName))
		}
	}
	slices.Sort(names) // minidyn lists them in no order
	return fmt.Errorf("its table has no index %s, the waiting room's, only %v (saved by an older version, whose index %s "+
		"projected every attribute?): start with a new state directory", dynamo.RoomIndex, names, dynamo.LegacyRoomIndex)
}

// close deletes a table made on a shared endpoint.
func (b *dynamoBackend) close(ctx context.Context) error {
	if !b.dropped {
		return nil
	}
	_, err := b.client.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(b.table)})
	if _, gone := errors.AsType[*types.ResourceNotFoundException](err); err != nil && !gone {
		return fmt.Errorf("local: delete table %q: %w", b.table, err)
	}
	return nil
}

// newSQSServer is the embedded SQS server on the stack's clock, restored
// from Options.State when it holds one. On the virtual clock its message
// ids and receipt handles come from a reader seeded by the Seed, so a run
// replays; a service's are random.
func (s *Stack) newSQSServer() (*sqslocal.Server, error) {
	opts := sqslocal.Options{Account: account, Region: region, Clock: s.Executor}
	if s.opts.Scaled != nil {
		var restored *sqslocal.Server
		if _, err := s.restoreFrom(stateSQS, func(r io.Reader) (err error) {
			restored, err = sqslocal.Restore(r, opts)
			return err
		}); err != nil || restored != nil {
			return restored, err
		}
		return sqslocal.NewServer(opts)
	}
	var key [32]byte
	binary.LittleEndian.PutUint64(key[:], uint64(s.opts.Seed))
	opts.Rand = mrand.NewChaCha8(key)
	return sqslocal.NewServer(opts)
}

// expiryClock is the clock the embedded table expires items on: a
// service's, so a long run's table holds what has not expired. A run on
// the virtual clock (hours of it at most) keeps every item rather than
// scan the table for expired ones, which slowed the large scenario by a
// seventh; DynamoDB too deletes expired items only within days, so
// nothing relies on it.
func (s *Stack) expiryClock() clock.Clock {
	if s.opts.Scaled == nil {
		return nil
	}
	return s.Executor
}

// addr is the address Options.Serve gives an API, or "" when it serves
// none.
func (s *Stack) addr(of func(*Addresses) string) string {
	if s.opts.Serve == nil {
		return ""
	}
	return of(s.opts.Serve)
}
