package local

import (
	"context"
	"fmt"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	sfntypes "github.com/aws/aws-sdk-go-v2/service/sfn/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/redrive/redrive/park"
	"github.com/redrive/redrive/statemachine"
)

// QueueARN is the ARN of a stack's queue.
func QueueARN(name string) string {
	return "arn:aws:sqs:" + region + ":" + account + ":" + name
}

// dlqMaxReceives is how many times the DLQ's event source may receive a
// message it could not start before SQS moves it to the parking lot.
const dlqMaxReceives = 50

// createQueues creates the parking lot (keeping messages 14 days, which
// its index entries expire with), the DLQ (with the configured visibility
// timeout, and a redrive policy to the parking lot after dlqMaxReceives
// receives, as infra/README.md advises), and the source queue whose
// redrive policy sends to the DLQ, as a deployment has them.
// The parking lot, being the DLQ's dead-letter queue, can be moved back
// with StartMessageMoveTask. On a FIFO stack all three are FIFO queues,
// with content-based deduplication.
func (s *Stack) createQueues(ctx context.Context) error {
	queues := []struct {
		name  string
		attrs map[string]string
		url   *string
	}{
		{ParkingLotName, map[string]string{
			"MessageRetentionPeriod": strconv.Itoa(int(park.DefaultRetention.Seconds())),
		}, &s.ParkingLotURL},
		{DLQName, map[string]string{
			"VisibilityTimeout": strconv.Itoa(int(s.opts.VisibilityTimeout.Seconds())),
			"RedrivePolicy":     fmt.Sprintf(`{"deadLetterTargetArn":%q,"maxReceiveCount":"%d"}`, QueueARN(s.QueueName(ParkingLotName)), dlqMaxReceives),
		}, &s.DLQURL},
		{SourceQueueName, map[string]string{
			"RedrivePolicy": fmt.Sprintf(`{"deadLetterTargetArn":%q,"maxReceiveCount":"3"}`, QueueARN(s.QueueName(DLQName))),
		}, &s.SourceQueueURL},
	}
	for _, q := range queues {
		if s.opts.FIFO {
			q.attrs["FifoQueue"], q.attrs["ContentBasedDeduplication"] = "true", "true"
		}
		out, err := s.SQS.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(s.QueueName(q.name)), Attributes: q.attrs})
		if err != nil {
			return fmt.Errorf("local: create queue %s: %w", q.name, err)
		}
		*q.url = aws.ToString(out.QueueUrl)
	}
	return nil
}

// createStateMachines renders both definitions with the hosted functions'
// ARNs and creates them through the Step Functions API.
func (s *Stack) createStateMachines(ctx context.Context) error {
	attempts := sfntypes.StateMachineTypeExpress
	if s.opts.StandardAttempts {
		attempts = sfntypes.StateMachineTypeStandard
	}
	machines := []struct {
		name   string
		def    statemachine.Definition
		typ    sfntypes.StateMachineType
		values map[string]string
		arn    *string
	}{
		{RedriveStateMachine, statemachine.Redrive(), attempts, map[string]string{
			statemachine.AttemptFunctionArn:     functionARN(FunctionAttempt),
			statemachine.ParkFunctionArn:        functionARN(FunctionPark),
			statemachine.WaitingRoomFunctionArn: functionARN(FunctionWaitRoom),
		}, &s.RedriveARN},
		{AdminStateMachine, statemachine.Admin(), sfntypes.StateMachineTypeStandard, map[string]string{
			statemachine.AdminFunctionArn: functionARN(FunctionAdmin),
		}, &s.AdminARN},
		{ReleaseStateMachine, statemachine.Release(), sfntypes.StateMachineTypeStandard, map[string]string{
			statemachine.ReleaseFunctionArn: functionARN(FunctionRelease),
		}, &s.ReleaseARN},
	}
	for _, m := range machines {
		definition, err := m.def.Render(m.values)
		if err != nil {
			return fmt.Errorf("local: %w", err)
		}
		out, err := s.SFN.CreateStateMachine(ctx, &sfn.CreateStateMachineInput{
			Name: aws.String(m.name), Definition: aws.String(definition), RoleArn: aws.String(roleARN), Type: m.typ,
		})
		if err != nil {
			return fmt.Errorf("local: create state machine %s: %w", m.name, err)
		}
		*m.arn = aws.ToString(out.StateMachineArn)
	}
	return nil
}
