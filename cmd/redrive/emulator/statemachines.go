package emulator

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn"

	"github.com/redrive/redrive/statemachine"
)

// Names of the state machines the emulator creates (plus
// Options.NameSuffix).
const (
	RedriveStateMachine = "redrive"
	AdminStateMachine   = "redrive-admin"
	ReleaseStateMachine = "redrive-release"
)

// roleARN is the state machines' role; no emulator checks it.
const roleARN = "arn:aws:iam::" + Account + ":role/redrive"

// stateMachines are the ARNs of the state machines the emulator created.
type stateMachines struct {
	redrive, admin, release string
}

// createStateMachines renders the three definitions with the hosted
// functions' ARNs and creates them through client; it returns their ARNs.
func createStateMachines(ctx context.Context, client *sfn.Client, suffix string) (arns stateMachines, err error) {
	for _, m := range []struct {
		name   string
		def    statemachine.Definition
		values map[string]string
		arn    *string
	}{
		{RedriveStateMachine + suffix, statemachine.Redrive(), map[string]string{
			statemachine.AttemptFunctionArn:     FunctionARN(FunctionAttempt),
			statemachine.ContinueFunctionArn:    FunctionARN(FunctionContinuer),
			statemachine.ParkFunctionArn:        FunctionARN(FunctionPark),
			statemachine.WaitingRoomFunctionArn: FunctionARN(FunctionWaitRoom),
		}, &arns.redrive},
		{AdminStateMachine + suffix, statemachine.Admin(), map[string]string{
			statemachine.AdminFunctionArn: FunctionARN(FunctionAdmin),
		}, &arns.admin},
		{ReleaseStateMachine + suffix, statemachine.Release(), map[string]string{
			statemachine.ReleaseFunctionArn: FunctionARN(FunctionRelease),
		}, &arns.release},
	} {
		definition, err := m.def.Render(m.values)
		if err != nil {
			return stateMachines{}, fmt.Errorf("emulator: %w", err)
		}
		out, err := client.CreateStateMachine(ctx, &sfn.CreateStateMachineInput{
			Name: aws.String(m.name), Definition: aws.String(definition), RoleArn: aws.String(roleARN),
		})
		if err != nil {
			return stateMachines{}, fmt.Errorf("emulator: create state machine %s: %w", m.name, err)
		}
		*m.arn = aws.ToString(out.StateMachineArn)
	}
	return arns, nil
}
