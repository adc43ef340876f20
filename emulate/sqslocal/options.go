package sqslocal

import (
	"crypto/rand"
	"fmt"
	"io"
	"regexp"
	"time"

	"github.com/redrive/redrive/clock"
)

// DefaultMaxMessageSize is SQS's maximum message size, 1 MiB, since AWS
// raised it from 256 KiB in August 2025.
const DefaultMaxMessageSize = 1 << 20

// minMessageSize and maxMaxMessageSize bound Options.MaxMessageSize: SQS's
// smallest MaximumMessageSize, and a sanity ceiling for a local server.
const (
	minMessageSize    = 1024
	maxMaxMessageSize = 64 << 20
)

// Options configures a Server. The zero value means every default.
type Options struct {
	// Account is the 12-digit account ID in queue URLs and ARNs.
	// Default "123456789012".
	Account string
	// Region is the region in queue ARNs. Default "us-east-1".
	Region string
	// MaxMessageSize is the largest message (body plus message attributes)
	// any queue accepts, the upper bound and default of a queue's
	// MaximumMessageSize, and the largest total of a SendMessageBatch, in
	// bytes. Default DefaultMaxMessageSize (1 MiB); 262144 gives the limit
	// SQS had before 2025.
	MaxMessageSize int
	// Clock is the clock timestamps, delays, visibility timeouts and
	// retention read, and long-polling receives wait on. Default
	// clock.Wall; a virtual clock (the local executor) drives long polls
	// in a simulation.
	Clock Clock
	// Rand supplies the randomness of message IDs, receipt handles and
	// request IDs. Default crypto/rand.Reader; a seeded reader makes a
	// simulation's IDs reproducible. The server serialises its reads.
	Rand io.Reader
}

// Clock is the time the server lives on: *clock.Scaled, the local
// executor and sqstest.Clock satisfy it.
type Clock interface {
	// Now is the current time.
	Now() time.Time
	// After returns a channel that receives once d has passed.
	After(d time.Duration) <-chan time.Time
}

var (
	accountPattern = regexp.MustCompile(`^[0-9]{12}$`)
	regionPattern  = regexp.MustCompile(`^[a-z]{2}(-[a-z]+)+-[0-9]+$`)
)

// withDefaults returns o with every zero field set to its default, or an
// error naming the first invalid field.
func (o Options) withDefaults() (Options, error) {
	if o.Account == "" {
		o.Account = "123456789012"
	}
	if o.Region == "" {
		o.Region = "us-east-1"
	}
	if o.MaxMessageSize == 0 {
		o.MaxMessageSize = DefaultMaxMessageSize
	}
	if o.Clock == nil {
		o.Clock = clock.Wall
	}
	if o.Rand == nil {
		o.Rand = rand.Reader
	}
	if !accountPattern.MatchString(o.Account) {
		return o, fmt.Errorf("sqslocal: options: Account %q is not a 12-digit account ID", o.Account)
	}
	if !regionPattern.MatchString(o.Region) {
		return o, fmt.Errorf("sqslocal: options: Region %q is not a region name such as us-east-1", o.Region)
	}
	if o.MaxMessageSize < minMessageSize || o.MaxMessageSize > maxMaxMessageSize {
		return o, fmt.Errorf("sqslocal: options: MaxMessageSize %d is outside [%d, %d]", o.MaxMessageSize, minMessageSize, maxMaxMessageSize)
	}
	return o, nil
}
