package replay_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/dynamo"
	"github.com/redrive/redrive/emulate/ddbtest"
	"github.com/redrive/redrive/emulate/sqslocal"
	"github.com/redrive/redrive/emulate/sqslocal/sqstest"
	"github.com/redrive/redrive/lambda/telemetry"
	"github.com/redrive/redrive/message"
	"github.com/redrive/redrive/park"
	"github.com/redrive/redrive/park/replay"
	"github.com/redrive/redrive/test/parktest"
	"github.com/redrive/redrive/test/replaytest"
)

// t0 is when the tests' clock starts.
var t0 = time.Date(2026, 3, 9, 12, 0, 0, 0, time.UTC)

// stepClock is a manual clock for the replay and the SQS server: a Sleep
// advances it at once, and it remembers every sleep.
type stepClock struct {
	*sqstest.Clock
	mu     sync.Mutex
	sleeps []time.Duration
}

func (c *stepClock) Sleep(ctx context.Context, d time.Duration) {
	c.mu.Lock()
	c.sleeps = append(c.sleeps, d)
	c.mu.Unlock()
	c.Advance(d)
}

func (c *stepClock) Deadline(context.Context) (time.Time, bool) { return time.Time{}, false }

func (c *stepClock) WithDeadline(ctx context.Context, _ time.Time) (context.Context, context.CancelFunc) {
	return context.WithCancel(ctx)
}

// env is a parking lot, a DLQ and a breaker table on test backends, on
// a manual clock.
type env struct {
	clock  *stepClock
	sqs    *replaytest.SQS
	ddb    *dynamodb.Client
	table  string
	lot    *park.Lot
	lotURL string
	dlqURL string
}

func newEnv(t *testing.T) *env {
	t.Helper()
	clk := &stepClock{Clock: sqstest.NewClock(t0)}
	b := sqstest.Start(t, sqslocal.Options{Clock: clk})
	if b.Server == nil {
		t.Skip("these tests drive the embedded SQS server's clock; SQS_ENDPOINT is set")
	}
	lot := parktest.CreateQueue(t, b)
	dlq := sqstest.CreateQueue(t, b.Client, nil)
	client, _ := ddbtest.Client(t)
	table := ddbtest.CreateTable(t, client, func(ctx context.Context, name string) error {
		return dynamo.CreateTable(ctx, client, name)
	})
	e := &env{
		clock: clk, sqs: &replaytest.SQS{Client: b.Client, Clock: clk}, ddb: client, table: table,
		lotURL: lot.URL, dlqURL: dlq.URL,
	}
	e.lot = &park.Lot{SQS: b.Client, Config: park.LotConfig{QueueURL: lot.URL, MaxMessageSize: park.DefaultMaxMessageSize},
		Metrics: &parktest.Counter{}, Logger: telemetry.JSONLogger(t.Output())}
	return e
}

// replayer is a Replayer on e; visibility is its visibility timeout (0:
// the default).
func (e *env) replayer(t *testing.T, visibility ...time.Duration) *replay.Replayer {
	t.Helper()
	cfg := replay.Config{ParkingLotURL: e.lotURL, DLQURL: e.dlqURL, Table: e.table, ShortPoll: true}
	if len(visibility) > 0 {
		cfg.VisibilityTimeout = visibility[0]
	}
	r, err := replay.New(e.sqs, e.ddb, e.clock, telemetry.JSONLogger(t.Output()), cfg)
	require.NoError(t, err)
	return r
}

// parked describes a message to park.
type parked struct {
	origin, body, breaker, reason, errorType string
	at                                       time.Duration // after t0
	attrs                                    map[string]message.Attribute
}

// park parks every message in the lot, as the park task would.
func (e *env) park(t *testing.T, msgs ...parked) {
	t.Helper()
	for _, p := range msgs {
		rec := park.Record{
			Lineage:    message.Lineage{OriginID: p.origin, Attempt: 2},
			BreakerKey: p.breaker, Reason: p.reason, ParkedAt: t0.Add(p.at), Tries: 1,
		}
		if p.errorType != "" {
			rec.History = []message.Failure{{At: t0.Add(p.at), Try: 1, Outcome: message.OutcomeTransient, ErrorType: p.errorType, Message: "no"}}
			rec.LastError = p.errorType + ": no"
		}
		_, err := e.lot.Park(t.Context(), message.Message{ID: "dlq-" + p.origin, Body: p.body, MessageAttributes: p.attrs}, rec)
		require.NoError(t, err)
	}
}

// receiveAll receives every visible message of url, hiding them for a
// minute, and returns them.
func (e *env) receiveAll(t *testing.T, url string) []message.Message {
	t.Helper()
	var out []message.Message
	for {
		got, err := e.sqs.Client.ReceiveMessage(t.Context(), &sqs.ReceiveMessageInput{
			QueueUrl: aws.String(url), MaxNumberOfMessages: 10, VisibilityTimeout: 60, MessageAttributeNames: []string{"All"},
		})
		require.NoError(t, err)
		if len(got.Messages) == 0 {
			return out
		}
		for _, m := range got.Messages {
			out = append(out, message.FromSQS(m))
		}
	}
}

// origins reads the lineage's origin of each message.
func origins(t *testing.T, msgs []message.Message) []string {
	t.Helper()
	var out []string
	for _, m := range msgs {
		lin, found, err := message.LineageOf(m)
		require.NoError(t, err)
		require.True(t, found)
		out = append(out, lin.OriginID)
	}
	return out
}
