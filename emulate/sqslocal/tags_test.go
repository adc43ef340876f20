package sqslocal_test

import (
	"crypto/rand"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/emulate/sqslocal/sqstest"
)

// tags lists q's tags.
func (e *env) tags(q string) map[string]string {
	e.t.Helper()
	out, err := e.client.ListQueueTags(e.t.Context(), &sqs.ListQueueTagsInput{QueueUrl: aws.String(q)})
	require.NoError(e.t, err)
	return out.Tags
}

func TestCreateQueueWithTags(t *testing.T) {
	e := newEnv(t)
	name := sqstest.QueuePrefix + strings.ToLower(rand.Text())
	tags := map[string]string{"team": "payments", "cost-center": "42"}
	out, err := e.client.CreateQueue(t.Context(), &sqs.CreateQueueInput{QueueName: aws.String(name), Tags: tags})
	require.NoError(t, err)
	url := aws.ToString(out.QueueUrl)
	t.Cleanup(func() { _, _ = e.client.DeleteQueue(t.Context(), &sqs.DeleteQueueInput{QueueUrl: aws.String(url)}) })
	assert.Equal(t, tags, e.tags(url))
}

func TestTagAndUntagQueue(t *testing.T) {
	e := newEnv(t)
	q := e.queue(nil)
	assert.Empty(t, e.tags(q.URL))
	tag := func(tags map[string]string) {
		_, err := e.client.TagQueue(t.Context(), &sqs.TagQueueInput{QueueUrl: aws.String(q.URL), Tags: tags})
		require.NoError(t, err)
	}
	tag(map[string]string{"a": "1", "b": "2"})
	tag(map[string]string{"b": "two", "c": ""})
	assert.Equal(t, map[string]string{"a": "1", "b": "two", "c": ""}, e.tags(q.URL), "a tag replaces one with its key")

	_, err := e.client.UntagQueue(t.Context(), &sqs.UntagQueueInput{QueueUrl: aws.String(q.URL), TagKeys: []string{"a", "missing"}})
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"b": "two", "c": ""}, e.tags(q.URL))

	_, err = e.client.ListQueueTags(t.Context(), &sqs.ListQueueTagsInput{QueueUrl: aws.String(q.URL + "-missing")})
	assert.ErrorAs(t, err, new(*types.QueueDoesNotExist))
	_, err = e.client.TagQueue(t.Context(), &sqs.TagQueueInput{QueueUrl: aws.String(q.URL + "-missing"), Tags: map[string]string{"a": "1"}})
	assert.ErrorAs(t, err, new(*types.QueueDoesNotExist))
}

func TestTagQueueRejects(t *testing.T) {
	e := newEnv(t)
	e.fauxqsDiffers(t, "does not validate tags")
	q := e.queue(nil)
	for name, tags := range map[string]map[string]string{
		"no tags":          {},
		"reserved prefix":  {"aws:team": "x"},
		"long key":         {strings.Repeat("k", 129): "x"},
		"long value":       {"k": strings.Repeat("v", 257)},
		"invalid key char": {"team#1": "x"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := e.client.TagQueue(t.Context(), &sqs.TagQueueInput{QueueUrl: aws.String(q.URL), Tags: tags})
			code := "InvalidParameterValue"
			if len(tags) == 0 {
				code = "MissingParameter"
			}
			e.assertCode(t, err, code)
		})
	}
	_, err := e.client.TagQueue(t.Context(), &sqs.TagQueueInput{QueueUrl: aws.String(q.URL), Tags: map[string]string{strings.Repeat("é", 128): "ünïcode value: a/b=c+d-e@f"}})
	require.NoError(t, err, "128 characters, not bytes")
	_, err = e.client.UntagQueue(t.Context(), &sqs.UntagQueueInput{QueueUrl: aws.String(q.URL), TagKeys: []string{}})
	e.assertCode(t, err, "MissingParameter")
	_, err = e.client.CreateQueue(t.Context(), &sqs.CreateQueueInput{QueueName: aws.String(sqstest.QueuePrefix + "never"), Tags: map[string]string{"aws:x": "y"}})
	e.assertCode(t, err, "InvalidParameterValue")
}
