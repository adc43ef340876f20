package dynamo

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TableAPI is the part of the DynamoDB client CreateTable calls;
// *dynamodb.Client satisfies it.
type TableAPI interface {
	CreateTable(ctx context.Context, params *dynamodb.CreateTableInput, optFns ...func(*dynamodb.Options)) (*dynamodb.CreateTableOutput, error)
	DescribeTable(ctx context.Context, params *dynamodb.DescribeTableInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error)
}

// tablePoll is how often CreateTable asks whether a new table is active.
const tablePoll = 25 * time.Millisecond

// PKAttr is the table's partition key (S). Every item's starts with the
// prefix of its kind, so that a function's grant can name the kinds it
// may touch (dynamodb:LeadingKeys) and a reader can tell an item's kind.
const PKAttr = "pk"

// The kinds of item in the table, by the prefix of their partition key,
// and the package that writes each.
const (
	BreakerPrefix   = "breaker#"   // a breaker row (this package)
	DeliveryPrefix  = "delivery#"  // a delivery record (delivery)
	RoomPrefix      = "room#"      // a message waiting in the room (room)
	RoomWatchPrefix = "roomwatch#" // a room's watch (room)
	GroupPrefix     = "group#"     // a FIFO message group's turn in a room (room)
	PacePrefix      = "pace#"      // a breaker key's release pace (room/pace)
	ParkedPrefix    = "parked#"    // the parking lot's index (park/lotindex)
	ReplayPrefix    = "replay#"    // a replay's journal (park/replay)
	RulesKey        = "rules"      // the one item of routing rules (rules)
)

// The waiting room's sparse index (package room writes its items):
// partition key room (S, the breaker key), sort key seq (S, entry time and
// message), projecting only what a listing reads (RoomListedAttrs), not
// the document: an entry's claim, which returns the document, then costs
// the index no write, and a large document is not stored twice.
//
// It is named room_line, not room: tables made before its projection was
// narrowed have the index LegacyRoomIndex instead, projecting every
// attribute, and DynamoDB (so CloudFormation) cannot change an existing
// index's projection; under a new name a deployed table can add it beside
// the old one, then drop the old one (infra/README.md, on upgrading).
const (
	RoomIndex   = "room_line"
	RoomAttr    = "room"
	RoomSeqAttr = "seq"
)

// LegacyRoomIndex is the room's index as tables made before RoomIndex
// had it: the same keys, every attribute projected. Nothing queries it;
// the CDK stack keeps it, on request, for the first deploy of an upgrade
// (LegacyRoomIndexSpec).
const LegacyRoomIndex = "room"

// The room items' attributes its index projects besides the keys
// (RoomListedAttrs): the message id, when the entry was made and when the
// message joined the line.
const (
	RoomMessageAttr = "message_id"
	RoomEnteredAttr = "entered_at"
	RoomSinceAttr   = "since"
)

// RoomListedAttrs are the attributes the room's index projects besides
// its keys.
var RoomListedAttrs = []string{RoomMessageAttr, RoomEnteredAttr, RoomSinceAttr}

// The parking lot's sparse index (package park/lotindex writes its
// items): partition key parked_day (S, the UTC day a message was parked,
// YYYY-MM-DD), sort key parked_seq (S, the parked time and origin id),
// every attribute projected. Listing the lot is one Query per day.
const (
	ParkedIndex   = "parked"
	ParkedDayAttr = "parked_day"
	ParkedSeqAttr = "parked_seq"
)

// TTLAttr is the attribute the table's TTL reads (Unix seconds): the
// delivery records, the waiting room's entries and the parking lot's index
// entries expire by it. The CDK stack and the local stack enable TTL on it.
const TTLAttr = "ttl"

// TableInput is the schema of the table the store, the delivery records,
// the waiting room and the parking lot's index live in: partition key pk
// (S), no sort key, the sparse indexes RoomIndex and ParkedIndex,
// on-demand billing. The CDK stack and the local emulators create the same
// table.
func TableInput(name string) *dynamodb.CreateTableInput {
	return &dynamodb.CreateTableInput{
		TableName: aws.String(name),
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String(PKAttr), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String(RoomAttr), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String(RoomSeqAttr), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String(ParkedDayAttr), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String(ParkedSeqAttr), AttributeType: types.ScalarAttributeTypeS},
		},
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String(PKAttr), KeyType: types.KeyTypeHash},
		},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{
			sparseIndex(RoomIndex, RoomAttr, RoomSeqAttr, RoomListedAttrs...),
			sparseIndex(ParkedIndex, ParkedDayAttr, ParkedSeqAttr),
		},
		BillingMode: types.BillingModePayPerRequest,
	}
}

// LegacyRoomIndexSpec is LegacyRoomIndex as a table made before
// RoomIndex has it, for a stack to keep while RoomIndex is added beside
// it (CloudFormation adds or deletes one index per update, never both).
func LegacyRoomIndexSpec() types.GlobalSecondaryIndex {
	return sparseIndex(LegacyRoomIndex, RoomAttr, RoomSeqAttr)
}

// sparseIndex is a global secondary index on a string partition key and a
// string sort key that only some items carry, projecting the include
// attributes besides the keys, or every attribute when none is named.
func sparseIndex(name, partition, sort string, include ...string) types.GlobalSecondaryIndex {
	p := &types.Projection{ProjectionType: types.ProjectionTypeAll}
	if len(include) > 0 {
		p = &types.Projection{ProjectionType: types.ProjectionTypeInclude, NonKeyAttributes: slices.Clone(include)}
	}
	return types.GlobalSecondaryIndex{
		IndexName: aws.String(name),
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String(partition), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String(sort), KeyType: types.KeyTypeRange},
		},
		Projection: p,
	}
}

// CreateTable creates the table described by TableInput(name), unless a
// table of that name exists already, and returns once it is active. An
// emulator that reports no table status (minidyn) counts as active.
func CreateTable(ctx context.Context, api TableAPI, name string) error {
	_, err := api.CreateTable(ctx, TableInput(name))
	if _, exists := errors.AsType[*types.ResourceInUseException](err); err != nil && !exists {
		return fmt.Errorf("create table %q: %w", name, err)
	}
	ticker := time.NewTicker(tablePoll)
	defer ticker.Stop()
	for {
		out, err := api.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
		if err != nil {
			return fmt.Errorf("wait for table %q: %w", name, err)
		}
		if out.Table == nil {
			return fmt.Errorf("wait for table %q: DescribeTable returned no table", name)
		}
		switch status := out.Table.TableStatus; status {
		case types.TableStatusActive, "":
			return nil
		case types.TableStatusCreating, types.TableStatusUpdating:
		default:
			return fmt.Errorf("wait for table %q: status %s", name, status)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("wait for table %q: %w", name, ctx.Err())
		case <-ticker.C:
		}
	}
}
