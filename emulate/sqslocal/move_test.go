package sqslocal_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"strconv"
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

// fauxqsNoMoves is why the message move tests skip on fauxqs.
const fauxqsNoMoves = "does not implement the message move tasks"

// nonExistentQueue is the FailureReason of a task whose destination is
// gone, as AWS reports it.
const nonExistentQueue = "AWS.SimpleQueueService.NonExistentQueue"

// redriveSource creates a queue whose dead-letter queue is dlq: a receive
// hides nothing, and the second receive of a message moves it to dlq.
func (e *env) redriveSource(dlq sqstest.Queue) sqstest.Queue {
	e.t.Helper()
	return e.queue(map[string]string{
		"VisibilityTimeout": "0",
		"RedrivePolicy":     `{"deadLetterTargetArn":"` + dlq.ARN + `","maxReceiveCount":1}`,
	})
}

// deadLetter sends bodies to src, each with a message attribute holding
// it, and receives from src until all of them are on its dead-letter
// queue.
func (e *env) deadLetter(src sqstest.Queue, bodies ...string) {
	e.t.Helper()
	for _, b := range bodies {
		e.send(src, b, map[string]types.MessageAttributeValue{"body": str(b)})
	}
	for len(e.receive(src, sqs.ReceiveMessageInput{MaxNumberOfMessages: 10})) > 0 {
		// Each round receives messages once more; those received before
		// move to the dead-letter queue.
	}
}

// fill sends n messages "m0", "m1", ... straight to q and returns their
// bodies.
func (e *env) fill(q sqstest.Queue, n int) []string {
	e.t.Helper()
	var bodies []string
	for i := 0; i < n; i += 10 {
		var entries []types.SendMessageBatchRequestEntry
		for j := i; j < min(n, i+10); j++ {
			bodies = append(bodies, "m"+strconv.Itoa(j))
			entries = append(entries, types.SendMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(j)), MessageBody: aws.String(bodies[j])})
		}
		out, err := e.client.SendMessageBatch(e.t.Context(), &sqs.SendMessageBatchInput{QueueUrl: aws.String(q.URL), Entries: entries})
		require.NoError(e.t, err)
		require.Empty(e.t, out.Failed)
	}
	return bodies
}

// startMove starts a message move task with in and returns its handle.
func (e *env) startMove(in sqs.StartMessageMoveTaskInput) string {
	e.t.Helper()
	out, err := e.client.StartMessageMoveTask(e.t.Context(), &in)
	require.NoError(e.t, err, "start move task from %s", aws.ToString(in.SourceArn))
	return aws.ToString(out.TaskHandle)
}

// moveTasks lists up to max move tasks of the queue with ARN source.
func (e *env) moveTasks(ctx context.Context, source string, max int32) ([]types.ListMessageMoveTasksResultEntry, error) {
	out, err := e.client.ListMessageMoveTasks(ctx, &sqs.ListMessageMoveTasksInput{SourceArn: aws.String(source), MaxResults: aws.Int32(max)})
	if err != nil {
		return nil, err
	}
	return out.Results, nil
}

// moveTask returns the latest move task of the queue with ARN source.
func (e *env) moveTask(source string) types.ListMessageMoveTasksResultEntry {
	e.t.Helper()
	tasks, err := e.moveTasks(e.t.Context(), source, 1)
	require.NoError(e.t, err)
	require.Len(e.t, tasks, 1)
	return tasks[0]
}

// settle returns once the latest move task of source waits on the clock or
// has ended. A test that cancels a task cannot use it: the ended task's
// timer stays pending.
func (e *env) settle(source string) {
	e.t.Helper()
	require.Eventually(e.t, func() bool {
		if e.clock.Timers() > 0 {
			return true
		}
		tasks, err := e.moveTasks(context.Background(), source, 1)
		return err == nil && len(tasks) == 1 && aws.ToString(tasks[0].Status) != "RUNNING"
	}, pollerTimeout, time.Millisecond, "move task of %s neither waits nor ended", source)
}

// runMove lets d pass on the clock once the move task of source waits, and
// returns once it has made its step.
func (e *env) runMove(source string, d time.Duration) {
	e.t.Helper()
	e.settle(source)
	e.clock.Advance(d)
	e.settle(source)
}

// messages reads q's messages with the inspection API.
func (e *env) messages(q sqstest.Queue) []sqslocal.Message {
	e.t.Helper()
	msgs, err := e.b.Server.Messages(q.Name)
	require.NoError(e.t, err)
	return msgs
}

// bodies returns the bodies of q's messages, oldest first.
func (e *env) bodies(q sqstest.Queue) []string {
	e.t.Helper()
	var out []string
	for _, m := range e.messages(q) {
		out = append(out, m.Body)
	}
	return out
}

// assertConserved asserts that want is on queues, each body exactly once.
func (e *env) assertConserved(t *testing.T, want []string, queues ...sqstest.Queue) {
	t.Helper()
	var got []string
	for _, q := range queues {
		got = append(got, e.bodies(q)...)
	}
	assert.ElementsMatch(t, want, got, "no message lost or duplicated")
}

func TestStartMessageMoveTaskRejects(t *testing.T) {
	e := newEnv(t)
	e.fauxqsDiffers(t, fauxqsNoMoves)
	dlq, plain := e.queue(nil), e.queue(nil)
	e.redriveSource(dlq)
	tests := []struct {
		name string
		in   sqs.StartMessageMoveTaskInput
		code string
	}{
		{"unknown source", sqs.StartMessageMoveTaskInput{SourceArn: aws.String(dlq.ARN + "-missing")}, "ResourceNotFoundException"},
		{"source in another region", sqs.StartMessageMoveTaskInput{SourceArn: aws.String("arn:aws:sqs:eu-west-1:123456789012:" + dlq.Name)}, "ResourceNotFoundException"},
		{"source not a dead-letter queue", sqs.StartMessageMoveTaskInput{SourceArn: aws.String(plain.ARN)}, "InvalidParameterValue"},
		{"unknown destination", sqs.StartMessageMoveTaskInput{SourceArn: aws.String(dlq.ARN), DestinationArn: aws.String(plain.ARN + "-missing")}, "ResourceNotFoundException"},
		{"source as destination", sqs.StartMessageMoveTaskInput{SourceArn: aws.String(dlq.ARN), DestinationArn: aws.String(dlq.ARN)}, "InvalidParameterValue"},
		{"rate 0", sqs.StartMessageMoveTaskInput{SourceArn: aws.String(dlq.ARN), MaxNumberOfMessagesPerSecond: aws.Int32(0)}, "InvalidParameterValue"},
		{"rate 501", sqs.StartMessageMoveTaskInput{SourceArn: aws.String(dlq.ARN), MaxNumberOfMessagesPerSecond: aws.Int32(501)}, "InvalidParameterValue"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := e.client.StartMessageMoveTask(t.Context(), &tt.in)
			e.assertCode(t, err, tt.code)
			if tt.code == "ResourceNotFoundException" {
				assert.ErrorAs(t, err, new(*types.ResourceNotFoundException))
			}
		})
	}
	t.Run("one active task per source", func(t *testing.T) {
		e.fill(dlq, 2)
		e.startMove(sqs.StartMessageMoveTaskInput{SourceArn: aws.String(dlq.ARN), DestinationArn: aws.String(plain.ARN), MaxNumberOfMessagesPerSecond: aws.Int32(1)})
		_, err := e.client.StartMessageMoveTask(t.Context(), &sqs.StartMessageMoveTaskInput{SourceArn: aws.String(dlq.ARN), DestinationArn: aws.String(plain.ARN)})
		e.assertCode(t, err, "InvalidParameterValue")
		assert.ErrorContains(t, err, "Only one active task is allowed")
	})
}

func TestMessageMoveTaskToDestination(t *testing.T) {
	e := newEnv(t)
	e.embeddedOnly(t, "moves on the injected clock")
	dlq, dest := e.queue(nil), e.queue(nil)
	src := e.redriveSource(dlq)
	e.deadLetter(src, "a", "b", "c")
	var dlqIDs []string
	for _, m := range e.messages(dlq) {
		dlqIDs = append(dlqIDs, m.ID)
	}

	h := e.startMove(sqs.StartMessageMoveTaskInput{SourceArn: aws.String(dlq.ARN), DestinationArn: aws.String(dest.ARN), MaxNumberOfMessagesPerSecond: aws.Int32(1)})
	assert.NotEmpty(t, h)
	assert.Equal(t, []string{"a"}, e.bodies(dest), "the oldest moves at once")
	e.send(dlq, "late", nil)
	running := e.moveTask(dlq.ARN)
	assert.Equal(t, "RUNNING", aws.ToString(running.Status))
	assert.Equal(t, h, aws.ToString(running.TaskHandle), "a running task shows its handle")

	e.runMove(dlq.ARN, time.Second-time.Millisecond)
	assert.Equal(t, []string{"a"}, e.bodies(dest), "not before a second has passed")
	e.runMove(dlq.ARN, time.Millisecond)
	assert.Equal(t, []string{"a", "b"}, e.bodies(dest))
	e.runMove(dlq.ARN, time.Second)
	assert.Equal(t, []string{"a", "b", "c"}, e.bodies(dest))
	assert.Equal(t, []string{"late"}, e.bodies(dlq), "only the messages there at the start move")

	for i, m := range e.messages(dest) {
		assert.NotContains(t, dlqIDs, m.ID, "a moved message is a new message")
		assert.Equal(t, map[string]sqslocal.MessageAttribute{"body": {DataType: "String", StringValue: m.Body}}, m.Attributes)
		assert.Equal(t, epoch.Add(time.Duration(i)*time.Second), m.SentAt, "its retention restarts")
		assert.Zero(t, m.ReceiveCount)
		assert.Empty(t, m.DeadLetterSourceARN)
	}
	got := e.receive(dest, sqs.ReceiveMessageInput{MaxNumberOfMessages: 10, MessageAttributeNames: []string{"All"}})
	assert.Len(t, got, 3, "the SDK accepts the moved messages' digests")

	task := e.moveTask(dlq.ARN)
	assert.Equal(t, "COMPLETED", aws.ToString(task.Status))
	assert.Nil(t, task.TaskHandle, "only a running task shows its handle")
	assert.Equal(t, dlq.ARN, aws.ToString(task.SourceArn))
	assert.Equal(t, dest.ARN, aws.ToString(task.DestinationArn))
	assert.Equal(t, int32(1), aws.ToInt32(task.MaxNumberOfMessagesPerSecond))
	assert.Equal(t, int64(3), task.ApproximateNumberOfMessagesMoved)
	assert.Equal(t, int64(3), aws.ToInt64(task.ApproximateNumberOfMessagesToMove))
	assert.Equal(t, epoch.UnixMilli(), task.StartedTimestamp)
	assert.Nil(t, task.FailureReason)
}

func TestMessageMoveTaskRate(t *testing.T) {
	for _, tt := range []struct {
		rate int32
		n    int
	}{{1, 4}, {7, 30}, {500, 1100}} {
		t.Run(fmt.Sprint(tt.rate), func(t *testing.T) {
			e := newEnv(t)
			e.embeddedOnly(t, "counts moves on the injected clock")
			dlq, dest := e.queue(nil), e.queue(nil)
			e.redriveSource(dlq)
			bodies := e.fill(dlq, tt.n)
			e.startMove(sqs.StartMessageMoveTaskInput{SourceArn: aws.String(dlq.ARN), DestinationArn: aws.String(dest.ARN), MaxNumberOfMessagesPerSecond: aws.Int32(tt.rate)})
			for seconds := 0; ; seconds++ {
				want := min(tt.n, int(tt.rate)*seconds+1) // the first at once
				assert.Len(t, e.messages(dest), want, "moved after %d s", seconds)
				assert.Equal(t, int64(want), e.moveTask(dlq.ARN).ApproximateNumberOfMessagesMoved)
				if want == tt.n {
					break
				}
				e.runMove(dlq.ARN, time.Second)
			}
			assert.Equal(t, bodies, e.bodies(dest), "oldest first")
			assert.Equal(t, "COMPLETED", aws.ToString(e.moveTask(dlq.ARN).Status))
		})
	}
}

func TestMessageMoveTaskToOriginalSources(t *testing.T) {
	e := newEnv(t)
	e.embeddedOnly(t, "moves on the injected clock")
	dlq := e.queue(nil)
	one, two := e.redriveSource(dlq), e.redriveSource(dlq)
	e.deadLetter(one, "one-a", "one-b")
	e.deadLetter(two, "two-a")

	e.startMove(sqs.StartMessageMoveTaskInput{SourceArn: aws.String(dlq.ARN)})
	e.runMove(dlq.ARN, time.Second) // the default rate moves three at once
	assert.Equal(t, []string{"one-a", "one-b"}, e.bodies(one))
	assert.Equal(t, []string{"two-a"}, e.bodies(two))
	assert.Empty(t, e.bodies(dlq))

	task := e.moveTask(dlq.ARN)
	assert.Equal(t, "COMPLETED", aws.ToString(task.Status))
	assert.Nil(t, task.DestinationArn, "none was requested")
	assert.Nil(t, task.MaxNumberOfMessagesPerSecond, "none was requested")
	assert.Equal(t, int64(3), task.ApproximateNumberOfMessagesMoved)
}

func TestMessageMoveTaskMovesVisibleMessagesOnly(t *testing.T) {
	e := newEnv(t)
	e.embeddedOnly(t, "moves on the injected clock")
	dlq, dest := e.queue(nil), e.queue(nil)
	e.redriveSource(dlq)
	e.fill(dlq, 3)
	inFlight := e.receive(dlq, sqs.ReceiveMessageInput{MaxNumberOfMessages: 2, VisibilityTimeout: 30})
	require.Len(t, inFlight, 2)

	e.startMove(sqs.StartMessageMoveTaskInput{SourceArn: aws.String(dlq.ARN), DestinationArn: aws.String(dest.ARN)})
	assert.Equal(t, []string{"m2"}, e.bodies(dest), "the visible message moves")
	_, err := e.client.DeleteMessage(t.Context(), &sqs.DeleteMessageInput{QueueUrl: aws.String(dlq.URL), ReceiptHandle: inFlight[1].ReceiptHandle})
	require.NoError(t, err)
	e.runMove(dlq.ARN, 29*time.Second)
	assert.Equal(t, []string{"m2"}, e.bodies(dest), "the in-flight ones wait for their visibility timeout")
	assert.Equal(t, "RUNNING", aws.ToString(e.moveTask(dlq.ARN).Status))
	e.runMove(dlq.ARN, time.Second)
	assert.Equal(t, []string{"m2", "m0"}, e.bodies(dest))

	task := e.moveTask(dlq.ARN)
	assert.Equal(t, "COMPLETED", aws.ToString(task.Status))
	assert.Equal(t, int64(3), aws.ToInt64(task.ApproximateNumberOfMessagesToMove))
	assert.Equal(t, int64(2), task.ApproximateNumberOfMessagesMoved, "the one deleted meanwhile is not moved")
}

func TestMessageMoveTaskFails(t *testing.T) {
	t.Run("message with no source queue", func(t *testing.T) {
		e := newEnv(t)
		e.embeddedOnly(t, "moves on the injected clock")
		dlq := e.queue(nil)
		src := e.redriveSource(dlq)
		e.deadLetter(src, "first")
		e.send(dlq, "direct", nil)
		e.deadLetter(src, "last")

		e.startMove(sqs.StartMessageMoveTaskInput{SourceArn: aws.String(dlq.ARN), MaxNumberOfMessagesPerSecond: aws.Int32(1)})
		e.runMove(dlq.ARN, time.Second)
		task := e.moveTask(dlq.ARN)
		assert.Equal(t, "FAILED", aws.ToString(task.Status))
		assert.Equal(t, nonExistentQueue, aws.ToString(task.FailureReason))
		assert.Equal(t, int64(1), task.ApproximateNumberOfMessagesMoved)
		assert.Equal(t, []string{"first"}, e.bodies(src))
		assert.Equal(t, []string{"direct", "last"}, e.bodies(dlq), "the unmovable message stays")
	})
	t.Run("destination deleted", func(t *testing.T) {
		e := newEnv(t)
		e.embeddedOnly(t, "moves on the injected clock")
		dlq, dest := e.queue(nil), e.queue(nil)
		e.redriveSource(dlq)
		bodies := e.fill(dlq, 3)
		e.startMove(sqs.StartMessageMoveTaskInput{SourceArn: aws.String(dlq.ARN), DestinationArn: aws.String(dest.ARN), MaxNumberOfMessagesPerSecond: aws.Int32(1)})
		_, err := e.client.DeleteQueue(t.Context(), &sqs.DeleteQueueInput{QueueUrl: aws.String(dest.URL)})
		require.NoError(t, err)
		e.runMove(dlq.ARN, time.Second)
		task := e.moveTask(dlq.ARN)
		assert.Equal(t, "FAILED", aws.ToString(task.Status))
		assert.Equal(t, nonExistentQueue, aws.ToString(task.FailureReason))
		assert.Equal(t, bodies[1:], e.bodies(dlq), "the rest stays")
	})
}

// handle builds a task handle as AWS's are made.
func handle(taskID, sourceARN string) string {
	return base64.StdEncoding.EncodeToString([]byte(`{"taskId":"` + taskID + `","sourceArn":"` + sourceARN + `"}`))
}

func TestCancelMessageMoveTask(t *testing.T) {
	e := newEnv(t)
	e.embeddedOnly(t, "cancels mid-move on the injected clock")
	dlq, dest := e.queue(nil), e.queue(nil)
	e.redriveSource(dlq)
	bodies := e.fill(dlq, 10)
	h := e.startMove(sqs.StartMessageMoveTaskInput{SourceArn: aws.String(dlq.ARN), DestinationArn: aws.String(dest.ARN), MaxNumberOfMessagesPerSecond: aws.Int32(1)})
	e.runMove(dlq.ARN, 2*time.Second)

	out, err := e.client.CancelMessageMoveTask(t.Context(), &sqs.CancelMessageMoveTaskInput{TaskHandle: aws.String(h)})
	require.NoError(t, err)
	assert.Equal(t, int64(3), out.ApproximateNumberOfMessagesMoved)
	require.Eventually(t, func() bool {
		tasks, err := e.moveTasks(context.Background(), dlq.ARN, 1)
		return err == nil && aws.ToString(tasks[0].Status) == "CANCELLED"
	}, pollerTimeout, time.Millisecond)
	e.clock.Advance(time.Minute)
	assert.Equal(t, bodies[:3], e.bodies(dest), "nothing moves after the cancel")
	e.assertConserved(t, bodies, dlq, dest)
	task := e.moveTask(dlq.ARN)
	assert.Equal(t, int64(3), task.ApproximateNumberOfMessagesMoved)
	assert.Equal(t, int64(10), aws.ToInt64(task.ApproximateNumberOfMessagesToMove))

	_, err = e.client.CancelMessageMoveTask(t.Context(), &sqs.CancelMessageMoveTaskInput{TaskHandle: aws.String(h)})
	e.assertCode(t, err, "InvalidParameterValue")

	e.startMove(sqs.StartMessageMoveTaskInput{SourceArn: aws.String(dlq.ARN), DestinationArn: aws.String(dest.ARN)})
	tasks, err := e.moveTasks(t.Context(), dlq.ARN, 2)
	require.NoError(t, err)
	require.Len(t, tasks, 2)
	assert.Equal(t, int64(7), aws.ToInt64(tasks[0].ApproximateNumberOfMessagesToMove), "a new task takes what is left")
	assert.Equal(t, "CANCELLED", aws.ToString(tasks[1].Status), "newest first")

	for name, tt := range map[string]struct {
		handle string
		code   string
	}{
		"not a handle":   {"foobared", "InvalidParameterValue"},
		"unknown task":   {handle("10f57157-fc38-4da9-a113-4de7e12d05aa", dlq.ARN), "ResourceNotFoundException"},
		"unknown source": {handle("10f57157-fc38-4da9-a113-4de7e12d05aa", dlq.ARN+"-missing"), "ResourceNotFoundException"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := e.client.CancelMessageMoveTask(t.Context(), &sqs.CancelMessageMoveTaskInput{TaskHandle: aws.String(tt.handle)})
			e.assertCode(t, err, tt.code)
		})
	}
}

func TestCloseStopsMessageMoveTasks(t *testing.T) {
	e := newEnv(t)
	e.embeddedOnly(t, "closes the embedded server mid-move")
	dlq, dest := e.queue(nil), e.queue(nil)
	e.redriveSource(dlq)
	bodies := e.fill(dlq, 10)
	e.startMove(sqs.StartMessageMoveTaskInput{SourceArn: aws.String(dlq.ARN), DestinationArn: aws.String(dest.ARN), MaxNumberOfMessagesPerSecond: aws.Int32(1)})
	e.runMove(dlq.ARN, 2*time.Second)

	e.b.Server.Close() // returns once the task's goroutine has
	task := e.moveTask(dlq.ARN)
	assert.Equal(t, "FAILED", aws.ToString(task.Status))
	assert.Equal(t, "sqslocal: the server was closed", aws.ToString(task.FailureReason))
	assert.Equal(t, int64(3), task.ApproximateNumberOfMessagesMoved)
	e.clock.Advance(time.Minute)
	assert.Equal(t, bodies[:3], e.bodies(dest), "nothing moves after Close")
	e.assertConserved(t, bodies, dlq, dest)

	e.startMove(sqs.StartMessageMoveTaskInput{SourceArn: aws.String(dlq.ARN), DestinationArn: aws.String(dest.ARN)})
	assert.Equal(t, "FAILED", aws.ToString(e.moveTask(dlq.ARN).Status), "a task started after Close fails at once")
	e.assertConserved(t, bodies, dlq, dest)
}

func TestListMessageMoveTasks(t *testing.T) {
	e := newEnv(t)
	e.fauxqsDiffers(t, fauxqsNoMoves)
	dlq := e.queue(nil)
	e.redriveSource(dlq)
	tasks, err := e.moveTasks(t.Context(), dlq.ARN, 10)
	require.NoError(t, err)
	assert.Empty(t, tasks)

	// A task on an empty queue completes at once.
	for rate := range int32(11) {
		e.startMove(sqs.StartMessageMoveTaskInput{SourceArn: aws.String(dlq.ARN), MaxNumberOfMessagesPerSecond: aws.Int32(rate + 1)})
	}
	out, err := e.client.ListMessageMoveTasks(t.Context(), &sqs.ListMessageMoveTasksInput{SourceArn: aws.String(dlq.ARN)})
	require.NoError(t, err)
	require.Len(t, out.Results, 1, "the latest by default")
	assert.Equal(t, int32(11), aws.ToInt32(out.Results[0].MaxNumberOfMessagesPerSecond))
	assert.Equal(t, "COMPLETED", aws.ToString(out.Results[0].Status))

	tasks, err = e.moveTasks(t.Context(), dlq.ARN, 10)
	require.NoError(t, err)
	var rates []int32
	for _, task := range tasks {
		rates = append(rates, aws.ToInt32(task.MaxNumberOfMessagesPerSecond))
	}
	assert.Equal(t, []int32{11, 10, 9, 8, 7, 6, 5, 4, 3, 2}, rates, "the 10 latest, newest first")

	for _, n := range []int32{0, 11} {
		_, err = e.moveTasks(t.Context(), dlq.ARN, n)
		e.assertCode(t, err, "InvalidParameterValue")
	}
	_, err = e.moveTasks(t.Context(), dlq.ARN+"-missing", 1)
	assert.ErrorAs(t, err, new(*types.ResourceNotFoundException))
	assert.ErrorContains(t, err, "SourceArn")
}
