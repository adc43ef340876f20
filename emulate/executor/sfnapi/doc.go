// Package sfnapi serves the Step Functions API (AWS JSON 1.0) over a local
// executor, so the real aws-sdk-go-v2 sfn client, the AWS CLI and the
// project's starter talk to the local executor exactly as they would to
// AWS: CreateStateMachine, DescribeStateMachine,
// DescribeStateMachineForExecution, ListStateMachines,
// ValidateStateMachineDefinition, StartExecution, DescribeExecution,
// GetExecutionHistory, ListExecutions, StopExecution, SendTaskSuccess,
// SendTaskFailure, SendTaskHeartbeat, TagResource, UntagResource and
// ListTagsForResource.
package sfnapi
