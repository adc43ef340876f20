// Command redrive is the project's command line:
//
//	redrive local   serve the orchestrator's emulators on loopback
//	redrive admin   operate a breaker through the admin state machine
//	redrive parked  count and list what is in the parking lot
//	redrive replay  send matching parked messages back into redrive
//
// Exit codes: 0 success, 1 failure, 2 usage error.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// Exit codes.
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
)

// subcommand is one of redrive's commands.
type subcommand struct {
	name    string
	summary string
	run     func(ctx context.Context, args []string, stdout, stderr io.Writer) int
}

// subcommands lists redrive's commands in the order the usage shows them.
func subcommands() []subcommand {
	return []subcommand{
		{name: "run", summary: "simulate an outage: Redrive against a naive backoff and a bulk move, table and HTML report", run: runRun},
		{name: "local", summary: "serve the Lambda, Step Functions, DynamoDB and SQS emulators on loopback", run: runLocal},
		{name: "admin", summary: "status|reset|open|close|release a breaker through the admin state machine", run: runAdmin},
		{name: "parked", summary: "summary|list what is in the parking lot, from its index (the queue is not touched)", run: runParked},
		{name: "replay", summary: "send matching parked messages back to the DLQ, paced, after a --dry-run; show a replay's record", run: runReplay},
	}
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := dispatch(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// dispatch runs the subcommand args name and returns the exit code.
func dispatch(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	if args[0] == "help" || isHelp(args[0]) {
		usage(stdout)
		return exitOK
	}
	for _, c := range subcommands() {
		if c.name == args[0] {
			return c.run(ctx, args[1:], stdout, stderr)
		}
	}
	fmt.Fprintf(stderr, "redrive: unknown command %q\n\n", args[0])
	usage(stderr)
	return exitUsage
}

// usage prints the list of subcommands.
func usage(w io.Writer) {
	fmt.Fprintln(w, "Usage: redrive <command> [flags]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Commands:")
	for _, c := range subcommands() {
		fmt.Fprintf(w, "  %-7s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run 'redrive <command> -h' for a command's flags.")
}

// parseFlags parses args into fs and maps the outcome to an exit code:
// -h is exitOK after the flag usage, any other problem exitUsage (the flag
// package has printed it). ok is true when the command should go on.
func parseFlags(fs *flag.FlagSet, args []string) (code int, ok bool) {
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return exitOK, false
	case err != nil:
		return exitUsage, false
	case fs.NArg() > 0:
		fmt.Fprintf(fs.Output(), "redrive %s: unexpected argument %q\n", fs.Name(), fs.Arg(0))
		fs.Usage()
		return exitUsage, false
	}
	return exitOK, true
}

// isHelp reports whether arg asks for help, as the flag package reads it.
func isHelp(arg string) bool {
	return arg == "-h" || arg == "-help" || arg == "--help" || arg == "--h"
}
