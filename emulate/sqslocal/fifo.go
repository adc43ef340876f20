package sqslocal

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"time"
)

// dedupInterval is how long a FIFO queue remembers the deduplication ID
// of a message it accepted: the SQS deduplication interval.
const dedupInterval = 5 * time.Minute

// fifoIDPattern is the rule for MessageGroupId and MessageDeduplicationId:
// 1 to 128 alphanumeric or punctuation characters.
var fifoIDPattern = regexp.MustCompile("^[A-Za-z0-9!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~]{1,128}$")

// checkFIFOID returns InvalidParameterValue, in SQS's words, unless id is
// a valid value of param, MessageGroupId or MessageDeduplicationId.
func checkFIFOID(param, id string) *apiError {
	if !fifoIDPattern.MatchString(id) {
		return invalidValue(param, id, param+" can only include alphanumeric and punctuation characters. 1 to 128 in length.")
	}
	return nil
}

// sequenceNumber renders a FIFO queue's nth SequenceNumber: 20 decimal
// digits, zero-padded, so they order as strings as they do as numbers.
func sequenceNumber(n uint64) string {
	return fmt.Sprintf("%020d", n)
}

// contentDedupID is the deduplication ID ContentBasedDeduplication gives
// a message: the hex SHA-256 of its body (not of its attributes).
func contentDedupID(body string) string {
	sum := sha256.Sum256([]byte(body))
	return hex.EncodeToString(sum[:])
}

// dedupEntry is a message a FIFO queue accepted within the deduplication
// interval, under its MessageDeduplicationId: its group, what a
// duplicate's SendMessage answers, and when the entry expires.
type dedupEntry struct {
	groupID   string
	messageID string
	sequence  string
	expires   time.Time
}

// duplicate returns the entry of the accepted message that m, about to be
// sent at now, duplicates: one with m's deduplication ID, unexpired and,
// with DeduplicationScope messageGroup, of m's group. The scope is the
// queue's at the time of the send.
func (q *queue) duplicate(m *message, now time.Time) (dedupEntry, bool) {
	for _, e := range q.dedup[m.dedupID] {
		if now.Before(e.expires) && (q.cfg.DeduplicationScope != dedupScopeGroup || e.groupID == m.groupID) {
			return e, true
		}
	}
	return dedupEntry{}, false
}

// remember puts m, just accepted at now, in the deduplication window.
func (q *queue) remember(m *message, now time.Time) {
	q.rememberEntry(m.dedupID, dedupEntry{m.groupID, m.id, m.sequence, now.Add(dedupInterval)})
	if !now.Before(q.dedupSweep) {
		q.sweepDedup(now)
	}
}

// rememberEntry adds e to the deduplication window under id, dropping the
// expired entries of id.
func (q *queue) rememberEntry(id string, e dedupEntry) {
	if q.dedup == nil {
		q.dedup = map[string][]dedupEntry{}
	}
	q.dedup[id] = append(dropExpired(q.dedup[id], e.expires.Add(-dedupInterval)), e)
}

// sweepDedup drops every expired entry of the deduplication window; it
// runs once per deduplication interval, so the window holds about the IDs
// of the last five minutes to ten.
func (q *queue) sweepDedup(now time.Time) {
	for id, entries := range q.dedup {
		if entries = dropExpired(entries, now); len(entries) == 0 {
			delete(q.dedup, id)
		} else {
			q.dedup[id] = entries
		}
	}
	q.dedupSweep = now.Add(dedupInterval)
}

// checkFIFOMessage reports what is wrong with m, restored from a
// snapshot, for q: a FIFO queue's messages have a group, a deduplication
// ID and a SequenceNumber the queue gave, in order; a standard queue's
// have neither of the last two.
func (q *queue) checkFIFOMessage(m *message) error {
	if !q.cfg.FifoQueue {
		if m.dedupID != "" || m.sequence != "" {
			return errors.New("a deduplication ID or a sequence number on a standard queue")
		}
		return nil
	}
	n, err := strconv.ParseUint(m.sequence, 10, 64)
	switch {
	case m.groupID == "" || m.dedupID == "":
		return errors.New("a FIFO queue's message without a group or a deduplication ID")
	case err != nil || m.sequence != sequenceNumber(n) || n == 0 || n > q.sequence:
		return fmt.Errorf("sequence number %q is not one the queue gave (its last is %d)", m.sequence, q.sequence)
	case len(q.messages) > 0 && q.messages[len(q.messages)-1].sequence >= m.sequence:
		return fmt.Errorf("sequence number %s is out of order", m.sequence)
	}
	return nil
}

// dropExpired returns entries without those expired at now.
func dropExpired(entries []dedupEntry, now time.Time) []dedupEntry {
	return slices.DeleteFunc(entries, func(e dedupEntry) bool { return !now.Before(e.expires) })
}

// fifoReceivable returns the messages of a FIFO queue a receive at now
// may take, in the order it takes them. Within a group only the visible
// messages before its first in-flight or delayed one qualify, oldest
// first, so a group is locked while a message of it is in flight and
// comes out in order; the groups follow one another by their oldest
// message, so a receive returns as many messages of one group as it can
// before the next, as SQS does.
func (q *queue) fifoReceivable(now time.Time) []*message {
	runs := map[string][]*message{}
	blocked := map[string]bool{}
	var groups []string
	for _, m := range q.messages {
		switch {
		case blocked[m.groupID]:
		case m.visibleAt.After(now):
			blocked[m.groupID] = true
		default:
			if _, ok := runs[m.groupID]; !ok {
				groups = append(groups, m.groupID)
			}
			runs[m.groupID] = append(runs[m.groupID], m)
		}
	}
	var out []*message
	for _, g := range groups {
		out = append(out, runs[g]...)
	}
	return out
}
