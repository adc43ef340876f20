package message

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
)

// MaxExecutionName is Step Functions' limit on an execution name's length.
const MaxExecutionName = 80

// nameHashLen is how many hex digits of the origin id's SHA-256 a shortened
// or rewritten name carries: 48 bits, so distinct origins keep distinct
// names.
const nameHashLen = 12

// ExecutionName names the execution that redrives attempt (from 1) of the
// message originID, its run-th execution after the first:
// "<origin>-a<attempt>", plus "-r<run>" when run > 0. It is
// deterministic, so a duplicate delivery of a DLQ message (or a second
// release of one run from the room) maps to the same name, and a Standard
// state machine's ExecutionAlreadyExists marks it a duplicate (Express
// does not deduplicate names; the delivery ledger makes a duplicate
// harmless there).
//
// The origin part keeps only ASCII letters, digits, '-' and '_': stricter
// than Step Functions' rules (which also allow other Unicode) because only
// such names keep CloudWatch Logs logging enabled for the execution. Every
// other character (whitespace, < > { } [ ] ? * " # % \ ^ | ~ ` $ & , ; : /,
// control characters, non-ASCII) becomes '-'. When a character was
// replaced, or the name would pass MaxExecutionName characters, the origin
// part is cut to fit and followed by "-" and a hash of the whole origin id,
// so that distinct origins never share a name. SQS message ids (UUIDs) are
// kept as they are.
func ExecutionName(originID string, attempt, run int) string {
	return executionName(originID, attempt, run, "")
}

// ExecutionName names d's execution: ExecutionName of its origin, attempt
// and run (Runs), with "-m" and a hash of its DLQ message's id after the
// attempt from the second attempt on (a message back in the DLQ with its
// lineage). A duplicate delivery of that DLQ message has the same id, and
// so the same name; another message that carries a copy of the same
// lineage gets a name of its own instead of passing for a duplicate and
// being deleted unredriven. On a replay's round trip the hash is of the
// message's id in the parking lot instead (see MessageTag).
func (d Document) ExecutionName() string {
	tag := d.MessageTag()
	if tag != "" {
		tag = "-" + tag
	}
	return executionName(d.OriginID, d.Attempt, d.Runs, tag)
}

// RoomID names the message in its breaker's waiting room: its origin id,
// attempt and MessageTag, so that a message back in the room replaces its
// own entry and no other message's (a copy of its lineage).
func (d Document) RoomID() string {
	id := d.OriginID + "#" + strconv.Itoa(d.Attempt)
	if tag := d.MessageTag(); tag != "" {
		id += "#" + tag
	}
	return id
}

// MessageTag tells apart different messages that carry the same lineage,
// in execution names and delivery records: from the second attempt on,
// "m" and a hash of the DLQ message's id; empty on the first attempt,
// whose origin id is its own message id. On a replay's round trip
// (Replayed) the hash is of the message's id in the parking lot
// (ReplayOf): two copies a replay sent of one parked message, each with an
// id of its own in the DLQ, are one message, so the second is a
// duplicate.
func (d Document) MessageTag() string {
	if d.Attempt <= 1 {
		return ""
	}
	id := d.Message.ID
	if d.Replayed() && d.ReplayOf != "" {
		id = "parked:" + d.ReplayOf // never an SQS message id, which has no ':'
	}
	sum := sha256.Sum256([]byte(id))
	return "m" + hex.EncodeToString(sum[:])[:messageHashLen]
}

// messageHashLen is how many hex digits of the DLQ message id's SHA-256 a
// MessageTag carries.
const messageHashLen = 8

// executionName is ExecutionName with tag after the attempt.
func executionName(originID string, attempt, run int, tag string) string {
	suffix := "-a" + strconv.Itoa(attempt) + tag
	if run > 0 {
		suffix += "-r" + strconv.Itoa(run)
	}
	clean, replaced := sanitizeName(originID)
	room := MaxExecutionName - len(suffix)
	if !replaced && clean != "" && len(clean) <= room {
		return clean + suffix
	}
	sum := sha256.Sum256([]byte(originID))
	hash := hex.EncodeToString(sum[:])[:nameHashLen]
	keep := min(len(clean), room-nameHashLen-1)
	if keep <= 0 {
		return hash + suffix
	}
	return clean[:keep] + "-" + hash + suffix
}

// sanitizeName replaces every character outside [A-Za-z0-9_-] with '-', one
// per character; replaced reports whether any was.
func sanitizeName(s string) (clean string, replaced bool) {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			b.WriteRune(r)
		default:
			b.WriteByte('-')
			replaced = true
		}
	}
	return b.String(), replaced
}
