package release_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"math"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/room"
	"github.com/redrive/redrive/room/pace"
	"github.com/redrive/redrive/room/release"
)

// indexLag is how long after the last entry's note (pace.EntryNoteAhead
// after the entry) the controller keeps looking at an empty room
// (release's indexLag).
const indexLag = 5 * time.Second

func TestAnInvocationRunsTicksPerInvocationTicks(t *testing.T) {
	f := newFixture(t)
	f.handler.Launcher.Policy = pace.Policy{Start: 1, Max: 1}.WithDefaults() // one message a tick
	const rest = 5
	f.fill(t, release.TicksPerInvocation+rest)
	in := f.start(t)

	out, err := f.handler.Handle(t.Context(), in)
	require.NoError(t, err)
	assert.False(t, out.Done)
	assert.Equal(t, release.Input{BreakerKey: key, Epoch: 1, Ticks: release.TicksPerInvocation, Loops: 1}, out.Input)
	assert.Equal(t, release.TicksPerInvocation, out.Released, "the invocation's releases, every tick's")
	assert.Equal(t, runs(0, release.TicksPerInvocation), f.released(), "one per tick, in line")
	assert.Equal(t, t0.Add(release.TicksPerInvocation*time.Second), f.clock.Now(), "each tick lasts one tick")
	assert.Equal(t, rest, f.depth(t))
	assert.True(t, f.lease(t).After(f.clock.Now()), "the controller keeps its lease between invocations")

	out, err = f.handler.Handle(t.Context(), out.Input)
	require.NoError(t, err)
	assert.True(t, out.Done, "the room ran dry within the invocation")
	assert.Equal(t, release.TicksPerInvocation+rest+1, out.Ticks, "a tick for each of the rest, the next finds the room empty")
	assert.Equal(t, runs(0, release.TicksPerInvocation+rest), f.released())
	assert.Zero(t, f.depth(t))
	assert.Zero(t, f.lease(t))
}

func TestAnInvocationEndsAtTheTickThatStopsTheController(t *testing.T) {
	f := newFixture(t)
	f.fill(t, 25)
	in := f.start(t)
	f.clock.Advance(time.Minute) // the entries are old news
	out, err := f.handler.Handle(t.Context(), in)
	require.NoError(t, err)
	assert.True(t, out.Done)
	assert.Equal(t, 2, out.Ticks, "10 then 15: drained at the second tick")
	assert.Equal(t, 25, out.Released, "both ticks' releases")
	assert.Equal(t, runs(0, 25), f.released())

	f = newFixture(t)
	f.fill(t, 5)
	in = f.start(t)
	f.handler.Breaker = failingStatus{f.breaker}
	out, err = f.handler.Handle(t.Context(), in)
	require.NoError(t, err, "a breaker row nobody can read does not hold the room")
	assert.Equal(t, 5, out.Released, "one message a tick: each Attempt asks the breaker itself, and waits the table out")
	assert.GreaterOrEqual(t, out.Ticks, 5)
	assert.Equal(t, runs(0, 5), f.released())
}

// failingStatus is a release.Breaker whose Status fails with errStatus.
type failingStatus struct{ release.Breaker }

func (failingStatus) Status(context.Context, string) (breaker.Row, error) {
	return breaker.Row{}, errStatus
}

// errStatus is failingStatus's error.
var errStatus = errors.New("the breaker table is unavailable")

func TestClosedReleasesTheQuotaInLineThenStopsWhenDrained(t *testing.T) {
	f := newFixture(t)
	f.fill(t, 25)
	in := f.start(t)
	require.Equal(t, []string{"release-orders-a1"}, f.controllers())

	out := f.tick(t, in)
	assert.Equal(t, release.Output{Input: release.Input{BreakerKey: key, Epoch: 1, Ticks: 1}, State: "CLOSED", Rate: 10, Released: 10}, out)
	assert.Equal(t, runs(0, 10), f.released(), "the start rate, in line")
	assert.Equal(t, time.Second, *f.slept, "spread over one tick")
	assert.Equal(t, t0.Add(time.Second), f.clock.Now())
	assert.Equal(t, 15, f.depth(t))
	assert.True(t, f.lease(t).After(f.clock.Now()), "the tick renewed the lease")
	var input struct{ ID string }
	require.NoError(t, json.Unmarshal([]byte(f.sfn.InputsOn(attemptARN)[0]), &input))
	assert.Equal(t, "m-000#1", input.ID, "an execution's input is its entry's document")

	f.clock.Advance(indexLag + pace.EntryNoteAhead) // long after the last entry's note
	out = f.tick(t, out.Input)
	assert.Equal(t, release.Output{Input: release.Input{BreakerKey: key, Epoch: 1, Ticks: 2}, Done: true, State: "CLOSED", Rate: 20, Released: 15}, out,
		"a full tick doubles the rate; the room ran dry")
	assert.Equal(t, runs(0, 25), f.released())
	assert.Zero(t, f.depth(t))
	assert.Zero(t, f.lease(t), "a stopping controller gives up its lease")
	assert.Len(t, f.controllers(), 1, "nothing left: no next controller")
}

// A controller that finds the room empty within indexLag of the last
// entry's note goes on: the index may not show that entry yet.
func TestAnEmptyRoomRightAfterAnEntryKeepsTheController(t *testing.T) {
	f := newFixture(t)
	f.fill(t, 3)
	in := f.start(t) // an entry noted at t0
	out := f.tick(t, in)
	assert.Equal(t, 3, out.Released)
	assert.False(t, out.Done, "an entry at t0: the room may not show it yet")
	assert.True(t, f.lease(t).After(f.clock.Now()), "the lease is kept")
	assert.Equal(t, t0.Add(time.Second), f.clock.Now(), "the tick lasts a tick")

	for !out.Done {
		out = f.tick(t, out.Input)
		require.LessOrEqual(t, out.Ticks, 20)
	}
	assert.Equal(t, 12, out.Ticks, "the first tick that looks more than indexLag after the entry's note (t0+11s) stops")
	assert.Zero(t, f.lease(t))
	assert.Len(t, f.released(), 3)
}

// A message that enters (Ensure, as the Queue task calls it) while the
// controller releases the last of the room, and that the controller's
// look at the room does not show, keeps the controller running: Quit is
// refused, and nothing is stranded.
func TestAMessageEnteringWhileTheControllerStopsKeepsIt(t *testing.T) {
	f := newFixture(t)
	f.fill(t, 3)
	in := f.start(t)
	f.clock.Advance(time.Minute)
	f.sfn.Fail = func(name string) error {
		if name == runs(2, 3)[0] {
			started, err := f.handler.Launcher.Ensure(context.Background(), key)
			assert.NoError(t, err)
			assert.False(t, started, "the controller holds the lease")
		}
		return nil
	}
	out := f.tick(t, in)
	assert.Equal(t, 3, out.Released)
	assert.False(t, out.Done, "the entry it may not see keeps it")
	assert.True(t, f.lease(t).After(f.clock.Now()))

	f.sfn.Fail = nil
	f.enter(t, 3) // the index shows it now
	out = f.tick(t, out.Input)
	assert.Equal(t, 1, out.Released)
	assert.Equal(t, runs(0, 4), f.released())
	assert.Equal(t, []string{"release-orders-a1"}, f.controllers(), "one controller all along")
}

// A message that enters once the controller quit starts the next one.
func TestAMessageEnteringAfterTheControllerQuitStartsTheNext(t *testing.T) {
	f := newFixture(t)
	f.fill(t, 1)
	in := f.start(t)
	f.clock.Advance(time.Minute)
	out := f.tick(t, in)
	require.True(t, out.Done)
	f.enter(t, 1)
	started, err := f.handler.Launcher.Ensure(t.Context(), key)
	require.NoError(t, err)
	assert.True(t, started)
	assert.Equal(t, []string{"release-orders-a1", "release-orders-a2"}, f.controllers())
}

// When nothing in the room is due, the controller waits (the state
// machine's Wait state) for the first entry's time, holding its lease.
func TestAShortRoomWaitsForItsNextEntry(t *testing.T) {
	f := newFixture(t)
	f.fill(t, 2)
	f.enterAt(t, 2, t0.Add(time.Minute))
	in := f.start(t)

	out := f.tick(t, in)
	assert.Equal(t, 2, out.Released, "what is due")
	assert.False(t, out.Done)
	assert.Equal(t, 60, out.WaitSeconds, "until the backoff's end, rounded up (the releases took a moment)")
	assert.Equal(t, runs(0, 2), f.released())
	assert.True(t, !f.lease(t).Before(t0.Add(time.Minute)), "the lease outlasts the wait")

	f.clock.Set(t0.Add(time.Minute))
	out = f.tick(t, out.Input)
	assert.Equal(t, 1, out.Released)
	assert.Zero(t, out.WaitSeconds)
	assert.Equal(t, runs(0, 3), f.released())
}

// An entry due within the tick is waited for within the invocation.
func TestAnEntryDueWithinTheTickIsNotAWaitState(t *testing.T) {
	f := newFixture(t)
	f.enterAt(t, 0, t0.Add(500*time.Millisecond))
	out := f.tick(t, f.start(t))
	assert.Zero(t, out.Released)
	assert.Zero(t, out.WaitSeconds)
	assert.False(t, out.Done)
	out = f.tick(t, out.Input)
	assert.Equal(t, 1, out.Released)
}

// A release whose StartExecution fails is counted, and the tick goes on;
// the entry stays due and goes with the next tick.
func TestAFailedReleaseIsCountedAndTheEntryGoesNextTick(t *testing.T) {
	f := newFixture(t)
	f.fill(t, 4)
	var logs bytes.Buffer
	f.handler.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	in := f.start(t)
	f.sfn.Fail = func(name string) error {
		if name == runs(1, 2)[0] {
			return &smithy.GenericAPIError{Code: "ServiceUnavailable", Message: "try again", Fault: smithy.FaultServer}
		}
		return nil
	}
	out := f.tick(t, in)
	assert.Equal(t, 3, out.Released)
	assert.Equal(t, 1, out.Failed)
	assert.False(t, out.Done)
	assert.Equal(t, []string{"run-m-000-1", "run-m-002-1", "run-m-003-1"}, f.released())
	assert.Equal(t, 1, f.depth(t), "the failed one stays")
	assert.Contains(t, logs.String(), `level=WARN msg="releases failed; the messages stay in line"`)

	f.sfn.Fail = nil
	out = f.tick(t, out.Input)
	assert.Equal(t, 1, out.Released, "at once, not after a claim's lease")
	assert.Zero(t, f.depth(t))
	assert.ElementsMatch(t, runs(0, 4), f.released(), "each once")
}

// deleteFailing is a room table whose deletes fail.
type deleteFailing struct{ room.API }

func (deleteFailing) DeleteItem(context.Context, *dynamodb.DeleteItemInput, ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	return nil, errors.New("injected: table unavailable")
}

// Entries started but not deleted count as released, stay in the room
// (claimed until the lease ends) and are logged.
func TestATickLogsTheReleasedEntriesItCouldNotDelete(t *testing.T) {
	f := newFixture(t)
	f.fill(t, 3)
	var logs bytes.Buffer
	f.handler.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	f.handler.Room = room.New(deleteFailing{f.api}, f.table, time.Hour)
	out := f.tick(t, f.start(t))
	assert.Equal(t, 3, out.Released)
	assert.Equal(t, runs(0, 3), f.released())
	assert.Equal(t, 3, f.depth(t), "the entries stay")
	assert.Contains(t, logs.String(), "level=WARN msg=\"released messages left in the room")
	assert.Contains(t, logs.String(), "undeleted=3")

	out = f.tick(t, out.Input)
	assert.Zero(t, out.Released, "not again while their claims hold")
	assert.Equal(t, 3, out.Skipped)
}

func TestARateNotUsedInFullDoesNotGrow(t *testing.T) {
	f := newFixture(t)
	f.fill(t, 10)
	in := f.start(t)
	out := f.tick(t, in)
	require.False(t, out.Done)
	assert.Equal(t, 10.0, out.Rate)
	for i := range 5 {
		f.enter(t, 100+i)
	}
	out = f.tick(t, out.Input)
	assert.Equal(t, 20.0, out.Rate, "the first tick was full")
	assert.Equal(t, 5, out.Released)
	for i := range 30 {
		f.enter(t, 200+i)
	}
	out = f.tick(t, out.Input)
	assert.Equal(t, 20.0, out.Rate, "the second was not")
	assert.Equal(t, 20, out.Released)

	f.clock.Advance(time.Hour) // the lease ends: a new epoch
	in = f.start(t)
	require.Equal(t, int64(2), in.Epoch)
	out = f.tick(t, in)
	assert.Equal(t, 10.0, out.Rate, "a new epoch starts over")
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
	assert.Equal(t, runs(0, 3), f.released())

	_, err = f.breaker.Admit(t.Context(), key)
	require.NoError(t, err)
	out = f.tick(t, out.Input)
	assert.Zero(t, out.Released, "no permit left")
	assert.False(t, out.Done, "HALF_OPEN keeps its controller for the next canaries")
	assert.Equal(t, 2, f.depth(t))
}

// OPEN: the controller waits out the cooldown in the state machine's Wait
// state, holding its lease, then releases one message, the probe, and no
// more while the probe is out.
func TestOpenWaitsOutTheCooldownThenReleasesTheProbe(t *testing.T) {
	f := newFixture(t)
	f.fill(t, 5)
	in := f.start(t)
	f.trip(t)
	row, err := f.breaker.Status(t.Context(), key)
	require.NoError(t, err)
	require.True(t, row.OpenUntil.After(f.clock.Now()))

	out := f.tick(t, in)
	assert.Equal(t, "OPEN", out.State)
	assert.False(t, out.Done)
	assert.Equal(t, int(row.OpenUntil.Sub(t0).Seconds()), out.WaitSeconds, "until the cooldown ends")
	assert.Empty(t, f.released())
	assert.Equal(t, t0, f.clock.Now(), "it does not sleep: the state machine waits")
	assert.True(t, f.lease(t).After(row.OpenUntil), "the lease outlasts the wait")

	f.clock.Set(row.OpenUntil)
	out = f.tick(t, out.Input)
	assert.Equal(t, 1, out.Released, "the probe")
	assert.Equal(t, runs(0, 1), f.released())

	probe, err := f.breaker.Admit(t.Context(), key) // the probe's attempt
	require.NoError(t, err)
	require.Contains(t, []breaker.Verdict{breaker.Proceed, breaker.Canary}, probe.Verdict)
	out = f.tick(t, out.Input)
	assert.Zero(t, out.Released, "the probe is out")
	assert.False(t, out.Done)
	assert.Equal(t, 4, f.depth(t))

	// The probe fails: the second cooldown (two minutes, capped at the
	// policy's 90 s) is waited out in one Wait, not a minute at a time.
	_, err = f.breaker.Record(t.Context(), key, probe.Row, probe.Ticket, breaker.Transient)
	require.NoError(t, err)
	row, err = f.breaker.Status(t.Context(), key)
	require.NoError(t, err)
	require.Equal(t, breaker.Open, row.State)
	out = f.tick(t, out.Input)
	assert.Equal(t, int(math.Ceil(row.OpenUntil.Sub(f.clock.Now()).Seconds())), out.WaitSeconds)
	assert.Greater(t, out.WaitSeconds, 60, "a cooldown longer than a minute is one wait")
}

func TestForcedOpen(t *testing.T) {
	t.Run("until released: the controller waits a minute at a time, holding the room", func(t *testing.T) {
		f := newFixture(t)
		f.fill(t, 5)
		in := f.start(t)
		_, _, err := f.breaker.Command(t.Context(), key, breaker.Command{Kind: breaker.ForceOpen, Actor: "ops", Reason: "test"})
		require.NoError(t, err)
		f.clock.Advance(time.Minute)
		out := f.tick(t, in)
		assert.False(t, out.Done, "it does not end (every entry would start another)")
		assert.Equal(t, "FORCED_OPEN", out.State)
		assert.Equal(t, 60, out.WaitSeconds)
		assert.Empty(t, f.released())
		assert.Equal(t, 5, f.depth(t), "the messages wait for the operator's release")
		assert.True(t, f.lease(t).After(f.clock.Now().Add(time.Minute)), "the lease covers the wait")
		started, err := f.handler.Launcher.Ensure(t.Context(), key)
		require.NoError(t, err)
		assert.False(t, started, "an entry starts no second controller")
	})
	t.Run("until a time: the controller waits for it", func(t *testing.T) {
		f := newFixture(t)
		f.fill(t, 5)
		in := f.start(t)
		until := t0.Add(10 * time.Minute)
		_, _, err := f.breaker.Command(t.Context(), key, breaker.Command{Kind: breaker.ForceOpen, Until: until, Actor: "ops", Reason: "test"})
		require.NoError(t, err)
		out := f.tick(t, in)
		assert.False(t, out.Done)
		assert.Equal(t, 600, out.WaitSeconds, "until the forced mode ends: an operator's release or close takes over from it at once")
		assert.Empty(t, f.released())
		assert.True(t, f.lease(t).After(until), "the lease covers the wait")
	})
}

func TestAThrottleStopsTheTickEarlyAndSlowsTheNext(t *testing.T) {
	f := newFixture(t)
	f.fill(t, 30)
	in := f.start(t)
	f.sfn.Fail = func(name string) error {
		if name == runs(2, 3)[0] {
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

func TestMaxLoopsHandsOverToTheNextEpoch(t *testing.T) {
	f := newFixture(t)
	f.fill(t, 30)
	in := f.start(t)
	in.Loops = release.MaxLoops

	out, err := f.handler.Handle(t.Context(), in)
	require.NoError(t, err)
	assert.True(t, out.Done)
	assert.Empty(t, f.released(), "the last loop hands over without releasing")
	require.Equal(t, []string{"release-orders-a1", "release-orders-a2"}, f.controllers())
	var next release.Input
	require.NoError(t, json.Unmarshal([]byte(f.sfn.InputsOn(releaseARN)[1]), &next))
	assert.Equal(t, release.Input{BreakerKey: key, Epoch: 2}, next)

	out = f.tick(t, in)
	assert.True(t, out.Done, "epoch 1 is over")
	assert.Empty(t, f.released())
	out = f.tick(t, next)
	assert.False(t, out.Done)
	assert.Len(t, f.released(), 10)
}

func TestAControllerWhoseEpochIsOverStops(t *testing.T) {
	f := newFixture(t)
	f.fill(t, 5)
	in := f.start(t)
	f.clock.Advance(time.Hour) // its lease expired
	newer := f.start(t)
	require.Equal(t, int64(2), newer.Epoch)

	out := f.tick(t, in)
	assert.True(t, out.Done)
	assert.Empty(t, f.released())
	assert.True(t, f.lease(t).After(f.clock.Now()), "the newer controller keeps its lease")
}

// While the target's throttle pause lasts a tick releases nothing (a
// message released then would only go back to the room) and waits the
// pause out, keeping its lease.
func TestATickDuringTheThrottlePauseWaitsItOut(t *testing.T) {
	f := newFixture(t)
	f.fill(t, 5)
	in := f.start(t)
	row := f.record(t, breaker.Throttled)
	require.True(t, row.ThrottledUntil.After(f.clock.Now()))

	out := f.tick(t, in)
	assert.Zero(t, out.Released)
	assert.False(t, out.Done, "the controller carries on")
	assert.Empty(t, f.released())
	assert.Equal(t, row.ThrottledUntil, f.clock.Now(), "it slept until the pause ended")
	assert.Equal(t, 5, f.depth(t))

	out = f.tick(t, out.Input)
	assert.Positive(t, out.Released, "after the pause it releases again")
}

// Two controllers of one key at once (a dead one's lease expired while it
// ran, say): between them every message is released exactly once, and
// they release one tick's budget of the target between them.
func TestTwoControllersReleaseEachMessageOnce(t *testing.T) {
	f := newFixture(t)
	f.handler.Releaser.Workers = 4
	f.fill(t, 40)
	in := f.start(t)
	other := *f.handler
	other.Releaser.Owner = "other"
	other.Clock = f.clock // not the fixture's counting one: shared, it would race
	done := make(chan release.Output)
	go func() {
		out, err := other.Tick(context.Background(), in)
		assert.NoError(t, err)
		done <- out
	}()
	out := f.tick(t, in)
	o2 := <-done
	assert.Equal(t, 10, out.Released+out.Skipped+o2.Released+o2.Skipped)
	assert.Equal(t, 40-(out.Released+o2.Released), f.depth(t))
	seen := map[string]int{}
	for _, n := range f.released() {
		seen[n]++
	}
	for n, c := range seen {
		assert.Equal(t, 1, c, n)
	}
}

// The controllers of every key release to one target: a tick releases
// what the target's budget leaves it, not its own key's whole quota.
func TestATickReleasesWhatTheTargetsBudgetLeavesIt(t *testing.T) {
	f := newFixture(t)
	f.fill(t, 30)
	in := f.start(t)
	pol := f.handler.Launcher.Policy
	// Another key's controller took the whole budget of the tick before
	// (10, so 20 in this one) and 15 of this one's.
	_, err := f.pace.Take(t.Context(), pol, t0.Add(-time.Second), 10, 0)
	require.NoError(t, err)
	g, err := f.pace.Take(t.Context(), pol, t0, 15, 0)
	require.NoError(t, err)
	require.Equal(t, 15, g.N)

	out := f.tick(t, in)
	assert.Equal(t, 5, out.Released, "the budget's 20 less the other's 15")
	assert.Equal(t, 10.0, out.Rate, "the key's own pace would have let 10 go")
}

// Another key's message throttled by the target pauses this key's
// release too: at the tick's next release while it releases, and at the
// tick's start until the pause ends.
func TestAnotherKeysThrottlePausesTheRelease(t *testing.T) {
	f := newFixture(t)
	f.fill(t, 30)
	in := f.start(t)
	pol := f.handler.Launcher.Policy
	_, err := f.pace.Take(t.Context(), pol, t0, 1, 0) // another key releases in this tick too
	require.NoError(t, err)
	var until time.Time
	f.sfn.Fail = func(name string) error {
		if name == runs(2, 3)[0] {
			// The other key's message is throttled as this one's third
			// release starts.
			until = f.clock.Now().Add(1500 * time.Millisecond).Truncate(time.Millisecond) // as stored
			require.NoError(t, f.pace.NoteThrottle(t.Context(), until))
		}
		return nil
	}
	out := f.tick(t, in)
	assert.Equal(t, 3, out.Released, "the tick saw the pause at its next release")
	assert.False(t, out.Done)

	f.sfn.Fail = nil
	out = f.tick(t, out.Input)
	assert.Zero(t, out.Released, "the next tick waits the pause out")
	assert.Equal(t, until, f.clock.Now())
	out = f.tick(t, out.Input)
	assert.Positive(t, out.Released, "then releases again")
}
