package room

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	sfntypes "github.com/aws/aws-sdk-go-v2/service/sfn/types"
)

// TaskAPI is the part of the Step Functions client a release calls;
// *sfn.Client satisfies it.
type TaskAPI interface {
	SendTaskSuccess(ctx context.Context, params *sfn.SendTaskSuccessInput, optFns ...func(*sfn.Options)) (*sfn.SendTaskSuccessOutput, error)
}

// ReleasedOutput is the output a released execution's waiting state gets.
const ReleasedOutput = `{"released":true}`

// Outcome is what releasing one entry did.
type Outcome int

// The outcomes of a release.
const (
	// Resumed: the entry's execution was resumed, and the entry taken out
	// of the room.
	Resumed Outcome = iota + 1
	// Gone: the entry's execution no longer waits on its token (timed
	// out, stopped, resumed by an earlier release, or an old token); the
	// entry is dropped.
	Gone
	// Undeleted: the entry's execution was resumed, but taking the entry
	// out of the room failed; its spent token stays until the next
	// release of it drops it.
	Undeleted
)

// Counts adds up what a batch of releases did.
type Counts struct {
	// Listed counts the entries the batch found in the room; fewer than
	// asked for means the room ran short.
	Listed int
	// Resumed counts the executions resumed (Undeleted ones too), Gone
	// the entries dropped, and Undeleted the resumed entries left in the
	// room.
	Resumed, Gone, Undeleted int
}

// Release resumes e's execution with SendTaskSuccess, then takes e out of
// the room. Resuming first means a releaser that dies between the two
// loses nothing: the entry stays, and the next release of it finds its
// token used (Step Functions completes a task token once) and drops it. A
// token the execution no longer waits on is dropped the same way
// (TaskTimedOut, TaskDoesNotExist, InvalidToken: the state's own timeout,
// or an earlier release, brought the message back). Any other failure of
// SendTaskSuccess leaves the entry in its place and returns the error.
func (r *Room) Release(ctx context.Context, tasks TaskAPI, e Entry) (Outcome, error) {
	_, err := tasks.SendTaskSuccess(ctx, &sfn.SendTaskSuccessInput{TaskToken: aws.String(e.Token), Output: aws.String(ReleasedOutput)})
	outcome := Resumed
	switch {
	case gone(err):
		outcome = Gone
	case err != nil:
		return 0, fmt.Errorf("room %q: release %s (left in the room): %w", e.Key, e.MessageID, err)
	}
	// An entry of the same message with a new token (it is back in the
	// room already) stays; a failed delete leaves a spent token, which
	// the next release drops.
	if _, err := r.Take(context.WithoutCancel(ctx), e); err != nil {
		if outcome == Gone {
			return 0, err
		}
		return Undeleted, nil
	}
	return outcome, nil
}

// ReleaseOldest releases up to n of key's oldest entries, calling pause
// before each release but the first (to spread them over time; nil means
// no pause); a pause that returns false stops the batch there. It stops at
// the first error, returning what it did so far.
func (r *Room) ReleaseOldest(ctx context.Context, tasks TaskAPI, key string, n int, pause func(context.Context) bool) (Counts, error) {
	var c Counts
	entries, err := r.Oldest(ctx, key, n)
	if err != nil {
		return c, err
	}
	c.Listed = len(entries)
	for i, e := range entries {
		if i > 0 && pause != nil && !pause(ctx) {
			break
		}
		o, err := r.Release(ctx, tasks, e)
		if err != nil {
			return c, err
		}
		switch o {
		case Resumed:
			c.Resumed++
		case Undeleted:
			c.Resumed++
			c.Undeleted++
		case Gone:
			c.Gone++
		}
	}
	return c, nil
}

// gone reports a SendTaskSuccess error that means the execution no longer
// waits on the token.
func gone(err error) bool {
	_, timedOut := errors.AsType[*sfntypes.TaskTimedOut](err)
	_, missing := errors.AsType[*sfntypes.TaskDoesNotExist](err)
	_, invalid := errors.AsType[*sfntypes.InvalidToken](err)
	return timedOut || missing || invalid
}

// Spread returns a pause that spaces n releases evenly over d with sleep,
// and asks proceed (when not nil) whether to go on.
func Spread(d time.Duration, n int, sleep func(context.Context, time.Duration), proceed func(context.Context) bool) func(context.Context) bool {
	step := d / time.Duration(max(n, 1))
	return func(ctx context.Context) bool {
		sleep(ctx, step)
		return proceed == nil || proceed(ctx)
	}
}
