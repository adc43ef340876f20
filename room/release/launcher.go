package release

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	sfntypes "github.com/aws/aws-sdk-go-v2/service/sfn/types"

	"github.com/redrive/redrive/clock"
	"github.com/redrive/redrive/message"
	"github.com/redrive/redrive/room/pace"
)

// StartAPI is the part of the Step Functions client the Launcher calls;
// *sfn.Client satisfies it.
type StartAPI interface {
	StartExecution(ctx context.Context, params *sfn.StartExecutionInput, optFns ...func(*sfn.Options)) (*sfn.StartExecutionOutput, error)
}

// Launcher starts a breaker's controller when none runs: it takes the
// lease on the breaker's pace row for a new epoch, then starts an
// execution of the controller state machine for it. Every field is
// required.
type Launcher struct {
	// Pace holds the pace rows and their leases.
	Pace *pace.Store
	// Policy is the release pace (for the lease length).
	Policy pace.Policy
	// SFN starts executions.
	SFN StartAPI
	// StateMachineARN is the controller state machine.
	StateMachineARN string
	// Clock is the clock the lease is taken on.
	Clock clock.Clock
}

// Ensure makes sure a controller runs for key, after a message entered its
// room (or an operator's command, or a canary's success, means the room
// may be released), and reports whether it started one. It notes the
// entry on the pace row either way (pace.Store.Entered), so a controller
// about to stop looks again.
func (l *Launcher) Ensure(ctx context.Context, key string) (bool, error) {
	st, took, err := l.Pace.Entered(ctx, key, l.Policy, l.Clock.Now())
	if err != nil || !took {
		return false, err
	}
	input, err := json.Marshal(Input{BreakerKey: key, Epoch: st.Epoch})
	if err != nil {
		return false, fmt.Errorf("release: start the controller of %q: %w", key, err)
	}
	_, err = l.SFN.StartExecution(ctx, &sfn.StartExecutionInput{
		StateMachineArn: aws.String(l.StateMachineARN),
		Name:            aws.String(ExecutionName(key, st.Epoch)),
		Input:           aws.String(string(input)),
	})
	if _, exists := errors.AsType[*sfntypes.ExecutionAlreadyExists](err); exists {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("release: start the controller of %q epoch %d (its lease expires in %v): %w",
			key, st.Epoch, l.Policy.WithDefaults().Lease, err)
	}
	return true, nil
}

// ExecutionName names the controller of key's epoch,
// "release-<key>-a<epoch>" within Step Functions' name rules.
func ExecutionName(key string, epoch int64) string {
	return message.ExecutionName("release-"+key, int(epoch), 0)
}
