package sqslocal_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// awsCLI runs `aws sqs args...` against the test endpoint with static
// credentials and no user configuration, and returns its stdout, its
// stderr and whether it succeeded.
func (e *env) awsCLI(t *testing.T, args ...string) (stdout, stderr string, ok bool) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), "aws", append([]string{"sqs", "--endpoint-url", e.b.Endpoint, "--output", "json"}, args...)...)
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "AWS_") })
	cmd.Env = append(env, "AWS_DEFAULT_REGION=us-east-1", "AWS_ACCESS_KEY_ID=x", "AWS_SECRET_ACCESS_KEY=x",
		"AWS_CONFIG_FILE="+os.DevNull, "AWS_SHARED_CREDENTIALS_FILE="+os.DevNull)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	return out.String(), errOut.String(), err == nil
}

// awsCLIJSON runs the AWS CLI, which must succeed, and decodes its output.
func (e *env) awsCLIJSON(t *testing.T, args ...string) map[string]any {
	t.Helper()
	stdout, stderr, ok := e.awsCLI(t, args...)
	require.True(t, ok, "aws sqs %v: %s", args, stderr)
	var out map[string]any
	require.NoError(t, json.Unmarshal([]byte(stdout), &out), "aws sqs %v printed %q", args, stdout)
	return out
}

// The AWS CLI parses the answers of the redrive and tag actions.
func TestAWSCLI(t *testing.T) {
	if _, err := exec.LookPath("aws"); err != nil {
		t.Skip("the aws CLI is not on PATH")
	}
	e := newEnv(t)
	e.fauxqsDiffers(t, fauxqsNoMoves)
	dlq, dest := e.queue(nil), e.queue(nil)
	src := e.redriveSource(dlq)
	e.deadLetter(src, "a", "b")

	sources := e.awsCLIJSON(t, "list-dead-letter-source-queues", "--queue-url", dlq.URL)
	assert.Equal(t, []any{src.URL}, sources["queueUrls"])

	stdout, _, ok := e.awsCLI(t, "tag-queue", "--queue-url", dlq.URL, "--tags", "team=payments")
	require.True(t, ok)
	assert.Empty(t, stdout)
	assert.Equal(t, map[string]any{"team": "payments"}, e.awsCLIJSON(t, "list-queue-tags", "--queue-url", dlq.URL)["Tags"])

	started := e.awsCLIJSON(t, "start-message-move-task", "--source-arn", dlq.ARN, "--destination-arn", dest.ARN, "--max-number-of-messages-per-second", "1")
	require.NotEmpty(t, started["TaskHandle"])
	listed := e.awsCLIJSON(t, "list-message-move-tasks", "--source-arn", dlq.ARN, "--max-results", "10")
	assert.Equal(t, []any{map[string]any{
		"TaskHandle":                        started["TaskHandle"],
		"Status":                            "RUNNING",
		"SourceArn":                         dlq.ARN,
		"DestinationArn":                    dest.ARN,
		"MaxNumberOfMessagesPerSecond":      1.0,
		"ApproximateNumberOfMessagesMoved":  1.0,
		"ApproximateNumberOfMessagesToMove": 2.0,
		"StartedTimestamp":                  float64(epoch.UnixMilli()),
	}}, listed["Results"])
	cancelled := e.awsCLIJSON(t, "cancel-message-move-task", "--task-handle", started["TaskHandle"].(string))
	assert.Equal(t, map[string]any{"ApproximateNumberOfMessagesMoved": 1.0}, cancelled)

	_, stderr, ok := e.awsCLI(t, "start-message-move-task", "--source-arn", dest.ARN)
	assert.False(t, ok)
	assert.Contains(t, stderr, "(InvalidParameterValue)")
	assert.Contains(t, stderr, "Source queue must be configured as a Dead Letter Queue.")
	_, stderr, ok = e.awsCLI(t, "list-message-move-tasks", "--source-arn", dest.ARN+"-missing")
	assert.False(t, ok)
	assert.Contains(t, stderr, "(ResourceNotFoundException)")
}
