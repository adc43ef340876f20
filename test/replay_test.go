package test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/admin"
	"github.com/redrive/redrive/attempt"
	"github.com/redrive/redrive/dynamo"
	"github.com/redrive/redrive/emulate/local"
	"github.com/redrive/redrive/emulate/simtarget"
	"github.com/redrive/redrive/lambda/telemetry"
	"github.com/redrive/redrive/lambda/wire"
	"github.com/redrive/redrive/message"
	"github.com/redrive/redrive/park/lotindex"
	"github.com/redrive/redrive/park/replay"
	"github.com/redrive/redrive/rules"
	"github.com/redrive/redrive/test/replaytest"
)

// stackClock is a replay's clock on a local stack's virtual time: a
// replay that sleeps runs the stack meanwhile, so the replay and the
// redrive of what it moved interleave as they would in AWS, on the
// executor's time, deterministically.
type stackClock struct {
	s   *local.Stack
	mu  sync.Mutex
	err error
}

func (c *stackClock) Now() time.Time { return c.s.Executor.Now() }

func (c *stackClock) Sleep(ctx context.Context, d time.Duration) {
	wakeDLQ(ctx, c.s)
	if err := c.s.RunUntil(ctx, c.Now().Add(d)); err != nil && ctx.Err() == nil {
		c.mu.Lock()
		c.err = errors.Join(c.err, err)
		c.mu.Unlock()
	}
}

func (c *stackClock) Deadline(ctx context.Context) (time.Time, bool) {
	return c.s.Executor.Deadline(ctx)
}

func (c *stackClock) WithDeadline(ctx context.Context, t time.Time) (context.Context, context.CancelFunc) {
	return c.s.Executor.WithDeadline(ctx, t)
}

// check fails t if running the stack failed while the replay slept.
func (c *stackClock) check(t *testing.T) {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	require.NoError(t, c.err, "the stack, run while the replay slept")
}

// wakeDLQ has the stack's DLQ event source poll now: on the virtual clock
// it sleeps while the DLQ is empty, and a replay's sends do not wake it
// as SendToDLQ's do. SendToDLQ with no message only wakes it.
func wakeDLQ(ctx context.Context, s *local.Stack) {
	if _, err := s.SendToDLQ(ctx); err != nil {
		panic(err) // sends nothing: cannot fail
	}
}

// maxInAnySecond is the most times that fall in one window [t, t+1s).
func maxInAnySecond(times []time.Time) int {
	sorted := slices.SortedFunc(slices.Values(times), time.Time.Compare)
	most := 0
	for i := range sorted {
		j := i
		for j < len(sorted) && sorted[j].Sub(sorted[i]) < time.Second {
			j++
		}
		most = max(most, j-i)
	}
	return most
}

// lotMessage is a message the tests park: its tenant (the breaker key), a
// marker that makes the consumer fail it, and its region in the body.
type lotMessage struct {
	tenant, marker, region string
	later                  bool // sent an hour after the others
}

// replayLot is the lot the replay tests park: two breakers, poison
// (PoisonMessage) and exhausted (Rejected), two regions, two times.
var replayLot = []lotMessage{
	{"acme", "POISON", "eu", false}, {"acme", "POISON", "us", false}, {"acme", "FLAKY", "eu", false}, {"acme", "FLAKY", "us", false},
	{"globex", "POISON", "eu", false}, {"globex", "FLAKY", "us", false},
	{"acme", "FLAKY", "eu", true}, {"globex", "POISON", "us", true}, {"globex", "FLAKY", "eu", true},
}

// replayEnv is a stack whose parking lot holds replayLot, the consumer
// since fixed.
type replayEnv struct {
	s        *local.Stack
	clock    *stackClock
	sqs      *replaytest.SQS
	byOrigin map[string]lotMessage
	parkedAt map[string]time.Time
	// before is what the consumer delivered before the fix.
	before map[string]int
	second time.Time // when the later messages were sent
}

// newReplayEnv parks replayLot (and delivers two healthy messages), then
// fixes the consumer: from then on it takes capacity calls per second (0:
// any number) and fails nothing.
func newReplayEnv(t *testing.T, capacity int, extra ...lotMessage) *replayEnv {
	t.Helper()
	s := start(t, local.Options{
		BreakerKeyAttribute: "tenant",
		Attempt:             attempt.Config{MaxAttempts: 2},
		Target:              simtarget.Options{Poison: simtarget.BodyContains("POISON"), Reject: simtarget.BodyContains("FLAKY")},
	})
	e := &replayEnv{s: s, clock: &stackClock{s: s}, byOrigin: map[string]lotMessage{}, parkedAt: map[string]time.Time{}}
	e.sqs = &replaytest.SQS{Client: s.SQS, Clock: s.Executor}
	msg := func(i int, m lotMessage) message.Message {
		return message.Message{
			Body:              fmt.Sprintf(`{"order":"%s-%d","region":"%s"}`, m.marker, i, m.region),
			MessageAttributes: map[string]message.Attribute{"tenant": message.StringAttribute(m.tenant)},
		}
	}
	var now, later []message.Message
	var nowSpec, laterSpec []lotMessage
	for i, m := range append(slices.Clone(replayLot), extra...) {
		if m.later {
			later, laterSpec = append(later, msg(i, m)), append(laterSpec, m)
		} else {
			now, nowSpec = append(now, msg(i, m)), append(nowSpec, m)
		}
	}
	for i, id := range send(t, s, now...) {
		e.byOrigin[id] = nowSpec[i]
	}
	send(t, s, msg(100, lotMessage{"acme", "OK", "eu", false}), msg(101, lotMessage{"globex", "OK", "us", false}))
	drain(t, s)
	e.second = s.Executor.Now().Add(time.Hour)
	runUntil(t, s, e.second)
	for i, id := range send(t, s, later...) {
		e.byOrigin[id] = laterSpec[i]
	}
	drain(t, s)

	e.before = s.Target.Ledger().Deliveries()
	require.Len(t, e.before, 2, "the healthy messages are delivered")
	require.NoError(t, s.Target.Reset(simtarget.Options{Clock: s.Executor, Capacity: capacity}))
	assertAllVisible(t, s, len(e.byOrigin))
	return e
}

// replayer is a Replayer on the stack, on its virtual clock.
func (e *replayEnv) replayer(t *testing.T) *replay.Replayer {
	t.Helper()
	r, err := replay.New(e.sqs, e.s.DynamoDB, e.clock, telemetry.JSONLogger(t.Output()), replay.Config{
		ParkingLotURL: e.s.ParkingLotURL, DLQURL: e.s.DLQURL, Table: e.s.Table, ShortPoll: true,
	})
	require.NoError(t, err)
	return r
}

// run runs plan, then the stack until it is drained.
func (e *replayEnv) run(t *testing.T, ctx context.Context, r *replay.Replayer, plan replay.Plan) (replay.Result, error) {
	t.Helper()
	res, err := r.Run(ctx, plan)
	e.clock.check(t)
	wakeDLQ(t.Context(), e.s)
	drain(t, e.s)
	return res, err
}

// origins returns the origin ids of the lot's messages that pick selects.
func (e *replayEnv) origins(pick func(lotMessage) bool) []string {
	var out []string
	for id, m := range e.byOrigin {
		if pick(m) {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}

// settle checks where every parked message ended up: each one in moved
// delivered exactly once since the fix, and every other one still in the
// parking lot, visible, never delivered. It empties the lot.
func (e *replayEnv) settle(t *testing.T, moved []string) {
	t.Helper()
	deliveries := e.s.Target.Ledger().Deliveries()
	for id, n := range deliveries {
		assert.Equal(t, 1, n, "message %s delivered %d times", id, n)
		assert.Zero(t, e.before[id], "message %s delivered before the fix too", id)
	}
	assert.ElementsMatch(t, moved, slices.Collect(maps.Keys(deliveries)), "delivered after the fix: what was moved")

	assertAllVisible(t, e.s, len(e.byOrigin)-len(moved))
	parked, err := e.s.ReceiveParked(t.Context())
	require.NoError(t, err)
	var left []string
	for _, p := range parked {
		left = append(left, p.Record.OriginID)
		assert.Empty(t, p.Record.Replay, "message %s was not replayed", p.Record.OriginID)
	}
	for _, id := range moved {
		assert.NotContains(t, left, id, "message %s moved and still parked", id)
	}
	assert.Len(t, left, len(e.byOrigin)-len(moved), "none lost: every parked message delivered or still in the lot")
}

// The replay moves exactly the parked messages a filter selects: each is
// delivered once, through the starter with its lineage (the attempt
// advanced, marked replayed); the others stay in the lot, visible.
func TestReplayMovesWhatEachFilterSelects(t *testing.T) {
	tests := []struct {
		name   string
		filter func(e *replayEnv) replay.Filter
		pick   func(m lotMessage) bool
	}{
		{"a breaker key", func(*replayEnv) replay.Filter { return replay.Filter{Breaker: "globex"} },
			func(m lotMessage) bool { return m.tenant == "globex" }},
		{"a reason class", func(*replayEnv) replay.Filter { return replay.Filter{Reason: "exhausted"} },
			func(m lotMessage) bool { return m.marker == "FLAKY" }},
		{"an error type", func(*replayEnv) replay.Filter { return replay.Filter{ErrorType: "PoisonMessage"} },
			func(m lotMessage) bool { return m.marker == "POISON" }},
		{"a time range", func(e *replayEnv) replay.Filter { return replay.Filter{Since: e.second} },
			func(m lotMessage) bool { return m.later }},
		{"a body field", func(*replayEnv) replay.Filter {
			f, err := replay.ParseBodyField("/region=eu")
			if err != nil {
				panic(err)
			}
			return replay.Filter{Body: []replay.BodyField{f}}
		}, func(m lotMessage) bool { return m.region == "eu" }},
		{"all of them", func(e *replayEnv) replay.Filter {
			f, err := replay.ParseBodyField("/region=eu")
			if err != nil {
				panic(err)
			}
			return replay.Filter{Breaker: "acme", Reason: "exhausted", ErrorType: "Rejected", Until: e.second, Body: []replay.BodyField{f}}
		}, func(m lotMessage) bool {
			return m.tenant == "acme" && m.marker == "FLAKY" && m.region == "eu" && !m.later
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newReplayEnv(t, 0)
			want := e.origins(tt.pick)
			require.NotEmpty(t, want)
			require.Less(t, len(want), len(e.byOrigin), "the filter leaves some")
			r := e.replayer(t)
			res, err := e.run(t, t.Context(), r, replay.Plan{ID: "fix-1", Actor: "ops@test", Filter: tt.filter(e), Rate: 20})
			require.NoError(t, err)
			assert.Equal(t, replay.Counts{Matched: len(want), Moved: len(want), Left: len(e.byOrigin) - len(want)}, res.Counts)
			assert.Equal(t, replay.Done, res.Entry.Status)

			// Each moved message was redriven as the next attempt of its
			// lineage, marked as this replay's.
			xs, err := e.s.Executor.ListExecutions(t.Context(), e.s.RedriveARN, "")
			require.NoError(t, err)
			replayed := map[string]bool{}
			for _, x := range xs {
				var doc message.Document
				require.NoError(t, json.Unmarshal(x.Input, &doc))
				if doc.Replay == "" {
					continue
				}
				assert.Equal(t, "fix-1", doc.Replay)
				assert.Equal(t, doc.ReplayAttempt+1, doc.Attempt, "the attempt advanced")
				assert.NotEmpty(t, doc.History, "its failure history came back with it")
				replayed[doc.OriginID] = true
			}
			assert.ElementsMatch(t, want, slices.Collect(maps.Keys(replayed)))
			e.settle(t, want)
		})
	}
}

// A dry run reports exactly what the real run then moves, grouped, and
// moves nothing; its estimate of the cost holds for what the real run
// cost.
func TestReplayDryRunEqualsTheRealRun(t *testing.T) {
	e := newReplayEnv(t, 0)
	r := e.replayer(t)
	filter := replay.Filter{Reason: "exhausted"}
	dry, err := e.run(t, t.Context(), r, replay.Plan{ID: "look", Actor: "ops", Filter: filter, DryRun: true})
	require.NoError(t, err)
	assert.Empty(t, e.sqs.Sent(), "a dry run sends nothing")
	assert.Empty(t, e.s.Target.Ledger().Calls())
	assertAllVisible(t, e.s, len(e.byOrigin))

	before := e.s.Stats()
	transitions := totalTransitions(t, e.s)
	moved, err := e.run(t, t.Context(), r, replay.Plan{ID: "fix", Actor: "ops", Filter: filter})
	require.NoError(t, err)
	assert.Equal(t, dry.Groups, moved.Groups, "the dry run's groups are what moved")
	assert.Equal(t, dry.Counts.Matched, moved.Counts.Moved)
	want := e.origins(func(m lotMessage) bool { return m.marker == "FLAKY" })
	assert.Equal(t, len(want), dry.Moving())
	var groups []string
	for _, g := range dry.Groups {
		groups = append(groups, fmt.Sprintf("%s/%s/%s:%d", g.Breaker, g.Reason, g.ErrorType, g.N))
	}
	assert.Equal(t, []string{"acme/exhausted/Rejected:3", "globex/exhausted/Rejected:2"}, groups)

	// What the replayed messages cost, against the estimate's usage per
	// message delivered on its first try.
	after := e.s.Stats()
	n := float64(moved.Counts.Moved)
	measured := replay.Usage{
		Transitions:        float64(totalTransitions(t, e.s)-transitions) / n,
		StarterInvocations: float64(after.Invocations[local.FunctionStarter]-before.Invocations[local.FunctionStarter]) / n,
		AttemptInvocations: float64(after.Invocations[local.FunctionAttempt]-before.Invocations[local.FunctionAttempt]) / n,
		ConsumerCalls:      float64(len(e.s.Target.Ledger().Calls())) / n,
		DynamoReads:        float64(ioDiff(after, before, true)) / n,
		DynamoWrites:       float64(ioDiff(after, before, false)) / n,
	}
	t.Logf("measured per replayed message: %+v; estimate %+v; writes: breaker rows %d, delivery records %d, room and pace %d",
		measured, replay.FirstTry, after.BreakerRows.Writes-before.BreakerRows.Writes, after.DeliveryRecords.Writes-before.DeliveryRecords.Writes,
		after.RoomItems.Writes-before.RoomItems.Writes)
	assert.Equal(t, replay.FirstTry.Transitions, measured.Transitions)
	assert.Equal(t, replay.FirstTry.AttemptInvocations, measured.AttemptInvocations)
	assert.Equal(t, replay.FirstTry.ConsumerCalls, measured.ConsumerCalls)
	assert.LessOrEqual(t, measured.StarterInvocations, 1.0)
	assert.LessOrEqual(t, measured.DynamoReads, replay.FirstTry.DynamoReads)
	assert.LessOrEqual(t, measured.DynamoWrites, replay.FirstTry.DynamoWrites)
	e.settle(t, want)
}

// ioDiff is the DynamoDB reads (or writes) the tasks made between two
// Stats.
func ioDiff(after, before local.Stats, reads bool) int64 {
	sum := func(st local.Stats) int64 {
		var n int64
		for _, io := range []local.RowIO{st.BreakerRows, st.DeliveryRecords, st.ParkedItems, st.RoomItems} {
			if reads {
				n += io.Reads
			} else {
				n += io.Writes
			}
		}
		return n
	}
	return sum(after) - sum(before)
}

// A replay interrupted twice, by a failed delete (the message is in both
// queues) and by its context ending mid-way, then run again with its id:
// every matching message is delivered once, the one sent twice is a
// duplicate the starter drops, none is lost, and the ones that do not
// match are in the lot, visible.
func TestInterruptedReplayResumesWithoutDuplicates(t *testing.T) {
	e := newReplayEnv(t, 0)
	r := e.replayer(t)
	filter := replay.Filter{Breaker: "acme"}
	want := e.origins(func(m lotMessage) bool { return m.tenant == "acme" })
	require.Len(t, want, 5)

	e.sqs.FailDeleteAt = 2
	first, err := e.run(t, t.Context(), r, replay.Plan{ID: "fix", Actor: "ops", Filter: filter, Rate: 5})
	require.ErrorContains(t, err, "injected: DeleteMessage failed")
	assert.Equal(t, 2, first.Counts.Moved)
	assert.Equal(t, replay.Interrupted, first.Entry.Status)
	assertAllVisible(t, e.s, len(e.byOrigin)-1) // the one sent and not deleted is back in view

	e.sqs.FailDeleteAt = 0
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	e.sqs.Cancel, e.sqs.CancelAt = cancel, 4
	second, err := e.run(t, ctx, r, replay.Plan{ID: "fix", Actor: "ops", Resume: true})
	require.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, 2, second.Counts.Moved, "the undeleted one again, and one more")
	assert.Equal(t, 4, second.Entry.Counts.Moved)
	assertAllVisible(t, e.s, len(e.byOrigin)-3) // 4 sends, of 3 messages

	e.sqs.Cancel = nil
	third, err := e.run(t, t.Context(), r, replay.Plan{ID: "fix", Actor: "ops", Resume: true})
	require.NoError(t, err)
	assert.Equal(t, 2, third.Counts.Moved)
	assert.Equal(t, 3, third.Entry.Runs)
	assert.Equal(t, 6, third.Entry.Counts.Moved, "5 messages, one sent twice")
	assert.Equal(t, replay.Done, third.Entry.Status)
	assert.Len(t, e.sqs.Sent(), 6)

	e.settle(t, want)
}

// The replay sends at its rate, and what reaches the target stays within
// the target's capacity: beyond the key's pace (the last rate its
// controller found, or its slow start) the starter's gate sends the
// replayed messages to the waiting room, whose controller takes them at
// the target's pace, with the few throttled calls by which the pacing
// finds the capacity (at most 5% of the calls, and never more than 5%
// above the capacity in any second), whether the replay is slower than
// the target or faster.
func TestReplayPacingStaysWithinTheTargetsCapacity(t *testing.T) {
	const capacity = 50
	tests := []struct {
		name string
		rate int
	}{
		{name: "a replay slower than the target", rate: 40},
		{name: "a replay faster than the target", rate: 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var many []lotMessage
			for i := range 300 {
				many = append(many, lotMessage{"acme", "POISON", []string{"eu", "us"}[i%2], false})
			}
			e := newReplayEnv(t, capacity, many...)
			r := e.replayer(t)
			start := e.s.Executor.Now()
			res, err := e.run(t, t.Context(), r, replay.Plan{ID: "fix", Actor: "ops", Filter: replay.Filter{Reason: "poison"}, Rate: float64(tt.rate)})
			require.NoError(t, err)
			want := e.origins(func(m lotMessage) bool { return m.marker == "POISON" })
			require.Equal(t, len(want), res.Counts.Moved)

			sent := e.sqs.Sent()
			assert.LessOrEqual(t, maxInAnySecond(sent), tt.rate, "the replay's own rate")
			sendTime := sent[len(sent)-1].Sub(sent[0])
			assert.GreaterOrEqual(t, sendTime, time.Duration(len(want)-1)*time.Second/time.Duration(tt.rate))

			ledger := e.s.Target.Ledger()
			var calls []time.Time
			for _, c := range ledger.Calls() {
				calls = append(calls, c.At)
			}
			require.NotEmpty(t, calls)
			drained := calls[len(calls)-1]
			throttled := ledger.Count(simtarget.OutcomeThrottled)
			t.Logf("%d moved in %v at %d/s; the target took them in %v (capacity %d/s): %d calls, %d throttled, peak %d calls/s",
				len(want), sendTime, tt.rate, drained.Sub(start), capacity, len(calls), throttled, ledger.PeakRate())
			assert.LessOrEqual(t, ledger.PeakRate(), capacity*105/100, "no more calls in any second than 5% above what the target takes")
			assert.LessOrEqual(t, throttled, len(calls)/20, "at most 5% of the calls throttled")
			assert.GreaterOrEqual(t, drained.Sub(start), time.Duration(len(want)-1)*time.Second/time.Duration(min(tt.rate, capacity)),
				"at the slower of the replay's rate and the target's")
			e.settle(t, want)
		})
	}
}

// The console's replay: the admin state machine's replay command dry-runs
// and replays within one execution each, as `redrive replay` does, and is
// recorded the same way.
func TestTheAdminReplayCommand(t *testing.T) {
	e := newReplayEnv(t, 0)
	poison := replay.Filter{Reason: "poison"}
	want := e.origins(func(m lotMessage) bool { return m.marker == "POISON" })

	dry := runAdmin(t, e.s, admin.Request{Command: admin.CommandReplay, Actor: "alice",
		Replay: &admin.ReplayRequest{ID: "console-dry", Filter: poison, DryRun: true}})
	require.NotNil(t, dry.Replay)
	assert.Empty(t, dry.Replay.Error)
	assert.Equal(t, len(want), dry.Replay.Counts.Matched)
	assert.Zero(t, dry.Replay.Counts.Moved)
	assert.Equal(t, replay.Done, dry.Replay.Record.Status)
	assertAllVisible(t, e.s, len(e.byOrigin))

	moved := runAdmin(t, e.s, admin.Request{Command: admin.CommandReplay, Actor: "alice",
		Replay: &admin.ReplayRequest{Filter: poison, Rate: 5}})
	require.NotNil(t, moved.Replay)
	assert.Empty(t, moved.Replay.Error)
	assert.Nil(t, moved.Replay.Next, "it reached the lot's end")
	assert.Equal(t, dry.Replay.Groups, moved.Replay.Groups, "the dry run showed what the replay moved")
	assert.Equal(t, len(want), moved.Replay.Counts.Moved)
	assert.Equal(t, "alice", moved.Replay.Record.Actor)
	assert.NotEmpty(t, moved.Replay.Record.ID, "named after the execution")
	wakeDLQ(t.Context(), e.s)
	drain(t, e.s)
	e.settle(t, want)

	_, err := e.s.Admin(t.Context(), admin.Request{Command: admin.CommandReplay, Replay: &admin.ReplayRequest{Resume: true, DryRun: true}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "InvalidCommand")
}

// parkDies is the tasks' DynamoDB client, the first invocation that
// indexes a parked message dying (a crash, a timeout) just before the
// write or just after it: its message is in the parking lot already, and
// the retry (the park task's Retry, the DLQ's redelivery to the starter)
// parks it a second time.
type parkDies struct {
	wire.DynamoDB
	after bool
	died  atomic.Bool
}

// errDied is the panic of the invocation that dies.
var errDied = errors.New("injected: the invocation died")

func (p *parkDies) PutItem(ctx context.Context, in *dynamodb.PutItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	pk, _ := in.Item[dynamo.PKAttr].(*types.AttributeValueMemberS)
	if pk == nil || !strings.HasPrefix(pk.Value, dynamo.ParkedPrefix) || p.died.Load() {
		return p.DynamoDB.PutItem(ctx, in, optFns...)
	}
	if p.after {
		if _, err := p.DynamoDB.PutItem(ctx, in, optFns...); err != nil {
			return nil, err
		}
	}
	p.died.Store(true)
	panic(errDied)
}

// quarantine adds a rule that quarantines tenant acme's messages, and
// runs s until the caches have read it; it returns the rule's id.
func quarantine(t *testing.T, s *local.Stack) string {
	t.Helper()
	out := runAdmin(t, s, admin.Request{Command: admin.CommandRuleAdd, Reason: "broken client", Actor: "alice",
		Rule: &rules.Spec{On: "attribute:tenant", Equals: "acme", Action: rules.Quarantine}})
	require.NotNil(t, out.Rule)
	runUntil(t, s, s.Executor.Now().Add(rules.CacheTTL+time.Second))
	return out.Rule.ID
}

// A park retried after its message reached the lot (the park task's
// invocation, or the starter's, dies before or after indexing it): the
// lot holds two copies, the index one, and a replay delivers the message
// once, deleting the other copy unsent.
func TestARetriedParkIsReplayedAndDeliveredOnce(t *testing.T) {
	tests := []struct {
		name    string
		after   bool // dies after the index write, else before it
		starter bool // the starter parks it (a quarantine rule), else the park task (poison)
	}{
		{name: "the park task dies before the index write"},
		{name: "the park task dies after the index write", after: true},
		{name: "the starter dies before the index write", starter: true},
		{name: "the starter dies after the index write", after: true, starter: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			faults := &parkDies{after: tt.after}
			s := start(t, local.Options{
				BreakerKeyAttribute: "tenant",
				Target:              simtarget.Options{Poison: simtarget.BodyContains("POISON")},
				WrapDynamoDB: func(db wire.DynamoDB) wire.DynamoDB {
					faults.DynamoDB = db
					return faults
				},
			})
			body, rule := `{"order":"POISON-1"}`, ""
			if tt.starter {
				body = `{"order":"quarantined-1"}`
				rule = quarantine(t, s)
			}
			ids := send(t, s, message.Message{Body: body, MessageAttributes: map[string]message.Attribute{"tenant": message.StringAttribute("acme")}})
			drain(t, s)
			require.True(t, faults.died.Load(), "precondition: the first park's invocation died")
			assertAllVisible(t, s, 2)
			idx := lotindex.New(s.DynamoDB, s.Table)
			window := lotindex.Filter{Since: s.Executor.Now().Add(-24 * time.Hour), Until: s.Executor.Now().Add(time.Hour), Now: s.Executor.Now()}
			var listed []string
			for en, err := range idx.Entries(t.Context(), window) {
				require.NoError(t, err)
				listed = append(listed, en.OriginID)
			}
			assert.Equal(t, ids, listed, "the index holds the message once")

			if rule != "" {
				runAdmin(t, s, admin.Request{Command: admin.CommandRuleRemove, ID: rule, Reason: "fixed", Actor: "alice"})
				runUntil(t, s, s.Executor.Now().Add(rules.CacheTTL+time.Second))
			}
			require.NoError(t, s.Target.Reset(simtarget.Options{Clock: s.Executor}))
			e := &replayEnv{s: s, clock: &stackClock{s: s}}
			e.sqs = &replaytest.SQS{Client: s.SQS, Clock: s.Executor}
			res, err := e.run(t, t.Context(), e.replayer(t), replay.Plan{ID: "fix", Actor: "ops"})
			require.NoError(t, err)
			assert.Equal(t, replay.Counts{Matched: 2, Duplicates: 1, Moved: 1}, res.Counts)
			assert.Len(t, e.sqs.Sent(), 1, "one copy sent back")
			assert.Equal(t, map[string]int{ids[0]: 1}, s.Target.Ledger().Deliveries(), "delivered once")
			assertAllVisible(t, s, 0)
			for _, err := range idx.Entries(t.Context(), window) {
				require.NoError(t, err)
				t.Error("the replayed message is still listed")
			}
		})
	}
}

// A replay whose messages a quarantine rule parks again as they arrive:
// what comes back into the lot while the replay scans is not scanned (the
// replay scans what the lot held) and not sent again; the replay counts it
// apart, and nothing is delivered.
func TestAReplayDoesNotScanWhatARuleParksAgain(t *testing.T) {
	e := newReplayEnv(t, 0)
	quarantine(t, e.s)
	r := e.replayer(t)
	want := e.origins(func(m lotMessage) bool { return m.tenant == "acme" })
	res, err := e.run(t, t.Context(), r, replay.Plan{ID: "fix", Actor: "ops", Filter: replay.Filter{Breaker: "acme"}, Rate: 2})
	require.NoError(t, err)
	t.Logf("counts %+v", res.Counts)
	assert.Equal(t, len(e.byOrigin), res.Counts.Scanned(), "the lot it scanned: what it held when the replay began")
	assert.Equal(t, len(want), res.Counts.Matched)
	assert.Equal(t, len(want), res.Counts.Moved)
	assert.Zero(t, res.Counts.Skipped)
	assert.Positive(t, res.Counts.Reparked, "precondition: some came back while the replay scanned")
	assert.Len(t, e.sqs.Sent(), len(want), "none sent again")
	assert.Empty(t, e.s.Target.Ledger().Deliveries(), "quarantined: none delivered")
	assertAllVisible(t, e.s, len(e.byOrigin))
	parked, err := e.s.ReceiveParked(t.Context())
	require.NoError(t, err)
	var again []string
	for _, p := range parked {
		if p.Record.Replay == "fix" {
			again = append(again, p.Record.OriginID)
			assert.True(t, strings.HasPrefix(p.Record.Reason, "quarantined"), p.Record.Reason)
		}
	}
	assert.ElementsMatch(t, want, again, "each moved message parked again, once")
}
