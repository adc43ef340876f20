package message

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
)

// The system attributes of a message from a FIFO queue.
const (
	AttrMessageGroupID         = "MessageGroupId"
	AttrMessageDeduplicationID = "MessageDeduplicationId"
	AttrSequenceNumber         = "SequenceNumber"
)

// MaxSequenceDigits bounds a FIFO SequenceNumber: SQS's are decimal
// numbers of up to 128 bits (39 digits).
const MaxSequenceDigits = 40

// FIFO is what a message from a FIFO dead-letter queue keeps of its
// place there: its group, its deduplication id and its sequence number in
// the dead-letter queue, by which the room keeps each group's order
// (room.Place), and Prev, the sequence number of the message of its group
// that went into the room before it (set when the room releases it).
type FIFO struct {
	GroupID         string `json:"groupId"`
	DeduplicationID string `json:"deduplicationId,omitempty"`
	SequenceNumber  string `json:"sequenceNumber"`
	Prev            string `json:"prev,omitempty"`
}

// fifoOf reads the FIFO attributes of m, a message received from a queue;
// nil for a standard queue's message (no MessageGroupId, or a fair
// queue's without a SequenceNumber).
func fifoOf(m Message) *FIFO {
	group, seq := m.Attributes[AttrMessageGroupID], m.Attributes[AttrSequenceNumber]
	if group == "" || seq == "" {
		return nil
	}
	return &FIFO{GroupID: group, DeduplicationID: m.Attributes[AttrMessageDeduplicationID], SequenceNumber: seq}
}

// checkFIFO reports what is wrong with f, "" when nothing.
func checkFIFO(f *FIFO) (field, problem string) {
	switch {
	case f.GroupID == "" || len(f.GroupID) > 128:
		return "fifo.groupId", "want 1 to 128 characters"
	case !IsSequenceNumber(f.SequenceNumber):
		return "fifo.sequenceNumber", fmt.Sprintf("want a decimal number of at most %d digits", MaxSequenceDigits)
	case f.Prev != "" && !IsSequenceNumber(f.Prev):
		return "fifo.prev", fmt.Sprintf("want a decimal number of at most %d digits", MaxSequenceDigits)
	}
	return "", ""
}

// IsSequenceNumber reports whether s can be an SQS SequenceNumber: 1 to
// MaxSequenceDigits decimal digits.
func IsSequenceNumber(s string) bool {
	return s != "" && len(s) <= MaxSequenceDigits && strings.Trim(s, "0123456789") == ""
}

// IsFIFOQueue reports whether a queue URL or ARN names a FIFO queue: its
// name ends in ".fifo", as SQS requires of a FIFO queue's and of no
// other's.
func IsFIFOQueue(urlOrARN string) bool { return strings.HasSuffix(urlOrARN, ".fifo") }

// DeduplicationID is a MessageDeduplicationId for a FIFO queue naming
// what parts name together: the hex SHA-256 of them joined by "#", 64
// characters, within SQS's 128.
func DeduplicationID(parts ...string) string {
	sum := sha256.Sum256([]byte(strings.Join(parts, "#")))
	return hex.EncodeToString(sum[:])
}
