package sqslocal_test

import (
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/emulate/sqslocal/sqstest"
)

// received is the outcome of a receive run in the background.
type received struct {
	msgs []types.Message
	err  error
}

// receiveAsync starts a receive from q and returns where its outcome will
// arrive.
func (e *env) receiveAsync(q sqstest.Queue, in sqs.ReceiveMessageInput) <-chan received {
	in.QueueUrl = aws.String(q.URL)
	out := make(chan received, 1)
	go func() {
		got, err := e.client.ReceiveMessage(e.t.Context(), &in)
		if err != nil {
			out <- received{err: err}
			return
		}
		out <- received{msgs: got.Messages}
	}()
	return out
}

// await returns the outcome of a background receive, failing the test if
// it does not come (a safety net against a hung poll, not a timing check).
func (e *env) await(c <-chan received) received {
	e.t.Helper()
	select {
	case r := <-c:
		require.NoError(e.t, r.err)
		return r
	case <-time.After(pollerTimeout + 30*time.Second):
		e.t.Fatal("long poll did not return")
		return received{}
	}
}

func TestLongPollReturnsWhenAMessageArrives(t *testing.T) {
	e := newEnv(t)
	q := e.queue(nil)
	poll := e.receiveAsync(q, sqs.ReceiveMessageInput{WaitTimeSeconds: 20})
	e.awaitPollers(1)
	sent := e.send(q, "wake up", nil)
	// On the manual clock no time has passed: only the send can have
	// ended the poll.
	got := e.await(poll)
	require.Len(t, got.msgs, 1)
	assert.Equal(t, aws.ToString(sent.MessageId), aws.ToString(got.msgs[0].MessageId))
}

func TestLongPollUsesTheQueueWaitTime(t *testing.T) {
	e := newEnv(t)
	q := e.queue(map[string]string{"ReceiveMessageWaitTimeSeconds": "20"})
	poll := e.receiveAsync(q, sqs.ReceiveMessageInput{})
	e.awaitPollers(1)
	e.send(q, "x", nil)
	assert.Len(t, e.await(poll).msgs, 1)
}

func TestLongPollEndsEmptyAfterTheWaitTime(t *testing.T) {
	e := newEnv(t)
	q := e.queue(nil)
	poll := e.receiveAsync(q, sqs.ReceiveMessageInput{WaitTimeSeconds: 1})
	e.awaitPollers(1)
	e.advance(time.Second)
	assert.Empty(t, e.await(poll).msgs)
}

func TestLongPollWaitsTheWholeWaitTime(t *testing.T) {
	e := newEnv(t)
	e.embeddedOnly(t, "needs the injected clock")
	q := e.queue(nil)
	poll := e.receiveAsync(q, sqs.ReceiveMessageInput{WaitTimeSeconds: 20})
	e.awaitPollers(1)
	e.advance(20*time.Second - time.Millisecond)
	e.send(q, "just in time", nil)
	got := e.await(poll)
	require.Len(t, got.msgs, 1, "still polling a millisecond before the end")
	assert.Equal(t, "just in time", aws.ToString(got.msgs[0].Body))
}

func TestLongPollWakesWhenAVisibilityTimeoutEnds(t *testing.T) {
	e := newEnv(t)
	q := e.queue(nil)
	e.send(q, "x", nil)
	e.receiveOne(q, sqs.ReceiveMessageInput{VisibilityTimeout: 1})
	poll := e.receiveAsync(q, sqs.ReceiveMessageInput{WaitTimeSeconds: 20, MessageSystemAttributeNames: allSystem})
	e.awaitPollers(2) // the wait time and the visibility timeout
	e.advance(time.Second)
	got := e.await(poll)
	require.Len(t, got.msgs, 1)
	assert.Equal(t, "2", got.msgs[0].Attributes["ApproximateReceiveCount"])
}

func TestLongPollWakesWhenADelayEnds(t *testing.T) {
	e := newEnv(t)
	q := e.queue(nil)
	_, err := e.client.SendMessage(t.Context(), &sqs.SendMessageInput{QueueUrl: aws.String(q.URL), MessageBody: aws.String("later"), DelaySeconds: 1})
	require.NoError(t, err)
	poll := e.receiveAsync(q, sqs.ReceiveMessageInput{WaitTimeSeconds: 20})
	e.awaitPollers(2)
	e.advance(time.Second)
	got := e.await(poll)
	require.Len(t, got.msgs, 1)
	assert.Equal(t, "later", aws.ToString(got.msgs[0].Body))
}

func TestLongPollsShareMessages(t *testing.T) {
	e := newEnv(t)
	e.fauxqsDiffers(t, "ends a poll early and empty when another poll takes the message")
	q := e.queue(nil)
	first := e.receiveAsync(q, sqs.ReceiveMessageInput{WaitTimeSeconds: 20})
	second := e.receiveAsync(q, sqs.ReceiveMessageInput{WaitTimeSeconds: 20})
	e.awaitPollers(2)
	e.send(q, "one", nil)
	var got received
	var loser <-chan received
	select {
	case got = <-first:
		loser = second
	case got = <-second:
		loser = first
	case <-time.After(pollerTimeout):
		t.Fatal("no poll returned the message")
	}
	require.NoError(t, got.err)
	require.Len(t, got.msgs, 1)
	e.send(q, "two", nil)
	other := e.await(loser)
	require.Len(t, other.msgs, 1, "the other poll kept waiting and got the next message")
	assert.Equal(t, "two", aws.ToString(other.msgs[0].Body))
}

func TestDeleteQueueEndsLongPolls(t *testing.T) {
	e := newEnv(t)
	q := e.queue(nil)
	poll := e.receiveAsync(q, sqs.ReceiveMessageInput{WaitTimeSeconds: 20})
	e.awaitPollers(1)
	_, err := e.client.DeleteQueue(t.Context(), &sqs.DeleteQueueInput{QueueUrl: aws.String(q.URL)})
	require.NoError(t, err)
	assert.Empty(t, e.await(poll).msgs)
}

func TestCloseEndsLongPolls(t *testing.T) {
	e := newEnv(t)
	e.embeddedOnly(t, "Close is a method of the embedded server")
	q := e.queue(nil)
	poll := e.receiveAsync(q, sqs.ReceiveMessageInput{WaitTimeSeconds: 20})
	e.awaitPollers(1)
	e.b.Server.Close()
	assert.Empty(t, e.await(poll).msgs)
	assert.Empty(t, e.receive(q, sqs.ReceiveMessageInput{WaitTimeSeconds: 20}), "after Close a poll does not wait")
}
