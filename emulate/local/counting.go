package local

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/redrive/redrive/claimcheck"
	"github.com/redrive/redrive/clock"
	"github.com/redrive/redrive/dynamo"
	"github.com/redrive/redrive/emulate/executor"
	"github.com/redrive/redrive/lambda/wire"
)

// countingInvoker counts invocations per function name around an Invoker,
// and the time they take on clock.
type countingInvoker struct {
	next  executor.Invoker
	clock clock.Clock

	mu     sync.Mutex
	counts map[string]int64
	busy   map[string]time.Duration
}

var _ executor.Invoker = (*countingInvoker)(nil)

// Invoke counts the call under the function's name, passes it on, and
// adds the time it took to the function's.
func (c *countingInvoker) Invoke(ctx context.Context, function string, payload []byte) (executor.Invocation, error) {
	name := functionName(function)
	c.mu.Lock()
	if c.counts == nil {
		c.counts, c.busy = map[string]int64{}, map[string]time.Duration{}
	}
	c.counts[name]++
	c.mu.Unlock()
	start := c.clock.Now()
	inv, err := c.next.Invoke(ctx, function, payload)
	took := c.clock.Now().Sub(start)
	c.mu.Lock()
	c.busy[name] += took
	c.mu.Unlock()
	return inv, err
}

// snapshot returns the counts and times so far.
func (c *countingInvoker) snapshot() (map[string]int64, map[string]time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.counts), maps.Clone(c.busy)
}

// functionName is the bare name of a function name or ARN, without a
// qualifier: "arn:aws:lambda:r:a:function:attempt:live" is "attempt".
func functionName(s string) string {
	if _, rest, ok := strings.Cut(s, ":function:"); ok {
		s = rest
	}
	name, _, _ := strings.Cut(s, ":")
	return name
}

// RowIO counts the DynamoDB calls on one kind of item.
type RowIO struct {
	// Reads counts GetItem calls.
	Reads int64
	// Writes counts PutItem and UpdateItem calls that succeeded.
	Writes int64
	// Conflicts counts conditional writes whose condition failed.
	Conflicts int64
}

// ioKind is the kind of item a partition key names.
type ioKind int

const (
	ioBreaker ioKind = iota
	ioDelivery
	ioParked
	ioOther
)

// countingDB is the DynamoDB client the tasks use, counting the calls per
// kind of item (by partition key prefix). It satisfies wire.DynamoDB.
type countingDB struct {
	next wire.DynamoDB

	mu sync.Mutex
	io [4]RowIO
	// waiting holds the room entries' keys.
	waiting map[string]bool
	// released counts the room's releases: a room entry is deleted only
	// by a release that started its execution (room.Room.Take).
	released atomic.Int64
	// stalled, if set, is called when a key is put on the stalled-rooms
	// list (pace.Store.NoteStalled): the virtual clock's sweep schedule
	// arms then.
	stalled func()
}

var _ wire.DynamoDB = (*countingDB)(nil)

// GetItem reads an item and counts a read.
func (c *countingDB) GetItem(ctx context.Context, in *dynamodb.GetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	out, err := c.next.GetItem(ctx, in, optFns...)
	c.count(in.Key, err, true)
	return out, err
}

// PutItem writes an item and counts a write or a conflict.
func (c *countingDB) PutItem(ctx context.Context, in *dynamodb.PutItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	out, err := c.next.PutItem(ctx, in, optFns...)
	c.count(in.Item, err, false)
	if pk, ok := roomKey(in.Item); ok && err == nil {
		c.mu.Lock()
		if c.waiting == nil {
			c.waiting = map[string]bool{}
		}
		c.waiting[pk] = true
		c.mu.Unlock()
	}
	return out, err
}

// UpdateItem changes an item and counts a write or a conflict.
func (c *countingDB) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	out, err := c.next.UpdateItem(ctx, in, optFns...)
	c.count(in.Key, err, false)
	if pk, ok := in.Key[dynamo.PKAttr].(*types.AttributeValueMemberS); ok && err == nil && c.stalled != nil &&
		pk.Value == dynamo.PacePrefix && strings.HasPrefix(aws.ToString(in.UpdateExpression), "ADD ") {
		c.stalled()
	}
	return out, err
}

// DeleteItem removes an item (a room entry) and counts a write or a
// conflict.
func (c *countingDB) DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	out, err := c.next.DeleteItem(ctx, in, optFns...)
	c.count(in.Key, err, false)
	if pk, ok := roomKey(in.Key); ok && err == nil {
		c.released.Add(1)
		c.mu.Lock()
		delete(c.waiting, pk)
		c.mu.Unlock()
	}
	return out, err
}

// roomKey returns the partition key of a waiting-room item, and false for
// other items.
func roomKey(key map[string]types.AttributeValue) (string, bool) {
	pk, ok := key["pk"].(*types.AttributeValueMemberS)
	if !ok || !strings.HasPrefix(pk.Value, dynamo.RoomPrefix) {
		return "", false
	}
	return pk.Value, true
}

// roomEntries returns the partition keys of the entries waiting in the
// room, sorted.
func (c *countingDB) roomEntries() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Sorted(maps.Keys(c.waiting))
}

// roomDepth returns how many entries wait in the room.
func (c *countingDB) roomDepth() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.waiting)
}

// Query lists items (the room's index) and counts a read.
func (c *countingDB) Query(ctx context.Context, in *dynamodb.QueryInput, optFns ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	out, err := c.next.Query(ctx, in, optFns...)
	c.count(nil, err, true)
	return out, err
}

// count records one call on the item whose key attributes are item.
func (c *countingDB) count(item map[string]types.AttributeValue, err error, read bool) {
	kind := ioOther
	if pk, ok := item["pk"].(*types.AttributeValueMemberS); ok {
		switch {
		case strings.HasPrefix(pk.Value, dynamo.BreakerPrefix):
			kind = ioBreaker
		case strings.HasPrefix(pk.Value, dynamo.DeliveryPrefix):
			kind = ioDelivery
		case strings.HasPrefix(pk.Value, dynamo.ParkedPrefix):
			kind = ioParked
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	n := &c.io[kind]
	switch _, conflict := errors.AsType[*types.ConditionalCheckFailedException](err); {
	case read:
		n.Reads++
	case conflict:
		n.Conflicts++
	case err == nil:
		n.Writes++
	}
}

// snapshot returns the counts for breaker rows, delivery records, the
// parking lot's index entries, and the rest (the waiting room and the pace
// rows).
func (c *countingDB) snapshot() (breakerIO, deliveryIO, parkedIO, otherIO RowIO) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.io[ioBreaker], c.io[ioDelivery], c.io[ioParked], c.io[ioOther]
}

// countingS3 is the tasks' S3 client, counting the claim check's requests
// (each billed by S3).
type countingS3 struct {
	next       claimcheck.API
	puts, gets atomic.Int64
}

var _ claimcheck.API = (*countingS3)(nil)

// PutObject puts an object and counts a request.
func (c *countingS3) PutObject(ctx context.Context, in *s3.PutObjectInput, optFns ...func(*s3.Options)) (*s3.PutObjectOutput, error) {
	c.puts.Add(1)
	return c.next.PutObject(ctx, in, optFns...)
}

// GetObject gets an object and counts a request.
func (c *countingS3) GetObject(ctx context.Context, in *s3.GetObjectInput, optFns ...func(*s3.Options)) (*s3.GetObjectOutput, error) {
	c.gets.Add(1)
	return c.next.GetObject(ctx, in, optFns...)
}
