package replay_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/emulate/sqslocal/sqstest"
	"github.com/redrive/redrive/message"
	"github.com/redrive/redrive/park"
	"github.com/redrive/redrive/park/lotindex"
	"github.com/redrive/redrive/park/replay"
)

// lotOfSix parks six messages of two breakers, three reasons and two
// error types.
func lotOfSix(t *testing.T, e *env) {
	t.Helper()
	e.park(t,
		parked{origin: "o-1", body: `{"tenant":"acme","n":1}`, breaker: "orders", reason: "exhausted: 4 attempts", errorType: "Rejected"},
		parked{origin: "o-2", body: `{"tenant":"acme","n":2}`, breaker: "orders", reason: "poison: PoisonMessage: bad", errorType: "PoisonMessage", at: time.Minute},
		parked{origin: "o-3", body: `{"tenant":"globex","n":3}`, breaker: "orders", reason: "exhausted: 4 attempts", errorType: "Rejected", at: 2 * time.Minute},
		parked{origin: "o-4", body: `{"tenant":"globex","n":4}`, breaker: "payments", reason: "exhausted: 4 attempts", errorType: "Timeout", at: 3 * time.Minute},
		parked{origin: "o-5", body: `not JSON`, breaker: "payments", reason: "oversize: too big", at: 4 * time.Minute},
		parked{origin: "o-6", body: `{"tenant":"acme","n":6}`, breaker: "payments", reason: "poison: PoisonMessage: bad", errorType: "PoisonMessage", at: 5 * time.Minute},
	)
}

func body(t *testing.T, s string) replay.BodyField {
	t.Helper()
	f, err := replay.ParseBodyField(s)
	require.NoError(t, err)
	return f
}

func TestReplayMovesWhatTheFilterSelects(t *testing.T) {
	tests := []struct {
		name   string
		filter func(t *testing.T) replay.Filter
		want   []string
	}{
		{"everything", func(*testing.T) replay.Filter { return replay.Filter{} }, []string{"o-1", "o-2", "o-3", "o-4", "o-5", "o-6"}},
		{"a breaker", func(*testing.T) replay.Filter { return replay.Filter{Breaker: "payments"} }, []string{"o-4", "o-5", "o-6"}},
		{"a reason class", func(*testing.T) replay.Filter { return replay.Filter{Reason: "exhausted"} }, []string{"o-1", "o-3", "o-4"}},
		{"an error type", func(*testing.T) replay.Filter { return replay.Filter{ErrorType: "PoisonMessage"} }, []string{"o-2", "o-6"}},
		{"no error type", func(*testing.T) replay.Filter { return replay.Filter{ErrorType: replay.None} }, []string{"o-5"}},
		{"a time range", func(*testing.T) replay.Filter {
			return replay.Filter{Since: t0.Add(time.Minute), Until: t0.Add(3 * time.Minute)}
		}, []string{"o-2", "o-3"}},
		{"a body field", func(t *testing.T) replay.Filter {
			return replay.Filter{Body: []replay.BodyField{body(t, "/tenant=acme")}}
		},
			[]string{"o-1", "o-2", "o-6"}},
		{"a number in the body", func(t *testing.T) replay.Filter { return replay.Filter{Body: []replay.BodyField{body(t, "/n=4")}} },
			[]string{"o-4"}},
		{"all at once", func(t *testing.T) replay.Filter {
			return replay.Filter{Breaker: "orders", Reason: "exhausted", ErrorType: "Rejected", Since: t0, Body: []replay.BodyField{body(t, "/tenant=globex")}}
		}, []string{"o-3"}},
		{"nothing", func(*testing.T) replay.Filter { return replay.Filter{Breaker: "nobody"} }, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			lotOfSix(t, e)
			r := e.replayer(t)
			res, err := r.Run(t.Context(), replay.Plan{ID: "r-1", Actor: "ops@host", Filter: tt.filter(t), Rate: 100})
			require.NoError(t, err)
			assert.Equal(t, len(tt.want), res.Counts.Moved)
			assert.Equal(t, len(tt.want), res.Counts.Matched)
			assert.Equal(t, 6-len(tt.want), res.Counts.Left)
			assert.Equal(t, len(tt.want), res.Moving())

			moved := e.receiveAll(t, e.dlqURL)
			assert.ElementsMatch(t, tt.want, origins(t, moved), "in the DLQ")
			for _, m := range moved {
				lin, _, err := message.LineageOf(m)
				require.NoError(t, err)
				assert.Equal(t, "r-1", lin.Replay)
				assert.Equal(t, 2, lin.ReplayAttempt, "the attempt it was parked on")
				assert.True(t, lin.Replayed())
				assert.NotEmpty(t, lin.ReplayOf)
				_, hasRecord := map[string]any{}, false
				var raw map[string]any
				require.NoError(t, json.Unmarshal([]byte(m.MessageAttributes[message.AttributeName].StringValue), &raw))
				_, hasRecord = raw["parkReason"]
				assert.False(t, hasRecord, "the lineage goes back, not the park record")
			}
			left := e.receiveAll(t, e.lotURL)
			assert.Len(t, left, 6-len(tt.want), "the others are in the lot, visible again")

			entry, err := r.Journal().Get(t.Context(), "r-1")
			require.NoError(t, err)
			assert.Equal(t, replay.Done, entry.Status)
			assert.Equal(t, len(tt.want), entry.Counts.Moved)
			assert.Equal(t, "ops@host", entry.Actor)
		})
	}
}

// A moved message goes back as it was parked: body and attributes, an
// envelope's too.
func TestReplayKeepsBodyAndAttributes(t *testing.T) {
	e := newEnv(t)
	full := map[string]message.Attribute{}
	for _, name := range []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"} {
		full[name] = message.StringAttribute("v-" + name)
	}
	e.park(t,
		parked{origin: "o-1", body: `{"x":1}`, breaker: "orders", reason: "poison: x", attrs: map[string]message.Attribute{"tenant": message.StringAttribute("acme")}},
		parked{origin: "o-2", body: `{"x":2}`, breaker: "orders", reason: "poison: x", attrs: full},
	)
	_, err := e.replayer(t).Run(t.Context(), replay.Plan{ID: "r-1", Actor: "ops", Rate: 100})
	require.NoError(t, err)
	for _, m := range e.receiveAll(t, e.dlqURL) {
		doc, err := message.NewDocument(m, t0)
		require.NoError(t, err)
		assert.Equal(t, 3, doc.Attempt, "the starter advances the attempt")
		assert.True(t, doc.Replayed())
		switch doc.OriginID {
		case "o-1":
			assert.Equal(t, `{"x":1}`, doc.Message.Body)
			assert.Equal(t, map[string]message.Attribute{"tenant": message.StringAttribute("acme")}, doc.Message.MessageAttributes)
		case "o-2":
			assert.Equal(t, `{"x":2}`, doc.Message.Body)
			assert.Equal(t, full, doc.Message.MessageAttributes, "unwrapped from its envelope")
		default:
			t.Errorf("unexpected origin %q", doc.OriginID)
		}
	}
}

func TestDryRunCountsWhatARunMoves(t *testing.T) {
	e := newEnv(t)
	lotOfSix(t, e)
	r := e.replayer(t)
	filter := replay.Filter{Reason: "exhausted"}
	dry, err := r.Run(t.Context(), replay.Plan{ID: "dry", Actor: "ops", Filter: filter, DryRun: true})
	require.NoError(t, err)
	assert.Empty(t, e.receiveAll(t, e.dlqURL), "a dry run moves nothing")
	assert.Len(t, e.receiveAll(t, e.lotURL), 6, "and leaves every message visible")
	e.clock.Advance(time.Minute) // past receiveAll's visibility timeout

	real, err := r.Run(t.Context(), replay.Plan{ID: "real", Actor: "ops", Filter: filter})
	require.NoError(t, err)
	assert.Equal(t, real.Groups, dry.Groups)
	assert.Equal(t, []replay.Group{
		{Breaker: "orders", Reason: "exhausted", ErrorType: "Rejected", N: 2, Bytes: 48, Oldest: t0},
		{Breaker: "payments", Reason: "exhausted", ErrorType: "Timeout", N: 1, Bytes: 25, Oldest: t0.Add(3 * time.Minute)},
	}, dry.Groups)
	assert.Equal(t, replay.Counts{Matched: 3, Left: 3}, dry.Counts)
	assert.Equal(t, replay.Counts{Matched: 3, Left: 3, Moved: 3}, real.Counts)
	assert.True(t, dry.Entry.DryRun)

	_, err = r.Run(t.Context(), replay.Plan{ID: "dry", Actor: "ops", Resume: true})
	assert.ErrorIs(t, err, replay.ErrNotResumable, "a dry run is not resumed into a real one")
	_, err = r.Run(t.Context(), replay.Plan{ID: "real", Actor: "ops", Filter: filter})
	assert.ErrorIs(t, err, replay.ErrExists)
}

// The replay sends no faster than its rate, on its clock.
func TestReplayKeepsToItsRate(t *testing.T) {
	e := newEnv(t)
	var msgs []parked
	for i := range 25 {
		msgs = append(msgs, parked{origin: "o-" + string(rune('a'+i)), body: "{}", breaker: "orders", reason: "exhausted: x"})
	}
	e.park(t, msgs...)
	_, err := e.replayer(t).Run(t.Context(), replay.Plan{ID: "r-1", Actor: "ops", Rate: 4})
	require.NoError(t, err)
	sent := e.sqs.Sent()
	require.Len(t, sent, 25)
	for i := 4; i < len(sent); i++ {
		assert.GreaterOrEqual(t, sent[i].Sub(sent[i-4]), time.Second, "at most 4 sends in any second (send %d)", i)
	}
	assert.Equal(t, 6*time.Second, sent[24].Sub(sent[0]), "and no slower")
}

// A scan over a lot larger than SQS's quota of messages in flight stops at
// the quota with ErrInFlightQuota, having moved the matches it reached;
// nothing is lost, and a run again with the same id moves the rest.
func TestAScanStopsAtTheInFlightQuotaAndCarriesOn(t *testing.T) {
	e := newEnv(t)
	var msgs []parked
	var orders []string
	for i := range 25 {
		m := parked{origin: fmt.Sprintf("o-%02d", i), body: "{}", breaker: "orders", reason: "exhausted: x"}
		if i%2 == 1 {
			m.breaker = "payments"
		} else {
			orders = append(orders, m.origin)
		}
		msgs = append(msgs, m)
	}
	e.park(t, msgs...)
	r := e.replayer(t)
	e.sqs.InFlightQuota = 10
	first, err := r.Run(t.Context(), replay.Plan{ID: "r-1", Actor: "ops", Filter: replay.Filter{Breaker: "orders"}, Rate: 100})
	require.ErrorIs(t, err, replay.ErrInFlightQuota)
	assert.ErrorContains(t, err, "the scan holds hidden the 10 messages it saw and did not move")
	assert.ErrorContains(t, err, "run it again with the same id to carry on")
	assert.Equal(t, replay.Counts{Matched: 10, Left: 10, Moved: 10}, first.Counts, "a move frees its place in flight")
	assert.Equal(t, replay.Interrupted, first.Entry.Status)
	assert.Len(t, e.receiveAll(t, e.lotURL), 15, "the rest, visible at once")
	e.clock.Advance(time.Minute)

	e.sqs.InFlightQuota = 0
	second, err := r.Run(t.Context(), replay.Plan{ID: "r-1", Actor: "ops", Resume: true})
	require.NoError(t, err)
	assert.Equal(t, 3, second.Counts.Moved)
	assert.Equal(t, 13, second.Entry.Counts.Moved, "the total of both runs")
	assert.Len(t, e.receiveAll(t, e.lotURL), 12, "the other breaker's, left")
	assert.ElementsMatch(t, orders, origins(t, e.receiveAll(t, e.dlqURL)), "every match once")
}

// An interrupted replay leaves what it did not move in the lot, visible;
// run again with its id it moves the rest, and nothing twice. A message
// its first run sent but could not delete is sent again with the same
// lineage (the same execution name: a duplicate the starter drops).
func TestInterruptedReplayResumes(t *testing.T) {
	e := newEnv(t)
	lotOfSix(t, e)
	r := e.replayer(t)
	e.sqs.FailDeleteAt = 2
	first, err := r.Run(t.Context(), replay.Plan{ID: "r-1", Actor: "ops", Rate: 100})
	require.ErrorContains(t, err, "replay r-1 interrupted after moving 2")
	assert.ErrorContains(t, err, "injected: DeleteMessage failed")
	assert.Equal(t, 2, first.Counts.Moved)
	assert.Equal(t, 2, first.Moving(), "the one sent but not deleted is in the groups too")
	assert.Equal(t, replay.Interrupted, first.Entry.Status)
	assert.Contains(t, first.Entry.Error, "it is in both")
	assert.Len(t, e.receiveAll(t, e.lotURL), 5, "all but the one deleted, visible at once")
	e.clock.Advance(time.Minute)

	e.sqs.FailDeleteAt = 0
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	e.sqs.Cancel, e.sqs.CancelAt = cancel, 4 // the second run is cancelled after its second send
	second, err := r.Run(ctx, replay.Plan{ID: "r-1", Actor: "ops2", Resume: true})
	require.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, 2, second.Counts.Moved)
	assert.Equal(t, 4, second.Entry.Counts.Moved, "the total of both runs")
	assert.Equal(t, 2, second.Entry.Runs)
	assert.Len(t, e.receiveAll(t, e.lotURL), 3)
	e.clock.Advance(time.Minute)

	e.sqs.Cancel = nil
	third, err := r.Run(t.Context(), replay.Plan{ID: "r-1", Actor: "ops", Resume: true})
	require.NoError(t, err)
	assert.Equal(t, 3, third.Counts.Moved)
	assert.Equal(t, replay.Done, third.Entry.Status)
	assert.Empty(t, e.receiveAll(t, e.lotURL))

	dlq := e.receiveAll(t, e.dlqURL)
	assert.ElementsMatch(t, []string{"o-1", "o-2", "o-3", "o-4", "o-5", "o-6", "o-2"}, origins(t, dlq), "every one, and the undeleted one twice")
	names := map[string]int{}
	for _, m := range dlq {
		doc, err := message.NewDocument(m, t0)
		require.NoError(t, err)
		names[doc.ExecutionName()]++
	}
	assert.Len(t, names, 6, "the two copies are one execution")
}

// A message this replay moved that was parked again since is skipped
// when the replay is resumed; another replay moves it.
func TestResumeSkipsWhatItMovedBefore(t *testing.T) {
	e := newEnv(t)
	e.park(t, parked{origin: "o-1", body: "{}", breaker: "orders", reason: "exhausted: x"})
	r := e.replayer(t)
	_, err := r.Run(t.Context(), replay.Plan{ID: "r-1", Actor: "ops"})
	require.NoError(t, err)
	back := e.receiveAll(t, e.dlqURL)
	require.Len(t, back, 1)
	doc, err := message.NewDocument(back[0], t0)
	require.NoError(t, err)
	doc.BreakerKey, doc.ParkReason = "orders", "exhausted: again"
	_, err = e.lot.Park(t.Context(), doc.Message, parkRecordOf(doc))
	require.NoError(t, err)

	res, err := r.Run(t.Context(), replay.Plan{ID: "r-1", Actor: "ops", Resume: true})
	require.NoError(t, err)
	assert.Equal(t, replay.Counts{Matched: 0, Skipped: 1}, res.Counts)
	res, err = r.Run(t.Context(), replay.Plan{ID: "r-2", Actor: "ops"})
	require.NoError(t, err)
	assert.Equal(t, 1, res.Counts.Moved)
}

// A message in the lot without a park record is never moved.
func TestMessageWithoutRecordIsLeft(t *testing.T) {
	e := newEnv(t)
	_, err := e.sqs.Client.SendMessage(t.Context(), &sqs.SendMessageInput{QueueUrl: aws.String(e.lotURL), MessageBody: aws.String("by hand")})
	require.NoError(t, err)
	lin, _, err := message.WithLineage(message.Message{ID: "x", Body: "lineage only"}, message.Lineage{OriginID: "o-9", Attempt: 1})
	require.NoError(t, err)
	_, err = e.sqs.Client.SendMessage(t.Context(), &sqs.SendMessageInput{QueueUrl: aws.String(e.lotURL), MessageBody: aws.String(lin.Body), MessageAttributes: lin.SQSAttributes()})
	require.NoError(t, err)
	res, err := e.replayer(t).Run(t.Context(), replay.Plan{ID: "r-1", Actor: "ops"})
	require.NoError(t, err)
	assert.Equal(t, replay.Counts{Unreadable: 2}, res.Counts)
	assert.Len(t, e.receiveAll(t, e.lotURL), 2)
}

// A moved message's entry leaves the lot's index.
func TestReplayRemovesIndexEntries(t *testing.T) {
	e := newEnv(t)
	e.lot.Index = lotindex.New(e.ddb, e.table)
	e.park(t, parked{origin: "o-1", body: "{}", breaker: "orders", reason: "exhausted: x"}, parked{origin: "o-2", body: "{}", breaker: "other", reason: "exhausted: x"})
	_, err := e.replayer(t).Run(t.Context(), replay.Plan{ID: "r-1", Actor: "ops", Filter: replay.Filter{Breaker: "orders"}})
	require.NoError(t, err)
	var left []string
	for en, err := range e.lot.Index.(*lotindex.Index).Entries(t.Context(), lotindex.Filter{Since: t0.Add(-time.Hour), Until: t0.Add(time.Hour), Now: t0}) {
		require.NoError(t, err)
		left = append(left, en.OriginID)
	}
	assert.Equal(t, []string{"o-2"}, left)
}

// The record holds who, when, what filter and how many.
func TestJournalRecord(t *testing.T) {
	e := newEnv(t)
	lotOfSix(t, e)
	r := e.replayer(t)
	filter := replay.Filter{Breaker: "orders", Since: t0, Body: []replay.BodyField{body(t, "/tenant=acme")}}
	_, err := r.Run(t.Context(), replay.Plan{ID: "r-1", Actor: "ops@host", Filter: filter, Rate: 50})
	require.NoError(t, err)
	out, err := e.ddb.GetItem(t.Context(), &dynamodb.GetItemInput{TableName: aws.String(e.table),
		Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "replay#r-1"}}, ConsistentRead: aws.Bool(true)})
	require.NoError(t, err)
	s := func(name string) string { return out.Item[name].(*types.AttributeValueMemberS).Value }
	n := func(name string) string { return out.Item[name].(*types.AttributeValueMemberN).Value }
	assert.Equal(t, "ops@host", s("actor"))
	assert.Equal(t, "done", s("status"))
	assert.JSONEq(t, `{"breaker":"orders","since":"2026-03-09T12:00:00Z","body":["/tenant=acme"]}`, s("filter"))
	assert.Equal(t, "--breaker orders --since 2026-03-09T12:00:00Z --body /tenant=acme", s("filter_text"))
	assert.Equal(t, "50", n("rate"))
	assert.Equal(t, "2", n("moved"))
	assert.Equal(t, "2", n("matched"))
	assert.Equal(t, "4", n("left"))
	assert.Equal(t, "1", n("runs"))
	assert.Equal(t, false, out.Item["dry_run"].(*types.AttributeValueMemberBOOL).Value)

	entry, err := r.Journal().Get(t.Context(), "r-1")
	require.NoError(t, err)
	assert.Equal(t, filter.String(), entry.Filter.String(), "the filter reads back")
	assert.Equal(t, t0, entry.Started)
	_, err = r.Journal().Get(t.Context(), "r-404")
	assert.ErrorIs(t, err, replay.ErrNotFound)
}

func TestPlanErrors(t *testing.T) {
	e := newEnv(t)
	r := e.replayer(t)
	tests := map[string]replay.Plan{
		"no replay id":               {Actor: "ops"},
		"no actor":                   {ID: "r"},
		"rate -1":                    {ID: "r", Actor: "ops", Rate: -1},
		"rate 1e-10: want from 0.01": {ID: "r", Actor: "ops", Rate: 1e-10}, // its pause, 1/rate, would overflow a Duration
		"rate 1001":                  {ID: "r", Actor: "ops", Rate: 1001},
		"a dry run cannot resume":    {ID: "r", Actor: "ops", Resume: true, DryRun: true},
		"takes its filter and rate":  {ID: "r", Actor: "ops", Resume: true, Filter: replay.Filter{Breaker: "x"}},
		"is not before until":        {ID: "r", Actor: "ops", Filter: replay.Filter{Since: t0, Until: t0}},
	}
	for want, plan := range tests {
		_, err := r.Run(t.Context(), plan)
		assert.ErrorContains(t, err, want)
	}
	_, err := r.Run(t.Context(), replay.Plan{ID: "r-404", Actor: "ops", Resume: true})
	assert.ErrorIs(t, err, replay.ErrNotFound)
}

// parkRecordOf is the record the park task writes for doc.
func parkRecordOf(doc message.Document) park.Record {
	return park.RecordOf(doc, "arn:exec", t0.Add(time.Hour))
}

// A scan that outlasts the visibility timeout keeps the messages it left
// hidden until it ends, so it sees each once, and ends.
func TestLongScanKeepsWhatItLeftHidden(t *testing.T) {
	e := newEnv(t)
	var msgs []parked
	for i := range 12 {
		msgs = append(msgs, parked{origin: "left-" + string(rune('a'+i)), body: "{}", breaker: "other", reason: "poison: x"})
	}
	for i := range 40 {
		msgs = append(msgs, parked{origin: "o-" + string(rune('a'+i)), body: "{}", breaker: "orders", reason: "exhausted: x"})
	}
	e.park(t, msgs...)
	start := e.clock.Now()
	res, err := e.replayer(t, 30*time.Second).Run(t.Context(), replay.Plan{ID: "r-1", Actor: "ops", Filter: replay.Filter{Breaker: "orders"}, Rate: 1})
	require.NoError(t, err)
	assert.Greater(t, e.clock.Now().Sub(start), 30*time.Second, "precondition: the scan outlasted the timeout")
	assert.Equal(t, replay.Counts{Matched: 40, Moved: 40, Left: 12}, res.Counts)
	extended := 0
	visibility := e.sqs.Visibility()
	for _, v := range visibility {
		if v == 30 {
			extended++
		}
	}
	assert.Positive(t, extended, "the held messages' timeout was extended")
	assert.Equal(t, 0, int(visibility[len(visibility)-1]), "and made visible at the end")
	assert.Len(t, e.receiveAll(t, e.lotURL), 12)
}

// A message the replay sent back that a rule parks again while the scan
// goes on is not scanned: not counted among what the lot held, not sent
// again; the run counts it apart.
func TestAScanDoesNotScanWhatItMoved(t *testing.T) {
	e := newEnv(t)
	e.park(t, parked{origin: "o-1", body: "{}", breaker: "orders", reason: "exhausted: x"},
		parked{origin: "o-2", body: "{}", breaker: "orders", reason: "exhausted: x", at: time.Minute},
		parked{origin: "o-3", body: "{}", breaker: "other", reason: "exhausted: x"})
	e.sqs.OnSend = func(ctx context.Context, in *sqs.SendMessageInput) { // the starter, as a quarantine rule has it
		doc, err := message.NewDocument(message.FromSQS(sqstypes.Message{MessageId: aws.String("dlq-copy"), Body: in.MessageBody,
			MessageAttributes: in.MessageAttributes}), e.clock.Now())
		require.NoError(t, err)
		doc.BreakerKey, doc.ParkReason = "orders", "quarantined: rule r-1"
		_, err = e.lot.Park(ctx, doc.Message, park.RecordOf(doc, "", e.clock.Now()))
		require.NoError(t, err)
	}
	r := e.replayer(t)
	res, err := r.Run(t.Context(), replay.Plan{ID: "r-1", Actor: "ops", Filter: replay.Filter{Breaker: "orders"}, Rate: 100})
	require.NoError(t, err)
	assert.Equal(t, replay.Counts{Matched: 2, Left: 1, Moved: 2, Reparked: 2}, res.Counts)
	assert.Equal(t, 3, res.Counts.Scanned(), "what the lot held")
	assert.Len(t, e.sqs.Sent(), 2, "nothing sent twice")
	entry, err := r.Journal().Get(t.Context(), "r-1")
	require.NoError(t, err)
	assert.Equal(t, res.Counts, entry.Counts, "recorded")

	back := e.receiveAll(t, e.lotURL)
	assert.ElementsMatch(t, []string{"o-1", "o-2", "o-3"}, origins(t, back), "the two parked again, and the one left")
	e.clock.Advance(time.Minute)
	e.sqs.OnSend = nil
	resumed, err := r.Run(t.Context(), replay.Plan{ID: "r-1", Actor: "ops", Resume: true})
	require.NoError(t, err)
	assert.Equal(t, replay.Counts{Left: 1, Skipped: 2}, resumed.Counts, "a later run scans them: they are in the lot when it begins")
}

// From a FIFO parking lot to a FIFO DLQ, each message goes back in its
// group, the group's messages in their order.
func TestReplayToAFIFODLQKeepsEachGroupsOrder(t *testing.T) {
	e := newEnv(t)
	lot := sqstest.CreateQueue(t, e.sqs.Client, map[string]string{"FifoQueue": "true"})
	dlq := sqstest.CreateQueue(t, e.sqs.Client, map[string]string{"FifoQueue": "true"})
	e.lotURL, e.dlqURL, e.lot.Config.QueueURL = lot.URL, dlq.URL, lot.URL
	for i, g := range []string{"a", "b", "a", "b", "a"} {
		origin := fmt.Sprintf("o-%d", i)
		rec := park.Record{Lineage: message.Lineage{OriginID: origin, Attempt: 1}, BreakerKey: "orders", MessageGroupID: g,
			Reason: "exhausted: 5 attempts", ParkedAt: t0.Add(time.Duration(i) * time.Second)}
		_, err := e.lot.Park(t.Context(), message.Message{ID: "dlq-" + origin, Body: g + "-" + origin}, rec)
		require.NoError(t, err)
	}
	res, err := e.replayer(t).Run(t.Context(), replay.Plan{ID: "r-1", Actor: "ops@host", Rate: 100})
	require.NoError(t, err)
	assert.Equal(t, 5, res.Counts.Moved)

	byGroup := map[string][]string{}
	for {
		got, err := e.sqs.Client.ReceiveMessage(t.Context(), &sqs.ReceiveMessageInput{QueueUrl: aws.String(dlq.URL), MaxNumberOfMessages: 10,
			MessageSystemAttributeNames: []sqstypes.MessageSystemAttributeName{sqstypes.MessageSystemAttributeNameAll}})
		require.NoError(t, err)
		if len(got.Messages) == 0 {
			break
		}
		for _, m := range got.Messages {
			g := m.Attributes["MessageGroupId"]
			byGroup[g] = append(byGroup[g], aws.ToString(m.Body))
			_, err := e.sqs.Client.DeleteMessage(t.Context(), &sqs.DeleteMessageInput{QueueUrl: aws.String(dlq.URL), ReceiptHandle: m.ReceiptHandle})
			require.NoError(t, err)
		}
	}
	assert.Equal(t, map[string][]string{"a": {"a-o-0", "a-o-2", "a-o-4"}, "b": {"b-o-1", "b-o-3"}}, byGroup)
}

// A FIFO group's messages behind one a filter leaves are left too: the
// group never goes back out of its order.
func TestAFilteredFIFOReplayLeavesAGroupBehindWhatItLeaves(t *testing.T) {
	e := newEnv(t)
	lot := sqstest.CreateQueue(t, e.sqs.Client, map[string]string{"FifoQueue": "true"})
	dlq := sqstest.CreateQueue(t, e.sqs.Client, map[string]string{"FifoQueue": "true"})
	e.lotURL, e.dlqURL, e.lot.Config.QueueURL = lot.URL, dlq.URL, lot.URL
	for i, p := range []struct{ group, reason string }{{"a", "poison: bad"}, {"a", "exhausted: 5"}, {"b", "exhausted: 5"}} {
		origin := fmt.Sprintf("o-%d", i)
		rec := park.Record{Lineage: message.Lineage{OriginID: origin, Attempt: 1}, BreakerKey: "orders", MessageGroupID: p.group,
			Reason: p.reason, ParkedAt: t0}
		_, err := e.lot.Park(t.Context(), message.Message{ID: "dlq-" + origin, Body: origin}, rec)
		require.NoError(t, err)
	}
	res, err := e.replayer(t).Run(t.Context(), replay.Plan{ID: "r-1", Actor: "ops@host", Rate: 100, Filter: replay.Filter{Reason: "exhausted"}})
	require.NoError(t, err)
	assert.Equal(t, 1, res.Counts.Moved, "b's; a's second waits behind a's first, which the filter leaves")
	assert.Equal(t, []string{"o-2"}, origins(t, e.receiveAll(t, dlq.URL)))
}
