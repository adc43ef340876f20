package local

import (
	"context"
	"sync/atomic"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn"

	"github.com/redrive/redrive/lambda/wire"
)

// duplicatingSFN is the tasks' Step Functions with a fault: every n-th
// execution of the attempt state machine that starts is started twice,
// with the same name and input, as an asynchronous Express execution may
// run twice in AWS (at least once). The second start's error is ignored:
// the fault is the duplicate, not a failure.
type duplicatingSFN struct {
	wire.StepFunctions
	arn     *string // the attempt state machine's, set once the stack made it
	every   int64
	starts  atomic.Int64
	doubled *atomic.Int64
}

// StartExecution starts the execution, and every n-th of the attempt
// state machine's a second time.
func (d *duplicatingSFN) StartExecution(ctx context.Context, in *sfn.StartExecutionInput, optFns ...func(*sfn.Options)) (*sfn.StartExecutionOutput, error) {
	out, err := d.StepFunctions.StartExecution(ctx, in, optFns...)
	if err != nil || aws.ToString(in.StateMachineArn) != *d.arn || d.starts.Add(1)%d.every != 0 {
		return out, err
	}
	if _, derr := d.StepFunctions.StartExecution(ctx, in, optFns...); derr == nil {
		d.doubled.Add(1)
	}
	return out, nil
}
