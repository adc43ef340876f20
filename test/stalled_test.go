package test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/emulate/local"
	"github.com/redrive/redrive/emulate/simtarget"
	"github.com/redrive/redrive/room"
	"github.com/redrive/redrive/room/release"
)

// controllerStarts fails every start of the controller state machine
// until it is lifted, and counts the refusals; other starts pass.
type controllerStarts struct {
	next    room.StartAPI
	arn     string
	mu      sync.Mutex
	refuse  bool
	refused int
}

var errControllerStart = errors.New("states: service unavailable")

func (c *controllerStarts) StartExecution(ctx context.Context, in *sfn.StartExecutionInput, optFns ...func(*sfn.Options)) (*sfn.StartExecutionOutput, error) {
	c.mu.Lock()
	refuse := c.refuse && aws.ToString(in.StateMachineArn) == c.arn
	if refuse {
		c.refused++
	}
	c.mu.Unlock()
	if refuse {
		return nil, errControllerStart
	}
	return c.next.StartExecution(ctx, in, optFns...)
}

func (c *controllerStarts) lift() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.refuse = false
}

// Every message enters the room during an outage while no controller can
// be started (Step Functions refuses the controller's start to the
// attempt, the Queue task and the starter alike), and none arrives after:
// the rooms are stalled, nothing would start their controller, and the
// entries would expire with ROOM_TTL. The stalled-rooms list and its
// sweep, a minute apart, start the controller once Step Functions takes
// starts again, and every message is delivered once.
func TestAStalledRoomIsSweptAndReleased(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := start(t, local.Options{Start: t0, Target: simtarget.Options{Schedule: simtarget.Outage(t0, 10*time.Minute)}})
	launchers := []*release.Launcher{s.Handlers.Starter.Launcher.(*release.Launcher),
		s.Handlers.Attempt.Launcher.(*release.Launcher), s.Handlers.WaitRoom.Launcher.(*release.Launcher), s.Handlers.Release.Launcher}
	starts := &controllerStarts{next: launchers[0].SFN, arn: s.ReleaseARN, refuse: true}
	for _, l := range launchers {
		l.SFN = starts
	}
	const n = 8 // under the pace's start rate: the starter starts them all
	ids := send(t, s, bodies("stalled", n)...)

	runUntil(t, s, t0.Add(20*time.Minute))
	assert.Empty(t, releaseExecutions(t, s), "no controller could be started")
	held := inRoom(t, s, local.DefaultBreakerKey)
	require.NotEmpty(t, held, "the failed messages wait in the room")
	assert.Positive(t, starts.refused)
	depth, err := s.SQSServer.Depth(local.DLQName)
	require.NoError(t, err)
	require.Zero(t, depth.Total(), "nothing left in the DLQ to start a controller later")

	starts.lift()
	drain(t, s)
	controllers := releaseExecutions(t, s)
	require.NotEmpty(t, controllers, "the sweep started the controller")
	assert.False(t, controllers[0].StartDate.Before(t0.Add(20*time.Minute)), "after the starts were lifted")
	assert.True(t, controllers[0].StartDate.Before(t0.Add(22*time.Minute)), "within a sweep or two: %v", controllers[0].StartDate)
	roomDepth, _ := s.Room()
	assert.Zero(t, roomDepth, "the room was released")
	out := accountFor(t, s)
	assert.Len(t, out.delivered, len(ids), "every message delivered once")
	assert.Positive(t, s.Stats().Invocations[local.FunctionRelease])
}
