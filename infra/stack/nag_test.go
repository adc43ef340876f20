package stack

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestAwsSolutions fails on any cdk-nag AwsSolutions error or warning that
// no suppression covers.
func TestAwsSolutions(t *testing.T) {
	for _, fixture := range []string{existingName, demoName} {
		t.Run(fixture, func(t *testing.T) {
			assert.Empty(t, synth(t, fixture).findings)
		})
	}
}

// TestSuppressions lists exactly what the suppressions hide, so a new
// finding cannot hide behind an old suppression unnoticed. Each
// suppression's reason is in the code that adds it.
func TestSuppressions(t *testing.T) {
	const (
		redriveRole = "/Redrive/RedriveStateMachine/Role/DefaultPolicy/Resource: AwsSolutions-IAM5"
		adminRole   = "/Redrive/AdminStateMachine/Role/DefaultPolicy/Resource: AwsSolutions-IAM5"
		releaseRole = "/Redrive/ReleaseStateMachine/Role/DefaultPolicy/Resource: AwsSolutions-IAM5"
	)
	stateMachines := []string{
		redriveRole + "[Resource::*]",
		redriveRole + "[Resource::<Attempt.Arn>:*]",
		redriveRole + "[Resource::<Park.Arn>:*]",
		redriveRole + "[Resource::<WaitingRoom.Arn>:*]",
		adminRole + "[Resource::*]",
		adminRole + "[Resource::<Admin.Arn>:*]",
		releaseRole + "[Resource::*]",
		releaseRole + "[Resource::<Release.Arn>:*]",
		"/Redrive/RedriveStateMachine/Resource: AwsSolutions-SF1",
		"/Redrive/ReleaseStateMachine/Resource: AwsSolutions-SF1",
	}
	// The body bucket has no access logs (the stack has no logs bucket),
	// and the claim check's grants name the bucket's bodies/ prefix.
	bodies := []string{
		"/Redrive/BodyBucket/Resource: AwsSolutions-S1",
		"/Redrive/StarterRole/DefaultPolicy/Resource: AwsSolutions-IAM5[Resource::<BodyBucket.Arn>/bodies/*]",
		"/Redrive/AttemptRole/DefaultPolicy/Resource: AwsSolutions-IAM5[Resource::<BodyBucket.Arn>/bodies/*]",
		"/Redrive/ParkRole/DefaultPolicy/Resource: AwsSolutions-IAM5[Resource::<BodyBucket.Arn>/bodies/*]",
		"/Redrive/WaitingRoomRole/DefaultPolicy/Resource: AwsSolutions-IAM5[Resource::<BodyBucket.Arn>/bodies/*]",
	}
	tests := []struct {
		fixture string
		want    []string
	}{
		{existingName, join(stateMachines, bodies, []string{
			"/Redrive/ParkingLot/Resource: AwsSolutions-SQS3",
			"/Redrive/StarterRole/DefaultPolicy/Resource: AwsSolutions-IAM5[Resource::*]",
			"/Redrive/AttemptRole/DefaultPolicy/Resource: AwsSolutions-IAM5[Resource::*]",
			"/Redrive/ParkRole/DefaultPolicy/Resource: AwsSolutions-IAM5[Resource::*]",
			"/Redrive/AdminRole/DefaultPolicy/Resource: AwsSolutions-IAM5[Resource::*]",
			"/Redrive/WaitingRoomRole/DefaultPolicy/Resource: AwsSolutions-IAM5[Resource::*]",
			"/Redrive/ReleaseRole/DefaultPolicy/Resource: AwsSolutions-IAM5[Resource::*]",
		})},
		{demoName, join(stateMachines, bodies, []string{
			"/Redrive/RedriveStateMachine/Resource: AwsSolutions-SF2",
			"/Redrive/AdminStateMachine/Resource: AwsSolutions-SF2",
			"/Redrive/ReleaseStateMachine/Resource: AwsSolutions-SF2",
		})},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			assert.ElementsMatch(t, tt.want, synth(t, tt.fixture).suppressed)
		})
	}
}
