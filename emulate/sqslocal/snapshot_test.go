package sqslocal_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
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

// snapshotsOnly is why the snapshot tests skip on an external endpoint.
const snapshotsOnly = "Snapshot and Restore are the embedded server's"

// snapshot returns a snapshot of e's server.
func (e *env) snapshot() []byte {
	e.t.Helper()
	var buf bytes.Buffer
	require.NoError(e.t, e.b.Server.Snapshot(&buf))
	return buf.Bytes()
}

// restoreServer restores snap on clock with otherwise default options.
func restoreServer(t *testing.T, snap []byte, clock *sqstest.Clock) *sqslocal.Server {
	t.Helper()
	srv, err := sqslocal.Restore(bytes.NewReader(snap), sqslocal.Options{Clock: clock})
	require.NoError(t, err)
	return srv
}

// restore returns an env on a server restored from snap, served over
// HTTP, on a new manual clock reading at.
func restore(t *testing.T, snap []byte, at time.Time) *env {
	t.Helper()
	clock := sqstest.NewClock(at)
	b := sqstest.Serve(t, restoreServer(t, snap, clock))
	return &env{t: t, b: b, client: b.Client, clock: clock}
}

// receiveAll is a receive that asks for every attribute.
var receiveAll = sqs.ReceiveMessageInput{
	MaxNumberOfMessages:         10,
	MessageAttributeNames:       []string{"All"},
	MessageSystemAttributeNames: []types.MessageSystemAttributeName{types.MessageSystemAttributeNameAll},
}

// assertReceived asserts that got is the message sent as sent, with body,
// mixedAttributes and the receive count.
func assertReceived(t *testing.T, sent *sqs.SendMessageOutput, body string, count int, got types.Message) {
	t.Helper()
	assert.Equal(t, aws.ToString(sent.MessageId), aws.ToString(got.MessageId))
	assert.Equal(t, body, aws.ToString(got.Body))
	assert.Equal(t, aws.ToString(sent.MD5OfMessageBody), aws.ToString(got.MD5OfBody))
	assert.Equal(t, aws.ToString(sent.MD5OfMessageAttributes), aws.ToString(got.MD5OfMessageAttributes))
	assert.Equal(t, mixedAttributes(), got.MessageAttributes)
	assert.Equal(t, fmt.Sprint(count), got.Attributes["ApproximateReceiveCount"])
}

func TestSnapshotRoundTrip(t *testing.T) {
	e := newEnv(t)
	e.embeddedOnly(t, snapshotsOnly)
	dlq := e.queue(map[string]string{"MessageRetentionPeriod": "1209600"})
	q := e.queue(map[string]string{
		"VisibilityTimeout":      "60",
		"MaximumMessageSize":     "4096",
		"MessageRetentionPeriod": "86400",
		"RedrivePolicy":          `{"deadLetterTargetArn":"` + dlq.ARN + `","maxReceiveCount":5}`,
	})
	idle := e.queue(map[string]string{"DelaySeconds": "30", "ReceiveMessageWaitTimeSeconds": "20"})
	_, err := e.client.TagQueue(t.Context(), &sqs.TagQueueInput{QueueUrl: aws.String(q.URL), Tags: map[string]string{"team": "payments", "env": "dev"}})
	require.NoError(t, err)
	src := e.redriveSource(dlq)
	e.deadLetter(src, "dead")

	inFlight := e.send(q, "in flight", mixedAttributes())
	held := e.send(q, "held", mixedAttributes())
	handles := e.receive(q, sqs.ReceiveMessageInput{MaxNumberOfMessages: 2}) // hidden for 60s
	require.Len(t, handles, 2)
	e.advance(10 * time.Second)
	visible, err := e.client.SendMessage(t.Context(), &sqs.SendMessageInput{
		QueueUrl: aws.String(q.URL), MessageBody: aws.String("visible"), MessageAttributes: mixedAttributes(),
		MessageSystemAttributes: map[string]types.MessageSystemAttributeValue{"AWSTraceHeader": {DataType: aws.String("String"), StringValue: aws.String("Root=1-5759e988-bd862e3fe1be46a994272793")}},
	})
	require.NoError(t, err)
	delayed, err := e.client.SendMessage(t.Context(), &sqs.SendMessageInput{QueueUrl: aws.String(q.URL), MessageBody: aws.String("delayed"), MessageAttributes: mixedAttributes(), DelaySeconds: 120})
	require.NoError(t, err)
	gone := e.queue(nil)
	_, err = e.client.DeleteQueue(t.Context(), &sqs.DeleteQueueInput{QueueUrl: aws.String(gone.URL)})
	require.NoError(t, err)

	r := restore(t, e.snapshot(), e.clock.Now())

	t.Run("queues", func(t *testing.T) {
		for _, q := range []sqstest.Queue{q, dlq, idle, src} {
			assert.Equal(t, e.attributes(q, types.QueueAttributeNameAll), r.attributes(q, types.QueueAttributeNameAll), q.Name)
			assert.Equal(t, e.tags(q.URL), r.tags(q.URL), q.Name)
			assert.Equal(t, e.messages(q), r.messages(q), q.Name)
		}
		sources, err := r.client.ListDeadLetterSourceQueues(t.Context(), &sqs.ListDeadLetterSourceQueuesInput{QueueUrl: aws.String(dlq.URL)})
		require.NoError(t, err)
		assert.ElementsMatch(t, []string{q.Name, src.Name}, queueNames(sources.QueueUrls))
		assert.Equal(t, [3]string{"1", "2", "1"}, r.counts(q), "visible, in flight, delayed")
	})
	t.Run("deleted queue name stays reserved", func(t *testing.T) {
		_, err := r.client.CreateQueue(t.Context(), &sqs.CreateQueueInput{QueueName: aws.String(gone.Name)})
		assert.ErrorAs(t, err, new(*types.QueueDeletedRecently))
	})

	// The visible message comes at once, as it was; each received message
	// is deleted, so a second delivery would show.
	var received []string
	take := func(sent *sqs.SendMessageOutput, body string, count int) types.Message {
		t.Helper()
		m := r.receiveOne(q, receiveAll)
		assertReceived(t, sent, body, count, m)
		r.deleteMessage(q, m.ReceiptHandle)
		received = append(received, aws.ToString(m.MessageId))
		return m
	}
	m := take(visible, "visible", 1)
	assert.Equal(t, "Root=1-5759e988-bd862e3fe1be46a994272793", m.Attributes["AWSTraceHeader"])
	assert.Equal(t, fmt.Sprint(epoch.Add(10*time.Second).UnixMilli()), m.Attributes["SentTimestamp"])

	// The latest receipt handle from before the restart still works.
	r.deleteMessage(q, handles[1].ReceiptHandle)
	assert.Equal(t, [3]string{"0", "1", "1"}, r.counts(q), "held is deleted")

	// The visibility timeout and the delay run on the new clock.
	r.advance(49 * time.Second)
	assert.Empty(t, r.receive(q, receiveAll), "in flight for 60s from its receive")
	r.advance(time.Second)
	m = take(inFlight, "in flight", 2)
	assert.Equal(t, fmt.Sprint(epoch.UnixMilli()), m.Attributes["ApproximateFirstReceiveTimestamp"])
	r.advance(69 * time.Second)
	assert.Empty(t, r.receive(q, receiveAll), "delayed for 120s from its send")
	r.advance(time.Second)
	take(delayed, "delayed", 1)

	dead := r.receiveOne(dlq, receiveAll)
	assert.Equal(t, "dead", aws.ToString(dead.Body))
	assert.Equal(t, src.ARN, dead.Attributes["DeadLetterQueueSourceArn"])
	assert.Equal(t, "3", dead.Attributes["ApproximateReceiveCount"], "two receives on src, one on dlq")

	// Nothing lost or doubled: each message sent came once, held (deleted)
	// never, and none is left.
	assert.Equal(t, []string{aws.ToString(visible.MessageId), aws.ToString(inFlight.MessageId), aws.ToString(delayed.MessageId)}, received)
	assert.NotContains(t, received, aws.ToString(held.MessageId))
	r.advance(time.Hour)
	assert.Empty(t, r.receive(q, receiveAll))
	_, err = r.client.CreateQueue(t.Context(), &sqs.CreateQueueInput{QueueName: aws.String(gone.Name)})
	assert.NoError(t, err, "the reservation ends 60s after the deletion on the new clock")
}

// deleteMessage deletes the message of handle from q.
func (e *env) deleteMessage(q sqstest.Queue, handle *string) {
	e.t.Helper()
	_, err := e.client.DeleteMessage(e.t.Context(), &sqs.DeleteMessageInput{QueueUrl: aws.String(q.URL), ReceiptHandle: handle})
	require.NoError(e.t, err)
}

// queueNames returns the queue names of urls.
func queueNames(urls []string) []string {
	var out []string
	for _, u := range urls {
		out = append(out, u[strings.LastIndex(u, "/")+1:])
	}
	return out
}

func TestRestoreOnLaterClock(t *testing.T) {
	e := newEnv(t)
	e.embeddedOnly(t, snapshotsOnly)
	q := e.queue(map[string]string{"VisibilityTimeout": "600"})
	short := e.queue(map[string]string{"MessageRetentionPeriod": "60"})
	e.send(short, "expires", nil)
	e.send(q, "in flight", nil)
	e.receiveOne(q, sqs.ReceiveMessageInput{})
	_, err := e.client.SendMessage(t.Context(), &sqs.SendMessageInput{QueueUrl: aws.String(q.URL), MessageBody: aws.String("delayed"), DelaySeconds: 900})
	require.NoError(t, err)
	assert.Equal(t, [3]string{"0", "1", "1"}, e.counts(q))

	// The time between Snapshot and Restore counts.
	r := restore(t, e.snapshot(), e.clock.Now().Add(time.Hour))
	assert.Equal(t, [3]string{"2", "0", "0"}, r.counts(q))
	assert.ElementsMatch(t, []string{"in flight", "delayed"}, bodiesOf(r.receive(q, sqs.ReceiveMessageInput{MaxNumberOfMessages: 10})))
	assert.Empty(t, r.bodies(short), "past its retention period")
}

// bodiesOf returns the bodies of msgs.
func bodiesOf(msgs []types.Message) []string {
	var out []string
	for _, m := range msgs {
		out = append(out, aws.ToString(m.Body))
	}
	return out
}

func TestSnapshotStopsMessageMoveTasks(t *testing.T) {
	e := newEnv(t)
	e.embeddedOnly(t, snapshotsOnly)
	dlq, dest := e.queue(nil), e.queue(nil)
	src := e.redriveSource(dlq)
	e.deadLetter(src, "a")
	e.startMove(sqs.StartMessageMoveTaskInput{SourceArn: aws.String(dlq.ARN), DestinationArn: aws.String(dest.ARN)})
	e.deadLetter(src, "b", "c")
	cancelled := e.startMove(sqs.StartMessageMoveTaskInput{SourceArn: aws.String(dlq.ARN), DestinationArn: aws.String(dest.ARN), MaxNumberOfMessagesPerSecond: aws.Int32(1)})
	_, err := e.client.CancelMessageMoveTask(t.Context(), &sqs.CancelMessageMoveTaskInput{TaskHandle: aws.String(cancelled)})
	require.NoError(t, err)
	require.Eventually(t, func() bool { return aws.ToString(e.moveTask(dlq.ARN).Status) == "CANCELLED" }, pollerTimeout, time.Millisecond)
	e.deadLetter(src, "d")
	running := e.startMove(sqs.StartMessageMoveTaskInput{SourceArn: aws.String(dlq.ARN), DestinationArn: aws.String(dest.ARN), MaxNumberOfMessagesPerSecond: aws.Int32(1)})
	require.Equal(t, []string{"a", "b", "c"}, e.bodies(dest), "each task moved its first message at once")

	r := restore(t, e.snapshot(), e.clock.Now())
	assert.Equal(t, "RUNNING", aws.ToString(e.moveTask(dlq.ARN).Status), "the snapshot stops the task in its own view only")

	tasks, err := r.moveTasks(t.Context(), dlq.ARN, 10)
	require.NoError(t, err)
	want := []types.ListMessageMoveTasksResultEntry{
		{Status: aws.String("FAILED"), FailureReason: aws.String("sqslocal: the task was running when the server's snapshot was taken"), MaxNumberOfMessagesPerSecond: aws.Int32(1), ApproximateNumberOfMessagesMoved: 1, ApproximateNumberOfMessagesToMove: aws.Int64(2)},
		{Status: aws.String("CANCELLED"), MaxNumberOfMessagesPerSecond: aws.Int32(1), ApproximateNumberOfMessagesMoved: 1, ApproximateNumberOfMessagesToMove: aws.Int64(2)},
		{Status: aws.String("COMPLETED"), ApproximateNumberOfMessagesMoved: 1, ApproximateNumberOfMessagesToMove: aws.Int64(1)},
	}
	for i := range want {
		want[i].SourceArn, want[i].DestinationArn, want[i].StartedTimestamp = aws.String(dlq.ARN), aws.String(dest.ARN), epoch.UnixMilli()
	}
	assert.Equal(t, want, tasks, "newest first, none with a handle")
	r.assertConserved(t, []string{"a", "b", "c", "d"}, dest, dlq)
	assert.Equal(t, []string{"d"}, r.bodies(dlq))

	_, err = r.client.CancelMessageMoveTask(t.Context(), &sqs.CancelMessageMoveTaskInput{TaskHandle: aws.String(running)})
	r.assertCode(t, err, "InvalidParameterValue")
	assert.ErrorContains(t, err, "this one is FAILED")

	r.startMove(sqs.StartMessageMoveTaskInput{SourceArn: aws.String(dlq.ARN), DestinationArn: aws.String(dest.ARN)})
	assert.Equal(t, "COMPLETED", aws.ToString(r.moveTask(dlq.ARN).Status))
	assert.Equal(t, []string{"a", "b", "c", "d"}, r.bodies(dest))
	assert.Empty(t, r.bodies(dlq))
}

func TestSnapshotWhileServing(t *testing.T) {
	e := newEnv(t)
	e.embeddedOnly(t, snapshotsOnly)
	q := e.queue(map[string]string{"VisibilityTimeout": "0"})
	const n = 100
	done := make(chan struct{})
	go func() { // sends m0, m1, ... one after the other
		defer close(done)
		for i := range n {
			_, err := e.client.SendMessage(t.Context(), &sqs.SendMessageInput{QueueUrl: aws.String(q.URL), MessageBody: aws.String(fmt.Sprint("m", i))})
			assert.NoError(t, err)
		}
	}()
	receiving := make(chan struct{})
	go func() { // receives the whole time, changing receive counts
		defer close(receiving)
		for {
			select {
			case <-done:
				return
			default:
			}
			_, err := e.client.ReceiveMessage(t.Context(), &sqs.ReceiveMessageInput{QueueUrl: aws.String(q.URL), MaxNumberOfMessages: 10})
			assert.NoError(t, err)
		}
	}()
	var snaps [][]byte
	for running := true; running; {
		select {
		case <-done:
			running = false
		default:
		}
		snaps = append(snaps, e.snapshot())
	}
	<-receiving

	clock := sqstest.NewClock(e.clock.Now())
	for i, snap := range snaps {
		msgs, err := restoreServer(t, snap, clock).Messages(q.Name)
		require.NoError(t, err)
		for j, m := range msgs {
			require.Equal(t, fmt.Sprint("m", j), m.Body, "snapshot %d holds the messages sent before it, in order, once each", i)
		}
	}
	final, err := restoreServer(t, snaps[len(snaps)-1], clock).Depth(q.Name)
	require.NoError(t, err)
	assert.Equal(t, n, final.Total(), "the last snapshot, taken after the last send, holds every message")
}

func TestSnapshotFormat(t *testing.T) {
	e := newEnv(t)
	e.embeddedOnly(t, snapshotsOnly)
	q := e.queue(nil)
	e.send(q, "hello", map[string]types.MessageAttributeValue{"k": str("v")})
	e.receiveOne(q, sqs.ReceiveMessageInput{})

	var doc map[string]any
	require.NoError(t, json.Unmarshal(e.snapshot(), &doc))
	assert.Equal(t, "sqslocal.snapshot/v1", doc["format"])
	assert.Equal(t, epoch.Format(time.RFC3339), doc["takenAt"])
	assert.Equal(t, []string{"account", "format", "queues", "region", "takenAt"}, slices.Sorted(maps.Keys(doc)))
	queue := doc["queues"].([]any)[0].(map[string]any)
	assert.Equal(t, []string{"attributes", "createdAt", "messages", "modifiedAt", "name"}, slices.Sorted(maps.Keys(queue)))
	msg := queue["messages"].([]any)[0].(map[string]any)
	assert.Equal(t, []string{"body", "firstReceivedAt", "id", "lastReceivedAt", "md5OfBody", "md5OfMessageAttributes", "messageAttributes",
		"receiptHandle", "receiveCount", "sentAt", "state", "until"}, slices.Sorted(maps.Keys(msg)))
	assert.Equal(t, "in-flight", msg["state"])
	assert.Equal(t, epoch.Add(30*time.Second).Format(time.RFC3339), msg["until"])
	assert.Equal(t, map[string]any{"k": map[string]any{"DataType": "String", "StringValue": "v"}}, msg["messageAttributes"])

	empty, err := sqslocal.NewServer(sqslocal.Options{})
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, empty.Snapshot(&buf))
	restored, err := sqslocal.Restore(&buf, sqslocal.Options{})
	require.NoError(t, err)
	_, err = restored.Depth(q.Name)
	assert.ErrorIs(t, err, sqslocal.ErrQueueNotFound, "an empty server restores empty")
}

func TestRestoreRejectsBadSnapshots(t *testing.T) {
	e := newEnv(t)
	e.embeddedOnly(t, snapshotsOnly)
	q := e.queue(nil)
	e.send(q, "hello", map[string]types.MessageAttributeValue{"k": str("v")})
	e.receiveOne(q, sqs.ReceiveMessageInput{})
	snap := e.snapshot()
	id := e.messages(q)[0].ID

	// edit returns snap with change applied to its JSON.
	edit := func(change func(doc, queue, msg map[string]any)) string {
		var doc map[string]any
		require.NoError(t, json.Unmarshal(snap, &doc))
		queue := doc["queues"].([]any)[0].(map[string]any)
		change(doc, queue, queue["messages"].([]any)[0].(map[string]any))
		out, err := json.Marshal(doc)
		require.NoError(t, err)
		return string(out)
	}
	inQueue := fmt.Sprintf("queue %q: ", q.Name)
	inMessage := inQueue + fmt.Sprintf("message %q: ", id)
	// asFIFO makes the queue a FIFO queue, its message as msgFields say.
	asFIFO := func(sequence int, msgFields map[string]any) string {
		return edit(func(_, queue, msg map[string]any) {
			queue["name"] = q.Name + ".fifo"
			queue["attributes"].(map[string]any)["FifoQueue"] = "true"
			queue["sequence"] = sequence
			delete(msg, "receiptHandle") // it names the queue
			maps.Copy(msg, msgFields)
		})
	}
	inFIFOMessage := fmt.Sprintf("queue %q: message %q: ", q.Name+".fifo", id)
	fifoMessage := map[string]any{"messageGroupId": "g", "messageDeduplicationId": "d", "sequenceNumber": "00000000000000000001"}
	tests := []struct {
		name string
		snap string
		want string
	}{
		{"empty", "", "snapshot is not valid JSON: unexpected end of JSON input"},
		{"truncated", string(snap[:len(snap)/2]), "snapshot is not valid JSON: unexpected end of JSON input"},
		{"trailing data", string(snap) + "{}", "snapshot is not valid JSON: invalid character '{' after top-level value"},
		{"a JSON array", "[]", "snapshot is a JSON array, not an object"},
		{"null", "null", "snapshot has no format field"},
		{"no format", edit(func(doc, _, _ map[string]any) { delete(doc, "format") }), "snapshot has no format field"},
		{"another version", edit(func(doc, _, _ map[string]any) { doc["format"] = "sqslocal.snapshot/v2" }),
			`snapshot format "sqslocal.snapshot/v2" is not supported: this server reads "sqslocal.snapshot/v1"`},
		{"a numeric version", edit(func(doc, _, _ map[string]any) { doc["format"] = 2 }), "snapshot format 2 is not supported"},
		{"unknown field", edit(func(_, queue, _ map[string]any) { queue["colour"] = "red" }), `malformed snapshot: json: unknown field "colour"`},
		{"wrong type", edit(func(_, _, msg map[string]any) { msg["receiveCount"] = "1" }), "malformed snapshot: json: cannot unmarshal string"},
		{"another account", edit(func(doc, _, _ map[string]any) { doc["account"] = "111111111111" }),
			`snapshot is of account "111111111111" in region "us-east-1", the options name account "123456789012" in region "us-east-1"`},
		{"invalid queue name", edit(func(_, queue, _ map[string]any) { queue["name"] = "a b" }), `queue "a b": Value a b for parameter QueueName is invalid`},
		{"queue twice", edit(func(doc, queue, _ map[string]any) { doc["queues"] = []any{queue, queue} }), inQueue + "the snapshot holds the queue twice"},
		{"invalid attribute", edit(func(_, queue, _ map[string]any) { queue["attributes"].(map[string]any)["VisibilityTimeout"] = "99999" }),
			inQueue + "Invalid value for the parameter VisibilityTimeout"},
		{"unknown attribute", edit(func(_, queue, _ map[string]any) { queue["attributes"].(map[string]any)["QueueArn"] = "x" }), inQueue + "Unknown Attribute QueueArn."},
		{"invalid redrive policy", edit(func(_, queue, _ map[string]any) { queue["attributes"].(map[string]any)["RedrivePolicy"] = "{}" }),
			inQueue + "Value {} for parameter RedrivePolicy is invalid"},
		{"invalid tag", edit(func(_, queue, _ map[string]any) { queue["tags"] = map[string]any{"aws:x": "1"} }), inQueue + "Value aws:x for parameter Tags is invalid"},
		{"corrupt body", edit(func(_, _, msg map[string]any) { msg["body"] = "hellO" }), inMessage + "md5OfBody"},
		{"corrupt attribute", edit(func(_, _, msg map[string]any) {
			msg["messageAttributes"].(map[string]any)["k"].(map[string]any)["StringValue"] = "w"
		}), inMessage + "md5OfMessageAttributes"},
		{"message twice", edit(func(_, queue, msg map[string]any) { queue["messages"] = []any{msg, msg} }), inMessage + "the snapshot holds the message twice"},
		{"unknown state", edit(func(_, _, msg map[string]any) { msg["state"] = "lost" }), inMessage + `state "lost" is not visible, in-flight or delayed`},
		{"in flight without until", edit(func(_, _, msg map[string]any) { delete(msg, "until") }), inMessage + "state in-flight without an until time"},
		{"visible with until", edit(func(_, _, msg map[string]any) { msg["state"] = "visible" }), inMessage + "state visible with an until time"},
		{"delayed after a receive", edit(func(_, _, msg map[string]any) { msg["state"] = "delayed" }), inMessage + "state delayed with receiveCount 1"},
		{"in flight never received", edit(func(_, _, msg map[string]any) { msg["receiveCount"] = 0 }), inMessage + "state in-flight with receiveCount 0"},
		{"foreign receipt handle", edit(func(_, _, msg map[string]any) { msg["receiptHandle"] = "bm9wZQ" }), inMessage + `receiptHandle "bm9wZQ" is not one of this message`},
		{"a sequence number on a standard queue", edit(func(_, _, msg map[string]any) { msg["sequenceNumber"] = "00000000000000000001" }),
			inMessage + "a deduplication ID or a sequence number on a standard queue"},
		{"a standard queue with a sequence", edit(func(_, queue, _ map[string]any) { queue["sequence"] = 3 }),
			inQueue + "a standard queue with a FIFO queue's sequence or deduplication window"},
		{"a FIFO message without a group", asFIFO(1, nil), inFIFOMessage + "a FIFO queue's message without a group or a deduplication ID"},
		{"a FIFO sequence number the queue did not give", asFIFO(0, fifoMessage),
			inFIFOMessage + `sequence number "00000000000000000001" is not one the queue gave (its last is 0)`},
		{"running task", edit(func(_, queue, _ map[string]any) {
			queue["moveTasks"] = []any{map[string]any{"taskId": "t1", "status": "RUNNING", "startedAt": epoch}}
		}), inQueue + `message move task "t1": status "RUNNING" is not one a snapshot holds`},
		{"deleted name of a live queue", edit(func(doc, queue, _ map[string]any) {
			doc["deletedQueues"] = []any{map[string]any{"name": queue["name"], "deletedAt": epoch}}
		}), fmt.Sprintf("deleted queue %q: the snapshot holds the name twice", q.Name)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, err := sqslocal.Restore(strings.NewReader(tt.snap), sqslocal.Options{})
			assert.Nil(t, srv)
			require.Error(t, err)
			assert.Contains(t, err.Error(), "sqslocal: restore: "+tt.want)
		})
	}
	t.Run("invalid options", func(t *testing.T) {
		_, err := sqslocal.Restore(bytes.NewReader(snap), sqslocal.Options{Account: "1"})
		assert.ErrorContains(t, err, `sqslocal: options: Account "1"`)
	})
	t.Run("the unedited snapshot restores", func(t *testing.T) {
		_, err := sqslocal.Restore(strings.NewReader(edit(func(_, _, _ map[string]any) {})), sqslocal.Options{})
		assert.NoError(t, err)
	})
	t.Run("a consistent FIFO edit restores", func(t *testing.T) {
		_, err := sqslocal.Restore(strings.NewReader(asFIFO(1, fifoMessage)), sqslocal.Options{})
		assert.NoError(t, err)
	})
}
