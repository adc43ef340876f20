package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/redrive/redrive/clock"
	"github.com/redrive/redrive/emulate/local"
	"github.com/redrive/redrive/emulate/simtarget"
)

// localRegion is the region the printed exports give the AWS CLI and the
// SDKs. It is no real region on purpose: the AWS CLI v1 sends SQS requests
// to AWS's own endpoint in every real region, whatever its configuration
// says. The local servers accept any region; their ARNs say us-east-1.
const localRegion = "local"

// localProfile is the profile of the AWS config file `redrive local`
// writes.
const localProfile = "redrive-local"

// localConfig is what the local command's flags say.
type localConfig struct {
	stack  local.Options
	target simtarget.Behaviour
	scale  float64
	// dir holds the AWS config file and the env file.
	dir string
}

// runLocal is `redrive local`: it serves the stack until ctx ends (SIGINT
// or SIGTERM), then shuts it down, saying what it drops.
func runLocal(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cfg, code, ok := parseLocal(args, os.Getenv, stderr)
	if !ok {
		return code
	}
	s, err := startLocal(ctx, cfg)
	if err != nil {
		fmt.Fprintf(stderr, "redrive local: %v\n", err)
		return exitFailure
	}
	exports, cleanup, err := writeClientFiles(cfg.dir, s)
	if err != nil {
		fmt.Fprintf(stderr, "redrive local: %v\n", errors.Join(err, s.Close()))
		return exitFailure
	}
	defer cleanup()
	printLocal(stdout, s, cfg, exports)
	<-ctx.Done()
	fmt.Fprintln(stderr, "redrive local: shutting down")
	reportKept(stderr, s.Pending(context.Background()), cfg.stack.State)
	if err := s.Close(); err != nil {
		fmt.Fprintf(stderr, "redrive local: %v\n", err)
		return exitFailure
	}
	return exitOK
}

// reportKept says what a stop keeps in the state directory, or drops
// without one.
func reportKept(w io.Writer, p local.Pending, state string) {
	switch {
	case state != "":
		fmt.Fprintf(w, "redrive local: keeping %d running executions, %d queued messages and the table in %s\n",
			p.Executions, p.Messages, state)
	case p.Executions+p.Messages > 0:
		fmt.Fprintf(w, "redrive local: dropping %d running executions and %d queued messages (--state DIR keeps them)\n",
			p.Executions, p.Messages)
	}
}

// startLocal starts the stack cfg describes, on a clock starting now, and
// sets its consumer's behaviour, which starts with the first call.
func startLocal(ctx context.Context, cfg localConfig) (*local.Stack, error) {
	clk, err := clock.NewScaled(cfg.scale, nil)
	if err != nil {
		return nil, err
	}
	opts := cfg.stack
	opts.Scaled = clk
	s, err := local.Start(ctx, opts)
	if err != nil {
		return nil, err
	}
	if _, err := s.UseConsumer(cfg.target, true); err != nil {
		return nil, errors.Join(err, s.Close())
	}
	return s, nil
}

// parseLocal reads the command line into the stack's options, or returns
// the exit code to stop with (after printing the problem to stderr). The
// functions' settings come from getenv.
func parseLocal(args []string, getenv func(string) string, stderr io.Writer) (cfg localConfig, code int, ok bool) {
	fs := flag.NewFlagSet("local", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { localUsage(fs) }
	addrs := &local.Addresses{}
	fs.StringVar(&addrs.Lambda, "lambda-addr", "127.0.0.1:9001", "listen address of the Lambda Invoke API (0.0.0.0:9001 for Step Functions Local in Docker)")
	fs.StringVar(&addrs.StepFunctions, "sfn-addr", "127.0.0.1:8083", "listen address of the executor's Step Functions API")
	fs.StringVar(&addrs.DynamoDB, "ddb-addr", "127.0.0.1:8000", "listen address of the embedded DynamoDB (minidyn)")
	fs.StringVar(&addrs.SQS, "sqs-addr", "127.0.0.1:9324", "listen address of the embedded SQS")
	fs.StringVar(&cfg.stack.StepFunctionsEndpoint, "sfn-endpoint", "", "use this Step Functions endpoint (e.g. Step Functions Local) instead of serving the executor")
	fs.StringVar(&cfg.stack.DynamoDBEndpoint, "ddb-endpoint", "", "use this DynamoDB endpoint (e.g. DynamoDB Local) instead of serving minidyn")
	fs.Float64Var(&cfg.scale, "time-scale", 1, "run the clock (Waits, timeouts, the handlers', SQS's) this many times faster than the wall clock")
	fs.StringVar(&cfg.stack.State, "state", "", "keep the executions, the queues and the table in this directory across restarts")
	fs.DurationVar(&cfg.stack.Retention, "retention", time.Hour, "forget a finished execution this long after it stopped, on the stack's clock (bounds memory)")
	fs.StringVar(&cfg.dir, "config-dir", filepath.Join(os.TempDir(), "redrive-local"), "write the AWS config file and env, the export lines for a shell to source, into `DIR`; both removed on exit")
	target := fs.String("target", "healthy", "the demo consumer from its first call: healthy, down[:DURATION] or flaky:RATE[:DURATION] (DURATION on the stack's clock)")
	quiet := fs.Bool("quiet", false, "do not print the functions' log lines to stderr")
	if code, ok := parseFlags(fs, args); !ok {
		return cfg, code, false
	}
	b, err := simtarget.ParseBehaviour(*target)
	if err != nil {
		fmt.Fprintf(stderr, "redrive local: --target: %v\n", err)
		fs.Usage()
		return cfg, exitUsage, false
	}
	if !(cfg.scale > 0) {
		fmt.Fprintf(stderr, "redrive local: --time-scale %v: want a number > 0\n", cfg.scale)
		fs.Usage()
		return cfg, exitUsage, false
	}
	cfg.target, cfg.stack.Serve, cfg.stack.Env = b, addrs, getenv
	if getenv == nil {
		cfg.stack.Env = func(string) string { return "" }
	}
	if !*quiet {
		cfg.stack.Logs = stderr
	}
	return cfg, exitOK, true
}

// localUsage prints the local command's synopsis and flags.
func localUsage(fs *flag.FlagSet) {
	w := fs.Output()
	fmt.Fprintln(w, "Usage: redrive local [flags]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Serves the orchestrator on local ports until interrupted: the handlers behind the")
	fmt.Fprintln(w, "Lambda Invoke API, Step Functions, DynamoDB and SQS, with the DLQ's event source.")
	fmt.Fprintln(w, "The functions read their settings (BREAKER_*, MAX_ATTEMPTS, BACKOFF_BASE, BREAKER_KEY...)")
	fmt.Fprintln(w, "from the environment, as in Lambda. A message body containing \""+simtarget.PoisonMarker+"\" is poison to the consumer.")
	fmt.Fprintln(w, "Without --state, nothing is kept across a restart.")
	fmt.Fprintln(w)
	fs.PrintDefaults()
}

// printLocal prints where everything is, and the export lines for a shell
// that talks to it.
func printLocal(w io.Writer, s *local.Stack, cfg localConfig, exports [][2]string) {
	fmt.Fprintf(w, "redrive local: serving (time scale %s, consumer %s from its first call)\n", strconv.FormatFloat(cfg.scale, 'g', -1, 64), cfg.target)
	fmt.Fprintf(w, "  Lambda Invoke API  %s (listening on %s)\n", s.Endpoints.Lambda, s.Endpoints.LambdaAddr)
	fmt.Fprintf(w, "    functions        %s %s %s %s %s %s %s\n", local.FunctionStarter, local.FunctionAttempt,
		local.FunctionPark, local.FunctionAdmin, local.FunctionWaitRoom,
		local.FunctionRelease, local.FunctionConsumer)
	fmt.Fprintf(w, "  Step Functions     %s\n", s.Endpoints.StepFunctions)
	fmt.Fprintf(w, "    redrive          %s (Express: one execution per delivery try)\n", s.RedriveARN)
	fmt.Fprintf(w, "    admin            %s\n", s.AdminARN)
	fmt.Fprintf(w, "    release          %s (each breaker's controller)\n", s.ReleaseARN)
	fmt.Fprintf(w, "  DynamoDB           %s table %s\n", s.Endpoints.DynamoDB, s.Table)
	fmt.Fprintf(w, "  SQS                %s\n", s.Endpoints.SQS)
	fmt.Fprintf(w, "    DLQ              %s\n", s.DLQURL)
	fmt.Fprintf(w, "    parking lot      %s\n", s.ParkingLotURL)
	fmt.Fprintf(w, "    source queue     %s\n", s.SourceQueueURL)
	fmt.Fprintln(w)
	fmt.Fprintf(w, "# In another shell, source %s, or run these (the AWS_* lines point the aws CLI,\n", filepath.Join(cfg.dir, "env"))
	fmt.Fprintln(w, "# v1 or v2, and the SDKs at the local servers; open a new shell before talking to AWS):")
	for _, kv := range exports {
		fmt.Fprintf(w, "export %s=%s\n", kv[0], kv[1])
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "# Then: aws sqs send-message --queue-url \"$DLQ_URL\" --message-body '{\"order\": 1}'")
	fmt.Fprintln(w, "#       aws stepfunctions list-executions --state-machine-arn \"$REDRIVE_STATE_MACHINE_ARN\"")
	fmt.Fprintln(w, "#       redrive admin status --breaker orders")
	fmt.Fprintln(w, "#       redrive parked summary")
}

// localExports lists the environment variables a shell needs to use the
// stack: the admin command's, the resources', and the AWS CLI's and SDKs'.
func localExports(s *local.Stack, configFile string) [][2]string {
	return [][2]string{
		{envSFNEndpoint, s.Endpoints.StepFunctions},
		{envAdminStateMachine, s.AdminARN},
		{"REDRIVE_STATE_MACHINE_ARN", s.RedriveARN},
		{"RELEASE_STATE_MACHINE_ARN", s.ReleaseARN},
		{"DLQ_URL", s.DLQURL},
		{"DLQ_ARN", local.QueueARN(local.DLQName)},
		{"PARKING_LOT_URL", s.ParkingLotURL},
		{"PARKING_LOT_ARN", local.QueueARN(local.ParkingLotName)},
		{"SOURCE_QUEUE_URL", s.SourceQueueURL},
		{"TABLE_NAME", s.Table},
		{"AWS_CONFIG_FILE", configFile},
		{"AWS_PROFILE", localProfile},
		{"AWS_ENDPOINT_URL_SFN", s.Endpoints.StepFunctions},
		{"AWS_ENDPOINT_URL_SQS", s.Endpoints.SQS},
		{"AWS_ENDPOINT_URL_DYNAMODB", s.Endpoints.DynamoDB},
		{"AWS_ENDPOINT_URL_LAMBDA", s.Endpoints.Lambda},
		{"AWS_REGION", localRegion},
		{"AWS_DEFAULT_REGION", localRegion},
		{"AWS_ACCESS_KEY_ID", "local"},
		{"AWS_SECRET_ACCESS_KEY", "local"},
	}
}

// writeClientFiles writes into dir, made if need be, what a client shell
// needs: the AWS config file of the local profile (the region, the
// credentials, and each service's endpoint_url, which the AWS CLI v1 reads
// only from there) and env, the export lines, for `source`. It returns the
// exports, and cleanup, which removes both files (and dir, if empty).
func writeClientFiles(dir string, s *local.Stack) (exports [][2]string, cleanup func(), err error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, nil, err
	}
	var config strings.Builder
	fmt.Fprintf(&config, "[profile %s]\nregion = %s\naws_access_key_id = local\naws_secret_access_key = local\nservices = %s\n\n", localProfile, localRegion, localProfile)
	fmt.Fprintf(&config, "[services %s]\n", localProfile)
	for _, svc := range [][2]string{{"sfn", s.Endpoints.StepFunctions}, {"sqs", s.Endpoints.SQS}, {"dynamodb", s.Endpoints.DynamoDB}, {"lambda", s.Endpoints.Lambda}} {
		fmt.Fprintf(&config, "%s =\n  endpoint_url = %s\n", svc[0], svc[1])
	}
	configFile, envFile := filepath.Join(dir, "aws-config"), filepath.Join(dir, "env")
	exports = localExports(s, configFile)
	var env strings.Builder
	for _, kv := range exports {
		fmt.Fprintf(&env, "export %s=%s\n", kv[0], kv[1])
	}
	cleanup = func() {
		_ = os.Remove(configFile)
		_ = os.Remove(envFile)
		_ = os.Remove(dir) // only if empty
	}
	for name, text := range map[string]string{configFile: config.String(), envFile: env.String()} {
		if err := os.WriteFile(name, []byte(text), 0o600); err != nil {
			cleanup()
			return nil, nil, fmt.Errorf("write %s: %w", name, err)
		}
	}
	return exports, cleanup, nil
}
