package sqslocal_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/emulate/sqslocal"
)

// entries returns n batch entries with IDs e0, e1, ...
func entries(n int) []types.SendMessageBatchRequestEntry {
	out := make([]types.SendMessageBatchRequestEntry, n)
	for i := range out {
		out[i] = types.SendMessageBatchRequestEntry{Id: aws.String(fmt.Sprintf("e%d", i)), MessageBody: aws.String(fmt.Sprintf("body %d", i))}
	}
	return out
}

func TestSendMessageBatchPartialFailure(t *testing.T) {
	e := newEnv(t)
	q := e.queue(map[string]string{"MaximumMessageSize": "1024"})
	batch := entries(4)
	batch[1].MessageBody = aws.String("bad \x01 body")
	batch[2].MessageBody = aws.String(strings.Repeat("m", 1025))
	batch[3].MessageAttributes = map[string]types.MessageAttributeValue{"k": str("v")}
	out, err := e.client.SendMessageBatch(t.Context(), &sqs.SendMessageBatchInput{QueueUrl: aws.String(q.URL), Entries: batch})
	require.NoError(t, err, "one bad entry does not fail the call")

	ok := map[string]types.SendMessageBatchResultEntry{}
	for _, s := range out.Successful {
		ok[aws.ToString(s.Id)] = s
	}
	assert.Len(t, ok, 2)
	assert.Equal(t, sqslocal.MD5OfBody("body 0"), aws.ToString(ok["e0"].MD5OfMessageBody))
	assert.Equal(t, sqslocal.MD5OfMessageAttributes(toLocal(batch[3].MessageAttributes)), aws.ToString(ok["e3"].MD5OfMessageAttributes))

	failed := map[string]types.BatchResultErrorEntry{}
	for _, f := range out.Failed {
		failed[aws.ToString(f.Id)] = f
	}
	require.Len(t, failed, 2)
	assert.Equal(t, "InvalidMessageContents", strings.TrimPrefix(aws.ToString(failed["e1"].Code), fauxqsCodePrefix))
	assert.Equal(t, "InvalidParameterValue", strings.TrimPrefix(aws.ToString(failed["e2"].Code), fauxqsCodePrefix))
	for _, f := range failed {
		assert.True(t, f.SenderFault)
		assert.NotEmpty(t, aws.ToString(f.Message))
	}
	assert.Equal(t, "2", e.counts(q)[0], "only the good entries were sent")
}

func TestBatchRequestErrors(t *testing.T) {
	e := newEnv(t)
	q := e.queue(nil)
	dup := entries(2)
	dup[1].Id = dup[0].Id
	badID := entries(1)
	badID[0].Id = aws.String("not ok!")
	longID := entries(1)
	longID[0].Id = aws.String(strings.Repeat("i", 81))
	big := entries(2)
	big[0].MessageBody = aws.String(strings.Repeat("m", sqslocal.DefaultMaxMessageSize/2+1))
	big[1].MessageBody = big[0].MessageBody
	tests := []struct {
		name    string
		entries []types.SendMessageBatchRequestEntry
		as      any
		fauxqs  string
	}{
		{name: "empty", entries: []types.SendMessageBatchRequestEntry{}, as: new(*types.EmptyBatchRequest)},
		{name: "eleven entries", entries: entries(11), as: new(*types.TooManyEntriesInBatchRequest)},
		{name: "duplicate IDs", entries: dup, as: new(*types.BatchEntryIdsNotDistinct)},
		{name: "ID with punctuation", entries: badID, as: new(*types.InvalidBatchEntryId)},
		{name: "ID of 81 characters", entries: longID, as: new(*types.InvalidBatchEntryId), fauxqs: "accepts batch entry IDs over 80 characters"},
		{name: "total over 1 MiB", entries: big, as: new(*types.BatchRequestTooLong)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e.fauxqsDiffers(t, tt.fauxqs)
			_, err := e.client.SendMessageBatch(t.Context(), &sqs.SendMessageBatchInput{QueueUrl: aws.String(q.URL), Entries: tt.entries})
			assert.ErrorAs(t, err, tt.as)
		})
	}
	assert.Equal(t, "0", e.counts(q)[0], "a failed batch sends nothing")
}

func TestDeleteMessageBatch(t *testing.T) {
	e := newEnv(t)
	q := e.queue(nil)
	_, err := e.client.SendMessageBatch(t.Context(), &sqs.SendMessageBatchInput{QueueUrl: aws.String(q.URL), Entries: entries(3)})
	require.NoError(t, err)
	msgs := e.receive(q, sqs.ReceiveMessageInput{MaxNumberOfMessages: 10})
	require.Len(t, msgs, 3)
	out, err := e.client.DeleteMessageBatch(t.Context(), &sqs.DeleteMessageBatchInput{QueueUrl: aws.String(q.URL), Entries: []types.DeleteMessageBatchRequestEntry{
		{Id: aws.String("a"), ReceiptHandle: msgs[0].ReceiptHandle},
		{Id: aws.String("b"), ReceiptHandle: msgs[1].ReceiptHandle},
	}})
	require.NoError(t, err)
	require.Len(t, out.Successful, 2)
	assert.ElementsMatch(t, []string{"a", "b"}, []string{aws.ToString(out.Successful[0].Id), aws.ToString(out.Successful[1].Id)})
	assert.Empty(t, out.Failed)
	assert.Equal(t, [3]string{"0", "1", "0"}, e.counts(q), "the third message is still in flight")

	t.Run("invalid handle fails its entry", func(t *testing.T) {
		e.fauxqsDiffers(t, "accepts any receipt handle")
		out, err := e.client.DeleteMessageBatch(t.Context(), &sqs.DeleteMessageBatchInput{QueueUrl: aws.String(q.URL), Entries: []types.DeleteMessageBatchRequestEntry{
			{Id: aws.String("good"), ReceiptHandle: msgs[2].ReceiptHandle},
			{Id: aws.String("bad"), ReceiptHandle: aws.String("not-a-receipt-handle")},
		}})
		require.NoError(t, err)
		require.Len(t, out.Successful, 1)
		assert.Equal(t, "good", aws.ToString(out.Successful[0].Id))
		require.Len(t, out.Failed, 1)
		assert.Equal(t, "bad", aws.ToString(out.Failed[0].Id))
		assert.Equal(t, "ReceiptHandleIsInvalid", aws.ToString(out.Failed[0].Code))
		assert.Equal(t, [3]string{"0", "0", "0"}, e.counts(q))
	})

	_, err = e.client.DeleteMessageBatch(t.Context(), &sqs.DeleteMessageBatchInput{QueueUrl: aws.String(q.URL), Entries: []types.DeleteMessageBatchRequestEntry{}})
	assert.ErrorAs(t, err, new(*types.EmptyBatchRequest))
}

func TestChangeMessageVisibilityBatch(t *testing.T) {
	e := newEnv(t)
	q := e.queue(nil)
	_, err := e.client.SendMessageBatch(t.Context(), &sqs.SendMessageBatchInput{QueueUrl: aws.String(q.URL), Entries: entries(2)})
	require.NoError(t, err)
	msgs := e.receive(q, sqs.ReceiveMessageInput{MaxNumberOfMessages: 10})
	require.Len(t, msgs, 2)
	out, err := e.client.ChangeMessageVisibilityBatch(t.Context(), &sqs.ChangeMessageVisibilityBatchInput{QueueUrl: aws.String(q.URL), Entries: []types.ChangeMessageVisibilityBatchRequestEntry{
		{Id: aws.String("now"), ReceiptHandle: msgs[0].ReceiptHandle, VisibilityTimeout: 0},
		{Id: aws.String("bad"), ReceiptHandle: msgs[1].ReceiptHandle, VisibilityTimeout: 43201},
	}})
	require.NoError(t, err)
	require.Len(t, out.Successful, 1)
	assert.Equal(t, "now", aws.ToString(out.Successful[0].Id))
	require.Len(t, out.Failed, 1)
	assert.Equal(t, "bad", aws.ToString(out.Failed[0].Id))
	assert.Equal(t, "InvalidParameterValue", strings.TrimPrefix(aws.ToString(out.Failed[0].Code), fauxqsCodePrefix))
	again := e.receiveOne(q, sqs.ReceiveMessageInput{})
	assert.Equal(t, aws.ToString(msgs[0].MessageId), aws.ToString(again.MessageId), "visibility 0 makes it receivable at once")
}
