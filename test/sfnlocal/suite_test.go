package sfnlocal

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/redrive/redrive/clock"
	"github.com/redrive/redrive/emulate/local"
	"github.com/redrive/redrive/emulate/loopback"
)

// The environment variables the suite reads (see the package doc).
const (
	envEndpoint      = "SFN_LOCAL_ENDPOINT"
	envSelfTest      = "SFN_LOCAL_SELFTEST"
	envLambdaAddr    = "LAMBDA_SERVER_ADDR"
	envWaitTimeScale = "WAIT_TIME_SCALE"
	envDynamoDB      = "DDB_ENDPOINT"
)

// defaultLambdaAddr is where Step Functions Local's LAMBDA_ENDPOINT
// expects the Lambda server unless LAMBDA_SERVER_ADDR says otherwise.
const defaultLambdaAddr = "127.0.0.1:9001"

// settings are the functions' settings for the suite: small cooldowns and
// backoffs (in the handlers' time) and no jitter, so a scenario takes
// seconds of emulated time and its path is predictable; the breaker key
// comes from the "breaker" message attribute, one per scenario.
var settings = map[string]string{
	"BREAKER_KEY_ATTRIBUTE":        "breaker",
	"BREAKER_CONSECUTIVE_FAILURES": "2",
	"BREAKER_COOLDOWN_BASE":        "10s",
	"BREAKER_COOLDOWN_MULTIPLIER":  "2",
	"BREAKER_COOLDOWN_MAX":         "30s",
	"BREAKER_JITTER":               "-1",
	"BREAKER_SUCCESSES_TO_CLOSE":   "1",
	"BREAKER_POLL_INTERVAL":        "2s",
	"BACKOFF_BASE":                 "2s",
	"BACKOFF_MAX":                  "10s",
	"MAX_ATTEMPTS":                 "8",
}

// region is the region the suite's clients sign for, and the local
// stack's ARNs'.
const region = "us-east-1"

// suite is what every scenario shares: one local stack for the run.
type suite struct {
	e       *local.Stack
	clock   *clock.Scaled
	sfn     *sfn.Client
	sqs     *sqs.Client
	backend string
	// standIn is the executor standing in for Step Functions Local in the
	// self-test; nil against Step Functions Local.
	standIn *standIn
}

var (
	shared    *suite
	sharedErr error
	startOnce sync.Once
)

func TestMain(m *testing.M) {
	code := m.Run()
	if shared != nil {
		if err := shared.close(); err != nil {
			fmt.Fprintf(os.Stderr, "sfnlocal: %v\n", err)
			code = 1
		}
	}
	os.Exit(code)
}

// setup returns the shared suite, starting it on first use, or skips the
// test when no Step Functions endpoint is configured.
func setup(t *testing.T) *suite {
	t.Helper()
	if os.Getenv(envEndpoint) == "" && os.Getenv(envSelfTest) != "1" {
		t.Skip(envEndpoint + " not set (nor " + envSelfTest + "=1): no Step Functions Local to run against; see cmd/redrive/README.md")
	}
	startOnce.Do(func() { shared, sharedErr = start() })
	if sharedErr != nil {
		t.Fatalf("start the suite: %v", sharedErr)
	}
	t.Logf("backend %s, Lambda server on %s, time scale %g, DynamoDB %s table %s",
		shared.backend, shared.e.Endpoints.LambdaAddr, shared.clock.Scale(), shared.e.Endpoints.DynamoDB, shared.e.Table)
	return shared
}

// start brings the suite up from the environment.
func start() (*suite, error) {
	scale, err := timeScale(os.Getenv(envWaitTimeScale))
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s := &suite{backend: "Step Functions Local at " + os.Getenv(envEndpoint)}
	if s.clock, err = clock.NewScaled(scale, nil); err != nil {
		return nil, err
	}
	opts := local.Options{
		Scaled:                s.clock,
		Serve:                 &local.Addresses{Lambda: os.Getenv(envLambdaAddr)},
		StepFunctionsEndpoint: os.Getenv(envEndpoint),
		DynamoDBEndpoint:      os.Getenv(envDynamoDB),
		Env:                   func(name string) string { return settings[name] },
		NameSuffix:            "-" + rand.Text()[:8],
		// The attempt state machine as a Standard workflow (the same
		// definition): its executions have histories to read, and names
		// that say the message and its run.
		StandardAttempts: true,
	}
	if opts.Serve.Lambda == "" {
		opts.Serve.Lambda = defaultLambdaAddr
	}
	var lambdaServer *lateInvoker
	if opts.StepFunctionsEndpoint == "" {
		s.backend = "the project's executor (" + envSelfTest + "=1)"
		if os.Getenv(envLambdaAddr) == "" {
			opts.Serve.Lambda = "127.0.0.1:0"
		}
		lambdaServer = &lateInvoker{}
		if s.standIn, err = startStandIn(s.clock, lambdaServer); err != nil {
			return nil, err
		}
		opts.StepFunctionsEndpoint = s.standIn.URL
	}
	if s.e, err = local.Start(ctx, opts); err != nil {
		return nil, s.closeAfter(err)
	}
	if lambdaServer != nil {
		lambdaServer.connect(s.e.Endpoints.Lambda)
	}
	creds := credentials.NewStaticCredentialsProvider("local", "local", "")
	s.sfn = sfn.New(sfn.Options{HTTPClient: loopback.NewHTTPClient(), Region: region, BaseEndpoint: aws.String(s.e.Endpoints.StepFunctions), Credentials: creds})
	s.sqs = sqs.New(sqs.Options{HTTPClient: loopback.NewHTTPClient(), Region: region, BaseEndpoint: aws.String(s.e.Endpoints.SQS), Credentials: creds})
	return s, nil
}

// timeScale is the handlers' clock speed for a WAIT_TIME_SCALE: Step
// Functions Local multiplies every Wait by WAIT_TIME_SCALE, so the clock
// runs 1/WAIT_TIME_SCALE times faster than the wall clock.
func timeScale(waitTimeScale string) (float64, error) {
	if waitTimeScale == "" {
		return 1, nil
	}
	w, err := strconv.ParseFloat(waitTimeScale, 64)
	if err != nil || !(w > 0) || math.IsInf(w, 0) {
		return 0, fmt.Errorf("%s=%q: want a number > 0, the value Step Functions Local runs with (0 skips Waits, which no handler clock can keep pace with)", envWaitTimeScale, waitTimeScale)
	}
	return 1 / w, nil
}

// close stops the stack and the stand-in.
func (s *suite) close() error {
	var err error
	if s.e != nil {
		err = s.e.Close()
	}
	return s.closeAfter(err)
}

// closeAfter stops the stand-in, if any, and returns err with its error.
func (s *suite) closeAfter(err error) error {
	if s.standIn != nil {
		err = errors.Join(err, s.standIn.close())
	}
	return err
}
