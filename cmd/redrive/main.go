// Command redrive is the project's command line:
//
//	redrive run     simulate an outage: Redrive against two baselines
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
	"maps"
	"os"
	"os/signal"
	"slices"
	"strings"
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
		{name: "admin", summary: strings.Join(breakerCommands(), "|") + " a breaker, rule " + strings.Join(slices.Sorted(maps.Keys(ruleCommands)), "|") +
			" the routing rules, through the admin state machine", run: runAdmin},
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
// -h or --help is exitOK after the flag usage; any other problem is
// exitUsage after one line saying what is wrong and one pointing to the
// help, with the flag meant when an unknown one is near a known one. ok is
// true when the command should go on. Every command parses its flags here,
// so that all behave alike.
func parseFlags(fs *flag.FlagSet, args []string) (code int, ok bool) {
	out, usage := fs.Output(), fs.Usage
	fs.SetOutput(io.Discard) // the flag package prints the error and the usage
	fs.Usage = func() {}
	err := fs.Parse(args)
	fs.SetOutput(out)
	fs.Usage = usage
	switch {
	case errors.Is(err, flag.ErrHelp):
		fs.Usage()
		return exitOK, false
	case err != nil:
		usageError(fs, err.Error(), nearFlag(fs, err))
		return exitUsage, false
	case fs.NArg() > 0:
		usageError(fs, fmt.Sprintf("unexpected argument %q", fs.Arg(0)), "")
		return exitUsage, false
	}
	return exitOK, true
}

// usageError prints problem on fs's command line, then a line pointing to
// the command's help, which asks first whether near, if any, is the flag
// meant.
func usageError(fs *flag.FlagSet, problem, near string) {
	w := fs.Output()
	fmt.Fprintf(w, "redrive %s: %s\n", fs.Name(), problem)
	if near != "" {
		fmt.Fprintf(w, "  did you mean -%s? (redrive %s -h for help)\n", near, fs.Name())
	} else {
		fmt.Fprintf(w, "  (redrive %s -h for help)\n", fs.Name())
	}
}

// undefinedFlag is how the flag package starts the error of an unknown
// flag, before its name.
const undefinedFlag = "flag provided but not defined: -"

// nearFlag is the flag of fs nearest the unknown one err names: within an
// edit distance of 2 (and less than its length), or a prefix of it or it
// of the flag; the nearest first, then in name order. It is "" when none
// is near, or err is about something else.
func nearFlag(fs *flag.FlagSet, err error) string {
	name, ok := strings.CutPrefix(err.Error(), undefinedFlag)
	if !ok || name == "" {
		return ""
	}
	best, bestDistance := "", 0
	fs.VisitAll(func(f *flag.Flag) { // in name order
		d := editDistance(name, f.Name)
		near := (d <= 2 && d < len(name)) || strings.HasPrefix(f.Name, name) || strings.HasPrefix(name, f.Name)
		if near && (best == "" || d < bestDistance) {
			best, bestDistance = f.Name, d
		}
	})
	return best
}

// editDistance is the Levenshtein distance between a and b: how many
// bytes to insert, delete or replace to make one the other.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := range len(a) {
		cur := make([]int, len(b)+1)
		cur[0] = i + 1
		for j := range len(b) {
			cost := 1
			if a[i] == b[j] {
				cost = 0
			}
			cur[j+1] = min(prev[j+1]+1, cur[j]+1, prev[j]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// helpFirst reports whether args starts with a help flag, after printing
// fs's usage: for where a command word or an argument comes before the
// flags, where the flag package does not look.
func helpFirst(fs *flag.FlagSet, args []string) bool {
	if len(args) > 0 && isHelp(args[0]) {
		fs.Usage()
		return true
	}
	return false
}

// isHelp reports whether arg asks for help, as the flag package reads it.
func isHelp(arg string) bool {
	return arg == "-h" || arg == "-help" || arg == "--help" || arg == "--h"
}
