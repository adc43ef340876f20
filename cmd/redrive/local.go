package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/redrive/redrive/cmd/redrive/emulator"
)

// runLocal is `redrive local`: it serves the emulator until ctx ends
// (SIGINT or SIGTERM), then shuts it down.
func runLocal(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	opts, code, ok := parseLocal(args, os.Getenv, stderr)
	if !ok {
		return code
	}
	e, err := emulator.Start(ctx, opts)
	if err != nil {
		fmt.Fprintf(stderr, "redrive local: %v\n", err)
		return exitFailure
	}
	printLocal(stdout, e, opts)
	<-ctx.Done()
	fmt.Fprintln(stderr, "redrive local: shutting down")
	if err := e.Close(); err != nil {
		fmt.Fprintf(stderr, "redrive local: %v\n", err)
		return exitFailure
	}
	return exitOK
}

// parseLocal reads the command line into emulator options, or returns the
// exit code to stop with (after printing the problem to stderr). The
// functions' settings come from getenv.
func parseLocal(args []string, getenv func(string) string, stderr io.Writer) (opts emulator.Options, code int, ok bool) {
	fs := flag.NewFlagSet("local", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { localUsage(fs) }
	fs.StringVar(&opts.LambdaAddr, "lambda-addr", "127.0.0.1:9001", "listen address of the Lambda Invoke API (0.0.0.0:9001 for Step Functions Local in Docker)")
	fs.StringVar(&opts.SFNAddr, "sfn-addr", "127.0.0.1:8083", "listen address of the executor's Step Functions API")
	fs.StringVar(&opts.DynamoDBAddr, "ddb-addr", "127.0.0.1:8000", "listen address of the embedded DynamoDB (minidyn)")
	fs.StringVar(&opts.SQSAddr, "sqs-addr", "127.0.0.1:9324", "listen address of the embedded SQS")
	fs.StringVar(&opts.StepFunctionsEndpoint, "sfn-endpoint", "", "use this Step Functions endpoint (e.g. Step Functions Local) instead of serving the executor")
	fs.StringVar(&opts.DynamoDBEndpoint, "ddb-endpoint", "", "use this DynamoDB endpoint (e.g. DynamoDB Local) instead of serving minidyn")
	fs.Float64Var(&opts.TimeScale, "time-scale", 1, "run Waits and the handlers' clock this many times faster than the wall clock")
	target := fs.String("target", "healthy", "the demo consumer: healthy, down[:DURATION] or flaky:RATE[:DURATION] (emulated time)")
	quiet := fs.Bool("quiet", false, "do not print the functions' log lines to stderr")
	if code, ok := parseFlags(fs, args); !ok {
		return opts, code, false
	}
	b, err := emulator.ParseBehaviour(*target)
	if err != nil {
		fmt.Fprintf(stderr, "redrive local: --target: %v\n", err)
		fs.Usage()
		return opts, exitUsage, false
	}
	if !(opts.TimeScale > 0) {
		fmt.Fprintf(stderr, "redrive local: --time-scale %v: want a number > 0\n", opts.TimeScale)
		fs.Usage()
		return opts, exitUsage, false
	}
	opts.Target, opts.Getenv = b, getenv
	if !*quiet {
		opts.Logs = stderr
	}
	return opts, exitOK, true
}

// localUsage prints the local command's synopsis and flags.
func localUsage(fs *flag.FlagSet) {
	w := fs.Output()
	fmt.Fprintln(w, "Usage: redrive local [flags]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Serves the orchestrator on local ports until interrupted: the handlers behind the")
	fmt.Fprintln(w, "Lambda Invoke API, Step Functions, DynamoDB and SQS, with the DLQ's event source.")
	fmt.Fprintln(w, "The functions read their settings (BREAKER_*, MAX_ATTEMPTS, BACKOFF_BASE, BREAKER_KEY...)")
	fmt.Fprintln(w, "from the environment, as in Lambda. A message body containing \""+emulator.PoisonMarker+"\" is poison to the consumer.")
	fmt.Fprintln(w)
	fs.PrintDefaults()
}

// printLocal prints where everything is, and the export lines for a
// shell that talks to it.
func printLocal(w io.Writer, e *emulator.Emulator, opts emulator.Options) {
	fmt.Fprintf(w, "redrive local: serving (time scale %s, consumer %s)\n", strconv.FormatFloat(e.Clock.Scale(), 'g', -1, 64), opts.Target)
	fmt.Fprintf(w, "  Lambda Invoke API  %s (listening on %s)\n", e.LambdaURL, e.LambdaAddr)
	fmt.Fprintf(w, "    functions        %s %s %s %s %s %s %s %s\n", emulator.FunctionStarter, emulator.FunctionAttempt,
		emulator.FunctionPark, emulator.FunctionContinuer, emulator.FunctionAdmin, emulator.FunctionWaitRoom,
		emulator.FunctionRelease, emulator.FunctionConsumer)
	fmt.Fprintf(w, "  Step Functions     %s\n", e.SFNURL)
	fmt.Fprintf(w, "    redrive          %s\n", e.RedriveARN)
	fmt.Fprintf(w, "    admin            %s\n", e.AdminARN)
	fmt.Fprintf(w, "    release          %s\n", e.ReleaseARN)
	fmt.Fprintf(w, "  DynamoDB           %s table %s\n", e.DynamoDBURL, e.Table)
	fmt.Fprintf(w, "  SQS                %s\n", e.SQSURL)
	fmt.Fprintf(w, "    DLQ              %s\n", e.DLQURL)
	fmt.Fprintf(w, "    parking lot      %s\n", e.ParkingLotURL)
	fmt.Fprintf(w, "    source queue     %s\n", e.SourceQueueURL)
	fmt.Fprintln(w)
	fmt.Fprintln(w, "# In another shell (the AWS_* lines point the aws CLI and the SDKs at the emulators;")
	fmt.Fprintln(w, "# unset them before talking to AWS):")
	for _, kv := range localExports(e) {
		fmt.Fprintf(w, "export %s=%s\n", kv[0], kv[1])
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "# Then: aws sqs send-message --queue-url \"$DLQ_URL\" --message-body '{\"order\": 1}'")
	fmt.Fprintln(w, "#       aws stepfunctions list-executions --state-machine-arn \"$REDRIVE_STATE_MACHINE_ARN\"")
	fmt.Fprintln(w, "#       redrive admin status --breaker orders")
}

// localExports lists the environment variables a shell needs to use the
// emulator: the admin command's, the resources', and the AWS CLI's.
func localExports(e *emulator.Emulator) [][2]string {
	return [][2]string{
		{envSFNEndpoint, e.SFNURL},
		{envAdminStateMachine, e.AdminARN},
		{"REDRIVE_STATE_MACHINE_ARN", e.RedriveARN},
		{"RELEASE_STATE_MACHINE_ARN", e.ReleaseARN},
		{"DLQ_URL", e.DLQURL},
		{"PARKING_LOT_URL", e.ParkingLotURL},
		{"SOURCE_QUEUE_URL", e.SourceQueueURL},
		{"TABLE_NAME", e.Table},
		{"AWS_ENDPOINT_URL_SFN", e.SFNURL},
		{"AWS_ENDPOINT_URL_SQS", e.SQSURL},
		{"AWS_ENDPOINT_URL_DYNAMODB", e.DynamoDBURL},
		{"AWS_ENDPOINT_URL_LAMBDA", e.LambdaURL},
		{"AWS_REGION", emulator.Region},
		{"AWS_ACCESS_KEY_ID", "local"},
		{"AWS_SECRET_ACCESS_KEY", "local"},
	}
}
