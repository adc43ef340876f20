package room_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	sfntypes "github.com/aws/aws-sdk-go-v2/service/sfn/types"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/room"
	"github.com/redrive/redrive/test/roomtest"
)

// failing is an SFN whose SendTaskSuccess answers err for every token.
func failing(err error) *roomtest.SFN {
	return &roomtest.SFN{Fail: func(string) error { return err }}
}

// left is the message ids left in key's room, oldest first.
func (e env) left(t *testing.T, key string) []string {
	t.Helper()
	got, err := e.room.Oldest(t.Context(), key, 100)
	require.NoError(t, err)
	return ids(got)
}

func TestReleaseResumesTheExecution(t *testing.T) {
	e := newEnv(t)
	en := entry("orders", "m-1#1", 0)
	e.enter(t, en, entry("orders", "m-2#1", time.Second))
	tasks := &roomtest.SFN{}

	o, err := e.room.Release(t.Context(), tasks, en)
	require.NoError(t, err)
	assert.Equal(t, room.Resumed, o)
	assert.Equal(t, []string{"token-m-1#1"}, tasks.Resumed())
	assert.Equal(t, []string{room.ReleasedOutput}, tasks.Outputs())
	assert.Equal(t, []string{"m-2#1"}, e.left(t, "orders"))

	o, err = e.room.Release(t.Context(), tasks, en)
	require.NoError(t, err)
	assert.Equal(t, room.Gone, o, "its token is spent: Step Functions resumes nobody twice")
	assert.Len(t, tasks.Resumed(), 1)
}

// A releaser that dies between SendTaskSuccess and the delete leaves a
// spent token in the room: the next release drops it, and the message,
// resumed already, is not lost.
func TestAReleaseThatDiesBeforeTheDeleteLeavesASpentTokenTheNextDrops(t *testing.T) {
	e := newEnv(t)
	en := entry("orders", "m-1#1", 0)
	e.enter(t, en)
	tasks := &roomtest.SFN{}
	_, err := tasks.SendTaskSuccess(t.Context(), &sfn.SendTaskSuccessInput{TaskToken: aws.String(en.Token)})
	require.NoError(t, err, "the dead releaser's resume")
	assert.Equal(t, []string{"m-1#1"}, e.left(t, "orders"), "its entry is still there")

	o, err := e.room.Release(t.Context(), tasks, en)
	require.NoError(t, err)
	assert.Equal(t, room.Gone, o)
	assert.Empty(t, e.left(t, "orders"), "dropped")
	assert.Len(t, tasks.Resumed(), 1, "resumed once")
}

// A message back in the room under a new token while a release of its old
// one was under way keeps its new entry.
func TestReleaseKeepsTheEntryOfANewerToken(t *testing.T) {
	e := newEnv(t)
	old := entry("orders", "m-1#1", 0)
	e.enter(t, old)
	renewed := old
	renewed.Token = "token-m-1#1-again"
	tasks := &roomtest.SFN{Fail: func(token string) error {
		if token == old.Token {
			require.NoError(t, e.room.Enter(t.Context(), renewed))
			return &sfntypes.TaskTimedOut{Message: aws.String("Task Timed Out")}
		}
		return nil
	}}
	o, err := e.room.Release(t.Context(), tasks, old)
	require.NoError(t, err)
	assert.Equal(t, room.Gone, o)
	got, err := e.room.Oldest(t.Context(), "orders", 5)
	require.NoError(t, err)
	require.Len(t, got, 1)
	assert.Equal(t, renewed.Token, got[0].Token, "the new entry stays")
}

func TestReleaseDropsATokenItsExecutionNoLongerWaitsOn(t *testing.T) {
	for _, err := range []error{
		&sfntypes.TaskTimedOut{Message: aws.String("Task Timed Out")},
		&sfntypes.TaskDoesNotExist{Message: aws.String("Task does not exist")},
		&sfntypes.InvalidToken{Message: aws.String("Invalid token")},
	} {
		t.Run(err.(smithy.APIError).ErrorCode(), func(t *testing.T) {
			e := newEnv(t)
			en := entry("orders", "m-1#1", 0)
			e.enter(t, en)
			o, rerr := e.room.Release(t.Context(), failing(&smithy.OperationError{ServiceID: "SFN", OperationName: "SendTaskSuccess", Err: err}), en)
			require.NoError(t, rerr)
			assert.Equal(t, room.Gone, o)
			assert.Empty(t, e.left(t, "orders"), "dropped")
		})
	}
}

func TestReleaseLeavesTheEntryWhenStepFunctionsFails(t *testing.T) {
	e := newEnv(t)
	en := entry("orders", "m-1#1", 0)
	e.enter(t, en)
	outage := &smithy.GenericAPIError{Code: "ServiceUnavailable", Message: "try again", Fault: smithy.FaultServer}

	o, err := e.room.Release(t.Context(), failing(outage), en)
	require.Error(t, err)
	assert.ErrorIs(t, err, outage)
	assert.ErrorContains(t, err, `room "orders": release m-1#1 (left in the room)`)
	assert.Zero(t, o)
	got, lerr := e.room.Oldest(t.Context(), "orders", 5)
	require.NoError(t, lerr)
	assert.Equal(t, []room.Entry{en}, got, "in its place with its token")

	o, err = e.room.Release(t.Context(), &roomtest.SFN{}, en)
	require.NoError(t, err)
	assert.Equal(t, room.Resumed, o, "the next release resumes it")
}

func TestReleaseOldestCountsWhatItDid(t *testing.T) {
	e := newEnv(t)
	e.enter(t, entry("orders", "a#1", 0), entry("orders", "b#1", time.Second), entry("orders", "c#1", 2*time.Second),
		entry("orders", "d#1", 3*time.Second))
	tasks := &roomtest.SFN{Fail: func(token string) error {
		if token == "token-b#1" {
			return &sfntypes.TaskTimedOut{}
		}
		return nil
	}}

	c, err := e.room.ReleaseOldest(t.Context(), tasks, "orders", 3, nil)
	require.NoError(t, err)
	assert.Equal(t, room.Counts{Listed: 3, Resumed: 2, Gone: 1}, c)
	assert.Equal(t, []string{"token-a#1", "token-c#1"}, tasks.Resumed(), "oldest first")
	assert.Equal(t, []string{"d#1"}, e.left(t, "orders"))

	c, err = e.room.ReleaseOldest(t.Context(), tasks, "orders", 5, nil)
	require.NoError(t, err)
	assert.Equal(t, room.Counts{Listed: 1, Resumed: 1}, c, "the room ran short")
}

func TestReleaseOldestStopsWhenThePauseSaysSo(t *testing.T) {
	e := newEnv(t)
	e.enter(t, entry("orders", "a#1", 0), entry("orders", "b#1", time.Second), entry("orders", "c#1", 2*time.Second))
	pauses := 0
	c, err := e.room.ReleaseOldest(t.Context(), &roomtest.SFN{}, "orders", 3, func(context.Context) bool {
		pauses++
		return pauses < 2
	})
	require.NoError(t, err)
	assert.Equal(t, room.Counts{Listed: 3, Resumed: 2}, c)
	assert.Equal(t, 2, pauses, "no pause before the first release")
	assert.Equal(t, []string{"c#1"}, e.left(t, "orders"))
}

func TestReleaseOldestStopsAtTheFirstError(t *testing.T) {
	e := newEnv(t)
	e.enter(t, entry("orders", "a#1", 0), entry("orders", "b#1", time.Second), entry("orders", "c#1", 2*time.Second))
	outage := errors.New("connection reset")
	tasks := &roomtest.SFN{Fail: func(token string) error {
		if token == "token-b#1" {
			return outage
		}
		return nil
	}}
	c, err := e.room.ReleaseOldest(t.Context(), tasks, "orders", 3, nil)
	assert.ErrorIs(t, err, outage)
	assert.Equal(t, room.Counts{Listed: 3, Resumed: 1}, c)
	assert.Equal(t, []string{"b#1", "c#1"}, e.left(t, "orders"))
}

func TestSpreadSpacesReleasesEvenly(t *testing.T) {
	var slept []time.Duration
	sleep := func(_ context.Context, d time.Duration) { slept = append(slept, d) }
	pause := room.Spread(time.Second, 4, sleep, nil)
	assert.True(t, pause(t.Context()))
	assert.True(t, pause(t.Context()))
	assert.Equal(t, []time.Duration{250 * time.Millisecond, 250 * time.Millisecond}, slept)

	slept = nil
	stop := room.Spread(time.Second, 0, sleep, func(context.Context) bool { return false })
	assert.False(t, stop(t.Context()), "proceed decides")
	assert.Equal(t, []time.Duration{time.Second}, slept, "n below 1 counts as 1")
}

// deleteFailing is a room API whose deletes fail.
type deleteFailing struct{ room.API }

func (deleteFailing) DeleteItem(context.Context, *dynamodb.DeleteItemInput, ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	return nil, errors.New("injected: table unavailable")
}

// A delete that fails after the execution resumed still reports the
// release, as Undeleted: the spent entry stays, and the next release drops
// it. A delete
// that fails while dropping a spent token is an error, so the releaser
// tries again.
func TestReleaseWhoseDeleteFails(t *testing.T) {
	e := newEnv(t)
	en := entry("orders", "m-1#1", 0)
	e.enter(t, en)
	broken := room.New(deleteFailing{e.client}, e.table, ttl)
	tasks := &roomtest.SFN{}

	o, err := broken.Release(t.Context(), tasks, en)
	require.NoError(t, err)
	assert.Equal(t, room.Undeleted, o)
	assert.Equal(t, []string{"m-1#1"}, e.left(t, "orders"), "the spent entry stays")

	_, err = broken.Release(t.Context(), tasks, en)
	assert.ErrorContains(t, err, "injected: table unavailable")
	assert.Equal(t, []string{"m-1#1"}, e.left(t, "orders"))

	o, err = e.room.Release(t.Context(), tasks, en)
	require.NoError(t, err)
	assert.Equal(t, room.Gone, o, "dropped by the next release")
	assert.Empty(t, e.left(t, "orders"))

	e.enter(t, entry("orders", "m-2#1", 0))
	c, err := broken.ReleaseOldest(t.Context(), tasks, "orders", 5, nil)
	require.NoError(t, err)
	assert.Equal(t, room.Counts{Listed: 1, Resumed: 1, Undeleted: 1}, c)
}
