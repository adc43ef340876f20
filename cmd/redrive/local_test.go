package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	sfntypes "github.com/aws/aws-sdk-go-v2/service/sfn/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/clock"
	"github.com/redrive/redrive/emulate/local"
	"github.com/redrive/redrive/emulate/loopback"
	"github.com/redrive/redrive/emulate/simtarget"
	"github.com/redrive/redrive/message"
)

// freePorts are the local command's address flags on free loopback ports.
var freePorts = []string{"--lambda-addr", "127.0.0.1:0", "--sfn-addr", "127.0.0.1:0", "--ddb-addr", "127.0.0.1:0", "--sqs-addr", "127.0.0.1:0"}

// waitLimit bounds how long a test waits for the emulator to act; it is a
// guard against hangs, not an assertion on speed.
const waitLimit = 30 * time.Second

func TestParseLocal(t *testing.T) {
	t.Run("defaults", func(t *testing.T) {
		var stderr bytes.Buffer
		cfg, _, ok := parseLocal(nil, nil, &stderr)
		require.True(t, ok)
		assert.Equal(t, &local.Addresses{Lambda: "127.0.0.1:9001", StepFunctions: "127.0.0.1:8083", DynamoDB: "127.0.0.1:8000", SQS: "127.0.0.1:9324"}, cfg.stack.Serve)
		assert.Equal(t, 1.0, cfg.scale)
		assert.Equal(t, simtarget.Behaviour{}, cfg.target)
		assert.Same(t, &stderr, cfg.stack.Logs, "the functions log to stderr unless --quiet")
	})
	t.Run("flags", func(t *testing.T) {
		cfg, _, ok := parseLocal([]string{"--time-scale", "60", "--target", "down:5m", "--quiet",
			"--sfn-endpoint", "http://localhost:8083", "--ddb-endpoint", "http://localhost:8000"}, nil, &bytes.Buffer{})
		require.True(t, ok)
		assert.Equal(t, 60.0, cfg.scale)
		assert.Equal(t, simtarget.Behaviour{Health: simtarget.Down, For: 5 * time.Minute}, cfg.target)
		assert.Equal(t, "http://localhost:8083", cfg.stack.StepFunctionsEndpoint)
		assert.Equal(t, "http://localhost:8000", cfg.stack.DynamoDBEndpoint)
		assert.Nil(t, cfg.stack.Logs)
	})
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"bad target", []string{"--target", "sick"}, `--target: simtarget: target "sick"`},
		{"zero time scale", []string{"--time-scale", "0"}, "--time-scale 0: want a number > 0"},
		{"negative time scale", []string{"--time-scale", "-2"}, "--time-scale -2: want a number > 0"},
		{"extra argument", []string{"now"}, `unexpected argument "now"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var stderr bytes.Buffer
			_, code, ok := parseLocal(tt.args, nil, &stderr)
			assert.False(t, ok)
			assert.Equal(t, exitUsage, code)
			assert.Contains(t, stderr.String(), tt.want)
		})
	}
}

func TestLocalRedrivesAMessageSentToTheDLQ(t *testing.T) {
	s, env := serveLocal(t)
	ctx := t.Context()

	sent, err := sqsClient(env).SendMessage(ctx, &sqs.SendMessageInput{
		QueueUrl: aws.String(env["DLQ_URL"]), MessageBody: aws.String(`{"order": 1}`),
	})
	require.NoError(t, err)
	id := aws.ToString(sent.MessageId)

	client := sfnClient(env)
	item := awaitEnd(t, client, env["REDRIVE_STATE_MACHINE_ARN"], message.ExecutionName(id, 1, 0))
	require.Equal(t, sfntypes.ExecutionStatusSucceeded, item.Status)
	arn := aws.ToString(item.ExecutionArn)
	assert.Contains(t, arn, ":express:redrive:"+message.ExecutionName(id, 1, 0)+":", "an Express execution, named and with its id")
	_, err = client.DescribeExecution(ctx, &sfn.DescribeExecutionInput{ExecutionArn: aws.String(arn)})
	assert.ErrorContains(t, err, "does not support EXPRESS executions", "as in AWS, where an Express execution is seen in its logs")

	ex, err := s.Executor.DescribeExecution(ctx, arn) // the executor itself keeps it
	require.NoError(t, err)
	var doc message.Document
	require.NoError(t, json.Unmarshal(ex.Output, &doc))
	assert.Equal(t, message.NextDone, doc.Next)
	assert.Equal(t, "SUCCESS", doc.Outcome)
	assert.Equal(t, `{"order": 1}`, doc.Message.Body)
	assert.Equal(t, 3, ex.Transitions, "the CLOSED path is Attempt, Route, Delivered")
	assert.Equal(t, map[string]int{id: 1}, s.Target.Ledger().Deliveries(), "delivered once, to the demo consumer")
}

func TestLocalAdminCommands(t *testing.T) {
	_, env := serveLocal(t)
	h := fixedHost(env)
	h.clock = clock.Wall // the admin function checks --until against its clock, the wall clock at time scale 1

	type summary struct {
		State       string    `json:"state"`
		ForcedUntil time.Time `json:"forcedUntil"`
		Actor       string    `json:"actor"`
		Reason      string    `json:"reason"`
	}
	type output struct {
		Breaker, Command string
		Changed          bool
		Before, After    summary
	}
	steps := []struct {
		name    string
		args    []string
		changed bool
		before  string
		after   string
	}{
		{"open for 30 minutes", []string{"open", "--reason", "maintenance", "--until", "30m"}, true, "CLOSED", "FORCED_OPEN"},
		{"status while forced open", []string{"status"}, false, "FORCED_OPEN", "FORCED_OPEN"},
		{"close", []string{"close", "--reason", "drain the backlog"}, true, "FORCED_OPEN", "FORCED_CLOSED"},
		{"release", []string{"release", "--reason", "done"}, true, "FORCED_CLOSED", "CLOSED"},
		{"release again changes nothing", []string{"release", "--reason", "done"}, false, "CLOSED", "CLOSED"},
		{"reset", []string{"reset", "--reason", "clean slate"}, true, "CLOSED", "CLOSED"},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			stdout, stderr, code := runAdminCLI(t, h, append([]string{s.args[0], "--breaker", "payments"}, s.args[1:]...)...)
			require.Equal(t, exitOK, code, "stderr: %s", stderr)
			var out output
			require.NoError(t, json.Unmarshal([]byte(stdout), &out), "stdout: %s", stdout)
			assert.Contains(t, stdout, "\n  \"breaker\": \"payments\"", "pretty-printed")
			assert.Equal(t, "payments", out.Breaker)
			assert.Equal(t, s.args[0], out.Command)
			assert.Equal(t, s.changed, out.Changed)
			assert.Equal(t, s.before, out.Before.State)
			assert.Equal(t, s.after, out.After.State)
			if s.args[0] == "open" {
				assert.WithinDuration(t, time.Now().Add(30*time.Minute), out.After.ForcedUntil, time.Minute)
				assert.Equal(t, "alice@box", out.After.Actor)
				assert.Equal(t, "maintenance", out.After.Reason)
			}
		})
	}

	t.Run("status of a key no breaker has", func(t *testing.T) {
		stdout, stderr, code := runAdminCLI(t, h, "status", "--breaker", "paymnets")
		assert.Equal(t, exitUnknownBreaker, code)
		assert.Empty(t, stdout)
		assert.Contains(t, stderr, `FAILED: UnknownBreaker: admin: no breaker has the key "paymnets"`)
	})

	failures := []struct {
		name string
		args []string
		want string
	}{
		{"reset without a reason", []string{"reset", "--breaker", "payments"},
			"FAILED: InvalidCommand: admin: invalid request: reason: required for reset"},
		{"open until a time in the past", []string{"open", "--breaker", "payments", "--reason", "x", "--until", "2020-01-01T00:00:00Z"},
			`FAILED: InvalidCommand: admin: invalid request: until: "2020-01-01T00:00:00Z" is not in the future`},
		{"breaker key with spaces", []string{"status", "--breaker", " payments"},
			"FAILED: InvalidCommand: admin: invalid request: breaker: breaker key \" payments\" starts or ends with spaces"},
		{"no such state machine", []string{"status", "--breaker", "payments", "--state-machine-arn",
			"arn:aws:states:us-east-1:123456789012:stateMachine:nope"}, "StateMachineDoesNotExist"},
		{"nothing listening", []string{"status", "--breaker", "payments", "--endpoint", unusedURL(t), "--timeout", "3s"},
			"redrive admin: start status on"},
	}
	for _, f := range failures {
		t.Run(f.name, func(t *testing.T) {
			stdout, stderr, code := runAdminCLI(t, h, f.args...)
			assert.Equal(t, exitFailure, code)
			assert.Empty(t, stdout)
			assert.Contains(t, stderr, f.want)
		})
	}
}

// `redrive parked` finds what `redrive local` parked through the SDK's
// default configuration, from the exports or from the AWS config file
// alone, and leaves the parking lot's messages visible.
func TestLocalParkedCommands(t *testing.T) {
	_, env := serveLocal(t)
	ctx := t.Context()
	sent, err := sqsClient(env).SendMessage(ctx, &sqs.SendMessageInput{
		QueueUrl: aws.String(env["DLQ_URL"]), MessageBody: aws.String(`{"order": 9, "note": "poison"}`),
	})
	require.NoError(t, err)
	poison := aws.ToString(sent.MessageId)
	for _, name := range []string{"AWS_CONFIG_FILE", "AWS_PROFILE", "AWS_ENDPOINT_URL_DYNAMODB", "AWS_REGION", "AWS_ACCESS_KEY_ID",
		"AWS_SECRET_ACCESS_KEY", "TABLE_NAME"} {
		t.Setenv(name, env[name])
	}
	parked := func(t *testing.T, args ...string) (stdout, stderr string) {
		t.Helper()
		var out, errOut bytes.Buffer
		code := dispatch(ctx, append([]string{"parked"}, args...), &out, &errOut)
		require.Equal(t, exitOK, code, "stderr: %s", errOut.String())
		return out.String(), errOut.String()
	}

	deadline := time.Now().Add(waitLimit)
	var summary string
	for one := regexp.MustCompile(`(?m)^TOTAL +1 `); !one.MatchString(summary); time.Sleep(20 * time.Millisecond) {
		require.True(t, time.Now().Before(deadline), "nothing parked yet: %s", summary)
		summary, _ = parked(t, "summary")
	}
	assert.Regexp(t, `(?m)^orders +poison +PoisonMessage +1 +\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$`, summary)
	list, _ := parked(t, "list", "--reason", "poison", "--breaker", "orders")
	assert.Regexp(t, `(?m)^\S+Z +orders +- +poison +PoisonMessage +\d+ +`+poison+`$`, list)

	t.Run("from the AWS config file alone", func(t *testing.T) {
		t.Setenv("AWS_ENDPOINT_URL_DYNAMODB", "")
		t.Setenv("AWS_REGION", "")
		t.Setenv("AWS_ACCESS_KEY_ID", "")
		t.Setenv("AWS_SECRET_ACCESS_KEY", "")
		again, _ := parked(t, "list")
		assert.Equal(t, list, again)
	})

	attrs, err := sqsClient(env).GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{
		QueueUrl:       aws.String(env["PARKING_LOT_URL"]),
		AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameApproximateNumberOfMessages, sqstypes.QueueAttributeNameApproximateNumberOfMessagesNotVisible},
	})
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"ApproximateNumberOfMessages": "1", "ApproximateNumberOfMessagesNotVisible": "0"}, attrs.Attributes,
		"the parked message is still there, visible")
}

func TestLocalCommandServesUntilInterrupted(t *testing.T) {
	ctx, interrupt := context.WithCancel(t.Context())
	stdout := &syncBuffer{}
	var stderr syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- runLocal(ctx, append(append([]string{}, freePorts...), "--quiet", "--config-dir", t.TempDir()), stdout, &stderr)
	}()

	deadline := time.Now().Add(waitLimit)
	for !strings.Contains(stdout.String(), "export AWS_SECRET_ACCESS_KEY=local\n") {
		require.True(t, time.Now().Before(deadline), "no export lines yet; stderr: %s", stderr.String())
		time.Sleep(20 * time.Millisecond)
	}
	env := exports(t, stdout.String())
	_, adminErr, code := runAdminCLI(t, fixedHost(env), "status", "--breaker", "orders")
	assert.Equal(t, exitUnknownBreaker, code, "the printed exports reach the admin state machine, which has no breaker yet: %s", adminErr)

	interrupt()
	select {
	case code := <-done:
		assert.Equal(t, exitOK, code)
	case <-time.After(waitLimit):
		t.Fatal("redrive local did not stop after the interrupt")
	}
	assert.Contains(t, stderr.String(), "redrive local: shutting down")
}

func TestLocalCommandFailsWhenAnAddressIsTaken(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = ln.Close() })
	args := append(append([]string{}, freePorts...), "--lambda-addr", ln.Addr().String())
	var stdout, stderr bytes.Buffer
	code := runLocal(t.Context(), args, &stdout, &stderr)
	assert.Equal(t, exitFailure, code)
	assert.Contains(t, stderr.String(), "listen for the Lambda Invoke API on "+ln.Addr().String())
	assert.Empty(t, stdout.String())
}

// serveLocal starts the stack as `redrive local` does with args on free
// ports, stops it when t ends, and returns it with the variables its
// export lines set.
func serveLocal(t *testing.T, args ...string) (*local.Stack, map[string]string) {
	t.Helper()
	var stderr bytes.Buffer
	cfg, _, ok := parseLocal(append(append(append([]string{}, freePorts...), "--quiet", "--config-dir", t.TempDir()), args...), nil, &stderr)
	require.True(t, ok, "stderr: %s", stderr.String())
	s, err := startLocal(t.Context(), cfg)
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, s.Close()) })
	lines, cleanup, err := writeClientFiles(cfg.dir, s)
	require.NoError(t, err)
	t.Cleanup(cleanup)
	var stdout bytes.Buffer
	printLocal(&stdout, s, cfg, lines)
	return s, exports(t, stdout.String())
}

// exports reads the "export NAME=value" lines of out.
func exports(t *testing.T, out string) map[string]string {
	t.Helper()
	env := map[string]string{"USER": "alice"}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		if kv, ok := strings.CutPrefix(sc.Text(), "export "); ok {
			name, value, _ := strings.Cut(kv, "=")
			env[name] = value
		}
	}
	for _, name := range []string{envSFNEndpoint, envAdminStateMachine, "REDRIVE_STATE_MACHINE_ARN", "DLQ_URL", "AWS_ENDPOINT_URL_SQS"} {
		require.NotEmpty(t, env[name], "export line for %s", name)
	}
	return env
}

// runAdminCLI runs `redrive admin args...` on h and returns its output and exit
// code.
func runAdminCLI(t *testing.T, h host, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	call, code, ok := parseAdmin(args, h, &errOut)
	if !ok {
		return out.String(), errOut.String(), code
	}
	client, err := newSFNClient(t.Context(), call)
	require.NoError(t, err)
	code = execAdmin(t.Context(), client, call, &out, &errOut)
	return out.String(), errOut.String(), code
}

// sfnClient and sqsClient are real SDK clients of the endpoints in env.
func sfnClient(env map[string]string) *sfn.Client {
	return sfn.New(sfn.Options{HTTPClient: loopback.NewHTTPClient(), Region: env["AWS_REGION"], BaseEndpoint: aws.String(env[envSFNEndpoint]),
		Credentials: credentials.NewStaticCredentialsProvider(env["AWS_ACCESS_KEY_ID"], env["AWS_SECRET_ACCESS_KEY"], "")})
}

func sqsClient(env map[string]string) *sqs.Client {
	return sqs.New(sqs.Options{HTTPClient: loopback.NewHTTPClient(), Region: env["AWS_REGION"], BaseEndpoint: aws.String(env["AWS_ENDPOINT_URL_SQS"]),
		Credentials: credentials.NewStaticCredentialsProvider(env["AWS_ACCESS_KEY_ID"], env["AWS_SECRET_ACCESS_KEY"], "")})
}

// awaitEnd lists the executions of a state machine until the one named
// name (an Express execution's name, whose listed name adds its id) exists
// and has ended.
func awaitEnd(t *testing.T, client *sfn.Client, stateMachineARN, name string) sfntypes.ExecutionListItem {
	t.Helper()
	deadline := time.Now().Add(waitLimit)
	for {
		out, err := client.ListExecutions(t.Context(), &sfn.ListExecutionsInput{StateMachineArn: aws.String(stateMachineARN)})
		require.NoError(t, err)
		for _, x := range out.Executions {
			if listed := aws.ToString(x.Name); (listed == name || strings.HasPrefix(listed, name+":")) && x.Status != sfntypes.ExecutionStatusRunning {
				return x
			}
		}
		require.True(t, time.Now().Before(deadline), "execution %s has not ended", name)
		time.Sleep(20 * time.Millisecond)
	}
}

// unusedURL is the URL of a loopback port nothing listens on.
func unusedURL(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	return "http://" + addr
}

// syncBuffer is a bytes.Buffer safe for one writer and one reader at once.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestTheExportsConfigureTheSDK loads the SDK's default configuration as
// a program in a shell with the printed exports would, once from the AWS
// config file alone (AWS_CONFIG_FILE, AWS_PROFILE: what the AWS CLI v1
// reads) and once from the environment alone (AWS_ENDPOINT_URL_*: what the
// SDKs and the AWS CLI v2 read), and reaches every service with it.
func TestTheExportsConfigureTheSDK(t *testing.T) {
	_, env := serveLocal(t)
	fromFile := []string{"AWS_CONFIG_FILE", "AWS_PROFILE"}
	fromEnv := []string{"AWS_ENDPOINT_URL_SFN", "AWS_ENDPOINT_URL_SQS", "AWS_ENDPOINT_URL_DYNAMODB", "AWS_ENDPOINT_URL_LAMBDA",
		"AWS_REGION", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"}
	for _, tt := range []struct {
		name      string
		set, none []string
	}{{"the AWS config file", fromFile, fromEnv}, {"the environment", fromEnv, fromFile}} {
		t.Run(tt.name, func(t *testing.T) {
			for _, name := range tt.set {
				t.Setenv(name, env[name])
			}
			for _, name := range tt.none {
				t.Setenv(name, "")
			}
			t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(t.TempDir(), "none"))
			t.Setenv("AWS_CA_BUNDLE", "") // a machine's bundle would replace the loopback client's transport
			cfg, err := config.LoadDefaultConfig(t.Context(), config.WithHTTPClient(loopback.NewHTTPClient()))
			require.NoError(t, err)
			assert.Equal(t, localRegion, cfg.Region)
			queues, err := sqs.NewFromConfig(cfg).ListQueues(t.Context(), &sqs.ListQueuesInput{})
			require.NoError(t, err)
			assert.Contains(t, queues.QueueUrls, env["DLQ_URL"])
			machines, err := sfn.NewFromConfig(cfg).ListStateMachines(t.Context(), &sfn.ListStateMachinesInput{})
			require.NoError(t, err)
			assert.NotEmpty(t, machines.StateMachines)
			tables, err := dynamodb.NewFromConfig(cfg).ListTables(t.Context(), &dynamodb.ListTablesInput{})
			require.NoError(t, err)
			assert.Equal(t, []string{env["TABLE_NAME"]}, tables.TableNames)
			out, err := lambda.NewFromConfig(cfg).Invoke(t.Context(), &lambda.InvokeInput{FunctionName: aws.String(local.FunctionAdmin),
				Payload: []byte(`{"request":{"command":"status","breaker":"orders"},"executionName":"sdk"}`)})
			require.NoError(t, err)
			assert.Contains(t, string(out.Payload), `"errorType":"UnknownBreaker"`, "the admin function answered: no breaker yet")
		})
	}
}
