package pace_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/room/pace"
	"github.com/redrive/redrive/test/roomtest"
)

// t0 is the tests' clock.
var t0 = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

// lease is the tests' releaser lease.
var lease = pace.Policy{Lease: time.Minute}

// newStore is a Store on a fresh table of the test backend, with the raw
// client.
func newStore(t *testing.T) (*pace.Store, *dynamodb.Client, string) {
	t.Helper()
	client, table := roomtest.Table(t)
	return pace.NewStore(client, table), client, table
}

func TestLoadOfANewKeyIsZero(t *testing.T) {
	s, _, _ := newStore(t)
	st, err := s.Load(t.Context(), "orders")
	require.NoError(t, err)
	assert.Equal(t, pace.State{Key: "orders"}, st)
}

func TestSaveIsConditionalOnTheVersion(t *testing.T) {
	s, _, _ := newStore(t)
	want := pace.State{Key: "orders", Epoch: 2, ReleaserUntil: t0, Rate: 12.5, Ceiling: 40, SeenThrottles: 3, Full: true, Carry: 0.5}
	saved, err := s.Save(t.Context(), want)
	require.NoError(t, err)
	want.Version = 1
	assert.Equal(t, want, saved)
	loaded, err := s.Load(t.Context(), "orders")
	require.NoError(t, err)
	assert.Equal(t, want, loaded, "every field round-trips")

	_, err = s.Save(t.Context(), pace.State{Key: "orders"})
	assert.ErrorIs(t, err, pace.ErrConflict, "a second first version")
	next, err := s.Save(t.Context(), loaded)
	require.NoError(t, err)
	assert.Equal(t, int64(2), next.Version)
	_, err = s.Save(t.Context(), loaded)
	assert.ErrorIs(t, err, pace.ErrConflict, "a stale version")
}

func TestAcquireTakesAFreeLeaseForANewEpoch(t *testing.T) {
	s, _, _ := newStore(t)
	st, took, err := s.Acquire(t.Context(), "orders", lease, t0)
	require.NoError(t, err)
	require.True(t, took)
	assert.Equal(t, int64(1), st.Epoch)
	assert.Equal(t, t0.Add(time.Minute), st.ReleaserUntil)

	// The releaser ran and found a rate.
	_, mine, err := s.Update(t.Context(), "orders", 1, func(s pace.State) pace.State {
		s.Rate, s.Ceiling, s.Full, s.Carry, s.SeenThrottles = 50, 60, true, 0.5, 7
		return s
	})
	require.NoError(t, err)
	require.True(t, mine)

	held, took, err := s.Acquire(t.Context(), "orders", lease, t0.Add(59*time.Second))
	require.NoError(t, err)
	assert.False(t, took, "a live releaser holds it")
	assert.Equal(t, int64(1), held.Epoch)

	st, took, err = s.Acquire(t.Context(), "orders", lease, t0.Add(time.Minute))
	require.NoError(t, err)
	require.True(t, took, "the lease expired")
	assert.Equal(t, int64(2), st.Epoch)
	assert.Equal(t, t0.Add(2*time.Minute), st.ReleaserUntil)
	assert.Zero(t, st.Rate, "a new epoch starts from a fresh rate")
	assert.Zero(t, st.Ceiling)
	assert.False(t, st.Full)
	assert.Zero(t, st.Carry)
	assert.Equal(t, int64(7), st.SeenThrottles, "throttles seen stay seen")
}

func TestAcquireHasExactlyOneWinner(t *testing.T) {
	s, _, _ := newStore(t)
	const goroutines = 32
	var mu sync.Mutex
	var winners []pace.State
	var wg sync.WaitGroup
	start := make(chan struct{})
	for range goroutines {
		wg.Go(func() {
			<-start
			st, took, err := s.Acquire(context.Background(), "orders", lease, t0)
			if !assert.NoError(t, err) || !took {
				return
			}
			mu.Lock()
			winners = append(winners, st)
			mu.Unlock()
		})
	}
	close(start)
	wg.Wait()
	require.Len(t, winners, 1, "one releaser per key")
	st, err := s.Load(t.Context(), "orders")
	require.NoError(t, err)
	assert.Equal(t, winners[0], st)
}

func TestUpdateRefusesAStaleEpoch(t *testing.T) {
	s, _, _ := newStore(t)
	_, took, err := s.Acquire(t.Context(), "orders", lease, t0)
	require.NoError(t, err)
	require.True(t, took)
	newer, took, err := s.Acquire(t.Context(), "orders", lease, t0.Add(time.Hour))
	require.NoError(t, err)
	require.True(t, took)

	called := false
	st, mine, err := s.Update(t.Context(), "orders", 1, func(s pace.State) pace.State {
		called = true
		return s
	})
	require.NoError(t, err)
	assert.False(t, mine, "epoch 2 took over")
	assert.False(t, called)
	assert.Equal(t, newer, st)
	loaded, err := s.Load(t.Context(), "orders")
	require.NoError(t, err)
	assert.Equal(t, newer, loaded, "nothing saved")

	st, mine, err = s.Update(t.Context(), "orders", 2, func(s pace.State) pace.State {
		s.Rate = 33
		return s
	})
	require.NoError(t, err)
	assert.True(t, mine)
	assert.Equal(t, 33.0, st.Rate)
	assert.Equal(t, newer.Version+1, st.Version)
}

func TestUpdateReloadsOnAConflict(t *testing.T) {
	s, _, _ := newStore(t)
	_, _, err := s.Acquire(t.Context(), "orders", lease, t0)
	require.NoError(t, err)
	calls := 0
	st, mine, err := s.Update(t.Context(), "orders", 1, func(st pace.State) pace.State {
		calls++
		if calls == 1 {
			// Another writer of the row (the releaser's own earlier
			// update, say) gets in between.
			_, err := s.Save(context.Background(), st)
			require.NoError(t, err)
		}
		st.Rate++
		return st
	})
	require.NoError(t, err)
	assert.True(t, mine)
	assert.Equal(t, 2, calls)
	assert.Equal(t, 1.0, st.Rate)
	assert.Equal(t, int64(3), st.Version)
}

func TestLoadReportsAMalformedRow(t *testing.T) {
	s, client, table := newStore(t)
	_, err := client.PutItem(t.Context(), &dynamodb.PutItemInput{TableName: aws.String(table), Item: map[string]types.AttributeValue{
		"pk":      &types.AttributeValueMemberS{Value: "pace#orders"},
		"version": &types.AttributeValueMemberS{Value: "one"},
	}})
	require.NoError(t, err)
	_, err = s.Load(t.Context(), "orders")
	assert.ErrorContains(t, err, `pace "orders": malformed row`)
}

// Save writes the releaser's fields only: Admit's count and Entered's
// note, written without a version, stay.
func TestSaveKeepsAdmitsCountAndEnteredsNote(t *testing.T) {
	s, _, _ := newStore(t)
	ctx := t.Context()
	admitted, err := s.Admit(ctx, "orders", 4, lease, t0)
	require.NoError(t, err)
	require.Equal(t, 4, admitted.Allowed)
	_, _, err = s.Entered(ctx, "orders", lease, t0) // takes the lease: epoch 1
	require.NoError(t, err)
	st, err := s.Load(ctx, "orders")
	require.NoError(t, err)
	st.Rate = 40
	_, err = s.Save(ctx, st)
	require.NoError(t, err)

	quit, _, err := s.Quit(ctx, "orders", 1, t0)
	require.NoError(t, err)
	assert.False(t, quit, "Entered's note survived the Save")
	_, _, err = s.Update(ctx, "orders", 1, func(st pace.State) pace.State {
		st.ReleaserUntil = time.Time{}
		return st
	})
	require.NoError(t, err)
	admitted, err = s.Admit(ctx, "orders", 100, lease, t0)
	require.NoError(t, err)
	assert.Equal(t, 36, admitted.Allowed, "Admit's count survived the Save: 4 of this second's 40 had gone")
	assert.True(t, admitted.Stalled, "an entry was noted and no controller holds the lease, nor ended on an empty room")
}

// TestAdmitSaysWhenTheRoomIsStalled: a room whose controller ended on an
// empty room is not stalled; one with an entry noted since and no live
// controller (it died, or could not be started) is, and so is one whose
// controller's lease ran out.
func TestAdmitSaysWhenTheRoomIsStalled(t *testing.T) {
	s, _, _ := newStore(t)
	ctx := t.Context()
	a, err := s.Admit(ctx, "orders", 1, lease, t0)
	require.NoError(t, err)
	assert.False(t, a.Stalled, "nothing ever entered")

	_, took, err := s.Entered(ctx, "orders", lease, t0)
	require.NoError(t, err)
	require.True(t, took)
	a, err = s.Admit(ctx, "orders", 1, lease, t0.Add(time.Second))
	require.NoError(t, err)
	assert.False(t, a.Stalled, "a live controller releases the room")

	quit, _, err := s.Quit(ctx, "orders", 1, t0.Add(10*time.Second))
	require.NoError(t, err)
	require.True(t, quit)
	a, err = s.Admit(ctx, "orders", 1, lease, t0.Add(11*time.Second))
	require.NoError(t, err)
	assert.False(t, a.Stalled, "the controller ended on an empty room")

	_, took, err = s.Entered(ctx, "orders", lease, t0.Add(12*time.Second))
	require.NoError(t, err)
	require.True(t, took)
	a, err = s.Admit(ctx, "orders", 1, lease, t0.Add(12*time.Second).Add(lease.WithDefaults().Lease))
	require.NoError(t, err)
	assert.True(t, a.Stalled, "its controller's lease ran out with the room not known empty")
}

func TestEnteredTakesAFreeLease(t *testing.T) {
	s, _, _ := newStore(t)
	st, took, err := s.Entered(t.Context(), "orders", lease, t0)
	require.NoError(t, err)
	require.True(t, took, "a new key: nobody holds the lease")
	assert.Equal(t, int64(1), st.Epoch)
	assert.Equal(t, t0.Add(time.Minute), st.ReleaserUntil)

	held, took, err := s.Entered(t.Context(), "orders", lease, t0.Add(30*time.Second))
	require.NoError(t, err)
	assert.False(t, took, "a live controller holds it")
	assert.Equal(t, int64(1), held.Epoch)
	assert.Equal(t, st.Version, held.Version, "a note is not a version")

	st, took, err = s.Entered(t.Context(), "orders", lease, t0.Add(time.Minute))
	require.NoError(t, err)
	require.True(t, took, "the lease expired: the controller died")
	assert.Equal(t, int64(2), st.Epoch)
}

func TestEnteredHasExactlyOneWinner(t *testing.T) {
	s, _, _ := newStore(t)
	const goroutines = 32
	var mu sync.Mutex
	var winners []pace.State
	var wg sync.WaitGroup
	start := make(chan struct{})
	for range goroutines {
		wg.Go(func() {
			<-start
			st, took, err := s.Entered(context.Background(), "orders", lease, t0)
			if !assert.NoError(t, err) || !took {
				return
			}
			mu.Lock()
			winners = append(winners, st)
			mu.Unlock()
		})
	}
	close(start)
	wg.Wait()
	require.Len(t, winners, 1, "one controller per key, however many messages enter at once")
	st, err := s.Load(t.Context(), "orders")
	require.NoError(t, err)
	assert.Equal(t, winners[0], st)
}

// countingAPI counts the writes through a pace store.
type countingAPI struct {
	pace.API
	writes atomic.Int64
}

func (c *countingAPI) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	c.writes.Add(1)
	return c.API.UpdateItem(ctx, in, optFns...)
}

// While a controller holds the lease, Entered writes its note once per
// EntryNoteAhead, not once per entry; the entries in between read the
// row, and every one of them keeps the controller from quitting until
// it looked at the room after them.
func TestEnteredNotesOncePerEntryNoteAhead(t *testing.T) {
	_, client, table := newStore(t)
	api := &countingAPI{API: client}
	s := pace.NewStore(api, table)
	ctx := t.Context()
	_, took, err := s.Entered(ctx, "orders", lease, t0)
	require.NoError(t, err)
	require.True(t, took)
	first := api.writes.Load()

	const entries = 50 // one every 100ms, for EntryNoteAhead's 5s
	step := pace.EntryNoteAhead / entries
	var last time.Time
	for i := range entries {
		last = t0.Add(time.Duration(i) * step)
		_, took, err := s.Entered(ctx, "orders", lease, last)
		require.NoError(t, err)
		require.False(t, took, "a live controller holds the lease")
	}
	assert.Zero(t, api.writes.Load()-first, "the first entry's note covers the next %v", pace.EntryNoteAhead)
	_, _, err = s.Entered(ctx, "orders", lease, t0.Add(pace.EntryNoteAhead).Add(time.Millisecond))
	require.NoError(t, err)
	assert.Equal(t, int64(1), api.writes.Load()-first, "past the note: a new one")

	quit, _, err := s.Quit(ctx, "orders", 1, last.Add(time.Millisecond))
	require.NoError(t, err)
	assert.False(t, quit, "the controller has not looked at the room since the last entry's note")
}

// An older note never replaces a later one (entries whose clocks or
// calls are out of order).
func TestEnteredNeverMovesTheNoteBack(t *testing.T) {
	s, _, _ := newStore(t)
	ctx := t.Context()
	later := t0.Add(10 * time.Second)
	_, _, err := s.Entered(ctx, "orders", lease, later)
	require.NoError(t, err)
	quit, _, err := s.Quit(ctx, "orders", 1, later.Add(pace.EntryNoteAhead).Add(time.Millisecond))
	require.NoError(t, err)
	require.True(t, quit)

	st, took, err := s.Entered(ctx, "orders", lease, t0) // late, on a free lease: its note would be t0+5s
	require.NoError(t, err)
	require.True(t, took, "the lease was free")
	quit, _, err = s.Quit(ctx, "orders", st.Epoch, later.Add(pace.EntryNoteAhead))
	require.NoError(t, err)
	assert.False(t, quit, "the later entry's note stands")
}

// Quit gives the lease up only when no message entered at or after
// checked (when the controller last looked at the room, less the index's
// lag), EntryNoteAhead included: a message it may not have seen keeps it
// running.
func TestQuitIsRefusedWhenAMessageEnteredAtOrAfterChecked(t *testing.T) {
	ahead := pace.EntryNoteAhead
	tests := []struct {
		name    string
		entered time.Duration // after t0; the first entry, which starts epoch 1
		checked time.Duration
		want    bool
	}{
		{name: "noted before checked", entered: 0, checked: ahead + time.Millisecond, want: true},
		{name: "noted at checked", entered: time.Second, checked: time.Second + ahead},
		{name: "entered before checked, noted after", entered: time.Second, checked: 2 * time.Second},
		{name: "entered after checked", entered: 2 * time.Second, checked: time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _, _ := newStore(t)
			st, took, err := s.Entered(t.Context(), "orders", lease, t0.Add(tt.entered))
			require.NoError(t, err)
			require.True(t, took)

			quit, _, err := s.Quit(t.Context(), "orders", st.Epoch, t0.Add(tt.checked))
			require.NoError(t, err)
			assert.Equal(t, tt.want, quit)
			after, err := s.Load(t.Context(), "orders")
			require.NoError(t, err)
			if tt.want {
				assert.Zero(t, after.ReleaserUntil, "the lease is free")
				assert.Equal(t, st.Version+1, after.Version, "a quit is a version: a stale Save of the controller fails")
				_, took, err := s.Acquire(t.Context(), "orders", lease, t0.Add(tt.checked))
				require.NoError(t, err)
				assert.True(t, took, "the next entry starts a new controller at once")
			} else {
				assert.Equal(t, st, after, "the controller keeps its lease")
			}
		})
	}
}

func TestQuitIsRefusedToAnOldEpoch(t *testing.T) {
	s, _, _ := newStore(t)
	_, took, err := s.Acquire(t.Context(), "orders", lease, t0)
	require.NoError(t, err)
	require.True(t, took)
	newer, took, err := s.Acquire(t.Context(), "orders", lease, t0.Add(time.Hour))
	require.NoError(t, err)
	require.True(t, took)

	quit, _, err := s.Quit(t.Context(), "orders", 1, t0.Add(time.Hour))
	require.NoError(t, err)
	assert.False(t, quit, "epoch 2 holds the row")
	after, err := s.Load(t.Context(), "orders")
	require.NoError(t, err)
	assert.Equal(t, newer, after)

	quit, _, err = s.Quit(t.Context(), "orders", 2, t0.Add(time.Hour))
	require.NoError(t, err)
	assert.True(t, quit, "no message ever entered")
}

// A message entering while the controller quits: either the quit comes
// first, and the entry takes the lease (a new controller), or the entry
// comes first, and the quit is refused (the controller goes on). Never
// neither.
func TestEnteredRacingQuitLeavesAController(t *testing.T) {
	for i := range 20 {
		s, _, _ := newStore(t)
		st, took, err := s.Entered(t.Context(), "orders", lease, t0)
		require.NoError(t, err)
		require.True(t, took)
		now := t0.Add(10 * time.Second) // the controller looked at the room at now, empty
		var quit, entered bool
		var wg sync.WaitGroup
		wg.Go(func() {
			var err error
			quit, _, err = s.Quit(context.Background(), "orders", st.Epoch, now)
			assert.NoError(t, err)
		})
		wg.Go(func() {
			var err error
			_, entered, err = s.Entered(context.Background(), "orders", lease, now)
			assert.NoError(t, err)
		})
		wg.Wait()
		assert.True(t, !quit || entered, "run %d: the controller quit, and the entry started none", i)
	}
}

// Quit tells a refusal for a recent entry (the controller goes on) from
// one for a newer epoch (the controller ends).
func TestQuitSaysWhetherTheRowIsStillTheControllers(t *testing.T) {
	s, _, _ := newStore(t)
	ctx := t.Context()
	_, took, err := s.Entered(ctx, "orders", lease, t0)
	require.NoError(t, err)
	require.True(t, took)
	quit, mine, err := s.Quit(ctx, "orders", 1, t0)
	require.NoError(t, err)
	assert.False(t, quit, "an entry at the checked time")
	assert.True(t, mine)
	_, err = s.TakeOver(ctx, "orders", lease, t0.Add(time.Second))
	require.NoError(t, err)
	quit, mine, err = s.Quit(ctx, "orders", 1, t0.Add(time.Hour))
	require.NoError(t, err)
	assert.False(t, quit)
	assert.False(t, mine, "epoch 2 holds the row")
}
