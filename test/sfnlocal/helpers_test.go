package sfnlocal

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	sfntypes "github.com/aws/aws-sdk-go-v2/service/sfn/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/admin"
	"github.com/redrive/redrive/message"
	"github.com/redrive/redrive/room"
	"github.com/redrive/redrive/test/roomtest"
)

// awaitLimit bounds every wait on the stack: a guard against a hang,
// not an assertion on speed (a scenario needs seconds).
const awaitLimit = 2 * time.Minute

// poll is how often a wait looks again.
const poll = 50 * time.Millisecond

// send sends bodies to the DLQ, each on breaker key, and returns their
// message ids (the messages' origin ids).
func (s *suite) send(t *testing.T, key string, bodies ...string) []string {
	t.Helper()
	ids := make([]string, len(bodies))
	for i, body := range bodies {
		out, err := s.sqs.SendMessage(t.Context(), &sqs.SendMessageInput{
			QueueUrl:    aws.String(s.e.DLQURL),
			MessageBody: aws.String(body),
			MessageAttributes: map[string]sqstypes.MessageAttributeValue{
				"breaker": {DataType: aws.String("String"), StringValue: aws.String(key)},
			},
		})
		require.NoError(t, err, "send to the DLQ")
		ids[i] = aws.ToString(out.MessageId)
	}
	return ids
}

// executionOf is the ARN of the execution the starter starts for the DLQ
// message id.
func (s *suite) executionOf(id string) string {
	name := message.ExecutionName(id, 1, 0)
	return strings.Replace(s.e.RedriveARN, ":stateMachine:", ":execution:", 1) + ":" + name
}

// await waits until the execution exists and has ended.
func (s *suite) await(t *testing.T, arn string) *sfn.DescribeExecutionOutput {
	t.Helper()
	var ex *sfn.DescribeExecutionOutput
	s.waitFor(t, "execution "+arn+" to end", func() bool {
		var err error
		ex, err = s.sfn.DescribeExecution(t.Context(), &sfn.DescribeExecutionInput{ExecutionArn: aws.String(arn)})
		if _, missing := errors.AsType[*sfntypes.ExecutionDoesNotExist](err); missing {
			return false
		}
		require.NoError(t, err, "DescribeExecution")
		return ex.Status != sfntypes.ExecutionStatusRunning
	})
	return ex
}

// waitFor polls done until it holds, failing the test after awaitLimit.
func (s *suite) waitFor(t *testing.T, what string, done func() bool) {
	t.Helper()
	deadline := time.Now().Add(awaitLimit)
	for !done() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(poll)
	}
}

// history returns the execution's events, oldest first; an execution not
// started yet has none.
func (s *suite) history(t *testing.T, arn string) []sfntypes.HistoryEvent {
	t.Helper()
	var events []sfntypes.HistoryEvent
	p := sfn.NewGetExecutionHistoryPaginator(s.sfn, &sfn.GetExecutionHistoryInput{ExecutionArn: aws.String(arn)})
	for p.HasMorePages() {
		page, err := p.NextPage(t.Context())
		if _, missing := errors.AsType[*sfntypes.ExecutionDoesNotExist](err); missing {
			return nil
		}
		require.NoError(t, err, "GetExecutionHistory")
		events = append(events, page.Events...)
	}
	return events
}

// transitions counts the state transitions of events as Step Functions
// bills them: one per state entered, one per retry of a task.
func transitions(events []sfntypes.HistoryEvent) int {
	n := 0
	scheduled := false
	for _, ev := range events {
		switch {
		case strings.HasSuffix(string(ev.Type), "StateEntered"):
			n++
			scheduled = false
		case ev.Type == sfntypes.HistoryEventTypeTaskScheduled:
			if scheduled {
				n++ // a retry of the task
			}
			scheduled = true
		}
	}
	return n
}

// entered lists the states events entered, in order.
func entered(events []sfntypes.HistoryEvent) []string {
	var names []string
	for _, ev := range events {
		if strings.HasSuffix(string(ev.Type), "StateEntered") && ev.StateEnteredEventDetails != nil {
			names = append(names, aws.ToString(ev.StateEnteredEventDetails.Name))
		}
	}
	return names
}

// attempts decodes the documents the Attempt state exited with, in order:
// one per Attempt cycle, with its decision, outcome and breaker state.
func attempts(t *testing.T, events []sfntypes.HistoryEvent) []message.Document {
	t.Helper()
	var docs []message.Document
	for _, ev := range events {
		d := ev.StateExitedEventDetails
		if ev.Type != sfntypes.HistoryEventTypeTaskStateExited || d == nil || aws.ToString(d.Name) != "Attempt" {
			continue
		}
		var doc message.Document
		require.NoError(t, json.Unmarshal([]byte(aws.ToString(d.Output)), &doc), "Attempt output")
		docs = append(docs, doc)
	}
	return docs
}

// admin runs an admin command through the admin state machine, as
// `redrive admin` does, and returns the ended execution.
func (s *suite) admin(t *testing.T, request admin.Request) *sfn.DescribeExecutionOutput {
	t.Helper()
	input, err := json.Marshal(request)
	require.NoError(t, err)
	out, err := s.sfn.StartExecution(t.Context(), &sfn.StartExecutionInput{
		StateMachineArn: aws.String(s.e.AdminARN), Input: aws.String(string(input)),
	})
	require.NoError(t, err, "start the admin execution")
	return s.await(t, aws.ToString(out.ExecutionArn))
}

// command runs a valid admin command and returns its output.
func (s *suite) command(t *testing.T, request admin.Request) admin.Output {
	t.Helper()
	ex := s.admin(t, request)
	require.Equal(t, sfntypes.ExecutionStatusSucceeded, ex.Status, "%s: %s", aws.ToString(ex.Error), aws.ToString(ex.Cause))
	var out admin.Output
	require.NoError(t, json.Unmarshal([]byte(aws.ToString(ex.Output)), &out))
	return out
}

// status is the breaker's state as the admin status command reports it.
func (s *suite) status(t *testing.T, key string) admin.Summary {
	t.Helper()
	after := s.command(t, admin.Request{Command: admin.CommandStatus, Breaker: key, Actor: "sfnlocal"}).After
	require.NotNil(t, after, "status shows the breaker")
	return *after
}

// parked receives the parking lot's message whose body is body and
// deletes it.
func (s *suite) parked(t *testing.T, body string) sqstypes.Message {
	t.Helper()
	var found *sqstypes.Message
	s.waitFor(t, "the parked message", func() bool {
		out, err := s.sqs.ReceiveMessage(t.Context(), &sqs.ReceiveMessageInput{
			QueueUrl: aws.String(s.e.ParkingLotURL), MaxNumberOfMessages: 10, MessageAttributeNames: []string{"All"},
		})
		require.NoError(t, err, "receive from the parking lot")
		for _, m := range out.Messages {
			if aws.ToString(m.Body) == body {
				found = &m
			}
		}
		return found != nil
	})
	_, err := s.sqs.DeleteMessage(t.Context(), &sqs.DeleteMessageInput{QueueUrl: aws.String(s.e.ParkingLotURL), ReceiptHandle: found.ReceiptHandle})
	require.NoError(t, err)
	return *found
}

// try is one execution of the attempt state machine for a message: its
// run (0 for the starter's, n for its n-th release from the room), how it
// ended, and its history.
type try struct {
	Run    int
	ARN    string
	Status sfntypes.ExecutionStatus
	Queued bool // it ended in the room (Queued), to go again as the next run
	Events []sfntypes.HistoryEvent
}

// tries waits until the message id's executions (one per try; the starter
// may have put it straight in the room, so its first may be a later run)
// end with one that did not go back to the room, and returns them by run.
func (s *suite) tries(t *testing.T, id string) []try {
	t.Helper()
	var out []try
	s.waitFor(t, "message "+id+" to be delivered or parked", func() bool {
		out = nil
		for run := range maxRuns {
			arn := s.executionOfRun(id, run)
			ex, err := s.sfn.DescribeExecution(t.Context(), &sfn.DescribeExecutionInput{ExecutionArn: aws.String(arn)})
			if _, missing := errors.AsType[*sfntypes.ExecutionDoesNotExist](err); missing {
				continue
			}
			require.NoError(t, err, "DescribeExecution")
			if ex.Status == sfntypes.ExecutionStatusRunning {
				return false
			}
			events := s.history(t, arn)
			names := entered(events)
			tr := try{Run: run, ARN: arn, Status: ex.Status, Events: events,
				Queued: len(names) > 0 && names[len(names)-1] == "Queued"}
			out = append(out, tr)
			if !tr.Queued {
				return true
			}
		}
		return false
	})
	return out
}

// maxRuns bounds the runs tries looks for.
const maxRuns = 20

// executionOfRun is the ARN of the message id's execution of run.
func (s *suite) executionOfRun(id string, run int) string {
	name := message.ExecutionName(id, 1, run)
	return strings.Replace(s.e.RedriveARN, ":stateMachine:", ":execution:", 1) + ":" + name
}

// inRoom reports whether the message id waits in key's room as a
// document (read from its item: the room's index lists entries without
// their documents).
func (s *suite) inRoom(t *testing.T, key, id string) bool {
	t.Helper()
	for _, e := range roomtest.Waiting(t, s.e.DynamoDB, s.e.Table, room.New(s.e.DynamoDB, s.e.Table, time.Hour), key, 100) {
		doc, err := message.ParseDocument(e.Document)
		require.NoError(t, err)
		if doc.OriginID == id {
			return true
		}
	}
	return false
}
