package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/redrive/redrive/emulate/local"
	"github.com/redrive/redrive/emulate/sim"
	"github.com/redrive/redrive/lambda/telemetry"
	"github.com/redrive/redrive/park"
	"github.com/redrive/redrive/park/replay"
)

// The variables the replay command reads its queues from, as `redrive
// local` exports them (and the starter reads them).
const (
	envParkingLotURL = park.EnvQueueURL
	envDLQURL        = "DLQ_URL"
)

// replayShow is the replay subcommand that prints a replay's record.
const replayShow = "show"

// assumedConsumerLatency is the consumer call the cost estimate bills,
// at the consumer's assumed 128 MB.
const assumedConsumerLatency = 100 * time.Millisecond

// replayCall is a validated replay command, ready to run.
type replayCall struct {
	// show, if set, prints replay show's record instead of running one.
	show string
	// plan is the replay to run.
	plan replay.Plan
	// config says where.
	config replay.Config
}

// bodyFlags collects --body values.
type bodyFlags struct{ fields *[]replay.BodyField }

func (b bodyFlags) String() string {
	if b.fields == nil {
		return ""
	}
	var parts []string
	for _, f := range *b.fields {
		parts = append(parts, f.String())
	}
	return strings.Join(parts, " ")
}

func (b bodyFlags) Set(s string) error {
	f, err := replay.ParseBodyField(s)
	if err != nil {
		return err
	}
	*b.fields = append(*b.fields, f)
	return nil
}

// runReplay is `redrive replay [flags]` and `redrive replay show ID`.
func runReplay(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	h := osHost()
	call, code, ok := parseReplay(args, h, stderr)
	if !ok {
		return code
	}
	cfg, err := awsconfig.LoadDefaultConfig(ctx)
	if err != nil {
		fmt.Fprintf(stderr, "redrive replay: load AWS configuration: %v\n", err)
		return exitFailure
	}
	table := dynamodb.NewFromConfig(cfg)
	if call.show != "" {
		return execReplayShow(ctx, replay.NewJournal(table, call.config.Table), call, stdout, stderr)
	}
	r, err := replay.New(sqs.NewFromConfig(cfg), table, nil, telemetry.JSONLogger(stderr), call.config)
	if err != nil {
		fmt.Fprintf(stderr, "redrive replay: %v\n", err)
		return exitUsage
	}
	return execReplay(ctx, r, call, stdout, stderr)
}

// parseReplay reads the command line into a call, or returns the exit
// code to stop with (after printing the problem and the usage to stderr).
func parseReplay(args []string, h host, stderr io.Writer) (call replayCall, code int, ok bool) {
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { replayUsage(fs) }
	if len(args) > 0 && args[0] == replayShow {
		fs.StringVar(&call.config.Table, "table", h.getenv(park.EnvTable), "the breaker table the replays are recorded in; default $"+park.EnvTable)
		if helpFirst(fs, args[1:]) {
			return replayCall{}, exitOK, false
		}
		if len(args) < 2 || strings.HasPrefix(args[1], "-") {
			fmt.Fprintln(stderr, "redrive replay: show needs a replay id, e.g. redrive replay show r-20260102T150000Z-1a2b")
			fs.Usage()
			return replayCall{}, exitUsage, false
		}
		call.show = args[1]
		if code, ok := parseFlags(fs, args[2:]); !ok {
			return replayCall{}, code, false
		}
		if strings.TrimSpace(call.config.Table) == "" {
			fmt.Fprintf(stderr, "redrive replay: --table is required (or set %s)\n", park.EnvTable)
			return replayCall{}, exitUsage, false
		}
		return call, exitOK, true
	}

	p, c := &call.plan, &call.config
	parkedFilterFlags(fs, &p.Filter.Breaker, &p.Filter.Reason, &p.Filter.ErrorType)
	since := fs.String("since", "", "parked at or after: RFC 3339 time or a duration ago such as 2h; default no bound")
	until := fs.String("until", "", "parked before: RFC 3339 time or a duration ago; default no bound")
	fs.Var(bodyFlags{&p.Filter.Body}, "body", "only messages whose body holds this field: /json/pointer=value (repeatable; all must match)")
	fs.BoolVar(&p.DryRun, "dry-run", false, "scan and count what would move, and estimate the cost; move nothing")
	fs.Float64Var(&p.Rate, "rate", replay.DefaultRate, "send at most this many messages per second to the DLQ")
	fs.StringVar(&p.ID, "resume", "", "run replay `ID` again (interrupted), with its recorded filter and rate")
	fs.StringVar(&p.Actor, "actor", "", "who; default $USER@hostname")
	fs.StringVar(&c.ParkingLotURL, "parking-lot-url", h.getenv(envParkingLotURL), "the parking-lot queue; default $"+envParkingLotURL)
	fs.StringVar(&c.DLQURL, "dlq-url", h.getenv(envDLQURL), "the dead-letter queue the messages go back to; default $"+envDLQURL)
	fs.StringVar(&c.Table, "table", h.getenv(park.EnvTable), "the breaker table (the replay's record, the lot's index); default $"+park.EnvTable)
	fs.DurationVar(&c.VisibilityTimeout, "visibility-timeout", replay.DefaultVisibilityTimeout,
		"how long a message the scan has seen stays hidden if the replay dies (extended while it runs)")
	if len(args) > 0 && isHelp(args[0]) {
		fs.Usage()
		return replayCall{}, exitOK, false
	}
	if code, ok := parseFlags(fs, args); !ok {
		return replayCall{}, code, false
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if err := call.validate(h, set, *since, *until); err != nil {
		fmt.Fprintf(stderr, "redrive replay: %v\n", err)
		fs.Usage()
		return replayCall{}, exitUsage, false
	}
	return call, exitOK, true
}

// validate checks the call, names a new replay and sets the actor and the
// filter's window. Every error is a usage error.
func (c *replayCall) validate(h host, set map[string]bool, since, until string) error {
	p := &c.plan
	now := h.clock.Now()
	if p.Actor = strings.TrimSpace(p.Actor); p.Actor == "" {
		p.Actor = defaultActor(h)
	}
	if set["resume"] {
		for _, name := range []string{"breaker", "reason", "error-type", "since", "until", "body", "dry-run", "rate"} {
			if set[name] {
				return fmt.Errorf("--resume takes the filter and rate the replay was started with; drop --%s", name)
			}
		}
		if strings.TrimSpace(p.ID) == "" {
			return errors.New("--resume needs the id of the replay to carry on")
		}
		p.Resume, p.Rate = true, 0
	} else {
		p.ID = newReplayID(now)
	}
	var err error
	if since != "" {
		if p.Filter.Since, err = timeArg("since", since, now, false); err != nil {
			return err
		}
	}
	if until != "" {
		if p.Filter.Until, err = timeArg("until", until, now, false); err != nil {
			return err
		}
	}
	switch {
	case !p.Filter.Since.IsZero() && !p.Filter.Until.IsZero() && !p.Filter.Since.Before(p.Filter.Until):
		return fmt.Errorf("--since %s is not before --until %s", p.Filter.Since.Format(time.RFC3339), p.Filter.Until.Format(time.RFC3339))
	case !p.Resume && replay.CheckRate(p.Rate) != nil:
		return fmt.Errorf("--rate %v: want from %g to %d messages per second", p.Rate, replay.MinRate, replay.MaxRate)
	case strings.TrimSpace(c.config.ParkingLotURL) == "":
		return fmt.Errorf("--parking-lot-url is required (or set %s)", envParkingLotURL)
	case strings.TrimSpace(c.config.DLQURL) == "":
		return fmt.Errorf("--dlq-url is required (or set %s)", envDLQURL)
	case c.config.DLQURL == c.config.ParkingLotURL:
		return fmt.Errorf("--dlq-url and --parking-lot-url are the same queue, %s", c.config.DLQURL)
	case strings.TrimSpace(c.config.Table) == "":
		return fmt.Errorf("--table is required (or set %s)", park.EnvTable)
	case c.config.VisibilityTimeout < 30*time.Second || c.config.VisibilityTimeout > 12*time.Hour:
		return fmt.Errorf("--visibility-timeout %s: want 30s to 12h", c.config.VisibilityTimeout)
	}
	return nil
}

// newReplayID names a new replay: when it started, and four random bytes
// so that two started in one second differ.
func newReplayID(now time.Time) string {
	var b [4]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return "r-" + now.UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(b[:])
}

// replayUsage prints the replay command's synopsis and flags.
func replayUsage(fs *flag.FlagSet) {
	w := fs.Output()
	fmt.Fprintln(w, "Usage: redrive replay [--dry-run] [--rate N] [filter flags]")
	fmt.Fprintln(w, "       redrive replay --resume ID")
	fmt.Fprintln(w, "       redrive replay show ID")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Sends parked messages that match the filter back to the DLQ, at most --rate a second,")
	fmt.Fprintln(w, "with their lineage marked as replayed: the starter redrives each as its next attempt,")
	fmt.Fprintln(w, "paced to the target and guarded by its breaker. Messages that do not match are left")
	fmt.Fprintln(w, "in the parking lot, visible again when the scan ends. --dry-run scans the same way and")
	fmt.Fprintln(w, "prints what would move, grouped, with an estimated cost. Every replay is recorded in")
	fmt.Fprintln(w, "the table as replay#<id> (who, when, filter, counts); an interrupted one is carried on")
	fmt.Fprintln(w, "with --resume ID, which moves nothing twice. show prints a replay's record.")
	fmt.Fprintln(w, "AWS credentials, region and endpoints come from the SDK's default configuration")
	fmt.Fprintln(w, "(AWS_PROFILE, AWS_ENDPOINT_URL_SQS, AWS_ENDPOINT_URL_DYNAMODB...).")
	fmt.Fprintln(w, "Exit codes: 0 done, 1 interrupted or failed (run it again with --resume), 2 usage error.")
	fmt.Fprintln(w)
	fs.PrintDefaults()
}

// execReplay runs call on r, printing what it moved (or would) to stdout,
// and returns the exit code.
func execReplay(ctx context.Context, r *replay.Replayer, call replayCall, stdout, stderr io.Writer) int {
	p := call.plan
	what := "replay"
	if p.DryRun {
		what = "dry run"
	}
	if p.Resume {
		fmt.Fprintf(stdout, "resuming replay %s\n", p.ID)
	} else {
		fmt.Fprintf(stdout, "%s %s of %s: %s\n", what, p.ID, call.config.ParkingLotURL, p.Filter)
	}
	res, err := r.Run(ctx, p)
	if res.Entry.ID == "" { // nothing was recorded: it never started
		fmt.Fprintf(stderr, "redrive replay: %v\n", err)
		return exitFailure
	}
	if werr := printReplay(stdout, res); werr != nil {
		fmt.Fprintf(stderr, "redrive replay: write the output: %v\n", werr)
		return exitFailure
	}
	if err != nil {
		fmt.Fprintf(stderr, "redrive replay: %v\n", err)
		fmt.Fprintf(stderr, "redrive replay: carry on with: redrive replay --resume %s\n", res.Entry.ID)
		return exitFailure
	}
	if res.Entry.DryRun && res.Moving() > 0 {
		cmd := "redrive replay"
		if f := res.Entry.Filter; f.Breaker+f.Reason+f.ErrorType != "" || !f.Since.IsZero() || !f.Until.IsZero() || len(f.Body) > 0 {
			cmd += " " + f.String() // else "everything"
		}
		fmt.Fprintf(stdout, "to move them: %s --rate %g --visibility-timeout %s\n", cmd, res.Entry.Rate, shortDuration(call.config.VisibilityTimeout))
	}
	return exitOK
}

// printReplay writes the groups moved (or that would move), the run's
// counts, and for a dry run the time and cost estimates.
func printReplay(w io.Writer, res replay.Result) error {
	e := res.Entry
	verb := "MOVED"
	if e.DryRun {
		verb = "WOULD MOVE"
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "BREAKER\tREASON\tERROR TYPE\t%s\tBYTES\tOLDEST\n", verb)
	bytes, oldest := 0, time.Time{}
	for _, g := range res.Groups {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%s\n", cell(g.Breaker), cell(g.Reason), cell(g.ErrorType), g.N, g.Bytes, timeCell(g.Oldest))
		bytes += g.Bytes
		if oldest.IsZero() || g.Oldest.Before(oldest) {
			oldest = g.Oldest
		}
	}
	fmt.Fprintf(tw, "TOTAL\t\t\t%d\t%d\t%s\n", res.Moving(), bytes, timeCell(oldest))
	if err := tw.Flush(); err != nil {
		return err
	}
	c := res.Counts
	fmt.Fprintf(w, "scanned %d: %d matched, %d left (no match), %d skipped (moved by this replay before), %d without a park record\n",
		c.Scanned(), c.Matched, c.Left, c.Skipped, c.Unreadable)
	if c.Duplicates > 0 {
		done := "deleted"
		if e.DryRun {
			done = "that would be deleted"
		}
		fmt.Fprintf(w, "duplicates %s unsent: %d of the matched (second copies of a message a retried park left in the lot)\n", done, c.Duplicates)
	}
	if c.Reparked > 0 {
		fmt.Fprintf(w, "not scanned: %d sent back by this replay and parked again meanwhile (by a rule, or failing again), not sent again\n", c.Reparked)
	}
	if e.DryRun {
		n := res.Moving()
		send := time.Duration(float64(n) / e.Rate * float64(time.Second))
		if send < time.Second {
			fmt.Fprintf(w, "at --rate %g: under a second to send them\n", e.Rate)
		} else {
			fmt.Fprintf(w, "at --rate %g: about %s to send them\n", e.Rate, send.Round(time.Second))
		}
		cost, note := replayCost(n)
		fmt.Fprintf(w, "estimated cost: %s (Step Functions %s, Lambda %s, DynamoDB %s), %s\n",
			dollars(cost.Total()), dollars(cost.StepFunctions), dollars(cost.Lambda), dollars(cost.DynamoDB), note)
	}
	fmt.Fprintf(w, "replay %s: %s, run %d by %s, %d moved in all; record replay#%s\n", e.ID, e.Status, e.Runs, e.LastActor, e.Counts.Moved, e.ID)
	return nil
}

// shortDuration is d as a flag takes it, without zero seconds or minutes
// at its end: 5m, 5h, 1h30m, 90s as 1m30s.
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = s[:len(s)-2]
	}
	if strings.HasSuffix(s, "h0m") {
		s = s[:len(s)-2]
	}
	return s
}

// dollars formats an amount in US dollars: to the cent from a dollar up,
// with two significant digits below.
func dollars(v float64) string {
	if v >= 1 || v == 0 {
		return fmt.Sprintf("$%.2f", v)
	}
	return "$" + strconv.FormatFloat(v, 'f', max(2, 1-int(math.Floor(math.Log10(v)))), 64)
}

// replayCost estimates what redriving n replayed messages costs, with the
// simulation's prices, and says what it assumes.
func replayCost(n int) (sim.Cost, string) {
	u := replay.FirstTry.Times(n)
	a := sim.AssumptionsFor(sim.Scenario{})
	a.ConsumerLatency = assumedConsumerLatency
	cost := sim.ListPrices.Estimate(sim.Usage{
		Transitions: int64(math.Ceil(u.Transitions)),
		Invocations: map[string]int64{
			local.FunctionStarter: int64(math.Ceil(u.StarterInvocations)),
			local.FunctionAttempt: int64(math.Ceil(u.AttemptInvocations)),
		},
		TargetCalls:  int64(math.Ceil(u.ConsumerCalls)),
		WaitedCalls:  int64(math.Ceil(u.ConsumerCalls)),
		DynamoReads:  int64(math.Ceil(u.DynamoReads)),
		DynamoWrites: int64(math.Ceil(u.DynamoWrites)),
	}, a)
	f := replay.FirstTry
	return cost, fmt.Sprintf("assuming each is delivered on its first try with its breaker closed (%g transitions, %g starter and %g Attempt "+
		"invocations, %g DynamoDB read and %g writes a message, a %s consumer call at 128 MB); us-east-1 list prices; SQS requests and free "+
		"tiers left out; a message that fails, waits or is parked again costs more",
		f.Transitions, f.StarterInvocations, f.AttemptInvocations, f.DynamoReads, f.DynamoWrites, assumedConsumerLatency)
}

// execReplayShow prints replay call.show's record.
func execReplayShow(ctx context.Context, j *replay.Journal, call replayCall, stdout, stderr io.Writer) int {
	e, err := j.Get(ctx, call.show)
	if err != nil {
		fmt.Fprintf(stderr, "redrive replay: %v\n", err)
		return exitFailure
	}
	printEntry(stdout, e)
	return exitOK
}

// printEntry writes a replay's record, one field a line.
func printEntry(w io.Writer, e replay.Entry) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	row := func(name, format string, args ...any) {
		fmt.Fprintf(tw, "%s\t"+format+"\n", append([]any{name}, args...)...)
	}
	row("id", "%s", e.ID)
	row("status", "%s", e.Status)
	if e.Error != "" {
		row("error", "%s", e.Error)
	}
	row("dry run", "%t", e.DryRun)
	row("filter", "%s", e.Filter)
	row("rate", "%g/s", e.Rate)
	row("started", "%s by %s", timeCell(e.Started), e.Actor)
	row("runs", "%d, the last by %s", e.Runs, e.LastActor)
	row("updated", "%s", timeCell(e.Updated))
	row("finished", "%s", timeCell(e.Finished))
	c := e.Counts
	row("moved", "%d in all", c.Moved)
	row("last run", "%d matched (%d duplicates), %d left, %d skipped, %d without a park record; %d it sent parked again meanwhile, not scanned",
		c.Matched, c.Duplicates, c.Left, c.Skipped, c.Unreadable, c.Reparked)
	_ = tw.Flush()
}
