package sqslocal_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/emulate/sqslocal"
	"github.com/redrive/redrive/emulate/sqslocal/sqstest"
)

func TestCreateQueueDefaults(t *testing.T) {
	e := newEnv(t)
	q := e.queue(nil)
	got := e.attributes(q, types.QueueAttributeNameAll)
	assert.Equal(t, "30", got["VisibilityTimeout"])
	assert.Equal(t, "345600", got["MessageRetentionPeriod"])
	assert.Equal(t, "0", got["DelaySeconds"])
	assert.Equal(t, "0", got["ReceiveMessageWaitTimeSeconds"])
	assert.Equal(t, "1048576", got["MaximumMessageSize"], "SQS's 1 MiB default since 2025")
	assert.Equal(t, "0", got["ApproximateNumberOfMessages"])
	assert.Equal(t, "0", got["ApproximateNumberOfMessagesNotVisible"])
	assert.Equal(t, "0", got["ApproximateNumberOfMessagesDelayed"])
	assert.NotContains(t, got, "RedrivePolicy")
	assert.True(t, strings.HasPrefix(got["QueueArn"], "arn:aws:sqs:us-east-1:"), got["QueueArn"])
	assert.True(t, strings.HasSuffix(got["QueueArn"], ":"+q.Name), got["QueueArn"])
	assert.True(t, strings.HasSuffix(q.URL, "/"+q.Name), q.URL)
	assert.NotEmpty(t, got["CreatedTimestamp"])
}

func TestQueueURLAndARNOnTheEmbeddedServer(t *testing.T) {
	e := newEnvWith(t, sqslocal.Options{Account: "111122223333", Region: "eu-west-1"})
	e.embeddedOnly(t, "account and region are server options")
	q := e.queue(nil)
	assert.Equal(t, e.b.Endpoint+"/111122223333/"+q.Name, q.URL)
	assert.Equal(t, "arn:aws:sqs:eu-west-1:111122223333:"+q.Name, q.ARN)
	assert.Equal(t, epoch.Unix(), mustInt64(t, e.attributes(q, types.QueueAttributeNameCreatedTimestamp)["CreatedTimestamp"]))
}

func TestCreateQueueWithAttributes(t *testing.T) {
	e := newEnv(t)
	dlq := e.queue(nil)
	q := e.queue(map[string]string{
		"VisibilityTimeout":             "60",
		"MessageRetentionPeriod":        "120",
		"DelaySeconds":                  "5",
		"ReceiveMessageWaitTimeSeconds": "2",
		"MaximumMessageSize":            "2048",
		"RedrivePolicy":                 `{"deadLetterTargetArn":"` + dlq.ARN + `","maxReceiveCount":"3"}`,
	})
	got := e.attributes(q, types.QueueAttributeNameAll)
	assert.Equal(t, "60", got["VisibilityTimeout"])
	assert.Equal(t, "120", got["MessageRetentionPeriod"])
	assert.Equal(t, "5", got["DelaySeconds"])
	assert.Equal(t, "2", got["ReceiveMessageWaitTimeSeconds"])
	assert.Equal(t, "2048", got["MaximumMessageSize"])
	assert.Equal(t, redrivePolicy{dlq.ARN, 3}, parseRedrive(t, got["RedrivePolicy"]))
	t.Run("normalised policy", func(t *testing.T) {
		e.fauxqsDiffers(t, "echoes maxReceiveCount as given (a string here)")
		assert.JSONEq(t, `{"deadLetterTargetArn":"`+dlq.ARN+`","maxReceiveCount":3}`, got["RedrivePolicy"])
	})
}

// redrivePolicy is a parsed RedrivePolicy attribute.
type redrivePolicy struct {
	target string
	count  int
}

// parseRedrive parses a RedrivePolicy, whose maxReceiveCount may be a
// number or a string.
func parseRedrive(t *testing.T, policy string) redrivePolicy {
	t.Helper()
	var raw struct {
		Target string          `json:"deadLetterTargetArn"`
		Count  json.RawMessage `json:"maxReceiveCount"`
	}
	require.NoError(t, json.Unmarshal([]byte(policy), &raw), policy)
	count, err := strconv.Atoi(strings.Trim(string(raw.Count), `"`))
	require.NoError(t, err, policy)
	return redrivePolicy{raw.Target, count}
}

func TestCreateQueueTwice(t *testing.T) {
	e := newEnv(t)
	q := e.queue(map[string]string{"VisibilityTimeout": "60"})
	tests := []struct {
		name  string
		attrs map[string]string
		code  string // "" for success with the same URL
	}{
		{"same attributes", map[string]string{"VisibilityTimeout": "60"}, ""},
		{"no attributes", nil, ""},
		{"different value", map[string]string{"VisibilityTimeout": "61"}, "error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := e.client.CreateQueue(t.Context(), &sqs.CreateQueueInput{QueueName: aws.String(q.Name), Attributes: tt.attrs})
			if tt.code == "" {
				require.NoError(t, err)
				assert.Equal(t, q.URL, aws.ToString(out.QueueUrl))
				return
			}
			assert.ErrorAs(t, err, new(*types.QueueNameExists))
		})
	}
}

func TestCreateQueueRejects(t *testing.T) {
	e := newEnv(t)
	tests := []struct {
		name      string
		queueName string // "" for a fresh valid name
		attrs     map[string]string
		code      string
		fauxqs    string
	}{
		{name: "name with a space", queueName: "bad name", code: "InvalidParameterValue", fauxqs: "does not check queue names"},
		{name: "name of 81 characters", queueName: strings.Repeat("q", 81), code: "InvalidParameterValue", fauxqs: "does not check queue names"},
		{name: "visibility over 12 hours", attrs: map[string]string{"VisibilityTimeout": "43201"}, code: "InvalidAttributeValue"},
		{name: "negative delay", attrs: map[string]string{"DelaySeconds": "-1"}, code: "InvalidAttributeValue"},
		{name: "delay over 15 minutes", attrs: map[string]string{"DelaySeconds": "901"}, code: "InvalidAttributeValue"},
		{name: "retention under a minute", attrs: map[string]string{"MessageRetentionPeriod": "59"}, code: "InvalidAttributeValue"},
		{name: "retention over 14 days", attrs: map[string]string{"MessageRetentionPeriod": "1209601"}, code: "InvalidAttributeValue"},
		{name: "wait over 20 s", attrs: map[string]string{"ReceiveMessageWaitTimeSeconds": "21"}, code: "InvalidAttributeValue"},
		{name: "message size under 1 KiB", attrs: map[string]string{"MaximumMessageSize": "1023"}, code: "InvalidAttributeValue"},
		{name: "message size over 1 MiB", attrs: map[string]string{"MaximumMessageSize": "1048577"}, code: "InvalidAttributeValue"},
		{name: "non-numeric visibility", attrs: map[string]string{"VisibilityTimeout": "soon"}, code: "InvalidAttributeValue"},
		{name: "unknown attribute", attrs: map[string]string{"Colour": "blue"}, code: "InvalidAttributeName", fauxqs: "accepts unknown attribute names"},
		{name: "read-only attribute", attrs: map[string]string{"QueueArn": "arn:aws:sqs:us-east-1:123456789012:x"}, code: "InvalidAttributeName", fauxqs: "accepts read-only attribute names"},
		{name: "redrive to a missing queue", attrs: map[string]string{"RedrivePolicy": `{"deadLetterTargetArn":"arn:aws:sqs:us-east-1:123456789012:nope-nope","maxReceiveCount":3}`}, code: "InvalidParameterValue", fauxqs: "does not check the dead-letter target"},
		{name: "redrive policy not JSON", attrs: map[string]string{"RedrivePolicy": `maxReceiveCount=3`}, code: "InvalidParameterValue", fauxqs: "accepts a RedrivePolicy that is not JSON"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e.fauxqsDiffers(t, tt.fauxqs)
			name := tt.queueName
			if name == "" {
				name = fmt.Sprintf("%srejected-%d-%d", sqstest.QueuePrefix, time.Now().UnixNano(), i)
			}
			_, err := e.client.CreateQueue(t.Context(), &sqs.CreateQueueInput{QueueName: aws.String(name), Attributes: tt.attrs})
			e.assertCode(t, err, tt.code)
		})
	}
}

func TestRedrivePolicyRules(t *testing.T) {
	e := newEnv(t)
	dlq := e.queue(nil)
	policy := func(count string) string {
		return `{"deadLetterTargetArn":"` + dlq.ARN + `","maxReceiveCount":` + count + `}`
	}
	tests := []struct {
		name   string
		policy string
		ok     bool
		fauxqs string
	}{
		{name: "count as a number", policy: policy("5"), ok: true},
		{name: "count as a string", policy: policy(`"5"`), ok: true},
		{name: "count of 1000", policy: policy("1000"), ok: true},
		{name: "count of 0", policy: policy("0"), fauxqs: "does not bound maxReceiveCount"},
		{name: "count of 1001", policy: policy("1001"), fauxqs: "does not bound maxReceiveCount"},
		{name: "missing count", policy: `{"deadLetterTargetArn":"` + dlq.ARN + `"}`, fauxqs: "does not require maxReceiveCount"},
		{name: "missing target", policy: `{"maxReceiveCount":5}`, fauxqs: "does not require deadLetterTargetArn"},
		{name: "unknown key", policy: `{"deadLetterTargetArn":"` + dlq.ARN + `","maxReceiveCount":5,"colour":"blue"}`, fauxqs: "accepts unknown keys"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e.fauxqsDiffers(t, tt.fauxqs)
			q := e.queue(nil)
			_, err := e.client.SetQueueAttributes(t.Context(), &sqs.SetQueueAttributesInput{QueueUrl: aws.String(q.URL), Attributes: map[string]string{"RedrivePolicy": tt.policy}})
			if tt.ok {
				assert.NoError(t, err)
				return
			}
			e.assertCode(t, err, "InvalidParameterValue")
		})
	}
}

func TestQueueCannotBeItsOwnDeadLetterQueue(t *testing.T) {
	e := newEnv(t)
	e.fauxqsDiffers(t, "accepts a queue as its own dead-letter target")
	q := e.queue(nil)
	_, err := e.client.SetQueueAttributes(t.Context(), &sqs.SetQueueAttributesInput{QueueUrl: aws.String(q.URL), Attributes: map[string]string{
		"RedrivePolicy": `{"deadLetterTargetArn":"` + q.ARN + `","maxReceiveCount":5}`,
	}})
	e.assertCode(t, err, "InvalidParameterValue")
}

func TestUnsupportedQueueFeatures(t *testing.T) {
	e := newEnv(t)
	e.embeddedOnly(t, "sqslocal implements neither KMS attributes nor permissions; fauxqs has them")
	tests := []struct {
		name      string
		queueName string
		attrs     map[string]string
	}{
		{"KMS key", sqstest.QueuePrefix + "q", map[string]string{"KmsMasterKeyId": "alias/aws/sqs"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := e.client.CreateQueue(t.Context(), &sqs.CreateQueueInput{QueueName: aws.String(tt.queueName), Attributes: tt.attrs})
			assert.ErrorAs(t, err, new(*types.UnsupportedOperation))
		})
	}
	_, err := e.client.AddPermission(t.Context(), &sqs.AddPermissionInput{QueueUrl: aws.String(e.queue(nil).URL), Label: aws.String("x"), AWSAccountIds: []string{"111122223333"}, Actions: []string{"SendMessage"}})
	assert.ErrorAs(t, err, new(*types.UnsupportedOperation))
}

func TestGetQueueURL(t *testing.T) {
	e := newEnv(t)
	q := e.queue(nil)
	out, err := e.client.GetQueueUrl(t.Context(), &sqs.GetQueueUrlInput{QueueName: aws.String(q.Name)})
	require.NoError(t, err)
	assert.Equal(t, q.URL, aws.ToString(out.QueueUrl))

	_, err = e.client.GetQueueUrl(t.Context(), &sqs.GetQueueUrlInput{QueueName: aws.String(q.Name + "-missing")})
	assert.ErrorAs(t, err, new(*types.QueueDoesNotExist))
	e.assertCode(t, err, "AWS.SimpleQueueService.NonExistentQueue")
}

func TestGetQueueURLOfAnotherAccount(t *testing.T) {
	e := newEnv(t)
	e.fauxqsDiffers(t, "ignores QueueOwnerAWSAccountId")
	q := e.queue(nil)
	_, err := e.client.GetQueueUrl(t.Context(), &sqs.GetQueueUrlInput{QueueName: aws.String(q.Name), QueueOwnerAWSAccountId: aws.String("999999999999")})
	assert.ErrorAs(t, err, new(*types.QueueDoesNotExist))
}

func TestGetQueueAttributesSelection(t *testing.T) {
	e := newEnv(t)
	q := e.queue(nil)
	tests := []struct {
		name   string
		names  []types.QueueAttributeName
		want   []string
		fauxqs string
	}{
		{name: "one", names: []types.QueueAttributeName{types.QueueAttributeNameVisibilityTimeout}, want: []string{"VisibilityTimeout"}},
		{name: "two", names: []types.QueueAttributeName{types.QueueAttributeNameQueueArn, types.QueueAttributeNameDelaySeconds}, want: []string{"QueueArn", "DelaySeconds"}},
		{name: "none", names: nil, want: nil, fauxqs: "returns every attribute when none is named"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e.fauxqsDiffers(t, tt.fauxqs)
			got := e.attributes(q, tt.names...)
			assert.Len(t, got, len(tt.want))
			for _, name := range tt.want {
				assert.Contains(t, got, name)
			}
		})
	}
	t.Run("unknown name", func(t *testing.T) {
		e.fauxqsDiffers(t, "ignores unknown attribute names")
		_, err := e.client.GetQueueAttributes(t.Context(), &sqs.GetQueueAttributesInput{QueueUrl: aws.String(q.URL), AttributeNames: []types.QueueAttributeName{"Colour"}})
		assert.ErrorAs(t, err, new(*types.InvalidAttributeName))
	})
}

func TestSetQueueAttributes(t *testing.T) {
	e := newEnv(t)
	dlq := e.queue(nil)
	q := e.queue(nil)
	set := func(attrs map[string]string) error {
		_, err := e.client.SetQueueAttributes(t.Context(), &sqs.SetQueueAttributesInput{QueueUrl: aws.String(q.URL), Attributes: attrs})
		return err
	}
	require.NoError(t, set(map[string]string{"VisibilityTimeout": "90", "RedrivePolicy": `{"deadLetterTargetArn":"` + dlq.ARN + `","maxReceiveCount":2}`}))
	got := e.attributes(q, types.QueueAttributeNameAll)
	assert.Equal(t, "90", got["VisibilityTimeout"])
	assert.JSONEq(t, `{"deadLetterTargetArn":"`+dlq.ARN+`","maxReceiveCount":2}`, got["RedrivePolicy"])

	// All or nothing: a bad attribute leaves the good one unapplied.
	e.assertCode(t, set(map[string]string{"VisibilityTimeout": "10", "DelaySeconds": "901"}), "InvalidAttributeValue")
	assert.Equal(t, "90", e.attributes(q, types.QueueAttributeNameVisibilityTimeout)["VisibilityTimeout"])

	require.NoError(t, set(map[string]string{"RedrivePolicy": ""}))
	assert.NotContains(t, e.attributes(q, types.QueueAttributeNameAll), "RedrivePolicy")
}

func TestListQueues(t *testing.T) {
	e := newEnv(t)
	queues := []sqstest.Queue{e.queue(nil), e.queue(nil), e.queue(nil)}
	prefix := queues[0].Name[:len(sqstest.QueuePrefix)]
	all, err := e.client.ListQueues(t.Context(), &sqs.ListQueuesInput{QueueNamePrefix: aws.String(prefix)})
	require.NoError(t, err)
	for _, q := range queues {
		assert.Contains(t, all.QueueUrls, q.URL)
	}
	assert.Nil(t, all.NextToken, "no token without MaxResults")

	one, err := e.client.ListQueues(t.Context(), &sqs.ListQueuesInput{QueueNamePrefix: aws.String(queues[1].Name)})
	require.NoError(t, err)
	assert.Equal(t, []string{queues[1].URL}, one.QueueUrls)

	var paged []string
	pages := sqs.NewListQueuesPaginator(e.client, &sqs.ListQueuesInput{QueueNamePrefix: aws.String(prefix), MaxResults: aws.Int32(1)})
	for pages.HasMorePages() {
		page, err := pages.NextPage(t.Context())
		require.NoError(t, err)
		assert.LessOrEqual(t, len(page.QueueUrls), 1)
		paged = append(paged, page.QueueUrls...)
	}
	// Other packages' tests may create queues with the same prefix on a
	// shared SQS_ENDPOINT meanwhile: compare this test's queues only.
	ours := func(urls []string) []string {
		var kept []string
		for _, u := range urls {
			if slices.ContainsFunc(queues, func(q sqstest.Queue) bool { return q.URL == u }) {
				kept = append(kept, u)
			}
		}
		return kept
	}
	assert.Len(t, ours(all.QueueUrls), len(queues))
	assert.ElementsMatch(t, ours(all.QueueUrls), ours(paged))

	t.Run("MaxResults over 1000", func(t *testing.T) {
		e.fauxqsDiffers(t, "does not bound MaxResults")
		_, err = e.client.ListQueues(t.Context(), &sqs.ListQueuesInput{MaxResults: aws.Int32(1001)})
		e.assertCode(t, err, "InvalidParameterValue")
	})
}

func TestListDeadLetterSourceQueues(t *testing.T) {
	e := newEnv(t)
	e.fauxqsDiffers(t, "does not implement ListDeadLetterSourceQueues")
	dlq := e.queue(nil)
	var sources []string
	for range 3 {
		sources = append(sources, e.redriveSource(dlq).URL)
	}
	e.redriveSource(e.queue(nil)) // another dead-letter queue's source
	slices.Sort(sources)

	all, err := e.client.ListDeadLetterSourceQueues(t.Context(), &sqs.ListDeadLetterSourceQueuesInput{QueueUrl: aws.String(dlq.URL)})
	require.NoError(t, err)
	assert.Equal(t, sources, all.QueueUrls, "in name order")
	assert.Nil(t, all.NextToken, "no token without MaxResults")

	var paged []string
	pages := sqs.NewListDeadLetterSourceQueuesPaginator(e.client, &sqs.ListDeadLetterSourceQueuesInput{QueueUrl: aws.String(dlq.URL), MaxResults: aws.Int32(2)})
	for pages.HasMorePages() {
		page, err := pages.NextPage(t.Context())
		require.NoError(t, err)
		assert.LessOrEqual(t, len(page.QueueUrls), 2)
		paged = append(paged, page.QueueUrls...)
	}
	assert.Equal(t, sources, paged)

	none, err := e.client.ListDeadLetterSourceQueues(t.Context(), &sqs.ListDeadLetterSourceQueuesInput{QueueUrl: aws.String(e.queue(nil).URL)})
	require.NoError(t, err)
	assert.Empty(t, none.QueueUrls)

	_, err = e.client.ListDeadLetterSourceQueues(t.Context(), &sqs.ListDeadLetterSourceQueuesInput{QueueUrl: aws.String(dlq.URL + "-missing")})
	assert.ErrorAs(t, err, new(*types.QueueDoesNotExist))
	for _, n := range []int32{0, 1001} {
		_, err = e.client.ListDeadLetterSourceQueues(t.Context(), &sqs.ListDeadLetterSourceQueuesInput{QueueUrl: aws.String(dlq.URL), MaxResults: aws.Int32(n)})
		e.assertCode(t, err, "InvalidParameterValue")
	}
}

func TestDeleteQueue(t *testing.T) {
	e := newEnv(t)
	q := e.queue(nil)
	e.send(q, "doomed", nil)
	_, err := e.client.DeleteQueue(t.Context(), &sqs.DeleteQueueInput{QueueUrl: aws.String(q.URL)})
	require.NoError(t, err)
	_, err = e.client.SendMessage(t.Context(), &sqs.SendMessageInput{QueueUrl: aws.String(q.URL), MessageBody: aws.String("late")})
	assert.ErrorAs(t, err, new(*types.QueueDoesNotExist))
	_, err = e.client.DeleteQueue(t.Context(), &sqs.DeleteQueueInput{QueueUrl: aws.String(q.URL)})
	assert.ErrorAs(t, err, new(*types.QueueDoesNotExist))
}

func TestQueueNameReusableAfterAMinute(t *testing.T) {
	e := newEnv(t)
	e.embeddedOnly(t, "needs the injected clock (fauxqs also lets a name be reused at once)")
	q := e.queue(nil)
	_, err := e.client.DeleteQueue(t.Context(), &sqs.DeleteQueueInput{QueueUrl: aws.String(q.URL)})
	require.NoError(t, err)
	_, err = e.client.CreateQueue(t.Context(), &sqs.CreateQueueInput{QueueName: aws.String(q.Name)})
	assert.ErrorAs(t, err, new(*types.QueueDeletedRecently))
	e.advance(time.Minute)
	_, err = e.client.CreateQueue(t.Context(), &sqs.CreateQueueInput{QueueName: aws.String(q.Name)})
	assert.NoError(t, err)
}

func TestPurgeQueue(t *testing.T) {
	e := newEnv(t)
	q := e.queue(nil)
	e.send(q, "a", nil)
	e.send(q, "b", nil)
	e.receiveOne(q, sqs.ReceiveMessageInput{})
	_, err := e.client.PurgeQueue(t.Context(), &sqs.PurgeQueueInput{QueueUrl: aws.String(q.URL)})
	require.NoError(t, err)
	assert.Equal(t, [3]string{"0", "0", "0"}, e.counts(q))
	assert.Empty(t, e.receive(q, sqs.ReceiveMessageInput{}))
}

func TestPurgeQueueOncePerMinute(t *testing.T) {
	e := newEnv(t)
	e.embeddedOnly(t, "needs the injected clock (fauxqs also purges back to back)")
	q := e.queue(nil)
	purge := func() error {
		_, err := e.client.PurgeQueue(t.Context(), &sqs.PurgeQueueInput{QueueUrl: aws.String(q.URL)})
		return err
	}
	require.NoError(t, purge())
	e.advance(59 * time.Second)
	assert.ErrorAs(t, purge(), new(*types.PurgeQueueInProgress))
	e.advance(time.Second)
	assert.NoError(t, purge())
}

func TestQueueURLErrors(t *testing.T) {
	e := newEnv(t)
	q := e.queue(nil)
	tests := []struct {
		name   string
		url    string
		as     any
		fauxqs string
	}{
		{name: "unknown queue", url: q.URL + "-missing", as: new(*types.QueueDoesNotExist)},
		{name: "not a queue URL", url: "queue-name-only", as: new(*types.InvalidAddress), fauxqs: "answers QueueDoesNotExist"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e.fauxqsDiffers(t, tt.fauxqs)
			_, err := e.client.GetQueueAttributes(t.Context(), &sqs.GetQueueAttributesInput{QueueUrl: aws.String(tt.url)})
			assert.ErrorAs(t, err, tt.as)
		})
	}
}
