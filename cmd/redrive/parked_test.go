package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/dynamo"
	"github.com/redrive/redrive/emulate/ddbtest"
	"github.com/redrive/redrive/park/lotindex"
)

// parkedNow is the clock of the parked command's tests (fixedHost's).
var parkedNow = time.Date(2026, 1, 2, 15, 0, 0, 0, time.UTC)

func TestParseParked(t *testing.T) {
	env := map[string]string{"TABLE_NAME": "redrive"}
	window := lotindex.Filter{Since: parkedNow.Add(-14 * 24 * time.Hour), Until: parkedNow.Add(24 * time.Hour), Now: parkedNow}
	with := func(change func(f *lotindex.Filter)) lotindex.Filter {
		f := window
		change(&f)
		return f
	}
	tests := []struct {
		name string
		args []string
		want parkedCall
	}{
		{
			name: "summary of the last 14 days and the next day, in $TABLE_NAME",
			args: []string{"summary"},
			want: parkedCall{command: "summary", table: "redrive", filter: window, timeout: defaultParkedTimeout},
		},
		{
			name: "list, the first 100",
			args: []string{"list"},
			want: parkedCall{command: "list", table: "redrive", filter: window, limit: 100, timeout: defaultParkedTimeout},
		},
		{
			name: "list with every flag, durations ago",
			args: []string{"list", "--breaker", "orders", "--reason", "table unavailable", "--error-type", "-", "--since", "48h", "--until", "30m",
				"--limit", "0", "--table", "other", "--timeout", "5s"},
			want: parkedCall{command: "list", table: "other", limit: 0, timeout: 5 * time.Second, filter: with(func(f *lotindex.Filter) {
				f.Breaker, f.Reason, f.ErrorType = "orders", "table unavailable", lotindex.None
				f.Since, f.Until = parkedNow.Add(-48*time.Hour), parkedNow.Add(-30*time.Minute)
			})},
		},
		{
			name: "summary between RFC 3339 times",
			args: []string{"summary", "--since", "2026-01-01T00:00:00+01:00", "--until", "2026-01-03T00:00:00Z", "--reason", "poison"},
			want: parkedCall{command: "summary", table: "redrive", timeout: defaultParkedTimeout, filter: with(func(f *lotindex.Filter) {
				f.Reason = "poison"
				f.Since, f.Until = time.Date(2025, 12, 31, 23, 0, 0, 0, time.UTC), time.Date(2026, 1, 3, 0, 0, 0, 0, time.UTC)
			})},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stderr bytes.Buffer
			call, code, ok := parseParked(tt.args, fixedHost(env), &stderr)
			require.True(t, ok, "stderr: %s", stderr.String())
			assert.Equal(t, exitOK, code)
			assert.True(t, tt.want.filter.Since.Equal(call.filter.Since), "since %s", call.filter.Since)
			assert.True(t, tt.want.filter.Until.Equal(call.filter.Until), "until %s", call.filter.Until)
			call.filter.Since, call.filter.Until = tt.want.filter.Since, tt.want.filter.Until
			assert.Equal(t, tt.want, call)
			assert.Empty(t, stderr.String())
		})
	}
}

func TestParseParkedRefusesBadCommandLines(t *testing.T) {
	env := map[string]string{"TABLE_NAME": "redrive"}
	tests := []struct {
		name string
		args []string
		env  map[string]string
		want string // in stderr
	}{
		{"no command", nil, env, "missing command"},
		{"flags but no command", []string{"--breaker", "orders"}, env, "missing command"},
		{"unknown command", []string{"purge"}, env, `unknown parked command "purge"; want summary or list`},
		{"no table anywhere", []string{"summary"}, nil, "--table is required (or set TABLE_NAME)"},
		{"bad since", []string{"list", "--since", "yesterday"}, env, `--since "yesterday": want an RFC 3339 time (2026-01-02T15:04:05Z) or a duration ago (30m, 2h)`},
		{"negative duration", []string{"list", "--until", "-1h"}, env, `--until "-1h": a duration must be positive`},
		{"since after until", []string{"list", "--since", "1h", "--until", "2h"}, env,
			"--since 2026-01-02T14:00:00Z is not before --until 2026-01-02T13:00:00Z"},
		{"a window past a month", []string{"summary", "--since", "2025-11-01T00:00:00Z"}, env,
			"--since and --until are more than 31 days apart; the parking lot keeps a message at most 14 days"},
		{"negative limit", []string{"list", "--limit", "-1"}, env, "--limit -1: want 0 (all) or more"},
		{"limit on summary", []string{"summary", "--limit", "5"}, env, "flag provided but not defined: -limit"},
		{"zero timeout", []string{"summary", "--timeout", "0s"}, env, "--timeout 0s must be positive"},
		{"extra argument", []string{"list", "orders"}, env, `unexpected argument "orders"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stderr bytes.Buffer
			_, code, ok := parseParked(tt.args, fixedHost(tt.env), &stderr)
			assert.False(t, ok)
			assert.Equal(t, exitUsage, code)
			assert.Contains(t, stderr.String(), tt.want)
			assert.Regexp(t, `Usage: redrive parked summary|\n  \(redrive parked -h for help\)\n$`, stderr.String(), "the usage, or for the flags' own problems a pointer to it, follows the problem")
		})
	}
	for _, args := range [][]string{{"-h"}, {"summary", "-h"}, {"list", "--help"}} {
		t.Run("help "+strings.Join(args, " "), func(t *testing.T) {
			var stderr bytes.Buffer
			_, code, ok := parseParked(args, fixedHost(env), &stderr)
			assert.False(t, ok)
			assert.Equal(t, exitOK, code)
			assert.Contains(t, stderr.String(), "-breaker string")
			assert.Contains(t, stderr.String(), "Neither reads the queue")
		})
	}
	t.Run("list's help has --limit", func(t *testing.T) {
		var stderr bytes.Buffer
		parseParked([]string{"list", "-h"}, fixedHost(env), &stderr)
		assert.Contains(t, stderr.String(), "-limit int")
	})
}

// parkedIndex is an index on a fresh table of the test backend holding
// entries, each parked that long before parkedNow.
func parkedIndex(t *testing.T, entries map[time.Duration]lotindex.Entry) (*lotindex.Index, string) {
	t.Helper()
	client, _ := ddbtest.Client(t)
	table := ddbtest.CreateTable(t, client, func(ctx context.Context, name string) error {
		return dynamo.CreateTable(ctx, client, name)
	})
	idx := lotindex.New(client, table)
	for ago, e := range entries {
		e.ParkedAt = parkedNow.Add(-ago)
		e.Expires = e.ParkedAt.Add(lotindex.MaxRetention)
		e.MessageID = "m-" + e.OriginID
		require.NoError(t, idx.Put(t.Context(), e))
	}
	return idx, table
}

func TestExecParked(t *testing.T) {
	idx, table := parkedIndex(t, map[time.Duration]lotindex.Entry{
		50 * time.Hour:      {Breaker: "orders", Reason: "poison", ErrorType: "PoisonMessage", OriginID: "o-1", Attempt: 1, Size: 18},
		3 * time.Hour:       {Breaker: "orders", Reason: "poison", ErrorType: "PoisonMessage", OriginID: "o-2", Attempt: 1, Size: 1200},
		2 * time.Hour:       {Breaker: "orders", Reason: "exhausted", ErrorType: "Rejected", Group: "account-7", OriginID: "o-3", Attempt: 2, Size: 7},
		time.Hour:           {Breaker: "acme corp", Reason: "table unavailable", OriginID: "o-4", Attempt: 1, Size: 30},
		time.Minute:         {Reason: "poison", OriginID: "o\t5", Attempt: 1, Size: 2},
		20 * 24 * time.Hour: {Breaker: "orders", Reason: "poison", OriginID: "o-old", Attempt: 1, Size: 1},
	})
	call := func(command string, limit int, change func(f *lotindex.Filter)) parkedCall {
		c := parkedCall{command: command, table: table, limit: limit, timeout: 10 * time.Second,
			filter: lotindex.Filter{Since: parkedNow.Add(-14 * 24 * time.Hour), Until: parkedNow.Add(24 * time.Hour), Now: parkedNow}}
		if change != nil {
			change(&c.filter)
		}
		return c
	}
	tests := []struct {
		name   string
		call   parkedCall
		stdout []string
		stderr string
	}{
		{
			name: "summary",
			call: call("summary", 0, nil),
			stdout: []string{
				"BREAKER    REASON             ERROR TYPE     COUNT  OLDEST",
				`-          poison             -              1      2026-01-02T14:59:00Z`,
				"acme corp  table unavailable  -              1      2026-01-02T14:00:00Z",
				"orders     exhausted          Rejected       1      2026-01-02T13:00:00Z",
				"orders     poison             PoisonMessage  2      2025-12-31T13:00:00Z",
				"TOTAL                                        5      2025-12-31T13:00:00Z",
			},
		},
		{
			name: "summary of one breaker",
			call: call("summary", 0, func(f *lotindex.Filter) { f.Breaker = "orders" }),
			stdout: []string{
				"BREAKER  REASON     ERROR TYPE     COUNT  OLDEST",
				"orders   exhausted  Rejected       1      2026-01-02T13:00:00Z",
				"orders   poison     PoisonMessage  2      2025-12-31T13:00:00Z",
				"TOTAL                              3      2025-12-31T13:00:00Z",
			},
		},
		{
			name:   "summary of nothing",
			call:   call("summary", 0, func(f *lotindex.Filter) { f.Reason = "oversize" }),
			stdout: []string{"BREAKER  REASON  ERROR TYPE  COUNT  OLDEST", "TOTAL                        0      -"},
		},
		{
			name: "list, oldest first, an origin id with a tab quoted",
			call: call("list", 0, nil),
			stdout: []string{
				"PARKED                BREAKER    GROUP      REASON             ERROR TYPE     SIZE  ORIGIN ID",
				"2025-12-31T13:00:00Z  orders     -          poison             PoisonMessage  18    o-1",
				"2026-01-02T12:00:00Z  orders     -          poison             PoisonMessage  1200  o-2",
				"2026-01-02T13:00:00Z  orders     account-7  exhausted          Rejected       7     o-3",
				"2026-01-02T14:00:00Z  acme corp  -          table unavailable  -              30    o-4",
				`2026-01-02T14:59:00Z  -          -          poison             -              2     "o\t5"`,
			},
		},
		{
			name: "list with a limit says that more match",
			call: call("list", 2, nil),
			stdout: []string{
				"PARKED                BREAKER  GROUP  REASON  ERROR TYPE     SIZE  ORIGIN ID",
				"2025-12-31T13:00:00Z  orders   -      poison  PoisonMessage  18    o-1",
				"2026-01-02T12:00:00Z  orders   -      poison  PoisonMessage  1200  o-2",
			},
			stderr: "redrive parked: more match than the 2 shown; --limit 0 lists them all\n",
		},
		{
			name: "list by error type, none, within a window",
			call: call("list", 3, func(f *lotindex.Filter) {
				f.ErrorType, f.Since, f.Until = lotindex.None, parkedNow.Add(-90*time.Minute), parkedNow.Add(-time.Minute)
			}),
			stdout: []string{
				"PARKED                BREAKER    GROUP  REASON             ERROR TYPE  SIZE  ORIGIN ID",
				"2026-01-02T14:00:00Z  acme corp  -      table unavailable  -           30    o-4",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := execParked(t.Context(), idx, tt.call, &stdout, &stderr)
			assert.Equal(t, exitOK, code, "stderr: %s", stderr.String())
			assert.Equal(t, strings.Join(tt.stdout, "\n")+"\n", stdout.String())
			assert.Equal(t, tt.stderr, stderr.String())
		})
	}

	t.Run("a table that is not there", func(t *testing.T) {
		client, _ := ddbtest.Client(t)
		var stdout, stderr bytes.Buffer
		c := call("summary", 0, nil)
		c.table = "redrive-no-such-table"
		code := execParked(t.Context(), lotindex.New(client, c.table), c, &stdout, &stderr)
		assert.Equal(t, exitFailure, code)
		assert.Empty(t, stdout.String())
		assert.Contains(t, stderr.String(), "redrive parked: summary in table redrive-no-such-table: lotindex: query 2025-12-19: ")
		assert.Contains(t, stderr.String(), "ResourceNotFoundException")
	})
}
