package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDispatch(t *testing.T) {
	tests := []struct {
		name           string
		args           []string
		code           int
		stdout, stderr string // substrings; "" means empty
	}{
		{name: "no command", args: nil, code: exitUsage, stderr: "Usage: redrive <command>"},
		{name: "help", args: []string{"help"}, code: exitOK, stdout: "Commands:\n  run     simulate an outage"},
		{name: "-h", args: []string{"-h"}, code: exitOK, stdout: "admin   status|reset|open|close|release a breaker, rule add|list|remove the routing rules"},
		{name: "unknown command", args: []string{"serve"}, code: exitUsage, stderr: `redrive: unknown command "serve"`},
		{name: "local help", args: []string{"local", "-h"}, code: exitOK, stderr: "Usage: redrive local [flags]"},
		{name: "local bad flag", args: []string{"local", "--port", "1"}, code: exitUsage, stderr: "flag provided but not defined: -port"},
		{name: "admin usage error", args: []string{"admin", "status"}, code: exitUsage, stderr: "--breaker is required"},
		{name: "help lists parked", args: []string{"help"}, code: exitOK, stdout: "parked  summary|list what is in the parking lot"},
		{name: "parked usage error", args: []string{"parked"}, code: exitUsage, stderr: "redrive parked: missing command"},
		{name: "parked help", args: []string{"parked", "list", "-h"}, code: exitOK, stderr: "Usage: redrive parked summary"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := dispatch(t.Context(), tt.args, &stdout, &stderr)
			assert.Equal(t, tt.code, code)
			for _, c := range []struct{ got, want string }{{stdout.String(), tt.stdout}, {stderr.String(), tt.stderr}} {
				if c.want == "" {
					assert.Empty(t, c.got)
				} else {
					assert.Contains(t, c.got, c.want)
				}
			}
		})
	}
}

// Every command and subcommand prints its help with -h or --help, to
// stderr (the top level to stdout), and exits 0.
func TestHelpOfEveryCommand(t *testing.T) {
	tests := []struct {
		args  []string // before the help flag
		usage string   // the help's first words
	}{
		{nil, "Usage: redrive <command>"},
		{[]string{"run"}, "Usage: redrive run [flags]"},
		{[]string{"local"}, "Usage: redrive local [flags]"},
		{[]string{"admin"}, "Usage: redrive admin status|"},
		{[]string{"admin", "rule"}, "Usage: redrive admin status|"},
		{[]string{"admin", "rule", "add"}, "Usage: redrive admin status|"},
		{[]string{"admin", "rule", "list"}, "Usage: redrive admin status|"},
		{[]string{"admin", "rule", "remove"}, "Usage: redrive admin status|"},
		{[]string{"parked"}, "Usage: redrive parked summary"},
		{[]string{"parked", "summary"}, "Usage: redrive parked summary"},
		{[]string{"parked", "list"}, "Usage: redrive parked summary"},
		{[]string{"replay"}, "Usage: redrive replay [--dry-run]"},
		{[]string{"replay", "show"}, "Usage: redrive replay [--dry-run]"},
		{[]string{"replay", "show", "r-1"}, "Usage: redrive replay [--dry-run]"},
	}
	for _, c := range breakerCommands() {
		tests = append(tests, struct {
			args  []string
			usage string
		}{[]string{"admin", c}, "Usage: redrive admin status|"})
	}
	for _, tt := range tests {
		for _, help := range []string{"-h", "--help"} {
			args := append(append([]string{}, tt.args...), help)
			t.Run(strings.Join(args, " "), func(t *testing.T) {
				var stdout, stderr bytes.Buffer
				code := dispatch(t.Context(), args, &stdout, &stderr)
				assert.Equal(t, exitOK, code, "stderr: %s", stderr.String())
				out, quiet := stderr.String(), stdout.String()
				if tt.args == nil {
					out, quiet = quiet, out
				}
				assert.True(t, strings.HasPrefix(out, tt.usage), "the help, first: %s", out)
				assert.Empty(t, quiet)
			})
		}
	}
}

// An unknown flag, on any command, is one line saying so and one pointing
// to the help, with the flag meant when one is near: exit 2.
func TestUnknownFlag(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"run", "-scenari", "x.yaml"}, "redrive run: flag provided but not defined: -scenari\n  did you mean -scenario? (redrive run -h for help)\n"},
		{[]string{"run", "-zzz"}, "redrive run: flag provided but not defined: -zzz\n  (redrive run -h for help)\n"},
		{[]string{"local", "-timescale", "60"}, "redrive local: flag provided but not defined: -timescale\n  did you mean -time-scale? (redrive local -h for help)\n"},
		{[]string{"local", "--sfn", "x"}, "redrive local: flag provided but not defined: -sfn\n  did you mean -sfn-addr? (redrive local -h for help)\n"},
		{[]string{"admin", "status", "--breakr", "orders"}, "redrive admin: flag provided but not defined: -breakr\n  did you mean -breaker? (redrive admin -h for help)\n"},
		{[]string{"admin", "rule", "add", "--actoin", "hold"}, "redrive admin: flag provided but not defined: -actoin\n  did you mean -action? (redrive admin -h for help)\n"},
		{[]string{"parked", "summary", "--tabel", "t"}, "redrive parked: flag provided but not defined: -tabel\n  did you mean -table? (redrive parked -h for help)\n"},
		{[]string{"replay", "--dryrun"}, "redrive replay: flag provided but not defined: -dryrun\n  did you mean -dry-run? (redrive replay -h for help)\n"},
		{[]string{"replay", "show", "r-1", "--tables", "t"}, "redrive replay: flag provided but not defined: -tables\n  did you mean -table? (redrive replay -h for help)\n"},
		{[]string{"run", "-report"}, "redrive run: flag needs an argument: -report\n  (redrive run -h for help)\n"},
		{[]string{"run", "extra"}, "redrive run: unexpected argument \"extra\"\n  (redrive run -h for help)\n"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := dispatch(t.Context(), tt.args, &stdout, &stderr)
			assert.Equal(t, exitUsage, code)
			assert.Equal(t, tt.want, stderr.String())
			assert.Empty(t, stdout.String())
		})
	}
}

func TestEditDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{{"", "", 0}, {"", "abc", 3}, {"timescale", "time-scale", 1}, {"scenari", "scenario", 1}, {"actoin", "action", 2}, {"kitten", "sitting", 3}} {
		assert.Equal(t, c.want, editDistance(c.a, c.b), "%q %q", c.a, c.b)
		assert.Equal(t, c.want, editDistance(c.b, c.a), "%q %q", c.b, c.a)
	}
}

// A back-quoted word in a flag's usage is its value's name in the help.
func TestLocalHelpNamesTheConfigDir(t *testing.T) {
	var stdout, stderr bytes.Buffer
	require.Equal(t, exitOK, dispatch(t.Context(), []string{"local", "-h"}, &stdout, &stderr))
	assert.Contains(t, stderr.String(), "  -config-dir DIR\n")
	assert.NotContains(t, stderr.String(), "source\n")
	assert.NotContains(t, stderr.String(), "-config-dir source")
}
