package replay_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/message"
	"github.com/redrive/redrive/park"
	"github.com/redrive/redrive/park/lotindex"
	"github.com/redrive/redrive/park/replay"
)

// parkStep is where a park's first invocation fails.
type parkStep int

const (
	beforeSend       parkStep = iota // SendMessage fails: nothing parked
	afterSend                        // SendMessage went through, its answer is lost
	beforeIndexWrite                 // the invocation dies between the send and the index write
	afterIndexWrite                  // the invocation dies once it indexed the message
)

var parkSteps = map[parkStep]string{beforeSend: "before the send", afterSend: "after the send",
	beforeIndexWrite: "before the index write", afterIndexWrite: "after the index write"}

// errDied is the panic of an invocation that dies mid-way (a crash, a
// timeout): its retry comes as if it had failed.
var errDied = errors.New("injected: the invocation died")

// faultySend is the lot's SQS client, failing the send before or after
// sending.
type faultySend struct {
	park.SendMessageAPI
	step parkStep
}

func (f faultySend) SendMessage(ctx context.Context, in *sqs.SendMessageInput, optFns ...func(*sqs.Options)) (*sqs.SendMessageOutput, error) {
	if f.step == beforeSend {
		return nil, errors.New("injected: SendMessage failed")
	}
	out, err := f.SendMessageAPI.SendMessage(ctx, in, optFns...)
	if err == nil && f.step == afterSend {
		return nil, errors.New("injected: SendMessage's answer lost")
	}
	return out, err
}

// dyingIndex is the lot's index, the invocation dying before or after
// the write.
type dyingIndex struct {
	park.Indexer
	step parkStep
}

func (x dyingIndex) Put(ctx context.Context, e lotindex.Entry) error {
	if x.step == beforeIndexWrite {
		panic(errDied)
	}
	err := x.Indexer.Put(ctx, e)
	if x.step == afterIndexWrite {
		panic(errDied)
	}
	return err
}

// invoke runs the park task's handler as one invocation, which fails if
// the handler fails or dies.
func invoke(ctx context.Context, h *park.Handler, in park.Input) (err error) {
	defer func() {
		if v := recover(); v != nil {
			if v != errDied {
				panic(v)
			}
			err = errDied
		}
	}()
	_, err = h.Handle(ctx, in)
	return err
}

// A park task whose first invocation fails at any step, and is retried:
// the lot may hold the message twice, the index holds it once, and a
// replay sends it back once, deleting the other copy unsent; a dry run
// counts it once. Nothing is left behind.
func TestARetriedParkIsReplayedOnce(t *testing.T) {
	for step, name := range parkSteps {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t)
			index := lotindex.New(e.ddb, e.table)
			lin, _, err := message.WithLineage(message.Message{ID: "dlq-1", Body: `{"n":1}`}, message.Lineage{OriginID: "o-1", Attempt: 1})
			require.NoError(t, err)
			doc, err := message.NewDocument(lin, t0)
			require.NoError(t, err)
			doc.BreakerKey, doc.ParkReason = "orders", "exhausted: 4 attempts"
			document, err := json.Marshal(doc)
			require.NoError(t, err)
			in := park.Input{Document: document, ExecutionARN: "arn:aws:states:us-east-1:123456789012:execution:redrive:" + doc.ExecutionName()}

			failing := *e.lot
			failing.SQS = faultySend{SendMessageAPI: e.lot.SQS, step: step}
			failing.Index = dyingIndex{Indexer: index, step: step}
			require.Error(t, invoke(t.Context(), &park.Handler{Lot: &failing, Clock: e.clock}, in), "the first invocation fails")
			e.clock.Advance(time.Second) // the state machine's retry
			retry := *e.lot
			retry.Index = index
			require.NoError(t, invoke(t.Context(), &park.Handler{Lot: &retry, Clock: e.clock}, in))

			copies := 2
			if step == beforeSend {
				copies = 1
			}
			var listed []lotindex.Entry
			for en, err := range index.Entries(t.Context(), lotindex.Filter{Since: t0.Add(-time.Hour), Until: t0.Add(time.Hour), Now: t0}) {
				require.NoError(t, err)
				listed = append(listed, en)
			}
			require.Len(t, listed, 1, "the index holds the message once")
			assert.Equal(t, doc.MessageTag(), listed[0].Tag)

			r := e.replayer(t)
			dry, err := r.Run(t.Context(), replay.Plan{ID: "look", Actor: "ops", DryRun: true})
			require.NoError(t, err)
			assert.Equal(t, replay.Counts{Matched: copies, Duplicates: copies - 1}, dry.Counts)
			assert.Equal(t, 1, dry.Moving(), "a dry run counts the message once")

			res, err := r.Run(t.Context(), replay.Plan{ID: "fix", Actor: "ops", Rate: 100})
			require.NoError(t, err)
			assert.Equal(t, replay.Counts{Matched: copies, Duplicates: copies - 1, Moved: 1}, res.Counts)
			assert.Equal(t, dry.Groups, res.Groups)
			back := e.receiveAll(t, e.dlqURL)
			assert.Equal(t, []string{"o-1"}, origins(t, back), "sent back once")
			assert.Empty(t, e.receiveAll(t, e.lotURL), "no copy left in the lot")
			for _, err := range index.Entries(t.Context(), lotindex.Filter{Since: t0.Add(-time.Hour), Until: t0.Add(time.Hour), Now: t0}) {
				require.NoError(t, err)
				t.Error("the moved message is still listed")
			}

			// Another replay finds nothing to send: a copy that shows up
			// late is a duplicate too.
			e.clock.Advance(10 * time.Second) // within receiveAll's hiding of what it read
			late := *e.lot
			require.NoError(t, invoke(t.Context(), &park.Handler{Lot: &late, Clock: e.clock}, in))
			again, err := r.Run(t.Context(), replay.Plan{ID: "fix-2", Actor: "ops"})
			require.NoError(t, err)
			assert.Equal(t, replay.Counts{Matched: 1, Duplicates: 1}, again.Counts)
			assert.Empty(t, e.receiveAll(t, e.dlqURL), "nothing sent again")
		})
	}
}
