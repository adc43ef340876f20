package sqslocal_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/emulate/sqslocal"
	"github.com/redrive/redrive/emulate/sqslocal/sqstest"
)

// epoch is where every test's manual clock starts.
var epoch = time.Date(2025, 9, 1, 12, 0, 0, 0, time.UTC)

// realTimeSlack is added to each wait on an external endpoint, whose clock
// cannot be advanced, so a deadline has surely passed.
const realTimeSlack = 150 * time.Millisecond

// pollerTimeout bounds waiting for a long poll to block; it is a safety
// net against a hung test, not a timing assertion.
const pollerTimeout = 10 * time.Second

// env is one test's backend: the embedded server on a manual clock, or the
// SQS_ENDPOINT emulator on the wall clock.
type env struct {
	t      *testing.T
	b      *sqstest.Backend
	client *sqs.Client
	clock  *sqstest.Clock // nil on an external endpoint
}

// newEnv starts a backend for t with default options on a manual clock.
func newEnv(t *testing.T) *env {
	return newEnvWith(t, sqslocal.Options{})
}

// newEnvWith starts a backend with opts plus a manual clock.
func newEnvWith(t *testing.T, opts sqslocal.Options) *env {
	t.Helper()
	clock := sqstest.NewClock(epoch)
	opts.Clock = clock
	b := sqstest.Start(t, opts)
	e := &env{t: t, b: b, client: b.Client}
	if b.Server != nil {
		e.clock = clock
	}
	return e
}

// embeddedOnly skips t on an external endpoint, saying why: the check
// needs what only the embedded server has (the inspection API, the
// injected clock, a server option), or it is one where fauxqs departs from
// the AWS documentation (FAUXQS.md lists those).
func (e *env) embeddedOnly(t *testing.T, why string) {
	t.Helper()
	if e.b.Server == nil {
		t.Skipf("embedded server only: %s (backend %s)", why, e.b.Name)
	}
}

// fauxqsDiffers skips t on an external endpoint when reason is not empty:
// reason says how fauxqs departs from the AWS documentation there (see
// FAUXQS.md). The embedded server follows the documentation.
func (e *env) fauxqsDiffers(t *testing.T, reason string) {
	t.Helper()
	if reason != "" {
		e.embeddedOnly(t, "fauxqs "+reason)
	}
}

// advance lets d pass: on the manual clock at once, on an external
// endpoint by sleeping.
func (e *env) advance(d time.Duration) {
	if e.clock != nil {
		e.clock.Advance(d)
		return
	}
	time.Sleep(d + realTimeSlack)
}

// awaitPollers returns once n long polls are blocked: on the manual clock
// when their timers are pending, on an external endpoint after a pause.
func (e *env) awaitPollers(n int) {
	e.t.Helper()
	if e.clock == nil {
		time.Sleep(3 * realTimeSlack)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), pollerTimeout)
	defer cancel()
	require.NoError(e.t, e.clock.WaitForTimers(ctx, n))
}

// queue creates a queue for the test.
func (e *env) queue(attrs map[string]string) sqstest.Queue {
	e.t.Helper()
	return sqstest.CreateQueue(e.t, e.client, attrs)
}

// send sends body with attrs and returns the answer.
func (e *env) send(q sqstest.Queue, body string, attrs map[string]types.MessageAttributeValue) *sqs.SendMessageOutput {
	e.t.Helper()
	out, err := e.client.SendMessage(e.t.Context(), &sqs.SendMessageInput{QueueUrl: aws.String(q.URL), MessageBody: aws.String(body), MessageAttributes: attrs})
	require.NoError(e.t, err, "send %q", body)
	return out
}

// receive receives from q with in's settings (QueueUrl is filled in).
func (e *env) receive(q sqstest.Queue, in sqs.ReceiveMessageInput) []types.Message {
	e.t.Helper()
	in.QueueUrl = aws.String(q.URL)
	out, err := e.client.ReceiveMessage(e.t.Context(), &in)
	require.NoError(e.t, err, "receive from %s", q.Name)
	return out.Messages
}

// receiveOne receives exactly one message from q.
func (e *env) receiveOne(q sqstest.Queue, in sqs.ReceiveMessageInput) types.Message {
	e.t.Helper()
	msgs := e.receive(q, in)
	require.Len(e.t, msgs, 1, "receive from %s", q.Name)
	return msgs[0]
}

// attributes reads the named attributes of q.
func (e *env) attributes(q sqstest.Queue, names ...types.QueueAttributeName) map[string]string {
	e.t.Helper()
	out, err := e.client.GetQueueAttributes(e.t.Context(), &sqs.GetQueueAttributesInput{QueueUrl: aws.String(q.URL), AttributeNames: names})
	require.NoError(e.t, err, "attributes of %s", q.Name)
	return out.Attributes
}

// counts reads q's visible, in-flight and delayed counters.
func (e *env) counts(q sqstest.Queue) [3]string {
	e.t.Helper()
	a := e.attributes(q, types.QueueAttributeNameApproximateNumberOfMessages,
		types.QueueAttributeNameApproximateNumberOfMessagesNotVisible,
		types.QueueAttributeNameApproximateNumberOfMessagesDelayed)
	return [3]string{a["ApproximateNumberOfMessages"], a["ApproximateNumberOfMessagesNotVisible"], a["ApproximateNumberOfMessagesDelayed"]}
}

// fauxqsCodePrefix is what fauxqs puts before every legacy error code,
// also where SQS has none (InvalidParameterValue); see FAUXQS.md.
const fauxqsCodePrefix = "AWS.SimpleQueueService."

// assertCode asserts that err is an SQS API error whose code (the legacy
// code of the x-amzn-query-error header) is code. On an external endpoint
// the fauxqs prefix is tolerated.
func (e *env) assertCode(t *testing.T, err error, code string) bool {
	t.Helper()
	var apiErr smithy.APIError
	if !assert.True(t, errors.As(err, &apiErr), "want an API error %s, got %v", code, err) {
		return false
	}
	got := apiErr.ErrorCode()
	if e.b.Server == nil {
		got, code = strings.TrimPrefix(got, fauxqsCodePrefix), strings.TrimPrefix(code, fauxqsCodePrefix)
	}
	return assert.Equal(t, code, got, "error: %v", err)
}

// str is a String message attribute.
func str(v string) types.MessageAttributeValue {
	return types.MessageAttributeValue{DataType: aws.String("String"), StringValue: aws.String(v)}
}

// mustInt64 parses a decimal attribute value.
func mustInt64(t *testing.T, s string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(s, 10, 64)
	require.NoError(t, err, "parse %q", s)
	return n
}
