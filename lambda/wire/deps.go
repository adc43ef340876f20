package wire

import (
	"io"
	"log/slog"
	"os"

	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/claimcheck"
	"github.com/redrive/redrive/clock"
	"github.com/redrive/redrive/delivery/target"
	"github.com/redrive/redrive/lambda/telemetry"
	"github.com/redrive/redrive/park"
	"github.com/redrive/redrive/park/replay"
)

// Clients are the AWS clients the handlers call, as the small interfaces
// the handlers declare; the SDK's clients satisfy them. A function needs
// only some of them (see the Builder's methods).
type Clients struct {
	// DynamoDB holds the breaker rows, the delivery records and the
	// waiting room (attempt, waitroom, release, admin, and the starter
	// with TARGET_KIND=sqs).
	DynamoDB DynamoDB
	// SFN starts executions (starter, attempt, waitroom, release, admin).
	SFN StepFunctions
	// S3 keeps the bodies too large for a document (claimcheck), for the
	// starter, the attempt and park when BODY_BUCKET is set.
	S3 claimcheck.API
	// ParkingLot sends to the parking-lot queue (starter, park).
	ParkingLot park.SendMessageAPI
	// Replay reads the parking lot and sends to the DLQ for the admin's
	// replay command; nil leaves the command unavailable.
	Replay replay.SQSAPI
	// Delivery are the target's clients (attempt): Lambda for
	// TARGET_KIND=lambda, SQS for sqs. In AWS they make a single try (see
	// AWSClients): the breaker and the state machine do the retrying.
	Delivery target.Clients
}

// Deps are what a Builder builds the handlers on besides their settings.
// The zero value of every field but Clients means its documented default,
// the one a Lambda function wants.
type Deps struct {
	// Clients are the AWS clients.
	Clients Clients
	// Clock is the clock of every handler, breaker, ledger and metric
	// line: the time they read, sleep on (the releaser spreads its
	// releases, the attempt waits between tries of storing an outcome) and
	// set deadlines on (the attempt's delivery deadline). Default
	// clock.Wall; a local host passes its executor, virtual or scaled.
	Clock clock.Clock
	// Logger gets the handlers' log lines and the breakers' state changes.
	// Default telemetry.NewLogger().
	Logger *slog.Logger
	// MetricLines receives the embedded-metric-format lines. Default
	// os.Stdout, where Lambda ships them to CloudWatch.
	MetricLines io.Writer
	// Seed seeds every breaker's randomness (cooldown jitter, ramp, lease
	// ids) and the attempt's backoff jitter, each its own sequence, so a
	// local run replays exactly. Default 0: a random seed.
	Seed uint64
	// Observe, if set, is called on every breaker state change, after the
	// metric and the log line. It must be quick and safe for concurrent
	// use.
	Observe func(breaker.Transition)
	// WrapStore, if set, wraps the attempt function's breaker store, for
	// fault injection.
	WrapStore func(breaker.Store) breaker.Store
	// WrapTarget, if set, wraps the attempt function's target, for fault
	// injection.
	WrapTarget func(target.Target) target.Target
}

// withDefaults returns d with its zero fields defaulted.
func (d Deps) withDefaults() Deps {
	if d.Clock == nil {
		d.Clock = clock.Wall
	}
	if d.Logger == nil {
		d.Logger = telemetry.NewLogger()
	}
	if d.MetricLines == nil {
		d.MetricLines = os.Stdout
	}
	return d
}
