package main

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/redrive/redrive/admin"
	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/clock"
	"github.com/redrive/redrive/rules"
)

// Environment variables the admin command reads its defaults from; `redrive
// local` prints export lines for them.
const (
	envAdminStateMachine = "ADMIN_STATE_MACHINE_ARN"
	envSFNEndpoint       = "SFN_ENDPOINT"
	// envDynamoDBEndpoint points `redrive run` at a DynamoDB-compatible
	// endpoint (dynalite, DynamoDB Local) instead of the embedded minidyn.
	envDynamoDBEndpoint = "DDB_ENDPOINT"
)

// stateMachineARN matches a state machine ARN; group 1 is its region.
var stateMachineARN = regexp.MustCompile(`^arn:aws[a-zA-Z-]*:states:([a-z]{2}(?:-gov)?-[a-z]+-\d):\d{12}:stateMachine:[A-Za-z0-9_-]{1,80}$`)

// adminFlags are the admin command's flags as given.
type adminFlags struct {
	command, breaker, reason, until, actor string
	stateMachineARN, endpoint              string
	timeout                                time.Duration
	// rule is the rule commands' flags.
	rule ruleFlags
}

// ruleFlags are the flags of `redrive admin rule add|remove`.
type ruleFlags struct {
	on, equals, prefix, in, action, delay, id string
}

// The rule subcommands, `redrive admin rule add|list|remove`, and the
// admin commands they start.
var ruleCommands = map[string]string{"add": admin.CommandRuleAdd, "list": admin.CommandRuleList, "remove": admin.CommandRuleRemove}

// adminCall is a validated admin command, ready to start.
type adminCall struct {
	// request is the admin state machine's input.
	request admin.Request
	// stateMachineARN is the admin state machine; region is its region.
	stateMachineARN, region string
	// endpoint is the Step Functions endpoint; "" means AWS.
	endpoint string
	// timeout bounds starting the execution and waiting for its end.
	timeout time.Duration
}

// host is what the admin command reads from its surroundings, so tests
// can fix it.
type host struct {
	getenv   func(string) string
	hostname func() (string, error)
	clock    clock.Clock
}

// osHost is the process's environment, host name and wall clock.
func osHost() host { return host{getenv: os.Getenv, hostname: os.Hostname, clock: clock.Wall} }

// validate checks f and builds the call. Every error is a usage error: it
// says what is wrong with the command line.
func (f adminFlags) validate(h host) (adminCall, error) {
	rule := strings.HasPrefix(f.command, "rule-")
	if f.command == admin.CommandReplay {
		return adminCall{}, errors.New("replay is its own command: redrive replay --dry-run ... (the admin state machine's replay is for the console)")
	}
	if !slices.Contains(admin.Commands(), f.command) {
		return adminCall{}, fmt.Errorf("unknown admin command %q; want one of %s", f.command, strings.Join(breakerCommands(), ", ")+", rule add|list|remove")
	}
	if !rule && strings.TrimSpace(f.breaker) == "" {
		return adminCall{}, fmt.Errorf("--breaker is required: the breaker key, e.g. orders")
	}
	until, err := f.untilArg()
	if err != nil {
		return adminCall{}, err
	}
	if f.stateMachineARN == "" {
		return adminCall{}, fmt.Errorf("--state-machine-arn is required (or set %s)", envAdminStateMachine)
	}
	m := stateMachineARN.FindStringSubmatch(f.stateMachineARN)
	if m == nil {
		return adminCall{}, fmt.Errorf("--state-machine-arn %q is not a state machine ARN, e.g. arn:aws:states:us-east-1:123456789012:stateMachine:redrive-admin", f.stateMachineARN)
	}
	if f.timeout <= 0 {
		return adminCall{}, fmt.Errorf("--timeout %s must be positive", f.timeout)
	}
	actor := strings.TrimSpace(f.actor)
	if actor == "" {
		actor = defaultActor(h)
	}
	request := admin.Request{Command: f.command, Breaker: f.breaker, Reason: f.reason, Until: until, Actor: actor, ID: f.rule.id}
	if f.command == admin.CommandRuleAdd {
		request.Rule = f.rule.spec()
	}
	return adminCall{
		request:         request,
		stateMachineARN: f.stateMachineARN,
		region:          m[1],
		endpoint:        f.endpoint,
		timeout:         f.timeout,
	}, nil
}

// untilArg checks --until and returns it as the request's until: an RFC
// 3339 time, or a duration such as 30m, which the admin task counts from
// its table's clock when the command runs (redrive local's clock runs
// ahead of this machine's). It is only for open, close and rule add.
func (f adminFlags) untilArg() (string, error) {
	if f.until == "" {
		return "", nil
	}
	if f.command != breaker.ForceOpen.String() && f.command != breaker.ForceClose.String() && f.command != admin.CommandRuleAdd {
		return "", fmt.Errorf("--until is only for open, close and rule add, not %s", f.command)
	}
	if _, err := timeArg("until", f.until, time.Time{}, true); err != nil {
		return "", err
	}
	return f.until, nil
}

// timeArg reads the value of the time flag name: an RFC 3339 time as
// given, or a positive duration such as 30m from now, ahead or ago, in
// UTC.
func timeArg(name, value string, now time.Time, ahead bool) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339, value); err == nil {
		return t, nil
	}
	d, err := time.ParseDuration(value)
	if err != nil {
		duration := "a duration"
		if !ahead {
			duration += " ago"
		}
		return time.Time{}, fmt.Errorf("--%s %q: want an RFC 3339 time (2026-01-02T15:04:05Z) or %s (30m, 2h)", name, value, duration)
	}
	if d <= 0 {
		return time.Time{}, fmt.Errorf("--%s %q: a duration must be positive", name, value)
	}
	if !ahead {
		d = -d
	}
	return now.Add(d).UTC(), nil
}

// defaultActor is "$USER@hostname", with "unknown" for what is missing.
func defaultActor(h host) string {
	user := h.getenv("USER")
	if user == "" {
		user = "unknown"
	}
	name, err := h.hostname()
	if err != nil || name == "" {
		name = "unknown"
	}
	return user + "@" + name
}

// breakerCommands lists the admin commands on a breaker.
func breakerCommands() []string {
	return slices.DeleteFunc(admin.Commands(), func(c string) bool { return strings.HasPrefix(c, "rule-") || c == admin.CommandReplay })
}

// spec is the rule the flags describe; --in is a comma-separated list. The
// admin function checks it and names every problem.
func (f ruleFlags) spec() *rules.Spec {
	s := &rules.Spec{On: f.on, Equals: f.equals, Prefix: f.prefix, Action: f.action, Delay: f.delay}
	if f.in != "" {
		s.In = strings.Split(f.in, ",")
	}
	return s
}
