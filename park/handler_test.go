package park_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/breaker/breakertest"
	"github.com/redrive/redrive/lambda/telemetry"
	"github.com/redrive/redrive/message"
	"github.com/redrive/redrive/park"
	"github.com/redrive/redrive/rules"
)

// handle runs the Park task on the input JSON.
func handle(t *testing.T, e *lotEnv, input []byte) (park.Parked, error) {
	t.Helper()
	var in park.Input
	require.NoError(t, json.Unmarshal(input, &in))
	h := &park.Handler{Lot: e.lot, Clock: breakertest.NewClock(t0)}
	return h.Handle(context.Background(), in)
}

func TestHandleParksOriginalWithRecord(t *testing.T) {
	e := newLotEnv(t, 0)
	input := golden(t, "input.json")
	out, err := handle(t, e, input)
	require.NoError(t, err)

	parked := e.receiveOne(t)
	var in struct{ Document message.Document }
	require.NoError(t, json.Unmarshal(input, &in))
	original := in.Document.Message

	assert.Equal(t, original.Body, parked.Body, "body unchanged")
	assert.Len(t, parked.MessageAttributes, len(original.MessageAttributes)+1)
	for name, a := range original.MessageAttributes {
		assert.Equal(t, a, parked.MessageAttributes[name], "attribute %q preserved", name)
	}
	_, _, record := recordOf(t, parked)
	assert.JSONEq(t, string(golden(t, "record.json")), record)

	wantOut := strings.NewReplacer("QUEUE_URL", e.queue.URL, "MESSAGE_ID", parked.ID).Replace(string(golden(t, "output.json")))
	gotOut, err := json.Marshal(out)
	require.NoError(t, err)
	assert.JSONEq(t, wantOut, string(gotOut))
	assert.Equal(t, int64(1), e.metrics.Get("acme", telemetry.Parked))
}

func TestHandleCaughtFailure(t *testing.T) {
	e := newLotEnv(t, 0)
	input := golden(t, "input-caught.json")
	out, err := handle(t, e, input)
	require.NoError(t, err)

	assert.Equal(t, "task failed: BreakerContention", out.Reason)
	assert.False(t, out.Enveloped)
	parked := e.receiveOne(t)
	assert.Equal(t, "order 7", parked.Body)
	assert.Equal(t, message.StringAttribute("globex"), parked.MessageAttributes["tenant"])
	_, rec, _ := recordOf(t, parked)
	require.NotNil(t, rec.Failure)
	assert.Equal(t, "BreakerContention", rec.Failure.Error)
	assert.Contains(t, rec.Failure.Cause, "gave up after 9 conflicting writes")
	assert.Equal(t, "OPEN", rec.BreakerState)
	assert.Equal(t, "task failed: BreakerContention", rec.Reason)
	assert.Equal(t, "arn:aws:states:us-east-1:123456789012:execution:redrive:5d41402a-bc4b-4a76-b971-9d911017c592-a1", rec.ExecutionARN)
}

func TestHandleInvalidDocumentIsParkedAsItIs(t *testing.T) {
	const arn = "arn:aws:states:us-east-1:123456789012:execution:redrive:by-hand"
	tests := []struct {
		name     string
		document string
		reason   string
	}{
		{"wrong JSON types", `{"message":{"messageId":7,"body":"x"},"attempt":"two"}`, "invalid document: json: cannot unmarshal"},
		{"no message body", `{"originId":"o-1","attempt":1}`, "invalid document: no message body"},
		{"null", `null`, "invalid document: no message body"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newLotEnv(t, 0)
			input, err := json.Marshal(map[string]any{"document": json.RawMessage(tt.document), "executionArn": arn})
			require.NoError(t, err)
			out, err := handle(t, e, input)
			require.NoError(t, err)
			assert.Contains(t, out.Reason, tt.reason)

			parked := e.receiveOne(t)
			assert.JSONEq(t, tt.document, parked.Body, "the document itself is the body")
			lin, found, err := message.LineageOf(parked)
			require.NoError(t, err)
			assert.True(t, found)
			assert.Equal(t, message.Lineage{OriginID: "by-hand", Attempt: 1}, lin, "a lineage the starter can read")
		})
	}
}

func TestHandleWithoutReason(t *testing.T) {
	e := newLotEnv(t, 0)
	input := `{"document":{"message":{"messageId":"m-9","body":"x"},"originId":"o-9","attempt":1,"breakerKey":"k","next":"MAYBE"},"executionArn":"arn:aws:states:us-east-1:123456789012:execution:redrive:o-9-a1"}`
	out, err := handle(t, e, []byte(input))
	require.NoError(t, err)
	assert.Equal(t, `no park reason given (next "MAYBE")`, out.Reason, "a route the Choice does not know still parks")
	assert.Equal(t, "x", e.receiveOne(t).Body)
	assert.Equal(t, int64(1), e.metrics.Get("k", telemetry.Parked))
}

func TestHandleSendErrorIsReturned(t *testing.T) {
	e := newLotEnv(t, 0)
	e.lot.Config.QueueURL = e.queue.URL + "-missing"
	_, err := handle(t, e, golden(t, "input.json"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "park message \"7c1e8f2a-4b7e-4c39-9d57-0d3f5a1b2c3d\"")
	var missing *sqstypes.QueueDoesNotExist
	assert.ErrorAs(t, err, &missing)
	assert.Zero(t, e.metrics.Get("acme", telemetry.Parked), "nothing parked, nothing counted")
}

// redeemer is a park.Redeemer that gives a body back, or fails with err.
type redeemer struct {
	body string
	err  error
}

func (r redeemer) Redeem(_ context.Context, doc message.Document) (message.Document, error) {
	if r.err != nil {
		return doc, r.err
	}
	doc.Message.Body, doc.BodyRef = r.body, nil
	return doc, nil
}

// claimChecked is the golden input with its body replaced by a reference.
func claimChecked(t *testing.T) []byte {
	t.Helper()
	var in struct {
		Document     message.Document `json:"document"`
		ExecutionARN string           `json:"executionArn"`
	}
	require.NoError(t, json.Unmarshal(golden(t, "input.json"), &in))
	in.Document.Message.Body = ""
	in.Document.BodyRef = &message.BodyRef{Bucket: "bodies", Key: "bodies/k", Size: 5, SHA256: strings.Repeat("a", 64)}
	out, err := json.Marshal(in)
	require.NoError(t, err)
	return out
}

// A claim-checked body is parked as it came: the lot holds the original.
func TestHandleParksAClaimCheckedBodyAsItCame(t *testing.T) {
	e := newLotEnv(t, 0)
	var in park.Input
	require.NoError(t, json.Unmarshal(claimChecked(t), &in))
	h := &park.Handler{Lot: e.lot, Bodies: redeemer{body: "large"}, Clock: breakertest.NewClock(t0)}
	_, err := h.Handle(context.Background(), in)
	require.NoError(t, err)
	assert.Equal(t, "large", e.receiveOne(t).Body)
}

// A body that cannot be had back (lost, corrupt, S3 down) does not fail
// the park: the message is parked as its document, with the reference and
// the reason, never dropped.
func TestHandleParksTheDocumentWhenItsBodyIsUnavailable(t *testing.T) {
	e := newLotEnv(t, 0)
	var in park.Input
	require.NoError(t, json.Unmarshal(claimChecked(t), &in))
	h := &park.Handler{Lot: e.lot, Bodies: redeemer{err: errors.New("s3 down")}, Clock: breakertest.NewClock(t0)}
	out, err := h.Handle(context.Background(), in)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(out.Reason, "body unavailable: s3 down"), out.Reason)
	parked := e.receiveOne(t)
	assert.Contains(t, parked.Body, `"bodyRef"`, "the document, with its reference, is the body")
}

// recordingTurns records the documents whose turns it ends, failing with
// err.
type recordingTurns struct {
	ended []message.Document
	err   error
}

func (r *recordingTurns) Advance(_ context.Context, doc message.Document) error {
	r.ended = append(r.ended, doc)
	return r.err
}

func (r *recordingTurns) Hold(ctx context.Context, doc message.Document, _ string) error {
	return r.Advance(ctx, doc)
}

// A parked FIFO message ends its turn in its group, so the rest of the
// group goes on; a turn that cannot be ended is said in the output, and
// the park stands. A standard queue's message has no turn.
func TestHandleEndsAParkedFIFOMessagesTurn(t *testing.T) {
	e := newLotEnv(t, 0)
	doc := message.Document{Message: message.Message{ID: "m-1", Body: "x"}, OriginID: "m-1", Attempt: 1, BreakerKey: "orders",
		ParkReason: "poison", FIFO: &message.FIFO{GroupID: "g", SequenceNumber: "7"}}
	raw, err := json.Marshal(doc)
	require.NoError(t, err)
	turns := &recordingTurns{}
	h := &park.Handler{Lot: e.lot, Clock: breakertest.NewClock(t0), Turns: turns}
	out, err := h.Handle(context.Background(), park.Input{Document: raw})
	require.NoError(t, err)
	require.Len(t, turns.ended, 1)
	assert.Equal(t, doc.FIFO, turns.ended[0].FIFO)
	assert.Empty(t, out.TurnNotEnded)

	turns.err = errors.New("table down")
	out, err = h.Handle(context.Background(), park.Input{Document: raw})
	require.NoError(t, err, "parked all the same")
	assert.Equal(t, "table down", out.TurnNotEnded)

	doc.FIFO = nil
	raw, err = json.Marshal(doc)
	require.NoError(t, err)
	_, err = h.Handle(context.Background(), park.Input{Document: raw})
	require.NoError(t, err)
	assert.Len(t, turns.ended, 2, "no turn for a standard queue's message")
}

// fakeHolds is a Holder over an in-memory rule book.
type fakeHolds struct {
	book rules.Book
	err  error
}

func (f *fakeHolds) Load(context.Context) (rules.Book, error) { return f.book, f.err }

func (f *fakeHolds) Add(_ context.Context, spec rules.Spec, actor, reason string, _, now time.Time) (rules.Rule, error) {
	if f.err != nil {
		return rules.Rule{}, f.err
	}
	f.book.NextID++
	r := rules.Rule{Spec: spec, ID: fmt.Sprintf("r%d", f.book.NextID), Actor: actor, Reason: reason, Added: now}
	f.book.Rules = append(f.book.Rules, r)
	return r, nil
}

// holdingTurns records the holds it is asked for.
type holdingTurns struct {
	recordingTurns
	held []string
}

func (h *holdingTurns) Hold(_ context.Context, doc message.Document, ruleID string) error {
	h.held = append(h.held, doc.FIFO.GroupID+"/"+ruleID)
	return nil
}

// With FIFO_ON_PARK=hold, a parked FIFO message's group is held behind a
// hold rule on it, one rule whatever the retries; a rule that cannot be
// added leaves the turn as it is, said in the output.
func TestHandleHoldsAParkedFIFOMessagesGroup(t *testing.T) {
	e := newLotEnv(t, 0)
	doc := message.Document{Message: message.Message{ID: "m-1", Body: "x"}, OriginID: "m-1", Attempt: 1, BreakerKey: "orders",
		ParkReason: "poison: PoisonMessage: bad", FIFO: &message.FIFO{GroupID: "account-7", SequenceNumber: "7"}}
	raw, err := json.Marshal(doc)
	require.NoError(t, err)
	holds, turns := &fakeHolds{}, &holdingTurns{}
	h := &park.Handler{Lot: e.lot, Clock: breakertest.NewClock(t0), Turns: turns, Holds: holds}
	for range 2 { // a park and its retry
		out, err := h.Handle(context.Background(), park.Input{Document: raw})
		require.NoError(t, err)
		assert.Empty(t, out.TurnNotEnded)
	}
	require.Len(t, holds.book.Rules, 1, "one hold rule")
	r := holds.book.Rules[0]
	assert.Equal(t, rules.Spec{On: rules.OnGroup, Equals: "account-7", Action: rules.Hold}, r.Spec)
	assert.Contains(t, r.Reason, "m-1 (poison: PoisonMessage: bad)")
	assert.Equal(t, []string{"account-7/r1", "account-7/r1"}, turns.held)
	assert.Empty(t, turns.ended, "held, not advanced")

	holds.err = errors.New("the rules are full")
	out, err := h.Handle(context.Background(), park.Input{Document: raw})
	require.NoError(t, err, "parked all the same")
	assert.Contains(t, out.TurnNotEnded, "the rules are full")
	assert.Len(t, turns.held, 2, "nothing held")
}
