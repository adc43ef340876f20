package release_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/room"
	"github.com/redrive/redrive/room/pace"
	"github.com/redrive/redrive/room/release"
)

func TestAnInvocationRunsTicksPerInvocationTicks(t *testing.T) {
	f := newFixture(t)
	f.handler.Launcher.Policy = pace.Policy{Start: 1, Max: 1}.WithDefaults() // one message a tick
	f.fill(t, 15)
	in := f.start(t)

	out, err := f.handler.Handle(t.Context(), in)
	require.NoError(t, err)
	assert.False(t, out.Done)
	assert.Equal(t, release.Input{BreakerKey: key, Epoch: 1, Ticks: release.TicksPerInvocation}, out.Input)
	assert.Equal(t, release.TicksPerInvocation, out.Released, "the invocation's releases, every tick's")
	assert.Equal(t, tokens(0, release.TicksPerInvocation), f.sfn.Resumed(), "one per tick, oldest first")
	assert.Equal(t, t0.Add(release.TicksPerInvocation*time.Second), f.clock.Now(), "each tick lasts one tick")
	assert.Equal(t, 15-release.TicksPerInvocation, f.depth(t))
	assert.True(t, f.lease(t).After(f.clock.Now()), "the releaser keeps its lease between invocations")

	out, err = f.handler.Handle(t.Context(), out.Input)
	require.NoError(t, err)
	assert.True(t, out.Done, "the room ran dry within the invocation")
	assert.Equal(t, release.TicksPerInvocation+6, out.Ticks, "five ticks release the rest, the sixth finds the room empty")
	assert.Equal(t, tokens(0, 15), f.sfn.Resumed())
	assert.Zero(t, f.depth(t))
	assert.Zero(t, f.lease(t))
}

func TestAnInvocationEndsAtTheTickThatStopsTheReleaser(t *testing.T) {
	f := newFixture(t)
	f.fill(t, 25)
	in := f.start(t)
	out, err := f.handler.Handle(t.Context(), in)
	require.NoError(t, err)
	assert.True(t, out.Done)
	assert.Equal(t, 2, out.Ticks, "10 then 15: drained at the second tick")
	assert.Equal(t, 25, out.Released, "both ticks' releases")
	assert.Equal(t, tokens(0, 25), f.sfn.Resumed())

	f = newFixture(t)
	f.fill(t, 5)
	in = f.start(t)
	f.handler.Breaker = failingStatus{f.breaker}
	out, err = f.handler.Handle(t.Context(), in)
	require.ErrorIs(t, err, errStatus)
	assert.Equal(t, 1, out.Ticks, "a failed tick fails the invocation, for the state machine's Retry")
	assert.Empty(t, f.sfn.Resumed())
}

// failingStatus is a release.Breaker whose Status fails with errStatus.
type failingStatus struct{ release.Breaker }

func (failingStatus) Status(context.Context, string) (breaker.Row, error) {
	return breaker.Row{}, errStatus
}

// errStatus is failingStatus's error.
var errStatus = errors.New("the breaker table is unavailable")

func TestClosedReleasesTheQuotaOldestFirstThenStopsWhenDrained(t *testing.T) {
	f := newFixture(t)
	f.fill(t, 25)
	in := f.start(t)
	require.Equal(t, []string{"release-orders-a1"}, f.sfn.Started())

	out := f.tick(t, in)
	assert.Equal(t, release.Output{Input: release.Input{BreakerKey: key, Epoch: 1, Ticks: 1}, State: "CLOSED", Rate: 10, Released: 10}, out)
	assert.Equal(t, tokens(0, 10), f.sfn.Resumed(), "the start rate, oldest first")
	assert.Equal(t, time.Second, *f.slept, "spread over one tick")
	assert.Equal(t, t0.Add(time.Second), f.clock.Now())
	assert.Equal(t, 15, f.depth(t))
	assert.True(t, f.lease(t).After(f.clock.Now()), "the tick renewed the lease")

	out = f.tick(t, out.Input)
	assert.Equal(t, release.Output{Input: release.Input{BreakerKey: key, Epoch: 1, Ticks: 2}, Done: true, State: "CLOSED", Rate: 20, Released: 15}, out,
		"a full tick doubles the rate; the room ran dry")
	assert.Equal(t, tokens(0, 25), f.sfn.Resumed())
	assert.Zero(t, f.depth(t))
	assert.Zero(t, f.lease(t), "a stopping releaser gives up its lease")
	assert.Len(t, f.sfn.Started(), 1, "nothing left: no next releaser")
}

// deleteFailing is a room table whose deletes fail.
type deleteFailing struct{ room.API }

func (deleteFailing) DeleteItem(context.Context, *dynamodb.DeleteItemInput, ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	return nil, errors.New("injected: table unavailable")
}

// Entries resumed but not deleted count as released, stay in the room and
// are logged; the next release drops them.
func TestATickLogsTheReleasedEntriesItCouldNotDelete(t *testing.T) {
	f := newFixture(t)
	f.fill(t, 3)
	var logs bytes.Buffer
	f.handler.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	f.handler.Room = room.New(deleteFailing{f.api}, f.table, time.Hour)
	out := f.tick(t, f.start(t))
	assert.Equal(t, 3, out.Released)
	assert.Equal(t, tokens(0, 3), f.sfn.Resumed())
	assert.Equal(t, 3, f.depth(t), "the spent entries stay")
	assert.Contains(t, logs.String(), "level=WARN msg=\"released messages left in the room")
	assert.Contains(t, logs.String(), "undeleted=3")
}

func TestARateNotUsedInFullDoesNotGrow(t *testing.T) {
	f := newFixture(t)
	f.fill(t, 10)
	in := f.start(t)
	out := f.tick(t, in)
	require.False(t, out.Done)
	f.fill(t, 5) // the same ids again: five messages wait
	out = f.tick(t, out.Input)
	assert.Equal(t, 20.0, out.Rate)
	require.True(t, out.Done)

	in = f.start(t)
	f.fill(t, 10)
	out = f.tick(t, in)
	assert.Equal(t, 10.0, out.Rate, "a new epoch starts over")
}

func TestAMessageEnteringWhileTheReleaserStopsGetsTheNextReleaser(t *testing.T) {
	f := newFixture(t)
	f.fill(t, 3)
	in := f.start(t)
	f.sfn.Fail = func(token string) error {
		if token == tokens(2, 3)[0] {
			f.enter(t, 3) // after the tick listed the room
		}
		return nil
	}
	out := f.tick(t, in)
	assert.True(t, out.Done)
	assert.Equal(t, 3, out.Released)
	assert.Equal(t, []string{"release-orders-a1", "release-orders-a2"}, f.sfn.Started())
}

func TestHalfOpenReleasesOnePerFreePermit(t *testing.T) {
	f := newFixture(t)
	f.fill(t, 5)
	f.halfOpen(t)
	in := f.start(t)

	out := f.tick(t, in)
	assert.Equal(t, "HALF_OPEN", out.State)
	assert.Equal(t, 2, out.Released, "two permits, none taken")
	assert.False(t, out.Done)
	assert.Zero(t, out.Rate, "the rate waits for CLOSED")

	canary, err := f.breaker.Admit(t.Context(), key)
	require.NoError(t, err)
	require.Equal(t, breaker.Canary, canary.Verdict)
	out = f.tick(t, out.Input)
	assert.Equal(t, 1, out.Released, "one permit is out")
	assert.Equal(t, tokens(0, 3), f.sfn.Resumed())

	_, err = f.breaker.Admit(t.Context(), key)
	require.NoError(t, err)
	out = f.tick(t, out.Input)
	assert.Zero(t, out.Released, "no permit left")
	assert.False(t, out.Done, "HALF_OPEN keeps its releaser for the next canaries")
	assert.Equal(t, 2, f.depth(t))
}

func TestOpenStopsAndGivesUpTheLease(t *testing.T) {
	for name, open := range map[string]func(f fixture, t *testing.T){
		"tripped": func(f fixture, t *testing.T) { f.trip(t) },
		"forced open": func(f fixture, t *testing.T) {
			_, _, err := f.breaker.Command(t.Context(), key, breaker.Command{Kind: breaker.ForceOpen, Actor: "ops", Reason: "test"})
			require.NoError(t, err)
		},
	} {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t)
			f.fill(t, 5)
			in := f.start(t)
			open(f, t)

			out := f.tick(t, in)
			assert.True(t, out.Done)
			assert.Contains(t, []string{"OPEN", "FORCED_OPEN"}, out.State)
			assert.Empty(t, f.sfn.Resumed())
			assert.Equal(t, 5, f.depth(t))
			assert.Zero(t, f.lease(t))
			assert.Len(t, f.sfn.Started(), 1, "the scout's probe starts the next releaser, not this one")
			assert.Equal(t, t0, f.clock.Now(), "it does not sleep")
		})
	}
}

func TestAThrottleStopsTheTickEarlyAndSlowsTheNext(t *testing.T) {
	f := newFixture(t)
	f.fill(t, 30)
	in := f.start(t)
	f.sfn.Fail = func(token string) error {
		if token == tokens(2, 3)[0] {
			// The third released message is throttled by the target.
			f.record(t, breaker.Throttled)
		}
		return nil
	}
	out := f.tick(t, in)
	assert.Equal(t, 3, out.Released, "the tick saw the throttle at its next release")
	assert.False(t, out.Done)
	assert.Equal(t, t0.Add(time.Second), f.clock.Now(), "the tick still lasts one tick")

	f.sfn.Fail = nil
	out = f.tick(t, out.Input)
	assert.Equal(t, 5.0, out.Rate, "the first throttle halves the rate")
	assert.Equal(t, 5, out.Released)
	st, err := f.pace.Load(t.Context(), key)
	require.NoError(t, err)
	assert.Equal(t, 10.0, st.Ceiling)
	assert.Equal(t, int64(1), st.SeenThrottles)
}

func TestMaxTicksHandsOverToTheNextEpoch(t *testing.T) {
	f := newFixture(t)
	f.fill(t, 30)
	in := f.start(t)
	in.Ticks = release.MaxTicks - 1

	out := f.tick(t, in)
	assert.True(t, out.Done)
	assert.Equal(t, release.MaxTicks, out.Ticks)
	assert.Equal(t, 10, out.Released)
	require.Equal(t, []string{"release-orders-a1", "release-orders-a2"}, f.sfn.Started())
	var next release.Input
	require.NoError(t, json.Unmarshal([]byte(f.sfn.Inputs()[1]), &next))
	assert.Equal(t, release.Input{BreakerKey: key, Epoch: 2}, next)

	out = f.tick(t, out.Input)
	assert.True(t, out.Done, "epoch 1 is over")
	assert.Len(t, f.sfn.Resumed(), 10)
	out = f.tick(t, next)
	assert.False(t, out.Done)
	assert.Len(t, f.sfn.Resumed(), 20)
}

func TestAReleaserWhoseEpochIsOverStops(t *testing.T) {
	f := newFixture(t)
	f.fill(t, 5)
	in := f.start(t)
	f.clock.Advance(time.Hour) // its lease expired
	newer := f.start(t)
	require.Equal(t, int64(2), newer.Epoch)

	out := f.tick(t, in)
	assert.True(t, out.Done)
	assert.Empty(t, f.sfn.Resumed())
	assert.True(t, f.lease(t).After(f.clock.Now()), "the newer releaser keeps its lease")
}

// While the target's throttle pause lasts a tick releases nothing (a
// message released then would only go back to the room and start a
// releaser again at once) and waits the pause out, keeping its lease.
func TestATickDuringTheThrottlePauseWaitsItOut(t *testing.T) {
	f := newFixture(t)
	f.fill(t, 5)
	in := f.start(t)
	row := f.record(t, breaker.Throttled)
	require.True(t, row.ThrottledUntil.After(f.clock.Now()))

	out := f.tick(t, in)
	assert.Zero(t, out.Released)
	assert.False(t, out.Done, "the releaser carries on")
	assert.Empty(t, f.sfn.Resumed())
	assert.Equal(t, row.ThrottledUntil, f.clock.Now(), "it slept until the pause ended")
	assert.Equal(t, 5, f.depth(t))

	out = f.tick(t, out.Input)
	assert.Positive(t, out.Released, "after the pause it releases again")
}
