package sqslocal_test

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// allSystem asks a receive for every system attribute.
var allSystem = []types.MessageSystemAttributeName{types.MessageSystemAttributeNameAll}

func TestReceiveSystemAttributes(t *testing.T) {
	e := newEnv(t)
	q := e.queue(map[string]string{"VisibilityTimeout": "1"})
	sentBy := time.Now()
	e.send(q, "x", nil)
	e.advance(time.Second)
	first := e.receiveOne(q, sqs.ReceiveMessageInput{MessageSystemAttributeNames: allSystem})
	assert.Equal(t, "1", first.Attributes["ApproximateReceiveCount"])
	assert.NotEmpty(t, first.Attributes["SenderId"])
	sent := mustInt64(t, first.Attributes["SentTimestamp"])
	firstRecv := mustInt64(t, first.Attributes["ApproximateFirstReceiveTimestamp"])
	assert.GreaterOrEqual(t, firstRecv-sent, int64(1000), "received a second after it was sent")
	if e.clock != nil {
		assert.Equal(t, epoch.UnixMilli(), sent, "the injected clock stamps it")
	} else {
		assert.GreaterOrEqual(t, sent, sentBy.UnixMilli()-1000, "stamped around the send")
	}

	e.advance(time.Second)
	// The server must still honour the legacy member that older clients send.
	//lint:ignore SA1019 the deprecated member is what is under test
	second := e.receiveOne(q, sqs.ReceiveMessageInput{AttributeNames: []types.QueueAttributeName{"ApproximateReceiveCount", "ApproximateFirstReceiveTimestamp"}})
	assert.Equal(t, map[string]string{"ApproximateReceiveCount": "2", "ApproximateFirstReceiveTimestamp": strconv.FormatInt(firstRecv, 10)}, second.Attributes,
		"the legacy AttributeNames selects system attributes too; the first receive time stays")
	assert.NotEqual(t, aws.ToString(first.ReceiptHandle), aws.ToString(second.ReceiptHandle), "every receive has its own handle")

	e.advance(time.Second)
	third := e.receiveOne(q, sqs.ReceiveMessageInput{})
	assert.Empty(t, third.Attributes, "no system attributes unless asked for")
}

func TestReceiveMaxNumberOfMessages(t *testing.T) {
	e := newEnv(t)
	q := e.queue(nil)
	for i := range 12 {
		e.send(q, fmt.Sprintf("m%d", i), nil)
	}
	tests := []struct {
		name string
		max  int32
		want int
		code string
	}{
		{"default is one", 0, 1, ""},
		{"three", 3, 3, ""},
		{"ten", 10, 8, ""}, // only eight remain
		{"eleven", 11, 0, "InvalidParameterValue"},
		{"negative", -1, 0, "InvalidParameterValue"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := e.client.ReceiveMessage(t.Context(), &sqs.ReceiveMessageInput{QueueUrl: aws.String(q.URL), MaxNumberOfMessages: tt.max})
			if tt.code != "" {
				e.assertCode(t, err, tt.code)
				return
			}
			require.NoError(t, err)
			assert.Len(t, out.Messages, tt.want)
		})
	}
}

func TestReceiveRejects(t *testing.T) {
	e := newEnv(t)
	q := e.queue(nil)
	tests := []struct {
		name   string
		in     sqs.ReceiveMessageInput
		code   string
		fauxqs string
	}{
		{name: "visibility over 12 hours", in: sqs.ReceiveMessageInput{VisibilityTimeout: 43201}, code: "InvalidParameterValue", fauxqs: "does not bound VisibilityTimeout"},
		{name: "wait over 20 s", in: sqs.ReceiveMessageInput{WaitTimeSeconds: 21}, code: "InvalidParameterValue"},
		{name: "unknown system attribute", in: sqs.ReceiveMessageInput{MessageSystemAttributeNames: []types.MessageSystemAttributeName{"Colour"}}, code: "InvalidAttributeName", fauxqs: "ignores unknown attribute names"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e.fauxqsDiffers(t, tt.fauxqs)
			tt.in.QueueUrl = aws.String(q.URL)
			_, err := e.client.ReceiveMessage(t.Context(), &tt.in)
			e.assertCode(t, err, tt.code)
		})
	}
}

func TestVisibilityTimeoutExpiry(t *testing.T) {
	e := newEnv(t)
	q := e.queue(map[string]string{"VisibilityTimeout": "2"})
	sent := e.send(q, "x", nil)
	m := e.receiveOne(q, sqs.ReceiveMessageInput{})
	assert.Equal(t, [3]string{"0", "1", "0"}, e.counts(q), "in flight")
	assert.Empty(t, e.receive(q, sqs.ReceiveMessageInput{}), "hidden while in flight")
	if e.clock != nil {
		e.advance(2*time.Second - time.Millisecond)
		assert.Empty(t, e.receive(q, sqs.ReceiveMessageInput{}), "hidden until the timeout ends")
		e.advance(time.Millisecond)
	} else {
		e.advance(2 * time.Second)
	}
	t.Run("counted visible", func(t *testing.T) {
		e.fauxqsDiffers(t, "counts an expired message as in flight until a receive touches the queue")
		assert.Equal(t, [3]string{"1", "0", "0"}, e.counts(q))
	})
	again := e.receiveOne(q, sqs.ReceiveMessageInput{VisibilityTimeout: 1, MessageSystemAttributeNames: allSystem})
	assert.Equal(t, aws.ToString(sent.MessageId), aws.ToString(again.MessageId))
	assert.Equal(t, "2", again.Attributes["ApproximateReceiveCount"])
	assert.NotEqual(t, aws.ToString(m.ReceiptHandle), aws.ToString(again.ReceiptHandle))
	e.advance(time.Second)
	assert.Len(t, e.receive(q, sqs.ReceiveMessageInput{}), 1, "the receive's own timeout applied")
}

func TestDelayedMessages(t *testing.T) {
	e := newEnv(t)
	q := e.queue(map[string]string{"DelaySeconds": "1"})
	e.send(q, "queue delay", nil)
	_, err := e.client.SendMessage(t.Context(), &sqs.SendMessageInput{QueueUrl: aws.String(q.URL), MessageBody: aws.String("own delay"), DelaySeconds: 2})
	require.NoError(t, err)
	assert.Equal(t, [3]string{"0", "0", "2"}, e.counts(q))
	assert.Empty(t, e.receive(q, sqs.ReceiveMessageInput{MaxNumberOfMessages: 10}))
	e.advance(time.Second)
	got := e.receiveOne(q, sqs.ReceiveMessageInput{MaxNumberOfMessages: 10})
	assert.Equal(t, "queue delay", aws.ToString(got.Body))
	e.advance(time.Second)
	got = e.receiveOne(q, sqs.ReceiveMessageInput{MaxNumberOfMessages: 10})
	assert.Equal(t, "own delay", aws.ToString(got.Body), "the message's DelaySeconds overrides the queue's")
}

func TestChangeMessageVisibility(t *testing.T) {
	e := newEnv(t)
	q := e.queue(map[string]string{"VisibilityTimeout": "1"})
	e.send(q, "x", nil)
	m := e.receiveOne(q, sqs.ReceiveMessageInput{})
	change := func(handle *string, timeout int32) error {
		_, err := e.client.ChangeMessageVisibility(t.Context(), &sqs.ChangeMessageVisibilityInput{QueueUrl: aws.String(q.URL), ReceiptHandle: handle, VisibilityTimeout: timeout})
		return err
	}
	require.NoError(t, change(m.ReceiptHandle, 3), "extend")
	e.advance(2 * time.Second)
	assert.Empty(t, e.receive(q, sqs.ReceiveMessageInput{}), "extended past the queue's timeout")
	require.NoError(t, change(m.ReceiptHandle, 0), "release")
	m2 := e.receiveOne(q, sqs.ReceiveMessageInput{})

	t.Run("over 12 hours", func(t *testing.T) {
		e.assertCode(t, change(m2.ReceiptHandle, 43201), "InvalidParameterValue")
	})
	t.Run("stale handle", func(t *testing.T) {
		e.fauxqsDiffers(t, "answers MessageNotInflight")
		e.assertCode(t, change(m.ReceiptHandle, 5), "InvalidParameterValue")
	})
	t.Run("malformed handle", func(t *testing.T) {
		e.fauxqsDiffers(t, "answers MessageNotInflight")
		assert.ErrorAs(t, change(aws.String("garbage"), 5), new(*types.ReceiptHandleIsInvalid))
	})
	t.Run("not in flight", func(t *testing.T) {
		e.fauxqsDiffers(t, "changes the visibility of a message that is not in flight")
		e.advance(time.Second)
		assert.ErrorAs(t, change(m2.ReceiptHandle, 5), new(*types.MessageNotInflight))
	})
}

func TestChangeMessageVisibilityTotalLimit(t *testing.T) {
	e := newEnv(t)
	e.embeddedOnly(t, "needs the injected clock to reach 12 hours")
	q := e.queue(nil)
	e.send(q, "x", nil)
	m := e.receiveOne(q, sqs.ReceiveMessageInput{VisibilityTimeout: 43200})
	e.advance(6 * time.Hour)
	change := func(timeout int32) error {
		_, err := e.client.ChangeMessageVisibility(t.Context(), &sqs.ChangeMessageVisibilityInput{QueueUrl: aws.String(q.URL), ReceiptHandle: m.ReceiptHandle, VisibilityTimeout: timeout})
		return err
	}
	require.NoError(t, change(6*3600), "exactly 12 hours after the receive")
	e.assertCode(t, change(6*3600+1), "InvalidParameterValue")
}

func TestDeleteMessage(t *testing.T) {
	e := newEnv(t)
	q := e.queue(map[string]string{"VisibilityTimeout": "1"})
	del := func(handle *string) error {
		_, err := e.client.DeleteMessage(t.Context(), &sqs.DeleteMessageInput{QueueUrl: aws.String(q.URL), ReceiptHandle: handle})
		return err
	}
	e.send(q, "x", nil)
	old := e.receiveOne(q, sqs.ReceiveMessageInput{})
	e.advance(time.Second)
	current := e.receiveOne(q, sqs.ReceiveMessageInput{})

	require.NoError(t, del(old.ReceiptHandle), "a stale handle succeeds...")
	assert.Equal(t, [3]string{"0", "1", "0"}, e.counts(q), "...without deleting")
	require.NoError(t, del(current.ReceiptHandle))
	assert.Equal(t, [3]string{"0", "0", "0"}, e.counts(q))
	assert.NoError(t, del(current.ReceiptHandle), "deleting again succeeds")
	t.Run("malformed handle", func(t *testing.T) {
		e.fauxqsDiffers(t, "accepts any receipt handle")
		assert.ErrorAs(t, del(aws.String("garbage")), new(*types.ReceiptHandleIsInvalid))
	})
}

func TestDeleteWithAHandleOfAnotherQueue(t *testing.T) {
	e := newEnv(t)
	e.fauxqsDiffers(t, "deletes through a receipt handle of another queue")
	a, b := e.queue(nil), e.queue(nil)
	e.send(a, "x", nil)
	m := e.receiveOne(a, sqs.ReceiveMessageInput{})
	_, err := e.client.DeleteMessage(t.Context(), &sqs.DeleteMessageInput{QueueUrl: aws.String(b.URL), ReceiptHandle: m.ReceiptHandle})
	assert.ErrorAs(t, err, new(*types.ReceiptHandleIsInvalid))
}

func TestRedriveToDeadLetterQueue(t *testing.T) {
	e := newEnv(t)
	dlq := e.queue(nil)
	q := e.queue(map[string]string{
		"VisibilityTimeout": "1",
		"RedrivePolicy":     `{"deadLetterTargetArn":"` + dlq.ARN + `","maxReceiveCount":2}`,
	})
	lineage := map[string]types.MessageAttributeValue{"redrive": str(`{"origin":"m-1","attempt":1}`)}
	sent := e.send(q, "poison", lineage)
	for receive := 1; receive <= 2; receive++ {
		m := e.receiveOne(q, sqs.ReceiveMessageInput{MessageSystemAttributeNames: allSystem})
		assert.Equal(t, strconv.Itoa(receive), m.Attributes["ApproximateReceiveCount"])
		e.advance(time.Second)
	}
	assert.Equal(t, [3]string{"0", "0", "0"}, e.counts(dlq), "not moved before a receive reaches it")
	assert.Empty(t, e.receive(q, sqs.ReceiveMessageInput{MaxNumberOfMessages: 10}), "the third receive moves it instead of returning it")
	assert.Equal(t, [3]string{"0", "0", "0"}, e.counts(q))

	m := e.receiveOne(dlq, sqs.ReceiveMessageInput{MessageAttributeNames: []string{"All"}, MessageSystemAttributeNames: allSystem})
	assert.Equal(t, aws.ToString(sent.MessageId), aws.ToString(m.MessageId), "same message ID")
	assert.Equal(t, "poison", aws.ToString(m.Body))
	assert.Equal(t, toLocal(lineage), toLocal(m.MessageAttributes), "attributes travel with it")
	assert.Equal(t, aws.ToString(sent.MD5OfMessageAttributes), aws.ToString(m.MD5OfMessageAttributes))
	assert.Equal(t, "4", m.Attributes["ApproximateReceiveCount"], "two receives, the one that moved it, and this one")
	t.Run("source ARN", func(t *testing.T) {
		e.fauxqsDiffers(t, "sets no DeadLetterQueueSourceArn")
		assert.Equal(t, q.ARN, m.Attributes["DeadLetterQueueSourceArn"])
	})
}

func TestRetentionPeriod(t *testing.T) {
	e := newEnv(t)
	e.embeddedOnly(t, "needs the injected clock: the shortest retention is a minute")
	q := e.queue(map[string]string{"MessageRetentionPeriod": "60"})
	e.send(q, "old", nil)
	e.advance(30 * time.Second)
	e.send(q, "young", nil)
	e.advance(30 * time.Second)
	assert.Equal(t, [3]string{"1", "0", "0"}, e.counts(q), "the first message expired")
	assert.Equal(t, "young", aws.ToString(e.receiveOne(q, sqs.ReceiveMessageInput{MaxNumberOfMessages: 10}).Body))
}

func TestRetentionCountsFromTheOriginalSend(t *testing.T) {
	e := newEnv(t)
	e.embeddedOnly(t, "needs the injected clock: the shortest retention is a minute")
	dlq := e.queue(map[string]string{"MessageRetentionPeriod": "60"})
	q := e.queue(map[string]string{
		"VisibilityTimeout": "1",
		"RedrivePolicy":     `{"deadLetterTargetArn":"` + dlq.ARN + `","maxReceiveCount":1}`,
	})
	e.send(q, "sent first, moved last", nil)
	e.receiveOne(q, sqs.ReceiveMessageInput{})
	e.advance(30 * time.Second)
	e.send(dlq, "sent to the DLQ", nil)
	assert.Empty(t, e.receive(q, sqs.ReceiveMessageInput{}), "moves the message")
	assert.Equal(t, [3]string{"2", "0", "0"}, e.counts(dlq))
	e.advance(30 * time.Second)
	assert.Equal(t, [3]string{"1", "0", "0"}, e.counts(dlq), "a minute after its first send, the moved message expired")
	assert.Equal(t, "sent to the DLQ", aws.ToString(e.receiveOne(dlq, sqs.ReceiveMessageInput{}).Body))
}
