package sqslocal_test

import (
	"fmt"
	"maps"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/emulate/sqslocal/sqstest"
)

// fifoQueue creates a FIFO queue with attrs besides FifoQueue.
func (e *env) fifoQueue(attrs map[string]string) sqstest.Queue {
	e.t.Helper()
	all := map[string]string{"FifoQueue": "true"}
	maps.Copy(all, attrs)
	return e.queue(all)
}

// sendFIFO sends body to q in group with the deduplication ID dedup ("":
// none, for content-based deduplication).
func (e *env) sendFIFO(q sqstest.Queue, body, group, dedup string) *sqs.SendMessageOutput {
	e.t.Helper()
	in := &sqs.SendMessageInput{QueueUrl: aws.String(q.URL), MessageBody: aws.String(body), MessageGroupId: aws.String(group)}
	if dedup != "" {
		in.MessageDeduplicationId = aws.String(dedup)
	}
	out, err := e.client.SendMessage(e.t.Context(), in)
	require.NoError(e.t, err, "send %q to group %s", body, group)
	return out
}

// fifoReceive receives up to n messages of q with their system
// attributes, hiding them for visibility seconds.
func (e *env) fifoReceive(q sqstest.Queue, n, visibility int32) []types.Message {
	e.t.Helper()
	return e.receive(q, sqs.ReceiveMessageInput{
		MaxNumberOfMessages:         n,
		VisibilityTimeout:           visibility,
		MessageSystemAttributeNames: []types.MessageSystemAttributeName{types.MessageSystemAttributeNameAll},
	})
}

func TestFIFOQueueAttributes(t *testing.T) {
	e := newEnv(t)
	q := e.fifoQueue(map[string]string{"ContentBasedDeduplication": "true"})
	got := e.attributes(q, types.QueueAttributeNameAll)
	assert.Equal(t, "true", got["FifoQueue"])
	assert.Equal(t, "true", got["ContentBasedDeduplication"])
	assert.Equal(t, "queue", got["DeduplicationScope"])
	assert.Equal(t, "perQueue", got["FifoThroughputLimit"])

	high := e.fifoQueue(map[string]string{"DeduplicationScope": "messageGroup", "FifoThroughputLimit": "perMessageGroupId"})
	got = e.attributes(high, types.QueueAttributeNameAll)
	assert.Equal(t, "messageGroup", got["DeduplicationScope"])
	assert.Equal(t, "perMessageGroupId", got["FifoThroughputLimit"])

	_, err := e.client.SetQueueAttributes(t.Context(), &sqs.SetQueueAttributesInput{QueueUrl: aws.String(q.URL), Attributes: map[string]string{"ContentBasedDeduplication": "false"}})
	require.NoError(t, err)
	assert.Equal(t, "false", e.attributes(q, types.QueueAttributeNameContentBasedDeduplication)["ContentBasedDeduplication"])
	std := e.queue(nil)
	assert.NotContains(t, e.attributes(std, types.QueueAttributeNameAll), "FifoQueue", "a standard queue has no FIFO attributes")
}

func TestFIFOQueueRules(t *testing.T) {
	e := newEnv(t)
	e.embeddedOnly(t, "fauxqs checks neither queue names nor attributes (FAUXQS.md)")
	fifo := e.fifoQueue(nil)
	std := e.queue(nil)
	create := func(name string, attrs map[string]string) error {
		_, err := e.client.CreateQueue(t.Context(), &sqs.CreateQueueInput{QueueName: aws.String(sqstest.QueuePrefix + name), Attributes: attrs})
		return err
	}
	fifoAttr := map[string]string{"FifoQueue": "true"}
	tests := []struct {
		name string
		err  error
		code string
	}{
		{"FIFO attribute without the suffix", create("q", fifoAttr), "InvalidParameterValue"},
		{"suffix without the FIFO attribute", create("q.fifo", nil), "InvalidParameterValue"},
		{"FIFO name too long", create(fmt.Sprintf("%075d.fifo", 0), fifoAttr), "InvalidParameterValue"},
		{"FIFO attribute on a standard queue", create("q", map[string]string{"ContentBasedDeduplication": "true"}), "InvalidAttributeName"},
		{"per-group throughput with queue scope", create("t.fifo", map[string]string{"FifoQueue": "true", "FifoThroughputLimit": "perMessageGroupId"}), "InvalidAttributeValue"},
		{"unknown scope", create("s.fifo", map[string]string{"FifoQueue": "true", "DeduplicationScope": "account"}), "InvalidAttributeValue"},
		{"standard dead-letter queue of a FIFO queue", create("d.fifo", map[string]string{"FifoQueue": "true", "RedrivePolicy": `{"deadLetterTargetArn":"` + std.ARN + `","maxReceiveCount":1}`}), "InvalidParameterValue"},
		{"FIFO dead-letter queue of a standard queue", create("d", map[string]string{"RedrivePolicy": `{"deadLetterTargetArn":"` + fifo.ARN + `","maxReceiveCount":1}`}), "InvalidParameterValue"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { e.assertCode(t, tt.err, tt.code) })
	}
	_, err := e.client.SetQueueAttributes(t.Context(), &sqs.SetQueueAttributesInput{QueueUrl: aws.String(fifo.URL), Attributes: map[string]string{"FifoQueue": "false"}})
	e.assertCode(t, err, "InvalidAttributeValue")
}

func TestFIFOSendNeedsGroupAndDeduplication(t *testing.T) {
	e := newEnv(t)
	q := e.fifoQueue(nil)
	send := func(in sqs.SendMessageInput) error {
		in.QueueUrl, in.MessageBody = aws.String(q.URL), aws.String("x")
		_, err := e.client.SendMessage(t.Context(), &in)
		return err
	}
	e.assertCode(t, send(sqs.SendMessageInput{MessageDeduplicationId: aws.String("d")}), "MissingParameter")
	e.assertCode(t, send(sqs.SendMessageInput{MessageGroupId: aws.String("g")}), "InvalidParameterValue")
	e.assertCode(t, send(sqs.SendMessageInput{MessageGroupId: aws.String("g"), MessageDeduplicationId: aws.String("d"), DelaySeconds: 5}), "InvalidParameterValue")

	e.fauxqsDiffers(t, "checks neither a FIFO batch's entries nor the characters of a MessageGroupId")
	e.assertCode(t, send(sqs.SendMessageInput{MessageGroupId: aws.String("a group"), MessageDeduplicationId: aws.String("d")}), "InvalidParameterValue")
	_, err := e.client.SendMessageBatch(t.Context(), &sqs.SendMessageBatchInput{QueueUrl: aws.String(q.URL), Entries: []types.SendMessageBatchRequestEntry{
		{Id: aws.String("1"), MessageBody: aws.String("x"), MessageGroupId: aws.String("g"), MessageDeduplicationId: aws.String("1")},
		{Id: aws.String("2"), MessageBody: aws.String("y"), MessageGroupId: aws.String("g")},
	}})
	e.assertCode(t, err, "InvalidParameterValue")
	assert.Equal(t, [3]string{"0", "0", "0"}, e.counts(q), "a failed batch sends nothing")
}

func TestFIFOSequenceNumbersIncrease(t *testing.T) {
	e := newEnv(t)
	q := e.fifoQueue(nil)
	var last string
	for i := range 3 {
		out := e.sendFIFO(q, "m"+strconv.Itoa(i), "g"+strconv.Itoa(i%2), "d"+strconv.Itoa(i))
		seq := aws.ToString(out.SequenceNumber)
		require.NotEmpty(t, seq, "a FIFO send answers a SequenceNumber")
		require.Greater(t, mustInt64(t, seq), int64(0))
		if last != "" {
			assert.Greater(t, mustInt64(t, seq), mustInt64(t, last), "SequenceNumber increases")
		}
		last = seq
	}
	std := e.queue(nil)
	assert.Nil(t, e.send(std, "x", nil).SequenceNumber, "a standard queue gives none")
}

func TestFIFODeduplication(t *testing.T) {
	e := newEnv(t)
	e.embeddedOnly(t, "advances the clock past the five-minute deduplication interval")
	q := e.fifoQueue(map[string]string{"ContentBasedDeduplication": "true"})
	first := e.sendFIFO(q, "a", "g", "d1")
	again := e.sendFIFO(q, "a changed body", "g", "d1")
	assert.Equal(t, aws.ToString(first.MessageId), aws.ToString(again.MessageId), "a duplicate answers the first message")
	assert.Equal(t, aws.ToString(first.SequenceNumber), aws.ToString(again.SequenceNumber))
	e.sendFIFO(q, "a", "other", "d1") // queue scope: another group's duplicate too
	byContent := e.sendFIFO(q, "same body", "g", "")
	assert.Equal(t, aws.ToString(byContent.MessageId), aws.ToString(e.sendFIFO(q, "same body", "g", "").MessageId), "content-based deduplication")
	assert.Equal(t, [3]string{"2", "0", "0"}, e.counts(q))

	e.advance(5*time.Minute + time.Second)
	later := e.sendFIFO(q, "a", "g", "d1")
	assert.NotEqual(t, aws.ToString(first.MessageId), aws.ToString(later.MessageId), "past the interval the ID is new again")
	assert.Equal(t, [3]string{"3", "0", "0"}, e.counts(q))

	scoped := e.fifoQueue(map[string]string{"DeduplicationScope": "messageGroup"})
	e.sendFIFO(scoped, "a", "g1", "d")
	e.sendFIFO(scoped, "a", "g2", "d")
	e.sendFIFO(scoped, "a", "g2", "d")
	assert.Equal(t, [3]string{"2", "0", "0"}, e.counts(scoped), "message-group scope: one per group")
}

func TestFIFOReceiveKeepsOrderAndLocksGroups(t *testing.T) {
	e := newEnv(t)
	q := e.fifoQueue(nil)
	for i, m := range []string{"a1", "a2", "b1", "a3", "b2"} {
		e.sendFIFO(q, m, m[:1], strconv.Itoa(i))
	}
	a := e.fifoReceive(q, 1, 30)
	require.Equal(t, []string{"a1"}, bodiesOf(a))
	assert.Equal(t, "a", a[0].Attributes["MessageGroupId"])
	assert.Equal(t, "0", a[0].Attributes["MessageDeduplicationId"])
	assert.NotEmpty(t, a[0].Attributes["SequenceNumber"])
	b := e.fifoReceive(q, 1, 30)
	require.Equal(t, []string{"b1"}, bodiesOf(b), "group a is locked while a1 is in flight")
	assert.Empty(t, e.fifoReceive(q, 10, 30), "both groups are locked")

	e.deleteMessage(q, a[0].ReceiptHandle)
	assert.Equal(t, []string{"a2"}, bodiesOf(e.fifoReceive(q, 1, 30)), "deleting a1 unlocks group a, in order")

	e.embeddedOnly(t, "waits out the visibility timeout on the manual clock")
	e.advance(31 * time.Second)
	again := e.fifoReceive(q, 10, 30)
	require.Equal(t, []string{"a2", "a3", "b1", "b2"}, bodiesOf(again),
		"an expired visibility timeout unlocks the groups, order kept; a receive takes as many of one group as it can")
	assert.Equal(t, "2", again[0].Attributes["ApproximateReceiveCount"])
}

// drainFIFO receives and deletes every message of q and returns their
// bodies by group, each group in the order received.
func (e *env) drainFIFO(q sqstest.Queue) map[string][]string {
	e.t.Helper()
	out := map[string][]string{}
	for {
		got := e.fifoReceive(q, 10, 30)
		if len(got) == 0 {
			return out
		}
		for _, m := range got {
			g := m.Attributes["MessageGroupId"]
			out[g] = append(out[g], aws.ToString(m.Body))
			e.deleteMessage(q, m.ReceiptHandle)
		}
	}
}

func TestFIFOExpiredReceiptDoesNotDelete(t *testing.T) {
	e := newEnv(t)
	e.embeddedOnly(t, "waits out the visibility timeout on the manual clock")
	q := e.fifoQueue(nil)
	e.sendFIFO(q, "a1", "a", "1")
	m := e.fifoReceive(q, 1, 10)
	require.Len(t, m, 1)
	e.advance(11 * time.Second)
	_, err := e.client.DeleteMessage(t.Context(), &sqs.DeleteMessageInput{QueueUrl: aws.String(q.URL), ReceiptHandle: m[0].ReceiptHandle})
	e.assertCode(t, err, "InvalidParameterValue")
	assert.Equal(t, [3]string{"1", "0", "0"}, e.counts(q), "the message stays")
}

func TestFIFODeadLetterQueueKeepsGroupAndOrder(t *testing.T) {
	e := newEnv(t)
	dlq := e.fifoQueue(nil)
	src := e.fifoQueue(map[string]string{
		"VisibilityTimeout": "0",
		"RedrivePolicy":     `{"deadLetterTargetArn":"` + dlq.ARN + `","maxReceiveCount":1}`,
	})
	var ids []string
	for i, m := range []string{"a1", "b1", "a2"} {
		ids = append(ids, aws.ToString(e.sendFIFO(src, m, m[:1], "d"+strconv.Itoa(i)).MessageId))
	}
	for len(e.fifoReceive(src, 10, 0)) > 0 {
		// Each receive counts once more; the second moves a message.
	}
	got := e.fifoReceive(dlq, 1, 30)
	require.Equal(t, []string{"a1"}, bodiesOf(got), "the oldest first")
	assert.Equal(t, "a", got[0].Attributes["MessageGroupId"])
	e.deleteMessage(dlq, got[0].ReceiptHandle)
	assert.Equal(t, map[string][]string{"a": {"a2"}, "b": {"b1"}}, e.drainFIFO(dlq), "each group in order")
	e.fauxqsDiffers(t, "keeps the deduplication ID of a dead-lettered FIFO message")
	assert.Equal(t, ids[0], got[0].Attributes["MessageDeduplicationId"], "the dead-letter queue's deduplication ID is the original message ID")
}

func TestFIFOMessageMoveTaskKeepsGroups(t *testing.T) {
	e := newEnv(t)
	e.fauxqsDiffers(t, fauxqsNoMoves)
	dlq := e.fifoQueue(nil)
	src := e.fifoQueue(map[string]string{
		"VisibilityTimeout": "0",
		"RedrivePolicy":     `{"deadLetterTargetArn":"` + dlq.ARN + `","maxReceiveCount":1}`,
	})
	for i, m := range []string{"a1", "b1", "a2"} {
		e.sendFIFO(src, m, m[:1], "d"+strconv.Itoa(i))
	}
	for len(e.fifoReceive(src, 10, 0)) > 0 {
	}
	_, err := e.client.StartMessageMoveTask(t.Context(), &sqs.StartMessageMoveTaskInput{SourceArn: aws.String(dlq.ARN), DestinationArn: aws.String(e.queue(nil).ARN)})
	e.assertCode(t, err, "InvalidParameterValue")

	e.startMove(sqs.StartMessageMoveTaskInput{SourceArn: aws.String(dlq.ARN), MaxNumberOfMessagesPerSecond: aws.Int32(1)})
	e.advance(3 * time.Second)
	assert.Equal(t, map[string][]string{"a": {"a1", "a2"}, "b": {"b1"}}, e.drainFIFO(src), "moved back in order, groups kept")
}

func TestFIFOSnapshotKeepsSequenceAndDeduplication(t *testing.T) {
	e := newEnv(t)
	e.embeddedOnly(t, snapshotsOnly)
	q := e.fifoQueue(nil)
	first := e.sendFIFO(q, "a1", "a", "d1")
	e.sendFIFO(q, "a2", "a", "d2")
	held := e.fifoReceive(q, 1, 60)
	require.Equal(t, []string{"a1"}, bodiesOf(held))

	r := restore(t, e.snapshot(), epoch.Add(time.Second))
	assert.Equal(t, aws.ToString(first.MessageId), aws.ToString(r.sendFIFO(q, "a1", "a", "d1").MessageId), "the deduplication window survives")
	next := r.sendFIFO(q, "a3", "a", "d3")
	assert.Greater(t, mustInt64(t, aws.ToString(next.SequenceNumber)), mustInt64(t, aws.ToString(first.SequenceNumber))+1, "sequence numbers go on")
	assert.Empty(t, r.fifoReceive(q, 10, 30), "group a is still locked by a1 in flight")
	r.deleteMessage(q, held[0].ReceiptHandle)
	assert.Equal(t, []string{"a2", "a3"}, bodiesOf(r.fifoReceive(q, 10, 30)))
}

// TestFIFOConcurrentReceiversKeepGroupOrder races receivers on one FIFO
// queue: at no time are two messages of a group in flight at once, and
// each group is processed in the order it was sent.
func TestFIFOConcurrentReceiversKeepGroupOrder(t *testing.T) {
	const groups, perGroup, receivers = 8, 25, 6
	e := newEnv(t)
	q := e.fifoQueue(nil)
	for i := range perGroup {
		for g := range groups {
			e.sendFIFO(q, fmt.Sprintf("%d/%d", g, i), strconv.Itoa(g), fmt.Sprintf("%d-%d", g, i))
		}
	}
	var (
		mu       sync.Mutex
		inFlight = map[string]bool{}
		next     = map[string]int{}
		problems []string
		wg       sync.WaitGroup
	)
	for range receivers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				out, err := e.client.ReceiveMessage(t.Context(), &sqs.ReceiveMessageInput{
					QueueUrl: aws.String(q.URL), MaxNumberOfMessages: 1, VisibilityTimeout: 300,
					MessageSystemAttributeNames: []types.MessageSystemAttributeName{types.MessageSystemAttributeNameMessageGroupId},
				})
				if err != nil {
					mu.Lock()
					problems = append(problems, err.Error())
					mu.Unlock()
					return
				}
				if len(out.Messages) == 0 {
					mu.Lock()
					done := len(next) == groups && allAt(next, perGroup)
					mu.Unlock()
					if done {
						return
					}
					continue
				}
				m := out.Messages[0]
				g := m.Attributes["MessageGroupId"]
				var group, seq int
				_, scanErr := fmt.Sscanf(aws.ToString(m.Body), "%d/%d", &group, &seq)
				mu.Lock()
				switch {
				case scanErr != nil || strconv.Itoa(group) != g:
					problems = append(problems, fmt.Sprintf("message %q in group %s", aws.ToString(m.Body), g))
				case inFlight[g]:
					problems = append(problems, "two messages of group "+g+" in flight")
				case seq != next[g]:
					problems = append(problems, fmt.Sprintf("group %s: got %d, want %d", g, seq, next[g]))
				}
				inFlight[g] = true
				mu.Unlock()
				runtime.Gosched() // the message is being processed
				// Marked done before the delete: the group stays locked
				// until the delete, so no receiver can see it early.
				mu.Lock()
				inFlight[g] = false
				next[g] = seq + 1
				mu.Unlock()
				if _, err := e.client.DeleteMessage(t.Context(), &sqs.DeleteMessageInput{QueueUrl: aws.String(q.URL), ReceiptHandle: m.ReceiptHandle}); err != nil {
					mu.Lock()
					problems = append(problems, err.Error())
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	assert.Empty(t, problems)
	assert.Equal(t, [3]string{"0", "0", "0"}, e.counts(q))
}

// allAt reports whether every count in next is n.
func allAt(next map[string]int, n int) bool {
	for _, v := range next {
		if v != n {
			return false
		}
	}
	return true
}
