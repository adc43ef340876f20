package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/sfn"

	"github.com/redrive/redrive/rules"
)

// defaultAdminTimeout bounds an admin command: the admin state machine
// retries contention for about half a minute at most.
const defaultAdminTimeout = 60 * time.Second

// runAdmin is `redrive admin <command> --breaker K ...`.
func runAdmin(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	call, code, ok := parseAdmin(args, osHost(), stderr)
	if !ok {
		return code
	}
	client, err := newSFNClient(ctx, call)
	if err != nil {
		fmt.Fprintf(stderr, "redrive admin: %v\n", err)
		return exitFailure
	}
	return execAdmin(ctx, client, call, stdout, stderr)
}

// parseAdmin reads the command line into a call, or returns the exit code
// to stop with (after printing the problem and the usage to stderr).
func parseAdmin(args []string, h host, stderr io.Writer) (call adminCall, code int, ok bool) {
	fs := flag.NewFlagSet("admin", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { adminUsage(fs) }
	var f adminFlags
	fs.StringVar(&f.breaker, "breaker", "", "breaker key, e.g. orders (required but for rule commands)")
	fs.StringVar(&f.reason, "reason", "", "why; required by every command but status, kept on the breaker")
	fs.StringVar(&f.until, "until", "", "end of an open, a close or a rule: RFC 3339 time or a duration such as 30m")
	fs.StringVar(&f.actor, "actor", "", "who; default $USER@hostname")
	fs.StringVar(&f.stateMachineARN, "state-machine-arn", h.getenv(envAdminStateMachine), "admin state machine ARN; default $"+envAdminStateMachine)
	fs.StringVar(&f.endpoint, "endpoint", h.getenv(envSFNEndpoint), "Step Functions endpoint URL; default $"+envSFNEndpoint+", unset means AWS")
	fs.DurationVar(&f.timeout, "timeout", defaultAdminTimeout, "how long to wait for the execution to end")
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		if len(args) > 0 && isHelp(args[0]) {
			fs.Usage()
			return adminCall{}, exitOK, false
		}
		fmt.Fprintln(stderr, "redrive admin: missing command; it comes first, e.g. redrive admin status --breaker orders")
		fs.Usage()
		return adminCall{}, exitUsage, false
	}
	f.command, args = args[0], args[1:]
	if f.command == "rule" {
		if helpFirst(fs, args) {
			return adminCall{}, exitOK, false
		}
		if len(args) == 0 || ruleCommands[args[0]] == "" {
			fmt.Fprintln(stderr, "redrive admin rule: want add, list or remove, e.g. redrive admin rule list")
			fs.Usage()
			return adminCall{}, exitUsage, false
		}
		f.command, args = ruleCommands[args[0]], args[1:]
		fs.StringVar(&f.rule.on, "on", "", `rule add: what the rule matches: breaker, group (a FIFO message's), attribute:NAME or body:/json/pointer`)
		fs.StringVar(&f.rule.equals, "equals", "", "rule add: match a value equal to this")
		fs.StringVar(&f.rule.prefix, "prefix", "", "rule add: match a value starting with this")
		fs.StringVar(&f.rule.in, "in", "", "rule add: match one of these comma-separated values")
		fs.StringVar(&f.rule.action, "action", "", "rule add: "+strings.Join(rules.Actions(), ", "))
		fs.StringVar(&f.rule.delay, "delay", "", "rule add: a delay rule's minimum wait between tries, e.g. 10m")
		fs.StringVar(&f.rule.id, "id", "", "rule remove: the rule's id, e.g. r7 (rule list shows them)")
	}
	if code, ok := parseFlags(fs, args); !ok {
		return adminCall{}, code, false
	}
	call, err := f.validate(h)
	if err != nil {
		fmt.Fprintf(stderr, "redrive admin: %v\n", err)
		fs.Usage()
		return adminCall{}, exitUsage, false
	}
	return call, exitOK, true
}

// adminUsage prints the admin command's synopsis and flags.
func adminUsage(fs *flag.FlagSet) {
	w := fs.Output()
	fmt.Fprintf(w, "Usage: redrive admin %s --breaker K [flags]\n", strings.Join(breakerCommands(), "|"))
	fmt.Fprintln(w, "       redrive admin rule add --on WHAT --equals V|--prefix P|--in A,B --action quarantine|hold|delay [--delay D] --reason R [--until T]")
	fmt.Fprintln(w, "       redrive admin rule list")
	fmt.Fprintln(w, "       redrive admin rule remove --id ID --reason R")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Starts an execution of the admin state machine and prints its output.")
	fmt.Fprintln(w, "Exit codes: 0 done, 1 the command failed, 2 usage error, 3 no breaker has the key (status of a mistyped key).")
	fmt.Fprintln(w)
	fs.PrintDefaults()
}

// newSFNClient returns a Step Functions client for call: on its endpoint
// with placeholder credentials (local emulators check none), or on AWS
// with the default credential chain, in the state machine's region.
func newSFNClient(ctx context.Context, call adminCall) (*sfn.Client, error) {
	if call.endpoint != "" {
		return sfn.New(sfn.Options{
			Region:       call.region,
			BaseEndpoint: aws.String(call.endpoint),
			Credentials:  credentials.NewStaticCredentialsProvider("local", "local", ""),
		}), nil
	}
	cfg, err := awsconfig.LoadDefaultConfig(ctx, awsconfig.WithRegion(call.region))
	if err != nil {
		return nil, fmt.Errorf("load AWS configuration: %w", err)
	}
	return sfn.NewFromConfig(cfg), nil
}
