package room_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/breaker/breakertest"
	"github.com/redrive/redrive/room"
	"github.com/redrive/redrive/test/roomtest"
)

// attemptARN is the (Express) attempt state machine releases start.
const attemptARN = "arn:aws:states:us-east-1:123456789012:stateMachine:redrive"

// express is a fake Step Functions client whose attempt state machine is
// Express: it does not deduplicate names, so a second start of one
// entry would show.
func express() *roomtest.SFN { return &roomtest.SFN{Express: []string{attemptARN}} }

// releaser starts executions of the attempt state machine through api,
// named after the entry's message.
func releaser(api room.StartAPI) room.Releaser {
	return room.Releaser{SFN: api, StateMachineARN: attemptARN, Owner: "test", Lease: lease,
		Prepare: func(e room.Entry, _ time.Time) (string, string) {
			return "run-" + strings.ReplaceAll(e.MessageID, "#", "-"), string(e.Document)
		}}
}

// name is the execution releaser names message id's.
func name(id string) string { return "run-" + strings.ReplaceAll(id, "#", "-") }

// names is name of every id.
func names(ids ...string) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = name(id)
	}
	return out
}

// failing fails the starts of the named executions with err.
func failing(err error, failed ...string) *roomtest.SFN {
	s := express()
	s.Fail = func(n string) error {
		if len(failed) == 0 || slices.Contains(failed, n) {
			return err
		}
		return nil
	}
	return s
}

// outage is a Step Functions failure.
var outage = &smithy.GenericAPIError{Code: "ServiceUnavailable", Message: "try again", Fault: smithy.FaultServer}

func TestReleaseStartsTheExecutionWithTheDocumentThenTakesTheEntry(t *testing.T) {
	e := newEnv(t)
	e.enter(t, entry("orders", "m-1#1", 0), entry("orders", "m-2#1", time.Second))
	api := express()
	en := e.listed(t, "orders", "m-1#1")

	o, err := e.room.Release(t.Context(), releaser(api), en, t0.Add(time.Minute), 0)
	require.NoError(t, err)
	assert.Equal(t, room.Released, o)
	assert.Equal(t, []roomtest.Start{{StateMachineARN: attemptARN, Name: name("m-1#1"), Input: `{"id":"m-1#1"}`}}, api.Starts(),
		"the attempt state machine, the document its input")
	assert.Equal(t, []string{"m-2#1"}, e.left(t, "orders"))

	o, err = e.room.Release(t.Context(), releaser(api), en, t0.Add(time.Minute), 1)
	require.NoError(t, err)
	assert.Equal(t, room.Skipped, o, "taken: nothing to release twice")
	assert.Len(t, api.Starts(), 1)
}

// The document a release starts is the one stored when it claims, not
// the one it listed: the message may have entered again since.
func TestReleaseStartsTheLatestDocument(t *testing.T) {
	e := newEnv(t)
	first := entry("orders", "m-1#1", 0)
	e.enter(t, first)
	listed := e.listed(t, "orders", "m-1#1")
	listed.Document = document("stale")
	api := express()
	o, err := e.room.Release(t.Context(), releaser(api), listed, t0, 0)
	require.NoError(t, err)
	assert.Equal(t, room.Released, o)
	assert.Equal(t, []string{`{"id":"m-1#1"}`}, api.Inputs())
}

func TestReleaseSkipsAnEntryAnotherReleaseHolds(t *testing.T) {
	e := newEnv(t)
	e.enter(t, entry("orders", "m-1#1", 0))
	en := e.listed(t, "orders", "m-1#1")
	_, ok, err := e.room.Claim(t.Context(), en, "other", t0, lease)
	require.NoError(t, err)
	require.True(t, ok)

	api := express()
	o, err := e.room.Release(t.Context(), releaser(api), en, t0.Add(time.Second), 0)
	require.NoError(t, err)
	assert.Equal(t, room.Skipped, o)
	assert.Empty(t, api.Starts(), "nothing started")
	assert.Equal(t, []string{"m-1#1"}, e.left(t, "orders"), "the other release has it")
}

// A release whose StartExecution fails gives its claim up: the entry
// stays in line, due, and the next release takes it at once (not after
// the claim's lease).
func TestAReleaseWhoseStartFailsUnclaimsAndTheEntryStaysDue(t *testing.T) {
	e := newEnv(t)
	e.enter(t, entry("orders", "m-1#1", 0), entry("orders", "m-2#1", time.Second))
	en := e.listed(t, "orders", "m-1#1")
	now := t0.Add(time.Minute)

	o, err := e.room.Release(t.Context(), releaser(failing(outage)), en, now, 0)
	require.Error(t, err)
	assert.ErrorIs(t, err, outage)
	assert.ErrorContains(t, err, `room "orders": release m-1#1 (left in the room)`)
	assert.Zero(t, o)

	due, err := e.room.Due(t.Context(), "orders", 5, now)
	require.NoError(t, err)
	assert.Equal(t, []string{"m-1#1", "m-2#1"}, ids(due), "in its place, due")
	assert.Equal(t, plain(entry("orders", "m-1#1", 0)), plain(due[0]), "as it was")

	api := express()
	o, err = e.room.Release(t.Context(), releaser(api), due[0], now, 1)
	require.NoError(t, err)
	assert.Equal(t, room.Released, o, "unclaimed: the next release takes it within the lease")
	assert.Equal(t, names("m-1#1"), api.Started())
	assert.Equal(t, []string{"m-2#1"}, e.left(t, "orders"))
}

// unclaimFailing is a room API whose updates that give a claim up
// (Unclaim's, the only ones not conditioned on the entry's sequence) fail.
type unclaimFailing struct{ room.API }

func (u unclaimFailing) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	if in.ConditionExpression != nil && !strings.Contains(*in.ConditionExpression, "#seq") {
		return nil, errors.New("injected: table unavailable")
	}
	return u.API.UpdateItem(ctx, in, opts...)
}

// A failed start whose unclaim fails too leaves the claim to expire: the
// entry still goes, after the lease.
func TestAFailedStartWhoseUnclaimFailsWaitsOutTheLease(t *testing.T) {
	e := newEnv(t)
	e.enter(t, entry("orders", "m-1#1", 0))
	broken := room.New(unclaimFailing{e.client}, e.table, ttl)
	en := e.listed(t, "orders", "m-1#1")

	_, err := broken.Release(t.Context(), releaser(failing(outage)), en, t0, 0)
	assert.ErrorIs(t, err, outage)
	assert.ErrorContains(t, err, "its claim stays until it expires: ")
	assert.ErrorContains(t, err, "injected: table unavailable")

	api := express()
	o, err := e.room.Release(t.Context(), releaser(api), en, t0.Add(time.Second), 1)
	require.NoError(t, err)
	assert.Equal(t, room.Skipped, o, "claimed until its lease ends")
	o, err = e.room.Release(t.Context(), releaser(api), en, t0.Add(lease), 2)
	require.NoError(t, err)
	assert.Equal(t, room.Released, o)
	assert.Equal(t, names("m-1#1"), api.Started())
}

// deleteFailing is a room API whose deletes fail.
type deleteFailing struct{ room.API }

func (deleteFailing) DeleteItem(context.Context, *dynamodb.DeleteItemInput, ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	return nil, errors.New("injected: table unavailable")
}

// A take that fails after the execution started reports the release, as
// Undeleted: the entry stays, claimed until its lease ends, then goes
// again (the delivery ledger makes that second execution harmless).
func TestReleaseWhoseTakeFails(t *testing.T) {
	e := newEnv(t)
	e.enter(t, entry("orders", "m-1#1", 0))
	broken := room.New(deleteFailing{e.client}, e.table, ttl)
	api := express()
	en := e.listed(t, "orders", "m-1#1")

	o, err := broken.Release(t.Context(), releaser(api), en, t0, 0)
	assert.Error(t, err, "why the entry was not taken")
	assert.Equal(t, room.Undeleted, o)
	assert.Equal(t, []string{"m-1#1"}, e.left(t, "orders"), "the entry stays")

	o, err = e.room.Release(t.Context(), releaser(api), en, t0.Add(lease-time.Second), 1)
	require.NoError(t, err)
	assert.Equal(t, room.Skipped, o, "not again while its claim holds")
	o, err = e.room.Release(t.Context(), releaser(api), en, t0.Add(lease), 2)
	require.NoError(t, err)
	assert.Equal(t, room.Released, o, "after the lease")
	assert.Equal(t, names("m-1#1", "m-1#1"), api.Started())
	assert.Empty(t, e.left(t, "orders"))

	e.enter(t, entry("orders", "m-2#1", 0))
	c := broken.ReleaseDue(t.Context(), releaser(api), "orders", 5, t0.Add(time.Hour), 0, nil, nil)
	assert.Error(t, c.Err, "the failed take's cause")
	c.Err = nil
	assert.Equal(t, room.Counts{Listed: 1, Released: 1, Undeleted: 1}, c)
}

// A message that enters again while its release starts keeps its new
// entry: the release's take is on its claim, which the new entry does not
// carry.
func TestReleaseKeepsTheEntryOfAMessageBackInTheRoom(t *testing.T) {
	e := newEnv(t)
	e.enter(t, entry("orders", "m-1#1", 0))
	again := entry("orders", "m-1#1", time.Hour)
	again.Document = document("m-1#1, back")
	api := express()
	api.Fail = func(string) error {
		require.NoError(t, e.room.Enter(context.Background(), again))
		return nil
	}
	o, err := e.room.Release(t.Context(), releaser(api), e.listed(t, "orders", "m-1#1"), t0, 0)
	require.NoError(t, err)
	assert.Equal(t, room.Released, o, "started; the message is back in line, which is no failure")
	got, err := e.room.Oldest(t.Context(), "orders", 5)
	require.NoError(t, err)
	assert.Equal(t, plains([]room.Entry{again}), plains(got), "the new entry stays")
	assert.Equal(t, []string{`{"id":"m-1#1, back"}`}, e.documents(t, "orders"), "with its newer document")
}

func TestReleaseDueCountsWhatItDidAndGoesOnPastAFailure(t *testing.T) {
	e := newEnv(t)
	e.enter(t, entry("orders", "a#1", 0), entry("orders", "b#1", time.Second), entry("orders", "c#1", 2*time.Second),
		entry("orders", "d#1", 3*time.Second), notBefore(entry("orders", "later#1", 0), time.Hour))
	api := failing(outage, name("b#1"))
	now := t0.Add(time.Minute)

	c := e.room.ReleaseDue(t.Context(), releaser(api), "orders", 3, now, 0, nil, nil)
	assert.ErrorIs(t, c.Err, outage)
	c.Err = nil
	assert.Equal(t, room.Counts{Listed: 3, Released: 2, Failed: 1}, c, "a failed release is counted; the batch goes on")
	assert.Equal(t, names("a#1", "c#1"), api.Started(), "in line")
	assert.Equal(t, []string{"b#1", "d#1", "later#1"}, e.left(t, "orders"), "the failed one stays, first in line")

	api.Fail = nil
	c = e.room.ReleaseDue(t.Context(), releaser(api), "orders", 5, now, 0, nil, nil)
	require.NoError(t, c.Err)
	assert.Equal(t, room.Counts{Listed: 2, Released: 2}, c, "the room ran short: later#1 is not due")
	assert.Equal(t, names("a#1", "c#1", "b#1", "d#1"), api.Started())
	assert.Equal(t, []string{"later#1"}, e.left(t, "orders"))
}

func TestReleaseDueSpacesReleasesAndStopsWhenProceedSaysSo(t *testing.T) {
	e := newEnv(t)
	e.enter(t, entry("orders", "a#1", 0), entry("orders", "b#1", time.Second), entry("orders", "c#1", 2*time.Second))
	now := t0.Add(time.Minute)
	clk := breakertest.NewClock(now)
	asked := 0
	proceed := func(context.Context) bool {
		asked++
		return asked < 2
	}
	api := &slowStarts{StartAPI: express(), clock: clk, took: 0}
	c := e.room.ReleaseDue(t.Context(), releaser(api), "orders", 3, now, 250*time.Millisecond, clk, proceed)
	require.NoError(t, c.Err)
	assert.Equal(t, room.Counts{Listed: 3, Released: 2}, c)
	assert.Equal(t, 2, asked, "not asked before the first release")
	assert.Equal(t, []time.Duration{0, 250 * time.Millisecond}, api.at(now), "a step before each release but the first")
	assert.Equal(t, []string{"c#1"}, e.left(t, "orders"))
}

func TestReleaseDueKeepsItsStepsFromTheTicksStart(t *testing.T) {
	// The tick spent 100ms before its first release, and every start
	// takes 100ms: the releases still go at 0, 250ms, 500ms and 750ms of
	// the tick (the first as soon as it can), so four take the second
	// the pace gave them, not 1.2s.
	e := newEnv(t)
	for i := range 4 {
		e.enter(t, entry("orders", fmt.Sprintf("m%d#1", i), time.Duration(i)*time.Second))
	}
	start := t0.Add(time.Minute)
	clk := breakertest.NewClock(start.Add(100 * time.Millisecond))
	api := &slowStarts{StartAPI: express(), clock: clk, took: 100 * time.Millisecond}
	c := e.room.ReleaseDue(t.Context(), releaser(api), "orders", 4, start, 250*time.Millisecond, clk, nil)
	require.NoError(t, c.Err)
	assert.Equal(t, 4, c.Released)
	assert.Equal(t, []time.Duration{100 * time.Millisecond, 250 * time.Millisecond, 500 * time.Millisecond, 750 * time.Millisecond},
		api.at(start))
}

// slowStarts is a Step Functions client whose starts take took on clock;
// it notes when each began.
type slowStarts struct {
	room.StartAPI
	clock *breakertest.Clock
	took  time.Duration
	began []time.Time
}

func (s *slowStarts) StartExecution(ctx context.Context, in *sfn.StartExecutionInput, opts ...func(*sfn.Options)) (*sfn.StartExecutionOutput, error) {
	s.began = append(s.began, s.clock.Now())
	s.clock.Advance(s.took)
	return s.StartAPI.StartExecution(ctx, in, opts...)
}

// at is when each start began, from t.
func (s *slowStarts) at(t time.Time) []time.Duration {
	out := make([]time.Duration, len(s.began))
	for i, b := range s.began {
		out[i] = b.Sub(t)
	}
	return out
}

func TestReleaseDueReportsAFailedList(t *testing.T) {
	e := newEnv(t)
	broken := room.New(queryFailing{e.client}, e.table, ttl)
	c := broken.ReleaseDue(t.Context(), releaser(express()), "orders", 3, t0, 0, nil, nil)
	assert.ErrorContains(t, c.Err, "injected: index unavailable")
	assert.Zero(t, c.Listed)
}

// queryFailing is a room API whose queries fail.
type queryFailing struct{ room.API }

func (queryFailing) Query(context.Context, *dynamodb.QueryInput, ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	return nil, errors.New("injected: index unavailable")
}

// Two controllers (one that lost its lease but does not know it yet, and
// its successor) release one room at once, with parallel workers: every
// message is started exactly once, none is lost.
func TestRacingReleaseDueStartsEveryEntryExactlyOnce(t *testing.T) {
	e := newEnv(t)
	const n = 60
	var want []string
	for i := range n {
		id := fmt.Sprintf("m-%02d#1", i)
		e.enter(t, entry("orders", id, time.Duration(i)*time.Millisecond))
		want = append(want, name(id))
	}
	api := express()
	counts := make([]room.Counts, 3)
	var wg sync.WaitGroup
	for r := range counts {
		wg.Go(func() {
			rel := releaser(api)
			rel.Owner, rel.Workers = fmt.Sprintf("controller-%d", r), 4
			counts[r] = e.room.ReleaseDue(context.Background(), rel, "orders", n, t0.Add(time.Minute), 0, nil, nil)
		})
	}
	wg.Wait()
	released := 0
	for _, c := range counts {
		require.NoError(t, c.Err)
		assert.LessOrEqual(t, c.Listed, n, "a controller that lists late finds fewer")
		assert.Zero(t, c.Failed)
		assert.Equal(t, c.Listed, c.Released+c.Skipped)
		released += c.Released
	}
	assert.Equal(t, n, released, "never twice")
	assert.ElementsMatch(t, want, api.Started(), "every message once")
	assert.Empty(t, e.left(t, "orders"), "nothing left, nothing lost")
}

// With workers, a batch's releases run in parallel: a slow start does
// not hold up the others.
func TestReleaseDueWithWorkersRunsReleasesAtOnce(t *testing.T) {
	e := newEnv(t)
	for i := range 4 {
		e.enter(t, entry("orders", fmt.Sprintf("m-%d#1", i), time.Duration(i)*time.Millisecond))
	}
	var inFlight, most int
	var mu sync.Mutex
	gate := make(chan struct{})
	api := express()
	api.Fail = func(string) error {
		mu.Lock()
		inFlight++
		most = max(most, inFlight)
		if inFlight == 4 {
			close(gate)
		}
		mu.Unlock()
		select {
		case <-gate:
		case <-time.After(5 * time.Second):
		}
		mu.Lock()
		inFlight--
		mu.Unlock()
		return nil
	}
	rel := releaser(api)
	rel.Workers = 4
	c := e.room.ReleaseDue(t.Context(), rel, "orders", 4, t0.Add(time.Minute), 0, nil, nil)
	require.NoError(t, c.Err)
	assert.Equal(t, 4, c.Released)
	assert.Equal(t, 4, most, "four starts at once")
}
