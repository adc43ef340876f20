package room_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/room"
)

// fifo is the entry of message n of group under key, its sequence number
// seq, arriving at t0 plus after.
func fifo(key, group string, n, seq int, after time.Duration) room.Entry {
	e := entry(key, fmt.Sprintf("%s-%d#1", group, n), after)
	padded, err := room.PadSequence(strconv.Itoa(seq))
	if err != nil {
		panic(err)
	}
	e.Place = &room.Place{Group: group, Sequence: padded}
	return e
}

// enterInLine enters every entry in line and requires that each entered.
func (e env) enterInLine(t *testing.T, entries ...room.Entry) {
	t.Helper()
	for _, en := range entries {
		entered, err := e.room.EnterInLine(t.Context(), en)
		require.NoError(t, err)
		require.True(t, entered, en.MessageID)
	}
}

// releaseDue runs one release batch of up to n at now and returns the
// messages it started, in the order started.
func (e env) releaseDue(t *testing.T, api *startRecorder, n int, now time.Time) []string {
	t.Helper()
	before := len(api.started())
	c := e.room.ReleaseDue(t.Context(), releaser(api), "orders", n, now, 0, nil, nil)
	require.NoError(t, c.Err)
	return api.started()[before:]
}

// startRecorder records the message ids of the executions started, read
// from their input (the tests' documents hold the id).
type startRecorder struct {
	mu  sync.Mutex
	ids []string
	// onStart, when set, runs before each start is recorded.
	onStart func(id string) error
}

func (s *startRecorder) StartExecution(_ context.Context, in *sfn.StartExecutionInput, _ ...func(*sfn.Options)) (*sfn.StartExecutionOutput, error) {
	var doc struct{ ID string }
	if err := json.Unmarshal([]byte(aws.ToString(in.Input)), &doc); err != nil {
		return nil, err
	}
	id := doc.ID
	if s.onStart != nil {
		if err := s.onStart(id); err != nil {
			return nil, err
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ids = append(s.ids, id)
	return &sfn.StartExecutionOutput{ExecutionArn: aws.String(attemptARN + ":" + id)}, nil
}

func (s *startRecorder) started() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.ids...)
}

// placeOf is the place of message id as it entered.
func placeOf(t *testing.T, e env, id string) room.Place {
	t.Helper()
	return *e.listed(t, "orders", id).Place
}

func TestPadSequence(t *testing.T) {
	got, err := room.PadSequence("18849496460467696128")
	require.NoError(t, err)
	assert.Len(t, got, room.SequenceDigits)
	assert.True(t, strings.HasSuffix(got, "18849496460467696128"))
	nine, _ := room.PadSequence("9")
	ten, _ := room.PadSequence("10")
	assert.Less(t, nine, ten, "padded, they order as numbers")
	for _, bad := range []string{"", "12a", "-1", strings.Repeat("1", room.SequenceDigits+1)} {
		_, err := room.PadSequence(bad)
		assert.Error(t, err, bad)
	}
}

func TestEnterInLineChainsAGroupAndTakesADuplicateOnce(t *testing.T) {
	e := newEnv(t)
	e.enterInLine(t, fifo("orders", "a", 1, 10, 0), fifo("orders", "b", 1, 11, 0), fifo("orders", "a", 2, 12, time.Second))
	assert.Empty(t, placeOf(t, e, "a-1#1").Prev, "the first of its group")
	assert.Equal(t, placeOf(t, e, "a-1#1").Sequence, placeOf(t, e, "a-2#1").Prev, "behind the one before it")
	assert.Empty(t, placeOf(t, e, "b-1#1").Prev, "groups are lines of their own")

	again := fifo("orders", "a", 1, 10, 5*time.Second)
	again.Document = document("changed")
	entered, err := e.room.EnterInLine(t.Context(), again)
	require.NoError(t, err)
	assert.False(t, entered, "a second delivery of a DLQ message the group has seen")
	assert.Equal(t, []string{`{"id":"a-1#1"}`, `{"id":"b-1#1"}`, `{"id":"a-2#1"}`}, e.documents(t, "orders"), "nothing rewritten")

	_, err = e.room.EnterInLine(t.Context(), entry("orders", "x#1", 0))
	assert.ErrorContains(t, err, "no message group or sequence number")
}

func TestAGroupGoesOneMessageAtATimeInItsOrder(t *testing.T) {
	e := newEnv(t)
	e.enterInLine(t, fifo("orders", "a", 1, 1, 0), fifo("orders", "a", 2, 2, 0), fifo("orders", "b", 1, 3, 0),
		fifo("orders", "a", 3, 4, 0), fifo("orders", "b", 2, 5, 0))
	api := &startRecorder{}
	now := t0.Add(time.Minute)
	assert.Equal(t, []string{"a-1#1", "b-1#1"}, e.releaseDue(t, api, 10, now), "one per group, the first of each")
	assert.Empty(t, e.releaseDue(t, api, 10, now), "each group's turn is taken")

	require.NoError(t, e.room.Advance(t.Context(), "orders", "a-2#1", placeOf(t, e, "a-2#1")), "not its turn: changes nothing")
	assert.Empty(t, e.releaseDue(t, api, 10, now))
	a1 := room.Place{Group: "a", Sequence: mustPad(t, 1)}
	require.NoError(t, e.room.Advance(t.Context(), "orders", "a-1#1", a1))
	require.NoError(t, e.room.Advance(t.Context(), "orders", "a-1#1", a1), "twice is once")
	assert.Equal(t, []string{"a-2#1"}, e.releaseDue(t, api, 10, now))

	// a-2 fails a try and goes back to the room to back off: it keeps
	// its group's turn, and a-3 waits behind it though it is due first.
	back := fifo("orders", "a", 2, 2, 0)
	back.Place.Prev = a1.Sequence
	e.enter(t, notBefore(back, 10*time.Minute))
	assert.Empty(t, e.releaseDue(t, api, 10, now), "a-3 waits for a-2")
	assert.Equal(t, []string{"a-2#1"}, e.releaseDue(t, api, 10, t0.Add(10*time.Minute)), "a-2 again, in its turn")
	require.NoError(t, e.room.Advance(t.Context(), "orders", "a-2#1", room.Place{Group: "a", Sequence: mustPad(t, 2), Prev: a1.Sequence}))
	assert.Equal(t, []string{"a-3#1"}, e.releaseDue(t, api, 10, t0.Add(10*time.Minute)))
}

// mustPad is n's padded sequence number.
func mustPad(t *testing.T, n int) string {
	t.Helper()
	s, err := room.PadSequence(strconv.Itoa(n))
	require.NoError(t, err)
	return s
}

func TestALongGroupDoesNotHoldTheOthersBack(t *testing.T) {
	e := newEnv(t)
	seq := 0
	var entries []room.Entry
	const n = 4
	for i := range room.FIFODepth - 3 { // the other three just fit in the listing
		seq++
		entries = append(entries, fifo("orders", "long", i, seq, 0))
	}
	for _, g := range []string{"b", "c", "d"} {
		seq++
		entries = append(entries, fifo("orders", g, 0, seq, time.Second))
	}
	e.enterInLine(t, entries...)
	api := &startRecorder{}
	assert.Equal(t, []string{"long-0#1", "b-0#1", "c-0#1", "d-0#1"}, e.releaseDue(t, api, n, t0.Add(time.Minute)),
		"the batch looks past the long group's line for the other groups")
}

func TestAStaleTurnIsTakenOverOnceItsMessageIsGone(t *testing.T) {
	e := newEnv(t)
	e.enterInLine(t, fifo("orders", "a", 1, 1, 0), fifo("orders", "a", 2, 2, 0))
	api := &startRecorder{}
	assert.Equal(t, []string{"a-1#1"}, e.releaseDue(t, api, 10, t0))
	// a-1's execution delivered it, and its Advance was lost.
	assert.Empty(t, e.releaseDue(t, api, 10, t0.Add(room.StaleTurn-time.Second)), "within StaleTurn a-1 may still be in flight")
	assert.Equal(t, []string{"a-2#1"}, e.releaseDue(t, api, 10, t0.Add(room.StaleTurn)), "past it, a-2 takes the turn over")

	// A turn whose message is back in the room waits for it, however old.
	e.enterInLine(t, fifo("orders", "a", 3, 3, time.Minute))
	back := fifo("orders", "a", 2, 2, 0)
	back.Place.Prev = mustPad(t, 1)
	e.enter(t, notBefore(back, 24*time.Hour))
	assert.Empty(t, e.releaseDue(t, api, 10, t0.Add(2*time.Hour)), "a-2 waits in the room with the turn; a-3 stays behind it")
}

// TestRacingReleasesKeepEveryGroupInOrder races releasers over one room
// of several groups while "executions" deliver and advance: no two
// messages of a group are ever in flight together, and each group is
// delivered in its order, once each.
func TestRacingReleasesKeepEveryGroupInOrder(t *testing.T) {
	const groups, perGroup, releasers = 5, 8, 6
	e := newEnv(t)
	seq := 0
	var entries []room.Entry
	for i := range perGroup {
		for g := range groups {
			seq++
			entries = append(entries, fifo("orders", "g"+strconv.Itoa(g), i, seq, time.Duration(seq)*time.Millisecond))
		}
	}
	e.enterInLine(t, entries...)
	places := map[string]room.Place{}
	for _, en := range entries {
		places[en.MessageID] = placeOf(t, e, en.MessageID)
	}

	var mu sync.Mutex
	inFlight := map[string]bool{}
	delivered := map[string][]int{}
	var problems []string
	api := &startRecorder{onStart: func(id string) error {
		group, n, _ := strings.Cut(strings.TrimSuffix(id, "#1"), "-")
		mu.Lock()
		if inFlight[group] {
			problems = append(problems, "two of group "+group+" in flight")
		}
		inFlight[group] = true
		i, _ := strconv.Atoi(n)
		delivered[group] = append(delivered[group], i)
		mu.Unlock()
		go func() { // the execution delivers, then advances its group
			mu.Lock()
			inFlight[group] = false
			mu.Unlock()
			if err := e.room.Advance(context.Background(), "orders", id, places[id]); err != nil {
				mu.Lock()
				problems = append(problems, err.Error())
				mu.Unlock()
			}
		}()
		return nil
	}}
	var wg sync.WaitGroup
	for w := range releasers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for round := range 200 {
				c := e.room.ReleaseDue(t.Context(), releaser(api), "orders", 3, t0.Add(time.Minute), 0, nil, nil)
				if c.Err != nil {
					mu.Lock()
					problems = append(problems, fmt.Sprintf("releaser %d round %d: %v", w, round, c.Err))
					mu.Unlock()
					return
				}
				if len(e.left(t, "orders")) == 0 {
					return
				}
			}
		}()
	}
	wg.Wait()
	assert.Empty(t, problems)
	assert.Empty(t, e.left(t, "orders"), "every message released")
	for g := range groups {
		want := make([]int, perGroup)
		for i := range want {
			want[i] = i
		}
		assert.Equal(t, want, delivered["g"+strconv.Itoa(g)], "group g%d in order, once each", g)
	}
}

// A group held behind a hold rule waits, even with its turn free, until
// the rule is lifted; then its next message goes, and the hold is gone.
func TestAHeldGroupWaitsUntilItsRuleIsLifted(t *testing.T) {
	e := newEnv(t)
	e.enterInLine(t, fifo("orders", "a", 1, 1, 0), fifo("orders", "a", 2, 2, 0), fifo("orders", "b", 1, 3, 0))
	api := &startRecorder{}
	lifted, looks := false, 0
	rel := releaser(api)
	rel.Lifted = func(_ context.Context, id string) (bool, error) {
		assert.Equal(t, "r7", id)
		looks++
		return lifted, nil
	}
	release := func(at time.Duration) []string {
		before := len(api.started())
		c := e.room.ReleaseDue(t.Context(), rel, "orders", 10, t0.Add(at), 0, nil, nil)
		require.NoError(t, c.Err)
		return api.started()[before:]
	}
	require.Equal(t, []string{"a-1#1", "b-1#1"}, release(0))
	require.NoError(t, e.room.Hold(t.Context(), "orders", "a-1#1", room.Place{Group: "a", Sequence: mustPad(t, 1)}, "r7"), "a-1 parked, its group held")
	assert.Empty(t, release(time.Second), "a-2 waits behind the hold")
	assert.Empty(t, release(2*time.Second))
	assert.Equal(t, 1, looks, "a held group is looked at again only after HeldRecheck")
	lifted = true
	assert.Empty(t, release(3*time.Second), "not yet looked at again")
	assert.Equal(t, []string{"a-2#1"}, release(time.Second+room.HeldRecheck), "lifted: the group goes on")
	require.NoError(t, e.room.Advance(t.Context(), "orders", "a-2#1", room.Place{Group: "a", Sequence: mustPad(t, 2)}))
	e.enterInLine(t, fifo("orders", "a", 3, 4, time.Second))
	lifted = false
	assert.Equal(t, []string{"a-3#1"}, release(2*room.HeldRecheck), "the hold is gone for good")
}

// A message back in the room after its group moved past it (a duplicate
// of an Express execution that entered it again after the first
// delivered it) goes, without the turn: its delivery record makes it
// harmless, and it holds nothing up.
func TestADoneMessageBackInTheRoomGoesWithoutTheTurn(t *testing.T) {
	e := newEnv(t)
	e.enterInLine(t, fifo("orders", "a", 1, 1, 0), fifo("orders", "a", 2, 2, 0))
	api := &startRecorder{}
	assert.Equal(t, []string{"a-1#1"}, e.releaseDue(t, api, 10, t0))
	require.NoError(t, e.room.Advance(t.Context(), "orders", "a-1#1", room.Place{Group: "a", Sequence: mustPad(t, 1)}))
	e.enter(t, fifo("orders", "a", 1, 1, time.Second)) // the duplicate's entry, after
	assert.Equal(t, []string{"a-1#1"}, e.releaseDue(t, api, 10, t0.Add(time.Minute)), "the duplicate goes")
	assert.Equal(t, []string{"a-2#1"}, e.releaseDue(t, api, 10, t0.Add(time.Minute)), "and a-2, with its turn")
	assert.Empty(t, e.left(t, "orders"))
}

// A duplicate's entry of a message in the room when the message is
// delivered is taken out with its turn's end.
func TestAdvanceTakesADuplicatesEntryOut(t *testing.T) {
	e := newEnv(t)
	e.enterInLine(t, fifo("orders", "a", 1, 1, 0), fifo("orders", "a", 2, 2, 0))
	api := &startRecorder{}
	assert.Equal(t, []string{"a-1#1"}, e.releaseDue(t, api, 10, t0))
	e.enter(t, notBefore(fifo("orders", "a", 1, 1, time.Second), time.Hour)) // the duplicate waits out the lease
	require.NoError(t, e.room.Advance(t.Context(), "orders", "a-1#1", room.Place{Group: "a", Sequence: mustPad(t, 1)}))
	assert.Equal(t, []string{"a-2#1"}, e.left(t, "orders"), "the duplicate's entry is gone")
	assert.Equal(t, []string{"a-2#1"}, e.releaseDue(t, api, 10, t0.Add(time.Minute)), "and holds nothing up")
}

// A group held behind a rule does not take the batch's slots: once found
// held, it is passed over until HeldRecheck, and a one-message batch (a
// probe) goes to another group.
func TestAHeldGroupLeavesTheBatchToOthers(t *testing.T) {
	e := newEnv(t)
	e.enterInLine(t, fifo("orders", "a", 1, 1, 0), fifo("orders", "a", 2, 2, 0), fifo("orders", "b", 1, 3, time.Minute))
	api := &startRecorder{}
	rel := releaser(api)
	rel.Lifted = func(context.Context, string) (bool, error) { return false, nil }
	release := func(at time.Duration) []string {
		before := len(api.started())
		c := e.room.ReleaseDue(t.Context(), rel, "orders", 1, t0.Add(at), 0, nil, nil)
		require.NoError(t, c.Err)
		return api.started()[before:]
	}
	require.Equal(t, []string{"a-1#1"}, release(0))
	require.NoError(t, e.room.Hold(t.Context(), "orders", "a-1#1", room.Place{Group: "a", Sequence: mustPad(t, 1)}, "r7"))
	assert.Empty(t, release(2*time.Minute), "a-2 first in line, found held")
	assert.Equal(t, []string{"b-1#1"}, release(2*time.Minute+time.Second), "then passed over")
}

// A long group whose head cannot go does not hide the other groups'
// heads behind it, however deep they are.
func TestALongBlockedGroupDoesNotHideTheOthers(t *testing.T) {
	e := newEnv(t)
	var entries []room.Entry
	seq := 0
	for i := range room.FIFODepth + 2 {
		seq++
		entries = append(entries, fifo("orders", "long", i, seq, 0))
	}
	for _, g := range []string{"b", "c"} {
		seq++
		entries = append(entries, fifo("orders", g, 0, seq, time.Second))
	}
	e.enterInLine(t, entries...)
	api := &startRecorder{}
	assert.Equal(t, []string{"long-0#1"}, e.releaseDue(t, api, 1, t0), "the long group's head, in flight from now on")
	assert.Equal(t, []string{"b-0#1", "c-0#1"}, e.releaseDue(t, api, 3, t0.Add(time.Minute)),
		"its next cannot go; the listing goes deeper for the others")
}

// A group id or a message id with the sort key's separators in it reads
// back as it was; a breaker key and a group that join to the same text
// have turns of their own.
func TestOddIDsKeepTheirPlaceAndTurn(t *testing.T) {
	e := newEnv(t)
	odd := fifo("a#b", "c", 1, 1, 0)
	odd.MessageID = "o|fifo|#fifo#weird:1#1"
	odd.Place.Group = "c|fifo|#1:x"
	e.enterInLine(t, odd)
	listed := e.listed(t, "a#b", odd.MessageID)
	require.NotNil(t, listed.Place)
	assert.Equal(t, "c|fifo|#1:x", listed.Place.Group)
	assert.Equal(t, mustPad(t, 1), listed.Place.Sequence)

	e.enterInLine(t, fifo("a#b", "c", 1, 5, 0), fifo("a", "b#c", 2, 3, 0)) // room items of their own (ids c-1#1, b#c-2#1)
	api := &startRecorder{}
	require.NoError(t, e.room.ReleaseDue(t.Context(), releaser(api), "a#b", 10, t0, 0, nil, nil).Err)
	require.NoError(t, e.room.ReleaseDue(t.Context(), releaser(api), "a", 10, t0, 0, nil, nil).Err)
	assert.Len(t, api.started(), 3, "key a#b's group c and key a's group b#c: a turn each")
}
