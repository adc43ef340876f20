package main

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/admin"
	"github.com/redrive/redrive/breaker/breakertest"
	"github.com/redrive/redrive/rules"
)

// testARN is a well-formed admin state machine ARN in eu-west-1.
const testARN = "arn:aws:states:eu-west-1:123456789012:stateMachine:redrive-admin"

// fixedHost is a host with env, host name "box" and a fixed clock.
func fixedHost(env map[string]string) host {
	return host{
		getenv:   func(name string) string { return env[name] },
		hostname: func() (string, error) { return "box", nil },
		clock:    breakertest.NewClock(time.Date(2026, 1, 2, 15, 0, 0, 0, time.UTC)),
	}
}

func TestParseAdminBuildsTheRequest(t *testing.T) {
	env := map[string]string{envAdminStateMachine: testARN, envSFNEndpoint: "http://127.0.0.1:8083", "USER": "alice"}
	tests := []struct {
		name string
		args []string
		want adminCall
	}{
		{
			name: "status with the environment's defaults",
			args: []string{"status", "--breaker", "orders"},
			want: adminCall{
				request:         admin.Request{Command: "status", Breaker: "orders", Actor: "alice@box"},
				stateMachineARN: testARN, region: "eu-west-1", endpoint: "http://127.0.0.1:8083", timeout: defaultAdminTimeout,
			},
		},
		{
			name: "open for a duration, counted by the admin task, flags over the environment",
			args: []string{"open", "--breaker", "orders", "--reason", "maintenance", "--until", "30m", "--actor", "bob",
				"--state-machine-arn", "arn:aws:states:us-east-1:123456789012:stateMachine:other", "--endpoint", "http://x:1", "--timeout", "5s"},
			want: adminCall{
				request:         admin.Request{Command: "open", Breaker: "orders", Reason: "maintenance", Until: "30m", Actor: "bob"},
				stateMachineARN: "arn:aws:states:us-east-1:123456789012:stateMachine:other", region: "us-east-1",
				endpoint: "http://x:1", timeout: 5 * time.Second,
			},
		},
		{
			name: "close until an RFC 3339 time",
			args: []string{"close", "--breaker", "orders", "--reason", "drain", "--until", "2026-03-01T00:00:00+01:00"},
			want: adminCall{
				request:         admin.Request{Command: "close", Breaker: "orders", Reason: "drain", Until: "2026-03-01T00:00:00+01:00", Actor: "alice@box"},
				stateMachineARN: testARN, region: "eu-west-1", endpoint: "http://127.0.0.1:8083", timeout: defaultAdminTimeout,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stderr bytes.Buffer
			call, code, ok := parseAdmin(tt.args, fixedHost(env), &stderr)
			require.True(t, ok, "stderr: %s", stderr.String())
			assert.Equal(t, exitOK, code)
			assert.Equal(t, tt.want, call)
			assert.Empty(t, stderr.String())
		})
	}
}

func TestParseAdminRuleCommands(t *testing.T) {
	env := map[string]string{envAdminStateMachine: testARN, "USER": "alice"}
	call := func(r admin.Request) adminCall {
		return adminCall{request: r, stateMachineARN: testARN, region: "eu-west-1", timeout: defaultAdminTimeout}
	}
	tests := []struct {
		name string
		args []string
		want adminCall
	}{
		{
			name: "add a quarantine for a duration",
			args: []string{"rule", "add", "--on", "attribute:tenant", "--equals", "acme", "--action", "quarantine", "--reason", "broken client", "--until", "2h"},
			want: call(admin.Request{Command: admin.CommandRuleAdd, Reason: "broken client", Until: "2h", Actor: "alice@box",
				Rule: &rules.Spec{On: "attribute:tenant", Equals: "acme", Action: "quarantine"}}),
		},
		{
			name: "add a delay on a set of keys",
			args: []string{"rule", "add", "--on", "breaker", "--in", "orders,payments", "--action", "delay", "--delay", "10m", "--reason", "slow"},
			want: call(admin.Request{Command: admin.CommandRuleAdd, Reason: "slow", Actor: "alice@box",
				Rule: &rules.Spec{On: "breaker", In: []string{"orders", "payments"}, Action: "delay", Delay: "10m"}}),
		},
		{
			name: "list",
			args: []string{"rule", "list"},
			want: call(admin.Request{Command: admin.CommandRuleList, Actor: "alice@box"}),
		},
		{
			name: "remove",
			args: []string{"rule", "remove", "--id", "r3", "--reason", "fixed"},
			want: call(admin.Request{Command: admin.CommandRuleRemove, ID: "r3", Reason: "fixed", Actor: "alice@box"}),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stderr bytes.Buffer
			got, code, ok := parseAdmin(tt.args, fixedHost(env), &stderr)
			require.True(t, ok, stderr.String())
			assert.Equal(t, exitOK, code)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestParseAdminDefaultActor(t *testing.T) {
	h := fixedHost(map[string]string{envAdminStateMachine: testARN})
	h.hostname = func() (string, error) { return "", errors.New("no host name") }
	call, _, ok := parseAdmin([]string{"status", "--breaker", "orders"}, h, &bytes.Buffer{})
	require.True(t, ok)
	assert.Equal(t, "unknown@unknown", call.request.Actor)
}

func TestParseAdminRefusesBadCommandLines(t *testing.T) {
	env := map[string]string{envAdminStateMachine: testARN}
	tests := []struct {
		name string
		args []string
		want string // in stderr
	}{
		{"no command", nil, "missing command"},
		{"flags but no command", []string{"--breaker", "orders"}, "missing command"},
		{"unknown command", []string{"purge", "--breaker", "orders"}, `unknown admin command "purge"; want one of status, reset, open, close, release`},
		{"missing breaker", []string{"status"}, "--breaker is required"},
		{"blank breaker", []string{"status", "--breaker", "  "}, "--breaker is required"},
		{"bad until", []string{"open", "--breaker", "orders", "--until", "tomorrow"}, `--until "tomorrow": want an RFC 3339 time`},
		{"negative until", []string{"open", "--breaker", "orders", "--until", "-5m"}, "a duration must be positive"},
		{"until on status", []string{"status", "--breaker", "orders", "--until", "30m"}, "--until is only for open, close and rule add, not status"},
		{"until on reset", []string{"reset", "--breaker", "orders", "--until", "30m"}, "--until is only for open, close and rule add, not reset"},
		{"until on release", []string{"release", "--breaker", "orders", "--until", "30m"}, "--until is only for open, close and rule add, not release"},
		{"bad state machine ARN", []string{"status", "--breaker", "orders", "--state-machine-arn", "redrive-admin"}, `--state-machine-arn "redrive-admin" is not a state machine ARN`},
		{"zero timeout", []string{"status", "--breaker", "orders", "--timeout", "0s"}, "--timeout 0s must be positive"},
		{"unknown flag", []string{"status", "--breaker", "orders", "--force"}, "flag provided but not defined: -force"},
		{"extra argument", []string{"status", "--breaker", "orders", "now"}, `unexpected argument "now"`},
		{"rule without a subcommand", []string{"rule"}, "redrive admin rule: want add, list or remove"},
		{"unknown rule subcommand", []string{"rule", "purge"}, "redrive admin rule: want add, list or remove"},
		{"rule flags on a breaker command", []string{"status", "--breaker", "orders", "--on", "breaker"}, "flag provided but not defined: -on"},
		{"until on rule remove", []string{"rule", "remove", "--id", "r1", "--until", "30m"}, "--until is only for open, close and rule add, not rule-remove"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stderr bytes.Buffer
			_, code, ok := parseAdmin(tt.args, fixedHost(env), &stderr)
			assert.False(t, ok)
			assert.Equal(t, exitUsage, code)
			assert.Contains(t, stderr.String(), tt.want)
			assert.Regexp(t, `Usage: redrive admin|\n  \(redrive admin -h for help\)\n$`, stderr.String(), "the usage, or for the flags' own problems a pointer to it, follows the problem")
		})
	}

	t.Run("no state machine anywhere", func(t *testing.T) {
		var stderr bytes.Buffer
		_, code, ok := parseAdmin([]string{"status", "--breaker", "orders"}, fixedHost(nil), &stderr)
		assert.False(t, ok)
		assert.Equal(t, exitUsage, code)
		assert.Contains(t, stderr.String(), "--state-machine-arn is required (or set ADMIN_STATE_MACHINE_ARN)")
	})
	for _, args := range [][]string{{"-h"}, {"status", "-h"}} {
		t.Run("help "+strings.Join(args, " "), func(t *testing.T) {
			var stderr bytes.Buffer
			_, code, ok := parseAdmin(args, fixedHost(env), &stderr)
			assert.False(t, ok)
			assert.Equal(t, exitOK, code)
			assert.Contains(t, stderr.String(), "-breaker string")
		})
	}
}
