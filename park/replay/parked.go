package replay

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"

	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/redrive/redrive/message"
	"github.com/redrive/redrive/park"
)

// ErrNoRecord marks a message in the parking lot without a park Record
// that decodes: a replay never matches it, and leaves it.
var ErrNoRecord = errors.New("replay: no park record")

// Parked is a message of the parking lot as a replay reads it.
type Parked struct {
	// ID is the message's id in the parking lot.
	ID string
	// Message is the message as it was parked: body and attributes,
	// unwrapped from an envelope, without its "redrive" attribute.
	Message message.Message
	// Record is its park Record.
	Record park.Record
}

// Decode reads a message received from the parking lot. A message
// without a "redrive" attribute (or envelope) holding a park Record, with
// a lineage that does not decode, or with no park reason or parked time
// (a message parked as it arrived, its Record in the log only) is an
// error matching ErrNoRecord.
func Decode(m sqstypes.Message) (Parked, error) {
	msg := message.FromSQS(m)
	lin, found, err := message.LineageOf(msg)
	if err != nil {
		return Parked{}, fmt.Errorf("%w: parked message %q: %w", ErrNoRecord, msg.ID, err)
	}
	if !found {
		return Parked{}, fmt.Errorf("%w: parked message %q has no %q attribute", ErrNoRecord, msg.ID, message.AttributeName)
	}
	inner, _, err := message.Unwrap(msg)
	if err != nil { // LineageOf unwrapped it already
		return Parked{}, fmt.Errorf("%w: parked message %q: %w", ErrNoRecord, msg.ID, err)
	}
	var rec park.Record
	if err := json.Unmarshal([]byte(inner.MessageAttributes[message.AttributeName].StringValue), &rec); err != nil {
		return Parked{}, fmt.Errorf("%w: parked message %q: attribute %q: %w", ErrNoRecord, msg.ID, message.AttributeName, err)
	}
	if rec.Reason == "" || rec.ParkedAt.IsZero() {
		return Parked{}, fmt.Errorf("%w: parked message %q: attribute %q holds a lineage without a park reason and time",
			ErrNoRecord, msg.ID, message.AttributeName)
	}
	rec.Lineage = lin // as checked and bounded by LineageOf
	inner.MessageAttributes = maps.Clone(inner.MessageAttributes)
	delete(inner.MessageAttributes, message.AttributeName)
	if len(inner.MessageAttributes) == 0 {
		inner.MessageAttributes = nil
	}
	return Parked{ID: msg.ID, Message: inner, Record: rec}, nil
}

// Replayed is p as a replay sends it back to the DLQ: the body and other
// attributes unchanged, the "redrive" attribute set to the Record's
// lineage marked with replay id, the attempt it was parked on and its id
// in the lot (or an envelope, when the attributes are full, as the lot
// had it).
func (p Parked) Replayed(id string) (message.Message, error) {
	lin := p.Record.Lineage
	lin.Replay, lin.ReplayAttempt, lin.ReplayOf = id, lin.Attempt, p.ID
	out, _, err := message.WithLineage(p.Message, lin)
	if err != nil {
		return message.Message{}, fmt.Errorf("replay: parked message %q (origin %q): %w", p.ID, lin.OriginID, err)
	}
	return out, nil
}
