package message

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// envelopeKey marks an envelope body; envelopeVersion is the only version.
const (
	envelopeKey     = "redriveEnvelope"
	envelopeVersion = 1
)

// envelope is the body of a message whose attributes left no room for the
// lineage: {"redriveEnvelope":1,"body":...,"messageAttributes":{...},
// "lineage":{...}}.
type envelope struct {
	Version           int                  `json:"redriveEnvelope"`
	Body              *string              `json:"body"`
	MessageAttributes map[string]Attribute `json:"messageAttributes,omitempty"`
	Lineage           json.RawMessage      `json:"lineage"`
}

// Unwrap reverses WithLineage's envelope: it returns the original body and
// attributes with the lineage back in the "redrive" attribute (so the result
// may hold MaxAttributes+1 attributes), and wrapped true. A message that is
// not an envelope is returned as it is. A body whose top-level JSON object
// has a "redriveEnvelope" key but does not decode as an envelope is an
// error matching ErrMalformedLineage.
func Unwrap(msg Message) (out Message, wrapped bool, err error) {
	if !mightBeEnvelope(msg.Body) {
		return msg, false, nil
	}
	var top map[string]json.RawMessage
	if json.Unmarshal([]byte(msg.Body), &top) != nil {
		return msg, false, nil // not a JSON object: an ordinary body
	}
	if _, marked := top[envelopeKey]; !marked {
		return msg, false, nil
	}
	env, err := decodeEnvelope([]byte(msg.Body))
	if err != nil {
		return Message{}, false, fmt.Errorf("%w: envelope of message %q: %w", ErrMalformedLineage, msg.ID, err)
	}
	out = Message{ID: msg.ID, Body: *env.Body, Attributes: maps.Clone(msg.Attributes), MessageAttributes: env.MessageAttributes}
	out.setAttribute(AttributeName, StringAttribute(string(env.Lineage)))
	return out, true, nil
}

// mightBeEnvelope is a cheap test that skips decoding ordinary bodies.
func mightBeEnvelope(body string) bool {
	return strings.HasPrefix(strings.TrimLeft(body, " \t\r\n"), "{") && strings.Contains(body, `"`+envelopeKey+`"`)
}

// decodeEnvelope parses and checks an envelope body.
func decodeEnvelope(data []byte) (envelope, error) {
	var env envelope
	if err := json.Unmarshal(data, &env); err != nil {
		return envelope{}, err
	}
	switch {
	case env.Version != envelopeVersion:
		return envelope{}, fmt.Errorf("%s %d, want %d", envelopeKey, env.Version, envelopeVersion)
	case env.Body == nil:
		return envelope{}, fmt.Errorf("body is missing")
	case len(env.Lineage) == 0:
		return envelope{}, fmt.Errorf("lineage is missing")
	}
	if _, err := decodeLineage(env.Lineage); err != nil {
		return envelope{}, fmt.Errorf("lineage: %w", err)
	}
	// What is unwrapped must be a message SQS takes back (into the
	// parking lot, say): one it would refuse is no envelope of ours.
	for _, name := range slices.Sorted(maps.Keys(env.MessageAttributes)) {
		if err := env.MessageAttributes[name].Check(); err != nil {
			return envelope{}, fmt.Errorf("message attribute %q: %w", name, err)
		}
	}
	return env, nil
}
