package release_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/breaker/breakertest"
	"github.com/redrive/redrive/dynamo"
	"github.com/redrive/redrive/room"
	"github.com/redrive/redrive/room/pace"
	"github.com/redrive/redrive/room/release"
	"github.com/redrive/redrive/test/roomtest"
)

// t0 is where the tests' clocks start.
var t0 = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

// key is the tests' breaker key.
const key = "orders"

// releaseARN is the release state machine (the controller) the launcher
// starts.
const releaseARN = "arn:aws:states:us-east-1:123456789012:stateMachine:redrive-release"

// attemptARN is the (Express) attempt state machine a release starts.
const attemptARN = "arn:aws:states:us-east-1:123456789012:stateMachine:redrive"

// policy trips on three transient failures in a row, cools down for a
// minute without jitter, and lets two canaries out at once in HALF_OPEN,
// two of whose successes close it.
var policy = breaker.Policy{
	ConsecutiveFailures: 3, FailureRateThreshold: -1, Jitter: -1, CooldownBase: time.Minute,
	HalfOpenPermits: 2, SuccessesToClose: 2,
}

// fixture is a controller tick handler over the real breaker, room and
// pace rows on one table of the test backend, with a fake Step Functions
// client (the controllers and the released attempt executions, Express:
// a second start of one message would show) and a manual clock that the
// handler's Sleep advances.
type fixture struct {
	handler *release.Handler
	breaker *breaker.Breaker
	room    *room.Room
	pace    *pace.Store
	sfn     *roomtest.SFN
	clock   *breakertest.Clock
	slept   *time.Duration
	// api and table are the room's table.
	api   room.API
	table string
}

func newFixture(t *testing.T) fixture {
	t.Helper()
	client, table := roomtest.Table(t)
	clock := breakertest.NewClock(t0)
	b, err := breaker.New(dynamo.New(client, table), policy, breaker.Options{Clock: clock, Random: breaker.NewRandom(1)})
	require.NoError(t, err)
	f := fixture{breaker: b, room: room.New(client, table, time.Hour), pace: pace.NewStore(client, table),
		sfn: &roomtest.SFN{Express: []string{attemptARN}}, clock: clock, slept: new(time.Duration), api: client, table: table}
	launcher := &release.Launcher{Pace: f.pace, Policy: pace.Policy{}.WithDefaults(), SFN: f.sfn, StateMachineARN: releaseARN, Clock: clock}
	releaser := room.Releaser{SFN: f.sfn, StateMachineARN: attemptARN, Prepare: runName, Owner: "controller", Lease: time.Minute}
	f.handler = &release.Handler{Breaker: b, Room: f.room, Releaser: releaser, Launcher: launcher,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Clock: countingSleeps{clock, f.slept}}
	return f
}

// fill enters n messages m-000..m-<n-1>, a millisecond apart, in line.
func (f fixture) fill(t *testing.T, n int) {
	t.Helper()
	for i := range n {
		f.enter(t, i)
	}
}

// enter enters message m-<i>, i milliseconds after a second before t0
// (i below 1000: due at t0).
func (f fixture) enter(t *testing.T, i int) {
	t.Helper()
	f.enterAt(t, i, time.Time{})
}

// enterAt enters message m-<i> as enter does, to go no sooner than
// notBefore.
func (f fixture) enterAt(t *testing.T, i int, notBefore time.Time) {
	t.Helper()
	id := fmt.Sprintf("m-%03d#1", i)
	require.NoError(t, f.room.Enter(t.Context(), room.Entry{Key: key, MessageID: id, Document: json.RawMessage(`{"id":"` + id + `"}`),
		EnteredAt: t0.Add(-time.Second + time.Duration(i)*time.Millisecond), NotBefore: notBefore}))
}

// runName names a released entry's execution: "run-m-<i>-1".
func runName(e room.Entry, _ time.Time) (string, string) {
	return "run-" + strings.ReplaceAll(e.MessageID, "#", "-"), string(e.Document)
}

// runs is the execution names of messages from..to-1, as fill made them.
func runs(from, to int) []string {
	var out []string
	for i := from; i < to; i++ {
		out = append(out, fmt.Sprintf("run-m-%03d-1", i))
	}
	return out
}

// released is the attempt executions started so far, in order.
func (f fixture) released() []string { return f.sfn.StartedOn(attemptARN) }

// controllers is the controller executions started so far, in order.
func (f fixture) controllers() []string { return f.sfn.StartedOn(releaseARN) }

// start launches the key's controller as a waiting message would (noting
// an entry at the clock's now), and returns the first tick's input.
func (f fixture) start(t *testing.T) release.Input {
	t.Helper()
	started, err := f.handler.Launcher.Ensure(t.Context(), key)
	require.NoError(t, err)
	require.True(t, started)
	st, err := f.pace.Load(t.Context(), key)
	require.NoError(t, err)
	return release.Input{BreakerKey: key, Epoch: st.Epoch}
}

// tick runs one tick on in and returns its output.
func (f fixture) tick(t *testing.T, in release.Input) release.Output {
	t.Helper()
	out, err := f.handler.Tick(t.Context(), in)
	require.NoError(t, err)
	return out
}

// depth is how many messages wait in the room.
func (f fixture) depth(t *testing.T) int {
	t.Helper()
	n, err := f.room.Depth(t.Context(), key)
	require.NoError(t, err)
	return n
}

// lease is the controller lease on the key's pace row.
func (f fixture) lease(t *testing.T) time.Time {
	t.Helper()
	st, err := f.pace.Load(t.Context(), key)
	require.NoError(t, err)
	return st.ReleaserUntil
}

// record admits one delivery and records outcome for it.
func (f fixture) record(t *testing.T, outcome breaker.Outcome) breaker.Row {
	t.Helper()
	d, err := f.breaker.Admit(t.Context(), key)
	require.NoError(t, err)
	require.Contains(t, []breaker.Verdict{breaker.Proceed, breaker.Canary}, d.Verdict)
	row, err := f.breaker.Record(t.Context(), key, d.Row, d.Ticket, outcome)
	require.NoError(t, err)
	return row
}

// trip opens the breaker with transient failures.
func (f fixture) trip(t *testing.T) {
	t.Helper()
	for range policy.ConsecutiveFailures {
		f.record(t, breaker.Transient)
	}
	row, err := f.breaker.Status(t.Context(), key)
	require.NoError(t, err)
	require.Equal(t, breaker.Open, row.State)
}

// halfOpen trips the breaker and lets its probe, admitted when the
// cooldown is over, succeed.
func (f fixture) halfOpen(t *testing.T) {
	t.Helper()
	f.trip(t)
	d, err := f.breaker.Admit(t.Context(), key)
	require.NoError(t, err)
	require.Equal(t, breaker.Queue, d.Verdict, "an OPEN breaker queues until its cooldown ends")
	f.clock.Advance(d.Row.OpenUntil.Sub(f.clock.Now()))
	require.Equal(t, breaker.HalfOpen, f.record(t, breaker.Success).State)
}

// startOf is a StartExecution of the release state machine named name.
func startOf(name string) *sfn.StartExecutionInput {
	return &sfn.StartExecutionInput{StateMachineArn: aws.String(releaseARN), Name: aws.String(name), Input: aws.String("{}")}
}

// failingStart is a room.StartAPI whose every start fails with
// errStart.
type failingStart struct{}

func (failingStart) StartExecution(context.Context, *sfn.StartExecutionInput, ...func(*sfn.Options)) (*sfn.StartExecutionOutput, error) {
	return nil, errStart
}

// countingSleeps is a manual clock that adds up how long it was asked to
// sleep.
type countingSleeps struct {
	*breakertest.Clock
	slept *time.Duration
}

// Sleep counts d and advances the clock by it.
func (c countingSleeps) Sleep(ctx context.Context, d time.Duration) {
	*c.slept += d
	c.Clock.Sleep(ctx, d)
}
