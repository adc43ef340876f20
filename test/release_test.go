package test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/admin"
	"github.com/redrive/redrive/attempt"
	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/emulate/executor"
	"github.com/redrive/redrive/emulate/local"
	"github.com/redrive/redrive/emulate/simtarget"
	"github.com/redrive/redrive/room/pace"
	"github.com/redrive/redrive/room/release"
)

// holdInTheRoom forces the breaker open, sends n messages and runs until
// they all wait in the room; nothing reaches the consumer, and no
// execution runs for them (the starter puts them in the room as
// documents).
func holdInTheRoom(t *testing.T, s *local.Stack, prefix string, n int, until time.Time) []string {
	t.Helper()
	runAdmin(t, s, admin.Request{Command: "open", Breaker: "orders", Reason: "hold the backlog"})
	ids := send(t, s, bodies(prefix, n)...)
	runUntil(t, s, until)
	depth, _ := s.Room()
	require.Equal(t, n, depth, "every message waits in the room")
	require.Empty(t, s.Target.Ledger().Calls(), "nothing reaches the consumer while forced open")
	require.Zero(t, s.Pending(t.Context()).Executions, "no execution runs for a waiting message")
	return ids
}

// assertReleasedOnce checks that each of ids was released from the room
// once, by one execution that delivered it, started no sooner than from.
func assertReleasedOnce(t *testing.T, s *local.Stack, ids []string, from time.Time) {
	t.Helper()
	byOrigin := triesByOrigin(t, s)
	for _, id := range ids {
		tries := byOrigin[id]
		if !assert.Len(t, tries, 1, "message %s: one execution", id) {
			continue
		}
		assert.Equal(t, 1, tries[0].Runs, "message %s: released from the room", id)
		assert.Equal(t, endDelivered, tries[0].End, "message %s", id)
		assert.False(t, tries[0].StartDate.Before(from), "message %s released at %s, before %s", id, tries[0].StartDate, from)
	}
}

// controllersSince lists the controllers started at or after from, oldest
// first.
func controllersSince(t *testing.T, s *local.Stack, from time.Time) []executor.Execution {
	t.Helper()
	var out []executor.Execution
	for _, x := range releaseExecutions(t, s) {
		if !x.StartDate.Before(from) {
			out = append(out, x)
		}
	}
	return out
}

// A thousand messages wait in the room; two controllers race over it on
// one breaker key (the one the release command starts, and a second
// execution of the same epoch, as a duplicated invocation runs; handlers
// run concurrently): each entry's claim goes to one of them, so every
// message's execution is started once, and every message is delivered
// exactly once.
func TestTwoRacingControllersReleaseAThousandWaitingMessagesOnce(t *testing.T) {
	const n = 1000
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	logs := &syncBuffer{}
	s := start(t, local.Options{Start: t0, Workers: 8, Logs: logs})
	starts := &startLog{}
	instrumentReleasers(t, s, starts, startFaults{}, "", "twin")
	ids := holdInTheRoom(t, s, "race", n, t0.Add(time.Minute))

	releasedAt := s.Executor.Now()
	runAdmin(t, s, admin.Request{Command: "release", Breaker: "orders", Reason: "back to automatic"})
	running, err := s.Executor.ListExecutions(t.Context(), s.ReleaseARN, executor.Running)
	require.NoError(t, err)
	require.NotEmpty(t, running)
	// The release command took over from the controller that waited out
	// the hold: the newest epoch's is the one that releases.
	var in taggedInput
	for _, x := range running {
		var got taggedInput
		require.NoError(t, json.Unmarshal(x.Input, &got))
		if got.Epoch > in.Epoch {
			in = got
		}
	}
	in.Releaser = "twin"
	startReleaser(t, s, "twin", in)
	drain(t, s)

	out := accountFor(t, s)
	assert.Len(t, out.delivered, n, "every message delivered")
	assert.Empty(t, out.parked)
	depth, _ := s.Room()
	assert.Zero(t, depth, "the room is empty")

	byReleaser := map[string]int{}
	for _, c := range starts.snapshot() {
		require.NoError(t, c.Err, "start of %s", c.OriginID)
		byReleaser[c.Releaser]++
	}
	started := starts.started()
	assert.Len(t, started, n, "an execution started per message")
	for id, k := range started {
		if k != 1 {
			t.Errorf("message %s released %d times", id, k)
		}
	}
	ticks := logs.releaseTicks(t)
	t.Logf("releases by controller %v; ticks %+v", byReleaser, ticks)
	assert.Equal(t, n, ticks.Released, "the ticks count each release once")
	assert.Zero(t, ticks.Failed)
	assert.Positive(t, ticks.Skipped, "the controllers raced for the same entries: the claim turned one away")
	assert.Positive(t, byReleaser[""], "the first controller released messages")
	assert.Positive(t, byReleaser["twin"], "the second controller released messages")
	assertReleasedOnce(t, s, ids, releasedAt)
	for _, x := range releaseExecutions(t, s) {
		assert.Equal(t, executor.Succeeded, x.Status, "controller %s", x.Name)
	}
}

// A controller dies after a release's StartExecution and before the
// room's conditional delete: the message's execution runs and delivers
// it, once; its entry stays in the room under the dead release's claim,
// which the state machine's retry of the controller skips until it
// expires; then the entry goes again, and its second execution finds the
// delivery done in the ledger. Nothing is lost, nothing delivered twice.
func TestAControllerThatDiesMidReleaseLosesNothing(t *testing.T) {
	const n = 25
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := start(t, local.Options{Start: t0})
	starts := &startLog{}
	var mu sync.Mutex
	victim := ""
	instrumentReleasers(t, s, starts, startFaults{after: func(c startCall) {
		mu.Lock()
		defer mu.Unlock()
		if victim == "" {
			victim = c.OriginID
			panic("injected: the controller dies between the start and the room's delete")
		}
	}}, "")
	// A burst beyond the starting pace: the starter puts the rest in the
	// room, and starts its controller.
	ids := send(t, s, bodies("dies", n)...)
	drain(t, s)

	mu.Lock()
	require.NotEmpty(t, victim, "the fault fired")
	mu.Unlock()
	out := accountFor(t, s)
	assert.Len(t, out.delivered, n, "every message delivered, the victim's too")
	assert.Empty(t, out.parked)
	assert.Equal(t, 1, s.Target.Ledger().Deliveries()[victim], "the victim delivered once")
	assert.EqualValues(t, n, s.Stats().Invocations[local.FunctionConsumer], "the consumer got each message once")
	depth, _ := s.Room()
	assert.Zero(t, depth, "the victim's entry went once its claim expired")

	straight := int(pace.Policy{}.WithDefaults().Start) // the first second's arrivals go straight to the target
	started := starts.started()
	assert.Len(t, started, n-straight, "an execution started per message in the room")
	assert.Equal(t, 2, started[victim], "the victim's entry was released again")
	var victimStarts []time.Time
	for _, c := range starts.snapshot() {
		if c.OriginID == victim {
			victimStarts = append(victimStarts, c.At)
		}
	}
	require.Len(t, victimStarts, 2)
	t.Logf("the victim released at %v, again %v later", victimStarts[0].Sub(t0), victimStarts[1].Sub(victimStarts[0]))
	assert.GreaterOrEqual(t, victimStarts[1].Sub(victimStarts[0]), time.Minute, "not before the claim (a minute) expired")
	assert.Less(t, victimStarts[1].Sub(victimStarts[0]), 2*time.Minute, "soon after it expired")
	for _, tr := range triesByOrigin(t, s)[victim] {
		assert.Equal(t, endDelivered, tr.End, "the victim's execution %s", tr.Name)
	}
	for id, k := range started {
		if id != victim {
			assert.Equal(t, 1, k, "message %s released once", id)
		}
	}
	_ = ids
	xs := releaseExecutions(t, s)
	failed := 0
	for _, x := range xs {
		assert.Equal(t, executor.Succeeded, x.Status, "controller %s", x.Name)
		failed += countEvents(t, s, x.ARN, "TaskFailed")
	}
	assert.Equal(t, 1, failed, "the dead invocation failed once and the state machine's retry went on")
}

// A release whose StartExecution fails (the Express start quota, a Step
// Functions error) gives its claim up and counts as failed; the batch
// goes on, and the entry goes with a later tick: nothing is lost, nothing
// started twice.
func TestAReleaseWhoseStartFailsLeavesTheMessageInLine(t *testing.T) {
	const n, failures = 40, 15
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	logs := &syncBuffer{}
	s := start(t, local.Options{Start: t0, Logs: logs})
	starts := &startLog{}
	var mu sync.Mutex
	refused := map[string]int{}
	instrumentReleasers(t, s, starts, startFaults{fail: func(c startCall) error {
		mu.Lock()
		defer mu.Unlock()
		if len(refused) < failures && refused[c.OriginID] == 0 {
			refused[c.OriginID]++
			return errors.New("ThrottlingException: Rate exceeded (injected)")
		}
		return nil
	}}, "")
	ids := holdInTheRoom(t, s, "refused", n, t0.Add(time.Minute))
	releasedAt := s.Executor.Now()
	runAdmin(t, s, admin.Request{Command: "release", Breaker: "orders", Reason: "maintenance over"})
	drain(t, s)

	out := accountFor(t, s)
	assert.Len(t, out.delivered, n, "every message delivered")
	assert.Empty(t, out.parked)
	depth, _ := s.Room()
	assert.Zero(t, depth)
	mu.Lock()
	assert.Len(t, refused, failures, "the fault fired")
	mu.Unlock()
	started := starts.started()
	assert.Len(t, started, n)
	for id, k := range started {
		assert.Equal(t, 1, k, "message %s started once", id)
	}
	ticks := logs.releaseTicks(t)
	assert.Equal(t, failures, ticks.Failed, "each refused start counted as a failed release")
	assert.Equal(t, n, ticks.Released)
	assert.Contains(t, logs.String(), "releases failed; the messages stay in line")
	assertReleasedOnce(t, s, ids, releasedAt)
	for _, x := range releaseExecutions(t, s) {
		assert.Equal(t, executor.Succeeded, x.Status, "controller %s: a failed release does not fail it", x.Name)
		assert.Zero(t, countEvents(t, s, x.ARN, "TaskFailed"), "controller %s", x.Name)
	}
}

// The breaker re-trips during a release: the target fails again a moment
// into the drain. The released messages that fail go back to the room,
// and the rest stay there (not delivered, not parked, no execution
// running) while the controller waits out each cooldown and releases one
// probe; after the next close, it releases them.
func TestABreakerThatReTripsDuringAReleaseKeepsTheRestInTheRoom(t *testing.T) {
	const n, secondOutage = 300, 5 * time.Minute
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	hold := t0.Add(10 * time.Minute)
	// The release starts at hold; the target goes down two seconds into it.
	down := hold.Add(2 * time.Second)
	policy := breaker.Policy{}
	p := policy.WithDefaults()
	s := start(t, local.Options{
		Start:   t0,
		Policy:  policy,
		Attempt: attempt.Config{MaxAttempts: 10}, // each probe's failure uses one of its message's tries
		Target:  simtarget.Options{Schedule: simtarget.Outage(down, secondOutage)},
	})
	holdInTheRoom(t, s, "retrip", n, hold)
	runAdmin(t, s, admin.Request{Command: "release", Breaker: "orders", Reason: "maintenance over"})

	// Through the second outage, the room is held: the only executions are
	// the probes'.
	t1, t2 := down.Add(secondOutage/5), down.Add(secondOutage/2)
	runUntil(t, s, t1)
	moved := totalTransitions(t, s)
	executionsBefore, _ := executionsOf(t, s, s.RedriveARN)
	runUntil(t, s, t2)
	moved = totalTransitions(t, s) - moved
	executionsNow, _ := executionsOf(t, s, s.RedriveARN)
	probes := s.Target.Ledger().CallsBetween(t1.Add(time.Nanosecond), t2.Add(time.Nanosecond))
	t.Logf("from %v to %v into the second outage: %d probes, %d executions, %d transitions", t1.Sub(down), t2.Sub(down), probes,
		executionsNow-executionsBefore, moved)
	assert.Equal(t, probes, executionsNow-executionsBefore, "nobody but the probe leaves the room while OPEN")
	assert.LessOrEqual(t, moved, 4*probes, "the rest wait in the room")
	assert.Zero(t, s.Pending(t.Context()).Executions, "no execution waits")
	row, err := s.BreakerRow(t.Context(), "orders")
	require.NoError(t, err)
	require.Equal(t, breaker.Open, row.State, "the failures during the release tripped the breaker")
	changes := s.BreakerChanges()
	trip := changes[len(changes)-1]
	require.Equal(t, []breaker.State{breaker.Closed, breaker.Open}, []breaker.State{trip.From, trip.To})
	before := len(s.Target.Ledger().Deliveries())
	t.Logf("%d delivered before the trip at %v", before, trip.At.Sub(hold))
	require.Positive(t, before, "the release had begun")
	require.Less(t, before, n, "the release had not ended")
	for id, at := range deliveredAt(s) {
		assert.True(t, at.Before(trip.At), "message %s delivered at %s, after the trip", id, at)
	}
	assert.Zero(t, s.Stats().Invocations[local.FunctionPark], "nothing parked")
	depth, _ := s.Room()
	assert.Equal(t, n-before, depth, "the rest wait in the room")
	assert.Equal(t, 1, runningControllers(t, s), "its controller waits out the cooldown")

	drain(t, s)
	out := accountFor(t, s)
	assert.Len(t, out.delivered, n, "every message delivered")
	assert.Empty(t, out.parked)
	changes = s.BreakerChanges()
	closed := changes[len(changes)-1]
	assert.Equal(t, []breaker.State{breaker.HalfOpen, breaker.Closed}, []breaker.State{closed.From, closed.To}, "closed again by canaries")
	assert.False(t, closed.At.Before(down.Add(secondOutage)))
	after := 0
	for _, at := range deliveredAt(s) {
		if !at.Before(closed.At) {
			after++
		}
	}
	assert.GreaterOrEqual(t, after, n-before-p.SuccessesToClose, "the rest delivered after the next close (but the canaries)")
	ledger := s.Target.Ledger()
	// The trip's failures may count a few more calls than a trip from
	// idle: the releases in flight when it tripped (the controller looks
	// at the breaker every 100 ms while it releases).
	bound := outageCallBound(policy, secondOutage) + 2
	t.Logf("calls while down: %d (bound %d); %d delivered after the close", ledger.CallsWhile(simtarget.Down), bound, after)
	assert.LessOrEqual(t, ledger.CallsWhile(simtarget.Down), bound, "only the probes")
	probe := changes[len(changes)-2]
	require.Equal(t, []breaker.State{breaker.Open, breaker.HalfOpen}, []breaker.State{probe.From, probe.To})
	for id, at := range deliveredAt(s) {
		assert.False(t, at.After(trip.At) && at.Before(probe.At), "message %s delivered at %s, while OPEN", id, at)
	}
}

// FORCED_OPEN without an end holds the room for hours: nothing reaches the
// consumer, nothing is parked, and nothing runs (the controller stops: no
// execution waits for the operator); the release command starts the
// controller, which drains the room at the pace within a minute.
func TestForcedOpenHoldsTheRoomAndReleaseDrainsIt(t *testing.T) {
	const n = 200
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := start(t, local.Options{Start: t0})
	ids := holdInTheRoom(t, s, "held", n, t0.Add(150*time.Minute))
	assert.Zero(t, s.Stats().Invocations[local.FunctionPark], "nothing parked")
	assert.Equal(t, 1, runningControllers(t, s), "one controller waits out an open-ended hold, a minute at a time, so that entries start no other")
	assert.Len(t, inRoom(t, s, "orders"), n)
	row, err := s.BreakerRow(t.Context(), "orders")
	require.NoError(t, err)
	assert.Equal(t, breaker.ForcedOpen, row.State)

	releasedAt := s.Executor.Now()
	released := runAdmin(t, s, admin.Request{Command: "release", Breaker: "orders", Reason: "maintenance over"})
	assert.Equal(t, "FORCED_OPEN", released.Before.State)
	assert.Equal(t, "CLOSED", released.After.State)
	drain(t, s)

	out := accountFor(t, s)
	assert.Len(t, out.delivered, n, "every message delivered")
	assert.Empty(t, out.parked)
	depth, _ := s.Room()
	assert.Zero(t, depth)
	var drained time.Time
	for id, at := range deliveredAt(s) {
		assert.False(t, at.Before(releasedAt), "message %s delivered before the release", id)
		if at.After(drained) {
			drained = at
		}
	}
	t.Logf("drained %v after the release, peak %d calls/s", drained.Sub(releasedAt), s.Target.Ledger().PeakRate())
	assert.Less(t, drained.Sub(releasedAt), time.Minute, "released by the controller at once")
	assert.LessOrEqual(t, float64(s.Target.Ledger().PeakRate()), pace.Policy{}.WithDefaults().Max, "within the release budget")
	assertReleasedOnce(t, s, ids, releasedAt)
	assert.Positive(t, s.Stats().Invocations[local.FunctionRelease])
}

// An outage trips the breaker with a long cooldown; the target recovers
// long before the controller would release the probe, and an operator
// resets the breaker: the reset releases the room at once, and every
// waiting message is delivered within a minute.
func TestResetReleasesTheRoom(t *testing.T) {
	const n, outage = 100, 2 * time.Minute
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	policy := breaker.Policy{CooldownBase: 10 * time.Minute, CooldownMax: 30 * time.Minute}
	s := start(t, local.Options{
		Start:  t0,
		Policy: policy,
		Target: simtarget.Options{Schedule: simtarget.Outage(t0, outage)},
	})
	send(t, s, bodies("reset", n)...)
	runUntil(t, s, t0.Add(outage+time.Minute))
	row, err := s.BreakerRow(t.Context(), "orders")
	require.NoError(t, err)
	require.Equal(t, breaker.Open, row.State)
	assert.Empty(t, s.Target.Ledger().Deliveries())
	depth, _ := s.Room()
	require.Equal(t, n, depth, "every message waits in the room")
	assert.Zero(t, s.Pending(t.Context()).Executions, "no execution waits out the cooldown")

	resetAt := s.Executor.Now()
	reset := runAdmin(t, s, admin.Request{Command: "reset", Breaker: "orders", Reason: "downstream verified"})
	assert.Equal(t, "OPEN", reset.Before.State)
	assert.Equal(t, "CLOSED", reset.After.State)
	minute := resetAt.Add(time.Minute)
	require.True(t, minute.Before(row.OpenUntil), "the probe would go only at %s", row.OpenUntil)
	runUntil(t, s, minute)
	delivered := deliveredAt(s)
	assert.Len(t, delivered, n, "every message in the room delivered within a minute of the reset")
	for id, at := range delivered {
		assert.False(t, at.Before(resetAt), "message %s delivered before the reset", id)
	}
	depth, _ = s.Room()
	assert.Zero(t, depth)

	drain(t, s)
	out := accountFor(t, s)
	assert.Len(t, out.delivered, n)
	assert.Empty(t, out.parked)
	assert.Equal(t, breaker.CauseReset, s.BreakerChanges()[len(s.BreakerChanges())-1].Cause, "no change after the reset")
}

// failRelease makes the stack's release function fail until the returned
// func puts the real one back.
func failRelease(t *testing.T, s *local.Stack) (restore func()) {
	t.Helper()
	require.NoError(t, s.Registry.Register(local.FunctionRelease, func(context.Context, release.Input) (release.Output, error) {
		return release.Output{}, errors.New("injected: the release function fails")
	}))
	return func() { require.NoError(t, s.Registry.Register(local.FunctionRelease, s.Handlers.Release.Handle)) }
}

// The release function fails for ten minutes right after an operator's
// release: the controller's retries, then its one-minute pauses, outlast
// it, and the same controller drains the room once the function
// recovers, within a couple of minutes.
func TestAControllerOutlastsAFailingReleaseFunction(t *testing.T) {
	const n = 50
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := start(t, local.Options{Start: t0})
	ids := holdInTheRoom(t, s, "outlast", n, t0.Add(time.Minute))
	restore := failRelease(t, s)
	releasedAt := s.Executor.Now()
	runAdmin(t, s, admin.Request{Command: "release", Breaker: "orders", Reason: "maintenance over"})
	runUntil(t, s, releasedAt.Add(10*time.Minute))
	depth, _ := s.Room()
	require.Equal(t, n, depth, "nothing released while the function fails")
	assert.Positive(t, runningControllers(t, s), "the controller outlasts the failures (with the one the hold kept, which ends once its function runs again)")
	restoredAt := s.Executor.Now()
	restore()

	drain(t, s)
	out := accountFor(t, s)
	assert.Len(t, out.delivered, n, "every message delivered")
	var drained time.Time
	for _, at := range deliveredAt(s) {
		if at.After(drained) {
			drained = at
		}
	}
	t.Logf("drained %v after the function recovered", drained.Sub(restoredAt))
	assert.Less(t, drained.Sub(restoredAt), 3*time.Minute, "within a pause and its retries")
	// The starter's entries started a controller that stopped at the
	// open-ended hold; the release command started the one that drains.
	xs := controllersSince(t, s, releasedAt)
	require.Len(t, xs, 1, "one controller")
	assert.Equal(t, executor.Succeeded, xs[0].Status)
	assert.Positive(t, countEvents(t, s, xs[0].ARN, "TaskFailed"), "it retried")
	assert.Positive(t, countEvents(t, s, xs[0].ARN, "WaitStateEntered"), "it paused")
	assertReleasedOnce(t, s, ids, restoredAt)
}

// The room's controller is stopped for good right after an operator's
// release (its function failing, then the execution stopped, as an
// operator would): the room stalls, nothing lost. The next message to
// enter the room, once the stopped controller's lease ran out, starts a
// new controller, which drains the whole room.
func TestAStoppedControllerIsRestartedByTheNextEntry(t *testing.T) {
	const n, burst = 50, 20
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := start(t, local.Options{Start: t0})
	ids := holdInTheRoom(t, s, "stalled", n, t0.Add(time.Minute))
	restore := failRelease(t, s)
	releasedAt := s.Executor.Now()
	runAdmin(t, s, admin.Request{Command: "release", Breaker: "orders", Reason: "maintenance over"})
	runUntil(t, s, releasedAt.Add(2*time.Minute))
	xs := controllersSince(t, s, releasedAt)
	require.Len(t, xs, 1)
	_, err := s.SFN.StopExecution(t.Context(), &sfn.StopExecutionInput{ExecutionArn: aws.String(xs[0].ARN), Cause: aws.String("stopped by the test")})
	require.NoError(t, err)
	restore()
	runUntil(t, s, releasedAt.Add(5*time.Minute))
	depth, _ := s.Room()
	require.Equal(t, n, depth, "the room is stalled")
	assert.Empty(t, s.Target.Ledger().Calls())

	// A burst beyond the starting pace: the starter puts its tail in the
	// room, and so starts the breaker's controller.
	enteredAt := s.Executor.Now()
	send(t, s, bodies("next", burst)...)
	drain(t, s)
	out := accountFor(t, s)
	assert.Len(t, out.delivered, n+burst, "every message delivered")
	assert.Empty(t, out.parked)
	depth, _ = s.Room()
	assert.Zero(t, depth)
	var drained time.Time
	for _, id := range ids {
		at := deliveredAt(s)[id]
		assert.False(t, at.Before(enteredAt), "stalled message %s delivered before the next entry", id)
		if at.After(drained) {
			drained = at
		}
	}
	t.Logf("the stalled room drained %v after the next entry", drained.Sub(enteredAt))
	assert.Less(t, drained.Sub(enteredAt), time.Minute, "released by the new controller at once")
	xs = controllersSince(t, s, releasedAt)
	require.Len(t, xs, 2, "the next entry started the second controller")
	assert.Equal(t, executor.Aborted, xs[0].Status)
	assert.Equal(t, executor.Succeeded, xs[1].Status)
	assertReleasedOnce(t, s, ids, enteredAt)
}
