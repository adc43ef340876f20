package delivery_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/delivery"
	"github.com/redrive/redrive/message"
)

var (
	id1    = delivery.ID{OriginID: "059f36b4-87a3-44ab-83d2-661975830a7d", Attempt: 2, Try: 3}
	ticket = breaker.Ticket{Generation: 7, LeaseID: "canary-1"}
	lease  = 90 * time.Second
)

func TestBeginCreatesInProgress(t *testing.T) {
	e := newEnv(t)
	rec, began, err := e.ledger.Begin(t.Context(), id1, ticket, lease)
	require.NoError(t, err)
	assert.True(t, began)
	assert.Equal(t, id1, rec.ID)
	assert.Equal(t, delivery.InProgress, rec.Status)
	assert.Equal(t, ticket, rec.Ticket)
	assert.NotEmpty(t, rec.Holder)
	assert.Equal(t, t0, rec.BeganAt)
	assert.Equal(t, t0.Add(lease).Truncate(time.Millisecond), rec.ExpiresAt)

	stored, found, err := e.ledger.Get(t.Context(), id1)
	require.NoError(t, err)
	require.True(t, found)
	assert.Equal(t, rec, stored)

	item := getRaw(t, e, id1)
	assert.Equal(t, s("delivery#059f36b4-87a3-44ab-83d2-661975830a7d#2#3"), item["pk"])
	assert.Equal(t, s("IN_PROGRESS"), item["status"])
	assert.Equal(t, n("7"), item["generation"])
	assert.Equal(t, s("canary-1"), item["lease_id"])
	assert.Equal(t, n(strconv.FormatInt(t0.Add(lease).UnixMilli(), 10)), item["expires_at"])
	assert.Equal(t, n(strconv.FormatInt(t0.Add(7*24*time.Hour).Unix(), 10)), item["ttl"])
	assert.NotContains(t, item, "outcome")
}

func TestBeginWithoutLease(t *testing.T) {
	e := newEnv(t)
	rec, began, err := e.ledger.Begin(t.Context(), id1, breaker.Ticket{Generation: 3}, lease)
	require.NoError(t, err)
	require.True(t, began)
	assert.NotContains(t, getRaw(t, e, id1), "lease_id")
	stored, _, err := e.ledger.Get(t.Context(), id1)
	require.NoError(t, err)
	assert.Equal(t, rec, stored)
}

func TestBeginWhileHeldReturnsTheRecord(t *testing.T) {
	e := newEnv(t)
	first, began, err := e.ledger.Begin(t.Context(), id1, ticket, lease)
	require.NoError(t, err)
	require.True(t, began)

	e.clock.Advance(lease - time.Millisecond)
	second, began, err := e.ledger.Begin(t.Context(), id1, breaker.Ticket{Generation: 8}, lease)
	require.NoError(t, err)
	assert.False(t, began, "the lease has not ended")
	assert.Equal(t, first, second, "the holder's record, its ticket included")
}

func TestBeginAfterExpiryTakesOver(t *testing.T) {
	e := newEnv(t)
	first, _, err := e.ledger.Begin(t.Context(), id1, ticket, lease)
	require.NoError(t, err)

	e.clock.Advance(lease)
	newTicket := breaker.Ticket{Generation: 9}
	second, began, err := e.ledger.Begin(t.Context(), id1, newTicket, lease)
	require.NoError(t, err)
	assert.True(t, began, "an expired lease is taken over")
	assert.True(t, second.TookOver, "the caller learns the first holder's outcome is unknown")
	assert.False(t, first.TookOver, "the first took a new record")
	assert.NotEqual(t, first.Holder, second.Holder)
	assert.Equal(t, newTicket, second.Ticket)
	assert.NotContains(t, getRaw(t, e, id1), "lease_id", "the old ticket's lease is not kept")

	_, err = e.ledger.Complete(t.Context(), first, breaker.Success, "", "")
	require.Error(t, err)
	assert.ErrorIs(t, err, delivery.ErrNotHeld)
	assert.Contains(t, err.Error(), "another holder took it over")
	assert.Contains(t, err.Error(), id1.String())

	done, err := e.ledger.Complete(t.Context(), second, breaker.Success, "", "")
	require.NoError(t, err)
	assert.Equal(t, newTicket, done.Ticket)
}

func TestCompleteStoresTheOutcome(t *testing.T) {
	e := newEnv(t)
	held, _, err := e.ledger.Begin(t.Context(), id1, ticket, lease)
	require.NoError(t, err)

	e.clock.Advance(5 * time.Second)
	done, err := e.ledger.Complete(t.Context(), held, breaker.Transient, "BatchItemFailure", "downstream 503")
	require.NoError(t, err)
	assert.Equal(t, delivery.Completed, done.Status)
	assert.Equal(t, breaker.Transient, done.Outcome)
	assert.Equal(t, "BatchItemFailure", done.ErrorType)
	assert.Equal(t, "downstream 503", done.Message)
	assert.Equal(t, t0.Add(5*time.Second), done.CompletedAt)
	assert.Equal(t, held.Holder, done.Holder)

	stored, _, err := e.ledger.Get(t.Context(), id1)
	require.NoError(t, err)
	assert.Equal(t, done, stored)
	item := getRaw(t, e, id1)
	assert.Equal(t, s("TRANSIENT"), item["outcome"])
	assert.Equal(t, n(strconv.FormatInt(t0.Add(5*time.Second+7*24*time.Hour).Unix(), 10)), item["ttl"], "kept a week after the last write")
}

// TestCompleteStoresWhatItIsGiven completes with and without each optional
// attribute: each combination is a different update expression.
func TestCompleteStoresWhatItIsGiven(t *testing.T) {
	for _, tt := range []struct{ errorType, message string }{
		{"", ""}, {"Timeout", ""}, {"", "downstream 503"}, {"Timeout", "downstream 503"},
	} {
		t.Run(fmt.Sprintf("%q %q", tt.errorType, tt.message), func(t *testing.T) {
			e := newEnv(t)
			held, _, err := e.ledger.Begin(t.Context(), id1, ticket, lease)
			require.NoError(t, err)
			done, err := e.ledger.Complete(t.Context(), held, breaker.Transient, tt.errorType, tt.message)
			require.NoError(t, err)
			stored, _, err := e.ledger.Get(t.Context(), id1)
			require.NoError(t, err)
			assert.Equal(t, done, stored)
			item := getRaw(t, e, id1)
			assert.Equal(t, tt.errorType != "", item["error_type"] != nil, "error_type stored only when given")
			assert.Equal(t, tt.message != "", item["message"] != nil, "message stored only when given")
		})
	}
}

func TestBeginAfterCompleteReturnsTheOutcome(t *testing.T) {
	e := newEnv(t)
	held, _, err := e.ledger.Begin(t.Context(), id1, ticket, lease)
	require.NoError(t, err)
	done, err := e.ledger.Complete(t.Context(), held, breaker.Success, "", "")
	require.NoError(t, err)

	// A retried Attempt, long after the lease, admitted again.
	e.clock.Advance(time.Hour)
	got, began, err := e.ledger.Begin(t.Context(), id1, breaker.Ticket{Generation: 12, LeaseID: "canary-9"}, lease)
	require.NoError(t, err)
	assert.False(t, began, "delivered already: not again")
	assert.Equal(t, delivery.Completed, got.Status)
	assert.Equal(t, breaker.Success, got.Outcome)
	assert.Equal(t, ticket, got.Ticket, "the original admission, to record the outcome under")
	assert.Equal(t, done, got)
}

func TestCompleteAgainBySameHolderIsIdempotent(t *testing.T) {
	e := newEnv(t)
	held, _, err := e.ledger.Begin(t.Context(), id1, ticket, lease)
	require.NoError(t, err)
	done, err := e.ledger.Complete(t.Context(), held, breaker.Poison, "ValidationError", "bad payload")
	require.NoError(t, err)

	e.clock.Advance(time.Second)
	again, err := e.ledger.Complete(t.Context(), held, breaker.Poison, "ValidationError", "bad payload")
	require.NoError(t, err, "a retried Complete of the same holder")
	assert.Equal(t, done, again, "the stored record, not a second write")
}

func TestCompleteByStaleHolder(t *testing.T) {
	e := newEnv(t)
	stale, _, err := e.ledger.Begin(t.Context(), id1, ticket, lease)
	require.NoError(t, err)
	e.clock.Advance(2 * lease)
	current, began, err := e.ledger.Begin(t.Context(), id1, ticket, lease)
	require.NoError(t, err)
	require.True(t, began)
	_, err = e.ledger.Complete(t.Context(), current, breaker.Success, "", "")
	require.NoError(t, err)

	_, err = e.ledger.Complete(t.Context(), stale, breaker.Transient, "Timeout", "")
	require.Error(t, err)
	assert.ErrorIs(t, err, delivery.ErrNotHeld)
	assert.Contains(t, err.Error(), "another holder completed it with SUCCESS")

	stored, _, err := e.ledger.Get(t.Context(), id1)
	require.NoError(t, err)
	assert.Equal(t, breaker.Success, stored.Outcome, "the stale holder changed nothing")
}

func TestCompleteOfAMissingRecord(t *testing.T) {
	e := newEnv(t)
	_, err := e.ledger.Complete(t.Context(), delivery.Record{ID: id1, Holder: "nobody"}, breaker.Success, "", "")
	require.Error(t, err)
	assert.ErrorIs(t, err, delivery.ErrNotHeld)
	assert.Contains(t, err.Error(), "the record is gone")
}

func TestCompleteTruncatesTheMessage(t *testing.T) {
	e := newEnv(t)
	held, _, err := e.ledger.Begin(t.Context(), id1, ticket, lease)
	require.NoError(t, err)
	done, err := e.ledger.Complete(t.Context(), held, breaker.Transient, "Big", strings.Repeat("é", 1000))
	require.NoError(t, err)
	assert.Len(t, done.Message, message.MaxFailureMessage)
	stored, _, err := e.ledger.Get(t.Context(), id1)
	require.NoError(t, err)
	assert.Equal(t, done.Message, stored.Message)
}

func TestGetMissing(t *testing.T) {
	e := newEnv(t)
	_, found, err := e.ledger.Get(t.Context(), id1)
	require.NoError(t, err)
	assert.False(t, found)
}

func TestDistinctTriesAreDistinctRecords(t *testing.T) {
	e := newEnv(t)
	for _, id := range []delivery.ID{
		{OriginID: "o", Attempt: 1, Try: 1}, {OriginID: "o", Attempt: 1, Try: 2}, {OriginID: "o", Attempt: 2, Try: 1},
		{OriginID: "o#1", Attempt: 1, Try: 1}, // '#' in an origin id does not collide
		// Two messages with the same lineage are told apart by their tag.
		{OriginID: "o", Attempt: 2, Try: 1, Message: "m0a1b2c3d"}, {OriginID: "o", Attempt: 2, Try: 1, Message: "m4e5f6a7b"},
	} {
		_, began, err := e.ledger.Begin(t.Context(), id, ticket, lease)
		require.NoError(t, err)
		assert.True(t, began, "%s", id)
	}
}

func TestInvalidRequestsMakeNoCall(t *testing.T) {
	held := delivery.Record{ID: id1, Holder: "h"}
	tests := []struct {
		name    string
		call    func(l *delivery.Ledger) error
		problem string
	}{
		{name: "empty origin", call: func(l *delivery.Ledger) error {
			_, _, err := l.Begin(t.Context(), delivery.ID{Attempt: 1, Try: 1}, ticket, lease)
			return err
		}, problem: "empty origin id"},
		{name: "origin too long", call: func(l *delivery.Ledger) error {
			_, _, err := l.Begin(t.Context(), delivery.ID{OriginID: strings.Repeat("o", 1025), Attempt: 1, Try: 1}, ticket, lease)
			return err
		}, problem: "origin id of 1025 bytes"},
		{name: "attempt zero", call: func(l *delivery.Ledger) error {
			_, _, err := l.Begin(t.Context(), delivery.ID{OriginID: "o", Try: 1}, ticket, lease)
			return err
		}, problem: "attempt 0"},
		{name: "try zero", call: func(l *delivery.Ledger) error {
			_, _, err := l.Get(t.Context(), delivery.ID{OriginID: "o", Attempt: 1})
			return err
		}, problem: "try 0"},
		{name: "no lease", call: func(l *delivery.Ledger) error {
			_, _, err := l.Begin(t.Context(), id1, ticket, 0)
			return err
		}, problem: "lease 0s"},
		{name: "negative lease", call: func(l *delivery.Ledger) error {
			_, _, err := l.Begin(t.Context(), id1, ticket, -time.Second)
			return err
		}, problem: "lease -1s"},
		{name: "no outcome", call: func(l *delivery.Ledger) error {
			_, err := l.Complete(t.Context(), held, 0, "", "")
			return err
		}, problem: "outcome Outcome(0)"},
		{name: "no holder", call: func(l *delivery.Ledger) error {
			_, err := l.Complete(t.Context(), delivery.Record{ID: id1}, breaker.Success, "", "")
			return err
		}, problem: "no holder"},
		{name: "complete with a bad id", call: func(l *delivery.Ledger) error {
			_, err := l.Complete(t.Context(), delivery.Record{Holder: "h"}, breaker.Success, "", "")
			return err
		}, problem: "empty origin id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			api := &fakeAPI{}
			err := tt.call(delivery.New(api, "table", nil))
			require.Error(t, err)
			assert.ErrorIs(t, err, delivery.ErrInvalid)
			assert.Contains(t, err.Error(), tt.problem)
			assert.Zero(t, api.calls)
		})
	}
}

func TestServiceErrorsAreWrapped(t *testing.T) {
	api := &fakeAPI{err: errUnavailable}
	l := delivery.New(api, "redrive", nil)

	_, _, err := l.Begin(t.Context(), id1, ticket, lease)
	assert.ErrorIs(t, err, errUnavailable)
	assert.Contains(t, err.Error(), `begin delivery `+id1.String()+`: put to table "redrive"`)

	_, err = l.Complete(t.Context(), delivery.Record{ID: id1, Holder: "h"}, breaker.Success, "", "")
	assert.ErrorIs(t, err, errUnavailable)
	assert.Contains(t, err.Error(), `complete delivery `+id1.String()+`: update in table "redrive"`)

	_, _, err = l.Get(t.Context(), id1)
	assert.ErrorIs(t, err, errUnavailable)
	assert.Contains(t, err.Error(), `get delivery `+id1.String()+` from table "redrive"`)
}
