package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"iter"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode"

	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/redrive/redrive/park"
	"github.com/redrive/redrive/park/lotindex"
)

// The parked command's subcommands.
const (
	parkedSummary = "summary"
	parkedList    = "list"
)

// Defaults of the parked command.
const (
	// defaultParkedTimeout bounds reading the index: about one Query per
	// day of the window.
	defaultParkedTimeout = 60 * time.Second
	// defaultParkedLimit is how many messages list prints.
	defaultParkedLimit = 100
	// parkedAhead is how far past now the default window reaches, so that
	// a clock ahead of this one (redrive local's --time-scale) is covered.
	parkedAhead = 24 * time.Hour
)

// parkedCall is a validated parked command, ready to run.
type parkedCall struct {
	// command is parkedSummary or parkedList.
	command string
	// table holds the index.
	table string
	// filter selects the entries.
	filter lotindex.Filter
	// limit bounds the lines list prints; 0 means all.
	limit int
	// timeout bounds reading the index.
	timeout time.Duration
}

// runParked is `redrive parked summary|list [flags]`.
func runParked(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	call, code, ok := parseParked(args, osHost(), stderr)
	if !ok {
		return code
	}
	cfg, err := awsconfig.LoadDefaultConfig(ctx)
	if err != nil {
		fmt.Fprintf(stderr, "redrive parked: load AWS configuration: %v\n", err)
		return exitFailure
	}
	return execParked(ctx, lotindex.New(dynamodb.NewFromConfig(cfg), call.table), call, stdout, stderr)
}

// parseParked reads the command line into a call, or returns the exit
// code to stop with (after printing the problem and the usage to stderr).
func parseParked(args []string, h host, stderr io.Writer) (call parkedCall, code int, ok bool) {
	fs := flag.NewFlagSet("parked", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { parkedUsage(fs) }
	fs.StringVar(&call.table, "table", h.getenv(park.EnvTable), "the table holding the parking lot's index; default $"+park.EnvTable)
	parkedFilterFlags(fs, &call.filter.Breaker, &call.filter.Reason, &call.filter.ErrorType)
	since := fs.String("since", "", "parked at or after: RFC 3339 time or a duration ago such as 2h; default 14 days ago, SQS's longest retention")
	until := fs.String("until", "", "parked before: RFC 3339 time or a duration ago; default a day from now (a clock ahead, e.g. redrive local's --time-scale)")
	fs.DurationVar(&call.timeout, "timeout", defaultParkedTimeout, "how long to wait for the table")
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		if len(args) > 0 && isHelp(args[0]) {
			fs.Usage()
			return parkedCall{}, exitOK, false
		}
		fmt.Fprintln(stderr, "redrive parked: missing command; it comes first, e.g. redrive parked summary")
		fs.Usage()
		return parkedCall{}, exitUsage, false
	}
	call.command = args[0]
	if call.command == parkedList {
		fs.IntVar(&call.limit, "limit", defaultParkedLimit, "print at most this many messages, oldest first; 0: all")
	}
	if code, ok := parseFlags(fs, args[1:]); !ok {
		return parkedCall{}, code, false
	}
	if err := call.validate(h.clock.Now(), *since, *until); err != nil {
		fmt.Fprintf(stderr, "redrive parked: %v\n", err)
		fs.Usage()
		return parkedCall{}, exitUsage, false
	}
	return call, exitOK, true
}

// validate checks the call and sets its window from the --since and
// --until values, defaulted at now. Every error is a usage error.
func (c *parkedCall) validate(now time.Time, since, until string) error {
	if c.command != parkedSummary && c.command != parkedList {
		return fmt.Errorf("unknown parked command %q; want %s or %s", c.command, parkedSummary, parkedList)
	}
	if strings.TrimSpace(c.table) == "" {
		return fmt.Errorf("--table is required (or set %s)", park.EnvTable)
	}
	f := &c.filter
	f.Now, f.Since, f.Until = now, now.Add(-lotindex.MaxRetention), now.Add(parkedAhead)
	var err error
	if since != "" {
		if f.Since, err = timeArg("since", since, now, false); err != nil {
			return err
		}
	}
	if until != "" {
		if f.Until, err = timeArg("until", until, now, false); err != nil {
			return err
		}
	}
	switch {
	case !f.Since.Before(f.Until):
		return fmt.Errorf("--since %s is not before --until %s", f.Since.Format(time.RFC3339), f.Until.Format(time.RFC3339))
	case f.Until.Sub(f.Since) > lotindex.MaxWindow:
		return fmt.Errorf("--since and --until are more than %d days apart; the parking lot keeps a message at most %d days",
			lotindex.MaxWindow/(24*time.Hour), lotindex.MaxRetention/(24*time.Hour))
	case c.limit < 0:
		return fmt.Errorf("--limit %d: want 0 (all) or more", c.limit)
	case c.timeout <= 0:
		return fmt.Errorf("--timeout %s must be positive", c.timeout)
	}
	return nil
}

// parkedFilterFlags registers the filters on a parked message's record
// that `redrive parked` and `redrive replay` share: its breaker key,
// reason class and last error type.
func parkedFilterFlags(fs *flag.FlagSet, breaker, reason, errorType *string) {
	fs.StringVar(breaker, "breaker", "", "only this breaker key ("+lotindex.None+": none)")
	fs.StringVar(reason, "reason", "", "only this reason class, e.g. poison, exhausted, \"table unavailable\"")
	fs.StringVar(errorType, "error-type", "", "only this error type of the last failure ("+lotindex.None+": none)")
}

// parkedUsage prints the parked command's synopsis and flags.
func parkedUsage(fs *flag.FlagSet) {
	w := fs.Output()
	fmt.Fprintln(w, "Usage: redrive parked summary [flags]")
	fmt.Fprintln(w, "       redrive parked list [--limit N] [flags]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "What is in the parking lot, from its index in the table: summary counts the parked")
	fmt.Fprintln(w, "messages by breaker key, reason class and error type; list prints one line per")
	fmt.Fprintln(w, "message, oldest first. Neither reads the queue: no message is received or hidden.")
	fmt.Fprintln(w, "AWS credentials, region and endpoint come from the SDK's default configuration")
	fmt.Fprintln(w, "(AWS_PROFILE, AWS_ENDPOINT_URL_DYNAMODB...).")
	fmt.Fprintln(w, "Exit codes: 0 done, 1 the index could not be read, 2 usage error.")
	fmt.Fprintln(w)
	fs.PrintDefaults()
}

// execParked runs call on idx, printing its table to stdout or the error
// to stderr, and returns the exit code.
func execParked(ctx context.Context, idx *lotindex.Index, call parkedCall, stdout, stderr io.Writer) int {
	ctx, cancel := context.WithTimeout(ctx, call.timeout)
	defer cancel()
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	entries := idx.Entries(ctx, call.filter)
	var err error
	if call.command == parkedSummary {
		err = printSummary(tw, entries)
	} else {
		err = printList(tw, entries, call.limit, stderr)
	}
	if err != nil {
		fmt.Fprintf(stderr, "redrive parked: %s in table %s: %v\n", call.command, call.table, err)
		return exitFailure
	}
	if err := tw.Flush(); err != nil {
		fmt.Fprintf(stderr, "redrive parked: write the output: %v\n", err)
		return exitFailure
	}
	return exitOK
}

// printSummary writes a line per breaker key, reason class and error type
// with its count and oldest parked time, then the total.
func printSummary(w io.Writer, entries iter.Seq2[lotindex.Entry, error]) error {
	sum, err := lotindex.Summarize(entries)
	if err != nil {
		return err
	}
	fmt.Fprintln(w, "BREAKER\tREASON\tERROR TYPE\tCOUNT\tOLDEST")
	for _, g := range sum.Groups {
		fmt.Fprintf(w, "%s\t%s\t%s\t%d\t%s\n", cell(g.Breaker), cell(g.Reason), cell(g.ErrorType), g.N, timeCell(g.Oldest))
	}
	fmt.Fprintf(w, "TOTAL\t\t\t%d\t%s\n", sum.Total.N, timeCell(sum.Total.Oldest))
	return nil
}

// printList writes a line per entry, oldest first, at most limit of them
// (0: all); when more match, it says so on stderr.
func printList(w io.Writer, entries iter.Seq2[lotindex.Entry, error], limit int, stderr io.Writer) error {
	fmt.Fprintln(w, "PARKED\tBREAKER\tGROUP\tREASON\tERROR TYPE\tSIZE\tORIGIN ID")
	n := 0
	for e, err := range entries {
		if err != nil {
			return err
		}
		if limit > 0 && n == limit {
			fmt.Fprintf(stderr, "redrive parked: more match than the %d shown; --limit 0 lists them all\n", limit)
			return nil
		}
		n++
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%d\t%s\n", timeCell(e.ParkedAt), cell(e.Breaker), cell(e.Group), cell(e.Reason), cell(e.ErrorType), e.Size, cell(e.OriginID))
	}
	return nil
}

// cell is a value as a column shows it: lotindex.None for an empty one,
// quoted when it holds a tab, a line break or another character that
// does not print.
func cell(s string) string {
	if s == "" {
		return lotindex.None
	}
	if strings.IndexFunc(s, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0 {
		return strconv.Quote(s)
	}
	return s
}

// timeCell is a parked time as the columns show it: UTC, to the second.
func timeCell(t time.Time) string {
	if t.IsZero() {
		return lotindex.None
	}
	return t.UTC().Format(time.RFC3339)
}
