package park

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/redrive/redrive/message"
)

// ErrTooLarge reports a message larger than the parking lot's size limit
// as it is, without a Record (a parking lot configured smaller than the
// source queue). Nothing is dropped: the error is returned, so the message
// stays where it is (the DLQ, or the failed execution's input).
var ErrTooLarge = errors.New("park: message too large for the parking lot")

// Bounds the Record's free-text fields are cut to, in bytes, when the
// message would not fit otherwise.
const (
	// maxCause bounds a task failure's Cause (Step Functions allows 32 KiB).
	maxCause = 1024
	// maxMalformed bounds the kept copy of an undecodable lineage.
	maxMalformed = 1024
)

// sizeOf is a message's size as SQS counts it against the maximum message
// size: the body plus each attribute's name, data type and value.
func sizeOf(m message.Message) int {
	n := len(m.Body)
	for name, a := range m.MessageAttributes {
		n += len(name) + len(a.DataType) + len(a.StringValue) + len(a.BinaryValue)
	}
	return n
}

// fit returns msg carrying rec, shrinking rec step by step (see shrink)
// until the message is at most limit bytes; the Record it carries is
// returned too. When even the smallest Record does not fit (a message at
// SQS's size limit already), it returns msg as it is and the whole Record
// with inLog set: the Record then goes only to the log. A message that does not fit without a
// Record either is an error matching ErrTooLarge.
func fit(msg message.Message, rec Record, limit int) (out message.Message, enveloped bool, fitted Record, inLog bool, err error) {
	whole := rec
	for {
		out, enveloped, err = withRecord(msg, rec)
		if err != nil {
			return message.Message{}, false, Record{}, false, err
		}
		if sizeOf(out) <= limit {
			return out, enveloped, rec, false, nil
		}
		if !shrink(&rec) {
			break
		}
	}
	if size := sizeOf(msg); size > limit {
		return message.Message{}, false, Record{}, false, fmt.Errorf("%w: message %q is %d bytes as it arrived, over the %d-byte limit",
			ErrTooLarge, msg.ID, size, limit)
	}
	return msg, false, whole, true, nil
}

// shrink makes rec smaller by one step, least useful first: cut the task
// failure's cause and the malformed lineage copy, then drop history
// failures oldest first, then drop the cause and the copy and cut the last
// error. It marks rec truncated and reports false when nothing is left to
// cut. Origin id, attempt, reason and execution ARN are always kept.
func shrink(rec *Record) bool {
	rec.Truncated = true
	switch {
	case rec.Failure != nil && len(rec.Failure.Cause) > maxCause:
		f := *rec.Failure
		f.Cause = message.Truncate(f.Cause, maxCause)
		rec.Failure = &f
	case len(rec.MalformedLineage) > maxMalformed:
		rec.MalformedLineage = message.Truncate(rec.MalformedLineage, maxMalformed)
	case len(rec.History) > 0:
		rec.History = rec.History[1:]
	case rec.Failure != nil && rec.Failure.Cause != "":
		f := *rec.Failure
		f.Cause = ""
		rec.Failure = &f
	case rec.MalformedLineage != "":
		rec.MalformedLineage = ""
	case len(rec.LastError) > message.MaxFailureMessage:
		rec.LastError = message.Truncate(rec.LastError, message.MaxFailureMessage)
	default:
		return false
	}
	return true
}

// withRecord is message.WithLineage carrying the whole Record where
// WithLineage puts the Lineage: in the "redrive" attribute, or in the
// envelope's "lineage" member when the message has no attribute left.
func withRecord(msg message.Message, rec Record) (message.Message, bool, error) {
	out, enveloped, err := message.WithLineage(msg, rec.Lineage)
	if err != nil {
		return message.Message{}, false, fmt.Errorf("park message %q: %w", msg.ID, err)
	}
	encoded, err := json.Marshal(rec)
	if err != nil {
		return message.Message{}, false, fmt.Errorf("park message %q: encode record: %w", msg.ID, err)
	}
	if !enveloped {
		out.MessageAttributes[message.AttributeName] = message.StringAttribute(string(encoded))
		return out, false, nil
	}
	body, err := replaceMember(out.Body, envelopeLineage, encoded)
	if err != nil {
		return message.Message{}, false, fmt.Errorf("park message %q: put record in envelope: %w", msg.ID, err)
	}
	out.Body = body
	return out, true, nil
}

// envelopeLineage is the envelope member that holds the lineage (see
// message.WithLineage).
const envelopeLineage = "lineage"

// replaceMember sets member name of the JSON object text obj to value.
func replaceMember(obj, name string, value json.RawMessage) (string, error) {
	var members map[string]json.RawMessage
	if err := json.Unmarshal([]byte(obj), &members); err != nil {
		return "", err
	}
	if _, ok := members[name]; !ok {
		return "", fmt.Errorf("no %q member", name)
	}
	members[name] = value
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(members); err != nil {
		return "", err
	}
	return string(bytes.TrimSuffix(buf.Bytes(), []byte("\n"))), nil
}
