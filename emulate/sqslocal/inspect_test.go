package sqslocal_test

import (
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/emulate/sqslocal"
)

func TestInspectMessagesAndDepth(t *testing.T) {
	e := newEnv(t)
	e.embeddedOnly(t, "Messages and Depth are methods of the embedded server")
	dlq := e.queue(nil)
	q := e.queue(map[string]string{"RedrivePolicy": `{"deadLetterTargetArn":"` + dlq.ARN + `","maxReceiveCount":1}`})
	srv := e.b.Server

	first := e.send(q, "first", map[string]types.MessageAttributeValue{"k": str("v"), "b": {DataType: aws.String("Binary"), BinaryValue: []byte{1, 2}}})
	e.advance(time.Second)
	e.send(q, "second", nil)
	_, err := e.client.SendMessage(t.Context(), &sqs.SendMessageInput{QueueUrl: aws.String(q.URL), MessageBody: aws.String("third"), DelaySeconds: 60})
	require.NoError(t, err)
	e.receiveOne(q, sqs.ReceiveMessageInput{VisibilityTimeout: 10})

	d, err := srv.Depth(q.Name)
	require.NoError(t, err)
	assert.Equal(t, sqslocal.Depth{Visible: 1, InFlight: 1, Delayed: 1}, d)
	assert.Equal(t, 3, d.Total())

	msgs, err := srv.Messages(q.Name)
	require.NoError(t, err)
	require.Len(t, msgs, 3)
	assert.Equal(t, sqslocal.Message{
		ID:              aws.ToString(first.MessageId),
		Body:            "first",
		Attributes:      map[string]sqslocal.MessageAttribute{"k": {DataType: "String", StringValue: "v"}, "b": {DataType: "Binary", BinaryValue: []byte{1, 2}}},
		SentAt:          epoch,
		ReceiveCount:    1,
		FirstReceivedAt: epoch.Add(time.Second),
		State:           sqslocal.StateInFlight,
		VisibleAt:       epoch.Add(11 * time.Second),
	}, msgs[0])
	assert.Equal(t, []string{"second", "third"}, []string{msgs[1].Body, msgs[2].Body}, "oldest first")
	assert.Equal(t, []sqslocal.MessageState{sqslocal.StateVisible, sqslocal.StateDelayed}, []sqslocal.MessageState{msgs[1].State, msgs[2].State})
	assert.Equal(t, epoch.Add(61*time.Second), msgs[2].VisibleAt)

	due, err := srv.NextDue(q.Name)
	require.NoError(t, err)
	assert.Equal(t, sqslocal.Due{Visible: true, Next: epoch.Add(11 * time.Second)}, due, "one visible; the in-flight one is next")

	// A snapshot is a copy: changing it changes nothing on the queue.
	msgs[0].Attributes["k"] = sqslocal.MessageAttribute{DataType: "String", StringValue: "changed"}
	msgs[0].Attributes["b"].BinaryValue[0] = 9
	again, err := srv.Messages(q.Name)
	require.NoError(t, err)
	assert.Equal(t, "v", again[0].Attributes["k"].StringValue)
	assert.Equal(t, []byte{1, 2}, again[0].Attributes["b"].BinaryValue)

	e.advance(10 * time.Second)
	e.receive(q, sqs.ReceiveMessageInput{MaxNumberOfMessages: 10}) // moves "first" to the DLQ
	moved, err := srv.Messages(dlq.Name)
	require.NoError(t, err)
	require.Len(t, moved, 1)
	assert.Equal(t, q.ARN, moved[0].DeadLetterSourceARN)
	assert.Equal(t, sqslocal.StateVisible, moved[0].State)
}

func TestInspectUnknownQueue(t *testing.T) {
	srv, err := sqslocal.NewServer(sqslocal.Options{})
	require.NoError(t, err)
	_, err = srv.Messages("nope")
	assert.ErrorIs(t, err, sqslocal.ErrQueueNotFound)
	assert.Contains(t, err.Error(), `"nope"`)
	_, err = srv.Depth("nope")
	assert.ErrorIs(t, err, sqslocal.ErrQueueNotFound)
	_, err = srv.NextDue("nope")
	assert.ErrorIs(t, err, sqslocal.ErrQueueNotFound)
}

func TestMessageStateString(t *testing.T) {
	for state, want := range map[sqslocal.MessageState]string{
		sqslocal.StateVisible:     "visible",
		sqslocal.StateInFlight:    "in-flight",
		sqslocal.StateDelayed:     "delayed",
		sqslocal.MessageState(42): "MessageState(42)",
	} {
		assert.Equal(t, want, state.String())
	}
}
