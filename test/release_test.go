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
// they all wait in the room; nothing reaches the consumer.
func holdInTheRoom(t *testing.T, s *local.Stack, prefix string, n int, until time.Time) []string {
	t.Helper()
	runAdmin(t, s, admin.Request{Command: "open", Breaker: "orders", Reason: "hold the backlog"})
	ids := send(t, s, bodies(prefix, n)...)
	runUntil(t, s, until)
	depth, _ := s.Room()
	require.Equal(t, n, depth, "every message waits in the room")
	require.Empty(t, s.Target.Ledger().Calls(), "nothing reaches the consumer while forced open")
	return ids
}

// A thousand messages wait in the room; two releasers race over it on one
// breaker key (the one the release command starts, and a second execution
// of the same epoch, as a duplicated invocation runs; handlers run
// concurrently): a token both send resumes its execution once (Step
// Functions answers TaskTimedOut to the second, and that releaser drops
// the spent entry), so every execution resumes once, and every message is
// delivered exactly once.
func TestTwoRacingReleasersReleaseAThousandWaitingMessagesOnce(t *testing.T) {
	const n = 1000
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	logs := &syncBuffer{}
	s := start(t, local.Options{Start: t0, Workers: 8, Logs: logs})
	calls := &taskLog{}
	instrumentReleasers(t, s, calls, nil, "", "twin")
	holdInTheRoom(t, s, "race", n, t0.Add(time.Minute))

	releasedAt := s.Executor.Now()
	runAdmin(t, s, admin.Request{Command: "release", Breaker: "orders", Reason: "back to automatic"})
	running, err := s.Executor.ListExecutions(t.Context(), s.ReleaseARN, executor.Running)
	require.NoError(t, err)
	require.Len(t, running, 1, "the release command started one releaser")
	var in taggedInput
	require.NoError(t, json.Unmarshal(running[0].Input, &in))
	in.Releaser = "twin"
	startReleaser(t, s, "twin", in)
	drain(t, s)

	out := accountFor(t, s)
	assert.Len(t, out.delivered, n, "every message delivered")
	assert.Empty(t, out.parked)
	depth, _ := s.Room()
	assert.Zero(t, depth, "the room is empty")

	resumed := map[string]int{}
	byReleaser := map[string]int{}
	spent := 0
	for _, c := range calls.snapshot() {
		if c.Err != nil {
			assert.True(t, timedOut(c.Err), "a second send of a token is answered TaskTimedOut, not %v", c.Err)
			spent++
			continue
		}
		resumed[c.Token]++
		byReleaser[c.Releaser]++
	}
	assert.Len(t, resumed, n, "one token per message resumed")
	for token, k := range resumed {
		if k != 1 {
			t.Errorf("token %.16s... resumed %d times", token, k)
		}
	}
	released, dropped := logs.releaseTicks(t)
	t.Logf("resumes by releaser %v; %d tokens sent by both", byReleaser, spent)
	assert.Equal(t, n, released, "the ticks count each resume once")
	assert.Equal(t, spent, dropped, "a tick drops each spent token it sent")
	assert.Positive(t, spent, "the releasers raced for the same entries")
	assert.Positive(t, byReleaser[""], "the first releaser released messages")
	assert.Positive(t, byReleaser["twin"], "the second releaser released messages")

	for id, visits := range visitsByOrigin(t, s) {
		require.Len(t, visits, 1, "message %s waited once", id)
		assert.True(t, visits[0].Released, "message %s released", id)
		assert.False(t, visits[0].Left.Before(releasedAt), "message %s released after the command", id)
	}
	for _, x := range releaseExecutions(t, s) {
		assert.Equal(t, executor.Succeeded, x.Status, "releaser %s", x.Name)
	}
}

// A releaser dies after SendTaskSuccess and before the room's conditional
// delete: the message was resumed and is delivered, once, with no wait
// for a timeout; its spent entry stays in the room until the release
// execution's retry lists it again, is answered TaskTimedOut, and drops
// it.
func TestAReleaserThatDiesBeforeTheDeleteLosesNothing(t *testing.T) {
	const n = 25
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := start(t, local.Options{Start: t0})
	calls := &taskLog{}
	var mu sync.Mutex
	victim := ""
	instrumentReleasers(t, s, calls, func(token string) {
		mu.Lock()
		defer mu.Unlock()
		if victim == "" {
			victim = token
			panic("injected: the releaser dies between SendTaskSuccess and the room's delete")
		}
	}, "")
	// A burst beyond the starting pace: the rest wait in the room, and the
	// releaser the room starts releases them.
	ids := send(t, s, bodies("dies", n)...)

	drain(t, s)
	mu.Lock()
	require.NotEmpty(t, victim, "the fault fired")
	mu.Unlock()
	out := accountFor(t, s)
	assert.Len(t, out.delivered, n, "every message delivered, the victim's too")
	assert.Empty(t, out.parked)
	for id, k := range s.Target.Ledger().Deliveries() {
		assert.Equal(t, 1, k, "message %s delivered once", id)
	}
	depth, _ := s.Room()
	assert.Zero(t, depth, "the spent entry was dropped")

	sends := map[string][]error{}
	for _, c := range calls.snapshot() {
		sends[c.Token] = append(sends[c.Token], c.Err)
	}
	require.Len(t, sends[victim], 2, "the retry sent the victim's token again")
	assert.NoError(t, sends[victim][0], "the first send resumed it")
	assert.True(t, timedOut(sends[victim][1]), "the second is answered TaskTimedOut: %v", sends[victim][1])
	straight := int(pace.Policy{}.WithDefaults().Start) // the first second's arrivals go straight to the target
	assert.Len(t, sends, n-straight, "one token per message in the room")

	visits := visitsByOrigin(t, s)
	for _, id := range ids {
		for _, v := range visits[id] {
			assert.True(t, v.Released, "message %s released, not timed out", id)
		}
	}
	xs := releaseExecutions(t, s)
	failed := 0
	for _, x := range xs {
		assert.Equal(t, executor.Succeeded, x.Status, "releaser %s", x.Name)
		failed += countEvents(t, s, x.ARN, "TaskFailed")
	}
	assert.Equal(t, 1, failed, "the dead invocation failed once and the state machine's retry went on")
}

// A release after the execution timed out: the releaser is slower than the
// room's timeout (one release a second, a one-minute ROOM_TIMEOUT and
// ROOM_MAX_WAIT), so the
// last messages of a backlog time out in the room and are delivered by
// their own Attempt, leaving their tokens behind. When the releaser
// reaches them, SendTaskSuccess answers TaskTimedOut: it drops each token
// once and goes on with the messages behind them.
func TestAReleaseAfterTheExecutionTimedOutDropsTheTokenAndGoesOn(t *testing.T) {
	const backlog, later, roomTimeout = 80, 5, time.Minute
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := start(t, local.Options{Start: t0, RoomTimeout: roomTimeout, RoomMaxWait: roomTimeout, Pace: pace.Policy{Start: 1, Max: 1}})
	calls := &taskLog{}
	instrumentReleasers(t, s, calls, nil, "")
	first := send(t, s, bodies("backlog", backlog)...)
	// They arrive while the releaser is busy: they wait in the room,
	// behind the backlog's stale entries, and their timeout is far off
	// when the releaser reaches them.
	s.SendToDLQAt(t0.Add(roomTimeout+5*time.Second), bodies("later", later)...)
	drain(t, s)

	out := accountFor(t, s)
	assert.Len(t, out.delivered, backlog+later, "every message delivered")
	assert.Empty(t, out.parked)
	depth, _ := s.Room()
	assert.Zero(t, depth, "the stale entries were dropped")

	var lastDrop time.Time
	dropped, resumed := map[string]int{}, 0
	for _, c := range calls.snapshot() {
		switch {
		case c.Err == nil:
			resumed++
		case timedOut(c.Err):
			dropped[c.Token]++
			lastDrop = c.At
		default:
			t.Errorf("SendTaskSuccess: %v", c.Err)
		}
	}
	for token, k := range dropped {
		assert.Equal(t, 1, k, "token %.16s... dropped once", token)
	}
	_, released := s.Room()
	assert.Equal(t, int64(resumed), released, "the room's releases count the resumed executions, not the dropped tokens")

	visits := visitsByOrigin(t, s)
	isFirst := map[string]bool{}
	timedOutCount := 0
	for _, id := range first {
		isFirst[id] = true
		for _, v := range visits[id] {
			if v.TimedOut {
				timedOutCount++
			}
		}
	}
	t.Logf("%d of the backlog timed out in the room; the releasers dropped %d tokens, resumed %d executions", timedOutCount, len(dropped), resumed)
	require.Positive(t, timedOutCount, "some of the backlog timed out before its release")
	assert.Equal(t, timedOutCount, len(dropped), "every token left behind by a timeout is dropped, once")
	for id, vs := range visits {
		if isFirst[id] {
			continue
		}
		require.Len(t, vs, 1, "later message %s waited once", id)
		assert.True(t, vs[0].Released, "later message %s released, not timed out", id)
		assert.True(t, vs[0].Left.After(lastDrop), "later message %s released after the drops", id)
	}
	for _, x := range releaseExecutions(t, s) {
		assert.Equal(t, executor.Succeeded, x.Status, "releaser %s: a dropped token does not fail it", x.Name)
		assert.Zero(t, countEvents(t, s, x.ARN, "TaskFailed"), "releaser %s", x.Name)
	}
}

// The breaker re-trips during a release: the target fails again a moment
// into the drain. The released messages that fail and the ones still in
// the room stay there (not delivered, not parked) while only the scout
// probes; after the next close, the releaser releases them.
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

	// Through the second outage, the room is held: the executions move only
	// for the scout's probes (the failed probe's Attempt, Route and
	// WaitingRoom, the next scout's Attempt, Route and Cooldown).
	t1, t2 := down.Add(secondOutage/5), down.Add(secondOutage/2)
	runUntil(t, s, t1)
	moved := totalTransitions(t, s)
	runUntil(t, s, t2)
	moved = totalTransitions(t, s) - moved
	probes := s.Target.Ledger().CallsBetween(t1.Add(time.Nanosecond), t2.Add(time.Nanosecond))
	t.Logf("from %v to %v into the second outage: %d probes, %d transitions", t1.Sub(down), t2.Sub(down), probes, moved)
	assert.LessOrEqual(t, moved, 6*probes, "the rest wait in the room; nobody releases them while OPEN")
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
	assert.Equal(t, n-before-1, depth, "the rest wait in the room, but the scout")
	costs, err := s.Costs(t.Context())
	require.NoError(t, err)
	last := map[string]int{}
	for _, c := range costs {
		if c.Execution.Status == executor.Running {
			last[c.States[len(c.States)-1]]++
		}
	}
	assert.Equal(t, map[string]int{"WaitingRoom": n - before - 1, "Cooldown": 1}, last)

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
	bound := outageCallBound(policy, secondOutage)
	t.Logf("calls while down: %d (bound %d); %d delivered after the close", ledger.CallsWhile(simtarget.Down), bound, after)
	assert.LessOrEqual(t, ledger.CallsWhile(simtarget.Down), bound, "only the scout probes")
	// While OPEN, the room lets out only scouts: the first at the trip,
	// then one after each failed probe (the releaser stopped at the trip,
	// within its mid-tick check of the breaker).
	probe := changes[len(changes)-2]
	require.Equal(t, []breaker.State{breaker.Open, breaker.HalfOpen}, []breaker.State{probe.From, probe.To})
	for id, at := range deliveredAt(s) {
		assert.False(t, at.After(trip.At) && at.Before(probe.At), "message %s delivered at %s, while OPEN", id, at)
	}
	failedProbes := ledger.CallsWhile(simtarget.Down) - p.ConsecutiveFailures
	releasedWhileOpen := 0
	for id, visits := range visitsByOrigin(t, s) {
		require.NotEmpty(t, visits, "message %s", id)
		for _, v := range visits {
			assert.False(t, v.TimedOut, "message %s: no room timeout", id)
			if v.Released && v.Left.After(trip.At.Add(time.Second)) && v.Left.Before(probe.At) {
				releasedWhileOpen++
			}
		}
	}
	t.Logf("%d released while OPEN, %d probes failed", releasedWhileOpen, failedProbes)
	assert.LessOrEqual(t, releasedWhileOpen, failedProbes+1, "only scouts leave the room while OPEN")
}

// FORCED_OPEN holds the room for longer than the room's timeout: nothing
// reaches the consumer, nothing is parked; the room's watcher comes back
// every ROOM_TIMEOUT and goes back to the room, while the others wait on
// (ROOM_MAX_WAIT); the release command drains the room, paced, long
// before another timeout.
func TestForcedOpenHoldsTheRoomAndReleaseDrainsIt(t *testing.T) {
	const n, roomTimeout = 200, time.Hour
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := start(t, local.Options{Start: t0, RoomTimeout: roomTimeout})
	ids := holdInTheRoom(t, s, "held", n, t0.Add(2*roomTimeout+30*time.Minute))
	assert.Zero(t, s.Stats().Invocations[local.FunctionPark], "nothing parked")
	visits := visitsByOrigin(t, s)
	watchers := 0
	for _, id := range ids {
		v := visits[id]
		if len(v) > 1 {
			watchers++
			require.Len(t, v, 3, "the watcher %s: two stays timed out, the third goes on", id)
			assert.True(t, v[0].TimedOut && v[1].TimedOut, "the watcher %s", id)
		}
		assert.True(t, v[len(v)-1].Left.IsZero(), "message %s waits", id)
	}
	assert.Equal(t, 1, watchers, "one message watches the room; the others' stays did not time out")
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
	assert.Less(t, drained.Sub(releasedAt), time.Minute, "released by the releaser, not by the room's timeout")
	assert.LessOrEqual(t, float64(s.Target.Ledger().PeakRate()), pace.Policy{}.WithDefaults().Max, "within the release budget")
	for id, v := range visitsByOrigin(t, s) {
		assert.True(t, v[len(v)-1].Released, "message %s released", id)
	}
	assert.Positive(t, s.Stats().Invocations[local.FunctionRelease])
}

// An outage trips the breaker with a long cooldown; the target recovers
// long before the scout would probe it, and an operator resets the
// breaker: the reset releases the room at once, every waiting message is
// delivered within a minute, and the scout when its wait ends.
func TestResetReleasesTheRoom(t *testing.T) {
	const n, outage = 100, 2 * time.Minute
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	policy := breaker.Policy{CooldownBase: 10 * time.Minute, CooldownMax: 30 * time.Minute}
	s := start(t, local.Options{
		Start:  t0,
		Policy: policy,
		Target: simtarget.Options{Schedule: simtarget.Outage(t0, outage)},
	})
	ids := send(t, s, bodies("reset", n)...)
	runUntil(t, s, t0.Add(outage+time.Minute))
	row, err := s.BreakerRow(t.Context(), "orders")
	require.NoError(t, err)
	require.Equal(t, breaker.Open, row.State)
	assert.Empty(t, s.Target.Ledger().Deliveries())
	depth, _ := s.Room()
	require.Equal(t, n-1, depth, "everyone but the scout waits in the room")

	resetAt := s.Executor.Now()
	reset := runAdmin(t, s, admin.Request{Command: "reset", Breaker: "orders", Reason: "downstream verified"})
	assert.Equal(t, "OPEN", reset.Before.State)
	assert.Equal(t, "CLOSED", reset.After.State)
	minute := resetAt.Add(time.Minute)
	require.True(t, minute.Before(row.OpenUntil), "the scout's probe would come only at %s", row.OpenUntil)
	runUntil(t, s, minute)
	delivered := deliveredAt(s)
	assert.Len(t, delivered, n-1, "every message in the room delivered within a minute of the reset")
	for id, at := range delivered {
		assert.False(t, at.Before(resetAt), "message %s delivered before the reset", id)
	}
	depth, _ = s.Room()
	assert.Zero(t, depth)

	drain(t, s)
	out := accountFor(t, s)
	assert.Len(t, out.delivered, n, "the scout too, when its wait ends")
	assert.Empty(t, out.parked)
	visits := visitsByOrigin(t, s)
	for _, id := range ids {
		for _, v := range visits[id] {
			assert.True(t, v.Released, "message %s released, not timed out", id)
		}
	}
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
// release: the releaser's retries outlast it, and the same releaser drains
// the room once the function recovers, long before any room timeout.
func TestAReleaserOutlastsAFailingReleaseFunction(t *testing.T) {
	const n = 50
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := start(t, local.Options{Start: t0})
	holdInTheRoom(t, s, "outlast", n, t0.Add(time.Minute))
	restore := failRelease(t, s)
	releasedAt := s.Executor.Now()
	runAdmin(t, s, admin.Request{Command: "release", Breaker: "orders", Reason: "maintenance over"})
	runUntil(t, s, releasedAt.Add(10*time.Minute))
	depth, _ := s.Room()
	require.Equal(t, n, depth, "nothing released while the function fails")
	restore()

	drain(t, s)
	out := accountFor(t, s)
	assert.Len(t, out.delivered, n, "every message delivered")
	xs := releaseExecutions(t, s)
	require.Len(t, xs, 1, "one releaser")
	assert.Equal(t, executor.Succeeded, xs[0].Status)
	assert.Positive(t, countEvents(t, s, xs[0].ARN, "TaskFailed"), "it retried")
	for id, v := range visitsByOrigin(t, s) {
		for _, visit := range v {
			assert.False(t, visit.TimedOut, "message %s released, not timed out", id)
		}
	}
}

// The room's releaser is stopped for good right after an operator's
// release (its function failing, then the execution stopped, as an
// operator or the history limit would): the room's watcher, back at its
// breaker after ROOM_TIMEOUT, finds it closed and starts a releaser, which
// drains the room. Nobody else waits out ROOM_MAX_WAIT.
func TestAStalledRoomIsReleasedWhenItsWatcherComesBack(t *testing.T) {
	const n, roomTimeout = 50, 10 * time.Minute
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := start(t, local.Options{Start: t0, RoomTimeout: roomTimeout})
	holdInTheRoom(t, s, "stalled", n, t0.Add(time.Minute))
	restore := failRelease(t, s)
	releasedAt := s.Executor.Now()
	runAdmin(t, s, admin.Request{Command: "release", Breaker: "orders", Reason: "maintenance over"})
	runUntil(t, s, releasedAt.Add(2*time.Minute))
	xs := releaseExecutions(t, s)
	require.Len(t, xs, 1)
	_, err := s.SFN.StopExecution(t.Context(), &sfn.StopExecutionInput{ExecutionArn: aws.String(xs[0].ARN), Cause: aws.String("stopped by the test")})
	require.NoError(t, err)
	restore()
	runUntil(t, s, releasedAt.Add(5*time.Minute))
	depth, _ := s.Room()
	require.Equal(t, n, depth, "the room is stalled")

	drain(t, s)
	out := accountFor(t, s)
	assert.Len(t, out.delivered, n, "every message delivered")
	assert.Empty(t, out.parked)
	var drained time.Time
	for _, at := range deliveredAt(s) {
		if at.After(drained) {
			drained = at
		}
	}
	t.Logf("drained %v after the release command", drained.Sub(releasedAt))
	assert.Less(t, drained.Sub(t0), roomTimeout+time.Minute, "within the watcher's ROOM_TIMEOUT, not ROOM_MAX_WAIT")
	timedOut := 0
	for _, v := range visitsByOrigin(t, s) {
		for _, visit := range v {
			if visit.TimedOut {
				timedOut++
			}
		}
	}
	assert.Equal(t, 1, timedOut, "only the watcher's stay timed out")
	xs = releaseExecutions(t, s)
	require.Len(t, xs, 2, "the watcher started the second releaser")
	assert.Equal(t, executor.Aborted, xs[0].Status)
}
