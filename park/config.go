package park

import (
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/redrive/redrive/claimcheck"
	"github.com/redrive/redrive/lambda/config"
	"github.com/redrive/redrive/park/lotindex"
)

// The environment variables a LotConfig is read from.
const (
	// EnvQueueURL is the parking-lot queue's URL. Required.
	EnvQueueURL = "PARKING_LOT_URL"
	// EnvMaxMessageSize is the parking lot's MaximumMessageSize in bytes;
	// default DefaultMaxMessageSize.
	EnvMaxMessageSize = "PARKING_LOT_MAX_MESSAGE_SIZE"
	// EnvRetention is the parking lot's MessageRetentionPeriod, as a
	// duration; default DefaultRetention. The index's entries expire with
	// the messages.
	EnvRetention = "PARKING_LOT_RETENTION"
	// EnvFIFOOnPark is what becomes of the rest of a FIFO message's group
	// when it is parked: FIFOContinue (the default) or FIFOHold.
	EnvFIFOOnPark = "FIFO_ON_PARK"
	// EnvTable is the breaker table, where the parking lot's index is
	// kept; unset, parked messages are not indexed.
	EnvTable = "TABLE_NAME"
)

// DefaultRetention is the parking lot's retention as the stack deploys it:
// 14 days, SQS's longest.
const DefaultRetention = lotindex.MaxRetention

// minRetention is SQS's shortest MessageRetentionPeriod.
const minRetention = time.Minute

// DefaultMaxMessageSize is SQS's default and largest maximum message size,
// 1 MiB (256 KiB before August 2025).
const DefaultMaxMessageSize = 1 << 20

// minMessageSize is SQS's smallest MaximumMessageSize.
const minMessageSize = 1024

// LotConfig says where the parking lot is and how large a message it takes.
type LotConfig struct {
	// QueueURL is PARKING_LOT_URL.
	QueueURL string
	// MaxMessageSize is PARKING_LOT_MAX_MESSAGE_SIZE, in bytes: the
	// queue's MaximumMessageSize, which Lot.Park keeps every message under.
	MaxMessageSize int
	// Retention is PARKING_LOT_RETENTION, the queue's
	// MessageRetentionPeriod: a parked message's index entry expires
	// when the queue drops the message. Zero means DefaultRetention.
	Retention time.Duration
}

// LotConfigFromEnv reads a LotConfig and records every bad variable in
// env, so the starter reports them with the rest of its settings.
func LotConfigFromEnv(env *config.Env) LotConfig {
	c := LotConfig{
		QueueURL:       env.Value(EnvQueueURL),
		MaxMessageSize: env.Int(EnvMaxMessageSize, DefaultMaxMessageSize),
		Retention:      env.Duration(EnvRetention, DefaultRetention),
	}
	env.FailAll(c.problems())
	return c
}

// Validate reports every problem with c, each naming its variable.
func (c LotConfig) Validate() error {
	return config.Join(c.problems())
}

// problems lists what is wrong with c.
func (c LotConfig) problems() []*config.VarError {
	var out []*config.VarError
	if p := queueURLProblem(c.QueueURL); p != "" {
		out = append(out, &config.VarError{Name: EnvQueueURL, Value: c.QueueURL, Problem: p})
	}
	if c.MaxMessageSize < minMessageSize || c.MaxMessageSize > DefaultMaxMessageSize {
		out = append(out, &config.VarError{
			Name:    EnvMaxMessageSize,
			Value:   fmt.Sprint(c.MaxMessageSize),
			Problem: fmt.Sprintf("want a size in bytes from %d to %d, as SQS allows", minMessageSize, DefaultMaxMessageSize),
		})
	}
	if c.Retention != 0 && (c.Retention < minRetention || c.Retention > lotindex.MaxRetention) {
		out = append(out, &config.VarError{
			Name:    EnvRetention,
			Value:   c.Retention.String(),
			Problem: fmt.Sprintf("want the queue's retention, from %s to %s (14 days), as SQS allows", minRetention, lotindex.MaxRetention),
		})
	}
	return out
}

// retention is the queue's retention, defaulted.
func (c LotConfig) retention() time.Duration {
	if c.Retention == 0 {
		return DefaultRetention
	}
	return c.Retention
}

// queueURLProblem says what is wrong with a queue URL; "" if nothing.
func queueURLProblem(raw string) string {
	if raw == "" {
		return "required but not set"
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || strings.Trim(u.Path, "/") == "" {
		return "want a queue URL, e.g. https://sqs.us-east-1.amazonaws.com/123456789012/orders-parking-lot"
	}
	return ""
}

// The values of FIFO_ON_PARK. Continue: the rest of the group goes on, as
// SQS's own dead-letter queue does. Hold: the group waits for a person,
// behind a hold rule on it (rules.OnGroup) that they remove to let it go
// on, in its order.
const (
	FIFOContinue = "continue"
	FIFOHold     = "hold"
)

// Config is the Park task's settings.
type Config struct {
	// Lot is the parking lot.
	Lot LotConfig
	// Table is TABLE_NAME, where the parking lot's index is kept; empty,
	// parked messages are not indexed.
	Table string
	// BodyBucket is BODY_BUCKET, where the bodies too large for a document
	// are kept (claimcheck): a parked message gets its body back from it.
	BodyBucket string
	// FIFOOnPark is FIFO_ON_PARK: FIFOContinue or FIFOHold (which needs
	// Table, where the rules are).
	FIFOOnPark string
}

// ConfigFromEnv reads a Config through getenv; the error names every bad
// variable.
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	env := config.From(getenv)
	c := Config{Lot: LotConfigFromEnv(env), Table: env.Value(EnvTable), BodyBucket: env.Value(claimcheck.EnvBucket),
		FIFOOnPark: env.String(EnvFIFOOnPark, FIFOContinue)}
	if p := c.fifoProblem(); p != "" {
		env.Fail(EnvFIFOOnPark, p)
	}
	return c, env.Err()
}

// Validate reports every problem with c, each naming its variable.
func (c Config) Validate() error {
	problems := c.Lot.problems()
	if p := c.fifoProblem(); p != "" {
		problems = append(problems, &config.VarError{Name: EnvFIFOOnPark, Value: c.FIFOOnPark, Problem: p})
	}
	return config.Join(problems)
}

// fifoProblem says what is wrong with FIFOOnPark; "" if nothing.
func (c Config) fifoProblem() string {
	switch c.FIFOOnPark {
	case "", FIFOContinue:
		return ""
	case FIFOHold:
		if c.Table == "" {
			return "hold needs " + EnvTable + ", where the hold rules are kept"
		}
		return ""
	}
	return fmt.Sprintf("want %q or %q", FIFOContinue, FIFOHold)
}
