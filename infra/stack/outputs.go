package stack

import (
	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssns"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
)

// newOutputs publishes what an operator needs: the state machines (and the
// console page to start admin commands from), the table, the queues, the
// body bucket, the dashboard and the alarm topic.
func newOutputs(scope constructs.Construct, st *storage, sms *stateMachines, dashboard awscloudwatch.Dashboard, topic awssns.ITopic) {
	region := *awscdk.Aws_REGION()
	console := "https://" + region + ".console.aws.amazon.com/states/home?region=" + region + "#/statemachines/view/"
	outputs := []struct{ id, description, value string }{
		{"RedriveStateMachineArn", "The redrive (attempt) state machine: one execution per delivery try of a message", *sms.redrive.StateMachineArn()},
		{"ReleaseStateMachineArn", "The release state machine: one execution per breaker key (its controller) releases its waiting room", *sms.release.StateMachineArn()},
		{"AdminStateMachineArn", "The admin state machine: start an execution with {\"command\": ..., \"breaker\": ...}", *sms.admin.StateMachineArn()},
		{"AdminConsoleUrl", "Start admin commands here (Start execution)", console + *sms.admin.StateMachineArn()},
		{"TableName", "Breaker rows, delivery records, the waiting rooms and the parking lot's index (redrive parked --table)", *st.table.TableName()},
		{"ParkingLotQueueName", "Parked messages, with lineage and failure history", *st.parkingLot.QueueName()},
		{"ParkingLotQueueUrl", "Parked messages' queue URL", *st.parkingLot.QueueUrl()},
		{"ParkingLotQueueArn", "Set as the DLQ's own dead-letter queue, so nothing expires there", *st.parkingLot.QueueArn()},
		{"DeadLetterQueueName", "The queue the starter redrives from", *st.dlq.QueueName()},
		{"BodyBucketName", "Message bodies over 64 KiB, claim-checked under bodies/ and expired by a lifecycle rule (bodyRetentionDays)", *st.bodies.BucketName()},
		{"DashboardName", "The Redrive CloudWatch dashboard", *dashboard.DashboardName()},
		{"AlarmTopicArn", "Every alarm notifies this SNS topic on ALARM and OK: subscribe to it", *topic.TopicArn()},
	}
	if st.demo {
		outputs = append(outputs, struct{ id, description, value string }{
			"SourceQueueUrl", "The demo source queue: messages its consumer fails go to the demo DLQ", *st.source.QueueUrl(),
		})
	}
	for _, o := range outputs {
		awscdk.NewCfnOutput(scope, jsii.String(o.id), &awscdk.CfnOutputProps{
			Description: jsii.String(o.description),
			Value:       jsii.String(o.value),
		})
	}
}
