package main

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/dynamo"
	"github.com/redrive/redrive/emulate/ddbtest"
	"github.com/redrive/redrive/emulate/sqslocal"
	"github.com/redrive/redrive/emulate/sqslocal/sqstest"
	"github.com/redrive/redrive/lambda/telemetry"
	"github.com/redrive/redrive/message"
	"github.com/redrive/redrive/park"
	"github.com/redrive/redrive/park/replay"
	"github.com/redrive/redrive/test/parktest"
)

// replayEnv is what `redrive local` exports for the replay command.
var replayEnv = map[string]string{"PARKING_LOT_URL": "http://sqs/lot", "DLQ_URL": "http://sqs/dlq", "TABLE_NAME": "redrive", "USER": "alice"}

// replayID is what a new replay's id looks like at fixedHost's time.
var replayID = regexp.MustCompile(`^r-20260102T150000Z-[0-9a-f]{8}$`)

func TestParseReplay(t *testing.T) {
	now := time.Date(2026, 1, 2, 15, 0, 0, 0, time.UTC)
	where := replay.Config{ParkingLotURL: "http://sqs/lot", DLQURL: "http://sqs/dlq", Table: "redrive", VisibilityTimeout: replay.DefaultVisibilityTimeout}
	tests := []struct {
		name   string
		args   []string
		plan   replay.Plan // ID checked apart
		config replay.Config
	}{
		{"everything, from the environment", nil,
			replay.Plan{Actor: "alice@box", Rate: replay.DefaultRate}, where},
		{"every filter, a dry run", []string{"--breaker", "orders", "--reason", "table unavailable", "--error-type", "-", "--since", "48h",
			"--until", "2026-01-02T14:00:00+01:00", "--body", "/tenant/id=acme", "--body", "/n=3", "--dry-run", "--rate", "2.5", "--actor", " bob "},
			replay.Plan{Actor: "bob", Rate: 2.5, DryRun: true, Filter: replay.Filter{Breaker: "orders", Reason: "table unavailable", ErrorType: replay.None,
				Since: now.Add(-48 * time.Hour), Until: time.Date(2026, 1, 2, 13, 0, 0, 0, time.UTC)}}, where},
		{"queues and table by flag", []string{"--parking-lot-url", "http://q/p", "--dlq-url", "http://q/d", "--table", "t", "--visibility-timeout", "10m"},
			replay.Plan{Actor: "alice@box", Rate: replay.DefaultRate},
			replay.Config{ParkingLotURL: "http://q/p", DLQURL: "http://q/d", Table: "t", VisibilityTimeout: 10 * time.Minute}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stderr bytes.Buffer
			call, code, ok := parseReplay(tt.args, fixedHost(replayEnv), &stderr)
			require.True(t, ok, "stderr: %s", stderr.String())
			assert.Equal(t, exitOK, code)
			assert.Regexp(t, replayID, call.plan.ID)
			bodies := call.plan.Filter.Body
			call.plan.ID, call.plan.Filter.Body = "", nil
			assert.True(t, tt.plan.Filter.Since.Equal(call.plan.Filter.Since), "since %s", call.plan.Filter.Since)
			assert.True(t, tt.plan.Filter.Until.Equal(call.plan.Filter.Until), "until %s", call.plan.Filter.Until)
			call.plan.Filter.Since, call.plan.Filter.Until = tt.plan.Filter.Since, tt.plan.Filter.Until
			assert.Equal(t, tt.plan, call.plan)
			assert.Equal(t, tt.config, call.config)
			if tt.plan.DryRun {
				require.Len(t, bodies, 2)
				assert.Equal(t, "/tenant/id=acme", bodies[0].String())
				assert.True(t, bodies[1].Match(`{"n":3}`))
			}
			assert.Empty(t, stderr.String())
		})
	}
	t.Run("resume", func(t *testing.T) {
		var stderr bytes.Buffer
		call, _, ok := parseReplay([]string{"--resume", "r-1", "--actor", "carol"}, fixedHost(replayEnv), &stderr)
		require.True(t, ok, "stderr: %s", stderr.String())
		assert.Equal(t, replay.Plan{ID: "r-1", Actor: "carol", Resume: true}, call.plan)
	})
	t.Run("show", func(t *testing.T) {
		var stderr bytes.Buffer
		call, _, ok := parseReplay([]string{"show", "r-1", "--table", "other"}, fixedHost(replayEnv), &stderr)
		require.True(t, ok, "stderr: %s", stderr.String())
		assert.Equal(t, "r-1", call.show)
		assert.Equal(t, "other", call.config.Table)
	})
}

func TestParseReplayRefusesBadCommandLines(t *testing.T) {
	tests := []struct {
		name string
		args []string
		env  map[string]string
		want string // in stderr
	}{
		{"no parking lot", nil, map[string]string{"DLQ_URL": "d", "TABLE_NAME": "t"}, "--parking-lot-url is required (or set PARKING_LOT_URL)"},
		{"no DLQ", nil, map[string]string{"PARKING_LOT_URL": "p", "TABLE_NAME": "t"}, "--dlq-url is required (or set DLQ_URL)"},
		{"no table", nil, map[string]string{"PARKING_LOT_URL": "p", "DLQ_URL": "d"}, "--table is required (or set TABLE_NAME)"},
		{"one queue for both", []string{"--dlq-url", "http://sqs/lot"}, replayEnv, "are the same queue"},
		{"zero rate", []string{"--rate", "0"}, replayEnv, "--rate 0: want from 0.01 to 1000 messages per second"},
		{"rate too low", []string{"--rate", "1e-10"}, replayEnv, "--rate 1e-10: want from 0.01 to 1000"},
		{"rate too high", []string{"--rate", "5000"}, replayEnv, "--rate 5000: want from 0.01"},
		{"rate not a number", []string{"--rate", "fast"}, replayEnv, `invalid value "fast" for flag -rate`},
		{"body without a value", []string{"--body", "/tenant"}, replayEnv, `body field "/tenant": want /pointer=value`},
		{"body not a pointer", []string{"--body", "tenant=acme"}, replayEnv, `must start with "/"`},
		{"bad since", []string{"--since", "yesterday"}, replayEnv, `--since "yesterday": want an RFC 3339 time`},
		{"since after until", []string{"--since", "1h", "--until", "2h"}, replayEnv, "is not before --until"},
		{"resume with a filter", []string{"--resume", "r-1", "--breaker", "orders"}, replayEnv, "--resume takes the filter and rate the replay was started with; drop --breaker"},
		{"resume a dry run", []string{"--resume", "r-1", "--dry-run"}, replayEnv, "drop --dry-run"},
		{"resume with a rate", []string{"--resume", "r-1", "--rate", "5"}, replayEnv, "drop --rate"},
		{"resume without an id", []string{"--resume", " "}, replayEnv, "--resume needs the id"},
		{"short visibility", []string{"--visibility-timeout", "5s"}, replayEnv, "--visibility-timeout 5s: want 30s to 12h"},
		{"extra argument", []string{"orders"}, replayEnv, `unexpected argument "orders"`},
		{"show without an id", []string{"show"}, replayEnv, "show needs a replay id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stderr bytes.Buffer
			_, code, ok := parseReplay(tt.args, fixedHost(tt.env), &stderr)
			assert.False(t, ok)
			assert.Equal(t, exitUsage, code)
			assert.Contains(t, stderr.String(), tt.want)
			assert.Regexp(t, `Usage: redrive replay|\n  \(redrive replay -h for help\)\n$`, stderr.String(), "the usage, or for the flags' own problems a pointer to it, follows the problem")
		})
	}
	t.Run("help", func(t *testing.T) {
		var stderr bytes.Buffer
		_, code, ok := parseReplay([]string{"-h"}, fixedHost(replayEnv), &stderr)
		assert.False(t, ok)
		assert.Equal(t, exitOK, code)
		assert.Contains(t, stderr.String(), "-dry-run")
		assert.Contains(t, stderr.String(), "-resume ID")
	})
	t.Run("help of show", func(t *testing.T) {
		var stderr bytes.Buffer
		_, code, ok := parseReplay([]string{"show", "--help"}, fixedHost(replayEnv), &stderr)
		assert.False(t, ok)
		assert.Equal(t, exitOK, code)
		assert.Contains(t, stderr.String(), "redrive replay show ID")
	})
}

// The command on the embedded SQS and DynamoDB: a dry run, then the
// replay it suggests, then show.
func TestExecReplay(t *testing.T) {
	b := sqstest.Start(t, sqslocal.Options{})
	lot, dlq := parktest.CreateQueue(t, b), sqstest.CreateQueue(t, b.Client, nil)
	client, _ := ddbtest.Client(t)
	table := ddbtest.CreateTable(t, client, func(ctx context.Context, name string) error {
		return dynamo.CreateTable(ctx, client, name)
	})
	parker := &park.Lot{SQS: b.Client, Config: park.LotConfig{QueueURL: lot.URL, MaxMessageSize: park.DefaultMaxMessageSize},
		Metrics: &parktest.Counter{}, Logger: telemetry.JSONLogger(t.Output())}
	at := time.Date(2026, 1, 2, 14, 0, 0, 0, time.UTC)
	for i, key := range []string{"orders", "orders", "payments"} {
		rec := park.Record{Lineage: message.Lineage{OriginID: "o-" + string(rune('1'+i)), Attempt: 3,
			History: []message.Failure{{At: at, Try: 3, Outcome: message.OutcomeTransient, ErrorType: "Rejected"}}},
			BreakerKey: key, Reason: "exhausted: 3 attempts", ParkedAt: at.Add(time.Duration(i) * time.Minute)}
		_, err := parker.Park(t.Context(), message.Message{ID: "m", Body: `{"n":1}`}, rec)
		require.NoError(t, err)
	}
	env := map[string]string{"PARKING_LOT_URL": lot.URL, "DLQ_URL": dlq.URL, "TABLE_NAME": table, "USER": "alice"}
	run := func(args ...string) (string, string, int) {
		t.Helper()
		var stdout, stderr bytes.Buffer
		call, code, ok := parseReplay(args, fixedHost(env), &stderr)
		require.True(t, ok, "stderr: %s", stderr.String())
		require.Equal(t, exitOK, code)
		if call.show != "" {
			code = execReplayShow(t.Context(), replay.NewJournal(client, table), call, &stdout, &stderr)
			return stdout.String(), stderr.String(), code
		}
		call.config.WaitTime = time.Second // the embedded server's long poll, in wall time
		r, err := replay.New(b.Client, client, nil, telemetry.JSONLogger(&stderr), call.config)
		require.NoError(t, err)
		code = execReplay(t.Context(), r, call, &stdout, &stderr)
		return stdout.String(), stderr.String(), code
	}

	out, _, code := run("--breaker", "orders", "--dry-run", "--rate", "100")
	require.Equal(t, exitOK, code)
	t.Log(out)
	lines := strings.Split(out, "\n")
	require.GreaterOrEqual(t, len(lines), 6)
	assert.Regexp(t, `^dry run r-\S+ of .*: --breaker orders$`, lines[0])
	assert.Regexp(t, `^BREAKER\s+REASON\s+ERROR TYPE\s+WOULD MOVE\s+BYTES\s+OLDEST$`, lines[1])
	assert.Regexp(t, `^orders\s+exhausted\s+Rejected\s+2\s+14\s+2026-01-02T14:00:00Z$`, lines[2])
	assert.Regexp(t, `^TOTAL\s+2\s+14\s+2026-01-02T14:00:00Z$`, lines[3], "the oldest of all the groups")
	assert.Contains(t, out, "scanned 3: 2 matched, 1 left (no match), 0 skipped")
	assert.Contains(t, out, "estimated cost: $0.00016 (Step Functions $0.00015, Lambda $0.0000025, DynamoDB $0.0000078)") // 6 transitions; 6 requests and 0.095 GB-s; 12 writes, 2 reads
	assert.Contains(t, out, "at --rate 100: under a second to send them")
	assert.Contains(t, out, "assuming each is delivered on its first try")
	assert.Contains(t, out, "to move them: redrive replay --breaker orders --rate 100 --visibility-timeout 5m\n")

	out, _, code = run("--dry-run", "--visibility-timeout", "5h")
	require.Equal(t, exitOK, code)
	assert.Regexp(t, `(?m)^TOTAL\s+3\s+21\s+2026-01-02T14:00:00Z$`, out, "the oldest of the groups, orders'")
	assert.Contains(t, out, "to move them: redrive replay --rate 10 --visibility-timeout 5h\n",
		"no filter, and the dry run's visibility timeout, raised as against redrive local --time-scale 60")

	out, _, code = run("--breaker", "orders", "--rate", "100")
	require.Equal(t, exitOK, code)
	assert.Regexp(t, `(?m)^orders\s+exhausted\s+Rejected\s+2\s+14\s+2026-01-02T14:00:00Z$`, out)
	assert.NotContains(t, out, "estimated cost")
	id := regexp.MustCompile(`replay (r-\S+): done, run 1 by alice@box, 2 moved in all`).FindStringSubmatch(out)
	require.Len(t, id, 2, out)

	out, _, code = run("show", id[1])
	require.Equal(t, exitOK, code)
	assert.Regexp(t, `(?m)^status\s+done$`, out)
	assert.Regexp(t, `(?m)^filter\s+--breaker orders$`, out)
	assert.Regexp(t, `(?m)^moved\s+2 in all$`, out)

	_, stderr, code := run("show", "r-404")
	assert.Equal(t, exitFailure, code)
	assert.Contains(t, stderr, `no such replay: "r-404"`)

	_, stderr, code = run("--resume", "r-404")
	assert.Equal(t, exitFailure, code)
	assert.Contains(t, stderr, `no such replay: "r-404"`)
}

func TestDollars(t *testing.T) {
	for v, want := range map[float64]string{0: "$0.00", 12.345: "$12.35", 1: "$1.00", 0.25: "$0.25", 0.0123: "$0.012", 0.00015: "$0.00015"} {
		assert.Equal(t, want, dollars(v), "%v", v)
	}
}

// The summary says what a replay did beside moving: the duplicate copies
// it deleted unsent (a dry run: would delete), and what it sent that came
// back into the lot, which it did not scan.
func TestPrintReplayCounts(t *testing.T) {
	for _, dry := range []bool{false, true} {
		var out bytes.Buffer
		res := replay.Result{Entry: replay.Entry{ID: "r-1", DryRun: dry, Rate: 10, Status: replay.Done},
			Counts: replay.Counts{Matched: 3, Duplicates: 1, Left: 2, Moved: 2, Reparked: 1}}
		require.NoError(t, printReplay(&out, res))
		assert.Contains(t, out.String(), "scanned 5: 3 matched, 2 left (no match), 0 skipped (moved by this replay before), 0 without a park record\n")
		assert.Contains(t, out.String(), "not scanned: 1 sent back by this replay and parked again meanwhile (by a rule, or failing again), not sent again\n")
		want := "duplicates deleted unsent: 1 of the matched (second copies of a message a retried park left in the lot)\n"
		if dry {
			want = strings.Replace(want, "deleted", "that would be deleted", 1)
		}
		assert.Contains(t, out.String(), want)
	}
}
