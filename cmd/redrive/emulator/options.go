package emulator

import (
	"fmt"
	"io"
	"regexp"
)

// Options configures an Emulator. The zero value of every field means its
// documented default.
type Options struct {
	// LambdaAddr, SFNAddr, DynamoDBAddr and SQSAddr are the addresses the
	// servers listen on, "host:port"; port 0 picks a free port. Default
	// "127.0.0.1:0" each. Step Functions Local in Docker reaches the
	// Lambda server only on an address the container can route to, e.g.
	// "0.0.0.0:9001".
	LambdaAddr, SFNAddr, DynamoDBAddr, SQSAddr string
	// StepFunctionsEndpoint is an external Step Functions endpoint (Step
	// Functions Local) to create the state machines on and start
	// executions with, instead of serving the executor; SFNAddr is then
	// unused.
	StepFunctionsEndpoint string
	// DynamoDBEndpoint is an external DynamoDB endpoint to use instead of
	// serving minidyn; DynamoDBAddr is then unused, and the table gets a
	// unique name and is deleted by Close.
	DynamoDBEndpoint string
	// TimeScale is how many times faster than the wall clock the handlers'
	// clock runs and the executor's Waits pass (see the package doc).
	// Default 1; a finite number > 0.
	TimeScale float64
	// Target is how the simulated consumer behaves; default healthy.
	Target Behaviour
	// Getenv supplies the functions' settings, read as the Lambda
	// functions read their environment: the BREAKER_* policy,
	// MAX_ATTEMPTS, BACKOFF_BASE, BACKOFF_MAX, MAX_CYCLES, DELIVERY_LEASE,
	// POISON_ERROR_TYPES, START_CONCURRENCY and the breaker key
	// (BREAKER_KEY, BREAKER_KEY_ATTRIBUTE or BREAKER_KEY_POINTER, and
	// BREAKER_KEY_DEFAULT). The variables that wire the functions to the
	// emulator (STATE_MACHINE_ARN, TABLE_NAME, PARKING_LOT_URL, TARGET_*)
	// are the emulator's. nil means nothing is set.
	Getenv func(string) string
	// NameSuffix is appended to the state machine names, so runs sharing
	// one Step Functions Local do not meet; [A-Za-z0-9_-], at most 40.
	NameSuffix string
	// Logs receives the handlers' JSON log lines and metric lines.
	// Default io.Discard.
	Logs io.Writer
}

// defaultAddr is where a server listens by default: loopback, a free port.
const defaultAddr = "127.0.0.1:0"

var suffixPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{0,40}$`)

// withDefaults returns o with its defaults, or an error naming the first
// invalid field.
func (o Options) withDefaults() (Options, error) {
	for _, addr := range []*string{&o.LambdaAddr, &o.SFNAddr, &o.DynamoDBAddr, &o.SQSAddr} {
		if *addr == "" {
			*addr = defaultAddr
		}
	}
	if o.TimeScale == 0 {
		o.TimeScale = 1
	}
	if o.Getenv == nil {
		o.Getenv = func(string) string { return "" }
	}
	if o.Logs == nil {
		o.Logs = io.Discard
	}
	if !suffixPattern.MatchString(o.NameSuffix) {
		return o, fmt.Errorf("emulator: options: NameSuffix %q: want at most 40 of A-Z a-z 0-9 _ -", o.NameSuffix)
	}
	return o, nil
}
