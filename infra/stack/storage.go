package stack

import (
	"time"

	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsdynamodb"
	"github.com/aws/aws-cdk-go/awscdk/v2/awss3"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/redrive/redrive/dynamo"
	"github.com/redrive/redrive/message"
	"github.com/redrive/redrive/starter"
)

// Queue settings.
const (
	retention14Days = 14 // SQS's maximum, in days
	// parkingLotRetention is the parking lot's retention, which the
	// parking lot's index entries expire with (PARKING_LOT_RETENTION).
	parkingLotRetention = retention14Days * 24 * time.Hour
	// demoMaxReceives is how often the demo source queue's consumer may
	// fail a message before SQS dead-letters it.
	demoMaxReceives = 3
	// dlqMaxReceives is how often the starter may fail to start a message
	// (throttled, say) before SQS moves it from the demo DLQ to the parking
	// lot, rather than let it expire.
	dlqMaxReceives = 50
	// dlqVisibility is 6x the starter's timeout plus the batching window,
	// AWS's advice for SQS event sources, so throttled retries do not burn
	// receives.
	dlqVisibility = 6*taskTimeout + starter.BatchWindow
)

// The body bucket (claimcheck).
const (
	// bodyBucketID is the bucket's construct id.
	bodyBucketID = "BodyBucket"
	// bodyKeyPrefix is where claimcheck.Store puts every body (its keys
	// are bodies/<execution name>/<SHA-256>); the functions' grants are
	// held to it.
	bodyKeyPrefix = "bodies/"
)

// storage is the stack's data: the breaker and delivery table, the parking
// lot, the bucket of claim-checked bodies, and the queues messages come
// from.
type storage struct {
	table      awsdynamodb.Table
	parkingLot awssqs.Queue
	bodies     awss3.Bucket
	dlq        awssqs.IQueue
	source     awssqs.IQueue // the source queue; nil when not known (lambda target without SourceQueueArn)
	demo       bool
}

// newStorage creates the table and the parking lot (a FIFO queue for a
// FIFO dead-letter queue, so each group's messages keep their order
// there), and the demo queues or references to the existing ones.
func newStorage(scope constructs.Construct, s Settings) *storage {
	var fifo *bool
	if message.IsFIFOQueue(s.DeadLetterQueueArn) {
		fifo = jsii.Bool(true)
	}
	st := &storage{
		table: newTable(scope, s.KeepLegacyRoomIndex),
		parkingLot: awssqs.NewQueue(scope, jsii.String("ParkingLot"), &awssqs.QueueProps{
			Fifo:            fifo,
			RetentionPeriod: awscdk.Duration_Seconds(jsii.Number(parkingLotRetention.Seconds())),
			Encryption:      awssqs.QueueEncryption_SQS_MANAGED,
			EnforceSSL:      jsii.Bool(true),
			RemovalPolicy:   awscdk.RemovalPolicy_RETAIN,
		}),
		bodies: newBodyBucket(scope, s),
		demo:   s.DemoQueues,
	}
	suppress(st.parkingLot, "AwsSolutions-SQS3", "The parking lot is the end of the line for messages a person must "+
		"look at; a dead-letter queue behind it would be a second parking lot. It is itself the DLQ of the demo DLQ.")

	if s.DemoQueues {
		dlq := awssqs.NewQueue(scope, jsii.String("DeadLetterQueue"), &awssqs.QueueProps{
			RetentionPeriod:   awscdk.Duration_Days(jsii.Number(retention14Days)),
			VisibilityTimeout: awscdk.Duration_Seconds(jsii.Number(dlqVisibility.Seconds())),
			Encryption:        awssqs.QueueEncryption_SQS_MANAGED,
			EnforceSSL:        jsii.Bool(true),
			DeadLetterQueue:   &awssqs.DeadLetterQueue{Queue: st.parkingLot, MaxReceiveCount: jsii.Number(dlqMaxReceives)},
		})
		st.dlq = dlq
		st.source = awssqs.NewQueue(scope, jsii.String("SourceQueue"), &awssqs.QueueProps{
			Encryption:      awssqs.QueueEncryption_SQS_MANAGED,
			EnforceSSL:      jsii.Bool(true),
			DeadLetterQueue: &awssqs.DeadLetterQueue{Queue: dlq, MaxReceiveCount: jsii.Number(demoMaxReceives)},
		})
		return st
	}
	st.dlq = awssqs.Queue_FromQueueArn(scope, jsii.String("DeadLetterQueue"), jsii.String(s.DeadLetterQueueArn))
	if s.Target.SourceQueueArn != "" {
		st.source = awssqs.Queue_FromQueueArn(scope, jsii.String("SourceQueue"), jsii.String(s.Target.SourceQueueArn))
	}
	return st
}

// newBodyBucket creates the bucket the claim check keeps the bodies too
// large for a document in (package claimcheck): the starter puts each
// under bodyKeyPrefix, the attempt and park functions get it back, and
// nothing deletes one: the lifecycle rule expires it BodyRetentionDays
// after it was put (Validate keeps that beyond the room's TTL and the
// parking lot's retention).
func newBodyBucket(scope constructs.Construct, s Settings) awss3.Bucket {
	bucket := awss3.NewBucket(scope, jsii.String(bodyBucketID), &awss3.BucketProps{
		// SSE-S3 (AES256), what each PutObject asks for: no key to grant,
		// and a PUT that asks for it matches the bucket's default.
		Encryption:        awss3.BucketEncryption_S3_MANAGED,
		BlockPublicAccess: awss3.BlockPublicAccess_BLOCK_ALL(),
		EnforceSSL:        jsii.Bool(true),
		// A body is written once under a key of its own (origin id,
		// attempt, SHA-256) and never changed: no versions to keep, and
		// none for the expiry to leave behind.
		Versioned: jsii.Bool(false),
		LifecycleRules: &[]*awss3.LifecycleRule{{
			Id:         jsii.String("ExpireBodies"),
			Expiration: awscdk.Duration_Days(jsii.Number(float64(s.BodyRetentionDays))),
			// The starter's PutObject grant also allows multipart uploads;
			// parts of one never completed are billed and no expiry
			// removes them.
			AbortIncompleteMultipartUploadAfter: awscdk.Duration_Days(jsii.Number(1)),
		}},
		// Bodies are customer data: the bucket is retained when the stack
		// is deleted (as the table and the parking lot are), and
		// autoDeleteObjects stays off, so no custom resource empties it.
		// Its objects still expire by the lifecycle rule.
		RemovalPolicy:     awscdk.RemovalPolicy_RETAIN,
		AutoDeleteObjects: jsii.Bool(false),
	})
	suppress(bucket, "AwsSolutions-S1", "Server access logs need a logs bucket, and the stack has none: nothing else it "+
		"keeps is in S3. Of the stack's roles only the starter's (PutObject) and the attempt and park functions' (GetObject) "+
		"may use this bucket, on bodies/* only; the bucket policy denies any request without TLS, and every object "+
		"expires by the lifecycle rule. For an audit trail of object access, turn on CloudTrail S3 data events for it.")
	return bucket
}

// newTable creates the table of breaker rows, delivery records, waiting
// room entries, pace rows and the parking lot's index, on
// dynamo.TableInput's schema: its partition key and its sparse
// indexes (the waiting room's, which the room queries per breaker key
// in the order its messages may go, and the parking lot's, which `redrive parked` queries per
// day), with TTL on dynamo.TTLAttr (DynamoDB allows one TTL attribute
// per table). keepLegacy adds dynamo.LegacyRoomIndex after them
// (Settings.KeepLegacyRoomIndex).
func newTable(scope constructs.Construct, keepLegacy bool) awsdynamodb.Table {
	schema := dynamo.TableInput("")
	if keepLegacy {
		schema.GlobalSecondaryIndexes = append(schema.GlobalSecondaryIndexes, dynamo.LegacyRoomIndexSpec())
	}
	types := map[string]awsdynamodb.AttributeType{}
	for _, a := range schema.AttributeDefinitions {
		types[*a.AttributeName] = attributeType(a.AttributeType)
	}
	keys := func(elems []ddbtypes.KeySchemaElement) (pk, sk *awsdynamodb.Attribute) {
		for _, e := range elems {
			attr := &awsdynamodb.Attribute{Name: e.AttributeName, Type: types[*e.AttributeName]}
			if e.KeyType == ddbtypes.KeyTypeHash {
				pk = attr
			} else {
				sk = attr
			}
		}
		return pk, sk
	}
	pk, sk := keys(schema.KeySchema)
	table := awsdynamodb.NewTable(scope, jsii.String("Table"), &awsdynamodb.TableProps{
		PartitionKey: pk,
		SortKey:      sk,
		BillingMode:  awsdynamodb.BillingMode_PAY_PER_REQUEST,
		PointInTimeRecoverySpecification: &awsdynamodb.PointInTimeRecoverySpecification{
			PointInTimeRecoveryEnabled: jsii.Bool(true),
		},
		TimeToLiveAttribute: jsii.String(dynamo.TTLAttr),
		Encryption:          awsdynamodb.TableEncryption_AWS_MANAGED,
		RemovalPolicy:       awscdk.RemovalPolicy_RETAIN,
	})
	for _, gsi := range schema.GlobalSecondaryIndexes {
		pk, sk := keys(gsi.KeySchema)
		props := &awsdynamodb.GlobalSecondaryIndexProps{IndexName: gsi.IndexName, PartitionKey: pk, SortKey: sk,
			ProjectionType: awsdynamodb.ProjectionType_ALL}
		if p := gsi.Projection; p != nil {
			switch p.ProjectionType {
			case ddbtypes.ProjectionTypeKeysOnly:
				props.ProjectionType = awsdynamodb.ProjectionType_KEYS_ONLY
			case ddbtypes.ProjectionTypeInclude:
				props.ProjectionType = awsdynamodb.ProjectionType_INCLUDE
				props.NonKeyAttributes = jsii.Strings(p.NonKeyAttributes...)
			}
		}
		table.AddGlobalSecondaryIndex(props)
	}
	return table
}

// attributeType is the CDK's name for a DynamoDB key attribute type.
func attributeType(t ddbtypes.ScalarAttributeType) awsdynamodb.AttributeType {
	switch t {
	case ddbtypes.ScalarAttributeTypeN:
		return awsdynamodb.AttributeType_NUMBER
	case ddbtypes.ScalarAttributeTypeB:
		return awsdynamodb.AttributeType_BINARY
	}
	return awsdynamodb.AttributeType_STRING
}

// roomIndexArn is the ARN of the waiting room's index, which the room
// queries (IAM authorizes Query on an index by the index's ARN).
func (st *storage) roomIndexArn() string {
	return *st.table.TableArn() + "/index/" + dynamo.RoomIndex
}

// bodyObjectsArn is the ARN of the claim-checked bodies' objects (every
// key under bodyKeyPrefix), the only resource the functions' S3 grants
// name.
func (st *storage) bodyObjectsArn() string {
	return *st.bodies.ArnForObjects(jsii.String(bodyKeyPrefix + "*"))
}

// refs returns the storage's names and addresses for the environment.
func (st *storage) refs() refs {
	r := refs{tableName: *st.table.TableName(), parkingLotURL: *st.parkingLot.QueueUrl(), dlqURL: *st.dlq.QueueUrl(),
		bodyBucket: *st.bodies.BucketName()}
	if st.source != nil {
		r.targetQueueURL = *st.source.QueueUrl()
		r.sourceQueueArn = *st.source.QueueArn()
	}
	return r
}
