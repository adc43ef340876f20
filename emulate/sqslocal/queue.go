package sqslocal

import (
	"slices"
	"time"
)

// queue is one standard or FIFO queue. Its fields are guarded by
// Server.mu.
type queue struct {
	name     string
	cfg      queueConfig
	created  time.Time
	modified time.Time
	purgedAt time.Time // zero if never purged
	messages []*message
	// oldest is at most the earliest sentAt of messages, so expire can
	// skip its scan while nothing can have expired.
	oldest time.Time
	// changed is closed (and replaced) whenever a message may have become
	// receivable or the queue went away, waking long polls.
	changed chan struct{}
	gone    bool
	tags    map[string]string // cost allocation tags
	// moves are the queue's latest message move tasks as their source,
	// newest first, at most maxListMoveTasks.
	moves []*moveTask
	// sequence is the last SequenceNumber a FIFO queue gave a message, and
	// dedup its deduplication window by MessageDeduplicationId, whose
	// expired entries go at dedupSweep (fifo.go).
	sequence   uint64
	dedup      map[string][]dedupEntry
	dedupSweep time.Time
}

// message is one message on a queue.
type message struct {
	id           string
	body         string
	attrs        map[string]MessageAttribute
	md5Body      string
	traceHeader  string // AWSTraceHeader system attribute, "" if unset
	groupID      string // MessageGroupId (FIFO and fair queues), "" if unset
	dedupID      string // MessageDeduplicationId (FIFO queues), "" otherwise
	sequence     string // SequenceNumber (FIFO queues), "" otherwise
	sentAt       time.Time
	visibleAt    time.Time // receivable from then on (delay or visibility timeout)
	receiveCount int
	firstRecvAt  time.Time
	lastRecvAt   time.Time
	receipt      string // receipt handle of the latest receive, "" if none
	sourceARN    string // DeadLetterQueueSourceArn, set when moved to a DLQ
}

// newQueue returns an empty queue created at now.
func newQueue(name string, cfg queueConfig, now time.Time) *queue {
	return &queue{name: name, cfg: cfg, created: now, modified: now, changed: make(chan struct{})}
}

// signal wakes every long poll waiting on the queue.
func (q *queue) signal() {
	close(q.changed)
	q.changed = make(chan struct{})
}

// add appends m, with the next SequenceNumber on a FIFO queue, and wakes
// the long polls.
func (q *queue) add(m *message) {
	if q.cfg.FifoQueue {
		q.sequence++
		m.sequence = sequenceNumber(q.sequence)
	}
	if len(q.messages) == 0 || m.sentAt.Before(q.oldest) {
		q.oldest = m.sentAt
	}
	q.messages = append(q.messages, m)
	q.signal()
}

// expire drops messages older than the retention period, measured from
// their original enqueue time as SQS does (also in a dead-letter queue).
func (q *queue) expire(now time.Time) {
	cutoff := now.Add(-time.Duration(q.cfg.MessageRetentionPeriod) * time.Second)
	if len(q.messages) == 0 || q.oldest.After(cutoff) {
		return
	}
	q.messages = slices.DeleteFunc(q.messages, func(m *message) bool { return !m.sentAt.After(cutoff) })
	q.resetOldest()
}

// resetOldest sets oldest to the earliest sentAt of the messages.
func (q *queue) resetOldest() {
	for i, m := range q.messages {
		if i == 0 || m.sentAt.Before(q.oldest) {
			q.oldest = m.sentAt
		}
	}
}

// state is where m stands at now.
func (m *message) state(now time.Time) MessageState {
	switch {
	case !now.Before(m.visibleAt):
		return StateVisible
	case m.receiveCount == 0:
		return StateDelayed
	default:
		return StateInFlight
	}
}

// pendingUntil is when m, in state, becomes visible: its visibleAt if it
// is delayed or in flight, zero if it is visible.
func (m *message) pendingUntil(state MessageState) time.Time {
	if state == StateVisible {
		return time.Time{}
	}
	return m.visibleAt
}

// depth counts the queue's messages by state.
func (q *queue) depth(now time.Time) Depth {
	var d Depth
	for _, m := range q.messages {
		switch m.state(now) {
		case StateVisible:
			d.Visible++
		case StateInFlight:
			d.InFlight++
		case StateDelayed:
			d.Delayed++
		}
	}
	return d
}

// find returns the index of the message with id, or -1.
func (q *queue) find(id string) int {
	return slices.IndexFunc(q.messages, func(m *message) bool { return m.id == id })
}

// nextVisible is the earliest time after now at which a message becomes
// receivable, if any will.
func (q *queue) nextVisible(now time.Time) (time.Time, bool) {
	var next time.Time
	for _, m := range q.messages {
		if m.visibleAt.After(now) && (next.IsZero() || m.visibleAt.Before(next)) {
			next = m.visibleAt
		}
	}
	return next, !next.IsZero()
}

// lookup returns the live queue called name and expires its old messages,
// or QueueDoesNotExist. It runs under s.mu.
func (s *Server) lookup(name string, now time.Time) (*queue, *apiError) {
	q := s.queues[name]
	if q == nil {
		return nil, noSuchQueue()
	}
	q.expire(now)
	return q, nil
}

// lookupURL is lookup by queue URL.
func (s *Server) lookupURL(url string, now time.Time) (*queue, *apiError) {
	name, err := s.nameFromURL(url)
	if err != nil {
		return nil, err
	}
	return s.lookup(name, now)
}

// onQueue runs fn under s.mu with the live queue of url and the time of
// the call: the prologue of every action on one queue. A long poll waits
// between calls, never inside fn.
func onQueue[T any](s *Server, url string, fn func(q *queue, now time.Time) (T, *apiError)) (T, *apiError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.opts.Clock.Now()
	q, err := s.lookupURL(url, now)
	if err != nil {
		var zero T
		return zero, err
	}
	return fn(q, now)
}
