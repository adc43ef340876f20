package release

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	sfntypes "github.com/aws/aws-sdk-go-v2/service/sfn/types"

	"github.com/redrive/redrive/clock"
	"github.com/redrive/redrive/message"
	"github.com/redrive/redrive/room"
	"github.com/redrive/redrive/room/pace"
)

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
	SFN room.StartAPI
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
	return l.start(ctx, key, st.Epoch)
}

// Restart starts a new controller for key even when one runs (it may be
// waiting out a cooldown the operator just ended), taking over its lease:
// the old one stops at its next tick. It is for an operator's command
// that lets messages through (reset, close, release).
func (l *Launcher) Restart(ctx context.Context, key string) error {
	st, err := l.Pace.TakeOver(ctx, key, l.Policy, l.Clock.Now())
	if err != nil {
		return fmt.Errorf("release: take over the controller of %q: %w", key, err)
	}
	_, err = l.start(ctx, key, st.Epoch)
	return err
}

// start starts the controller of key's epoch, whose lease the caller
// took, and reports whether it did (false: it existed already). When it
// cannot, it gives the lease back, so the next entry (or the starter,
// which sees the room stalled) starts one at once rather than after the
// lease.
func (l *Launcher) start(ctx context.Context, key string, epoch int64) (bool, error) {
	input, err := json.Marshal(Input{BreakerKey: key, Epoch: epoch})
	if err == nil {
		_, err = l.SFN.StartExecution(ctx, &sfn.StartExecutionInput{
			StateMachineArn: aws.String(l.StateMachineARN),
			Name:            aws.String(ExecutionName(key, epoch)),
			Input:           aws.String(string(input)),
		})
	}
	if _, exists := errors.AsType[*sfntypes.ExecutionAlreadyExists](err); exists {
		return false, nil
	}
	if err == nil {
		return true, nil
	}
	bg := context.WithoutCancel(ctx)
	if serr := l.Pace.NoteStalled(bg, key); serr != nil {
		err = fmt.Errorf("%w (and it is not on the stalled-rooms list either, for the sweep: %v)", err, serr)
	}
	if _, gerr := l.Pace.Hold(bg, key, epoch, time.Time{}); gerr != nil {
		return false, fmt.Errorf("release: start the controller of %q epoch %d (and its lease stays until it expires in %v: %v): %w",
			key, epoch, l.Policy.WithDefaults().Lease, gerr, err)
	}
	return false, fmt.Errorf("release: start the controller of %q epoch %d (its lease given back): %w", key, epoch, err)
}

// Swept is what a sweep did.
type Swept struct {
	// Started names the keys whose controller the sweep started, Running
	// those whose controller ran already, and Failed those it could not
	// start one for (they stay on the list for the next sweep).
	Started []string `json:"started,omitempty"`
	Running []string `json:"running,omitempty"`
	Failed  []string `json:"failed,omitempty"`
}

// Sweep makes sure a controller runs for every key on the stalled-rooms
// list (a key whose controller could not be started: its room holds
// messages nobody releases, and no later entry may come to start one),
// and takes the key off the list once one does. A schedule runs it every
// minute (the stack's SweepSchedule).
func (l *Launcher) Sweep(ctx context.Context) (Swept, error) {
	keys, err := l.Pace.Stalled(ctx)
	if err != nil {
		return Swept{}, fmt.Errorf("release: sweep: %w", err)
	}
	var out Swept
	var errs []error
	for _, key := range keys {
		// Off the list before the start, back on it if the start fails: a
		// start that fails meanwhile elsewhere notes the key again, and
		// the sweep does not erase its note.
		err := l.Pace.ClearStalled(ctx, key)
		started := false
		if err == nil {
			if started, err = l.Ensure(ctx, key); err != nil {
				if nerr := l.Pace.NoteStalled(context.WithoutCancel(ctx), key); nerr != nil {
					err = errors.Join(err, nerr)
				}
			}
		}
		switch {
		case err != nil:
			out.Failed = append(out.Failed, key)
			errs = append(errs, err)
		case started:
			out.Started = append(out.Started, key)
		default:
			out.Running = append(out.Running, key)
		}
	}
	if len(errs) > 0 {
		return out, fmt.Errorf("release: sweep: %d of %d stalled rooms still without a controller: %w", len(errs), len(keys), errors.Join(errs...))
	}
	return out, nil
}

// ExecutionName names the controller of key's epoch,
// "release-<key>-a<epoch>" within Step Functions' name rules.
func ExecutionName(key string, epoch int64) string {
	return message.ExecutionName("release-"+key, int(epoch), 0)
}
