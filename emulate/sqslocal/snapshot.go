package sqslocal

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/redrive/redrive/emulate/versioned"
)

// snapshotFormat names the snapshot format and its version; Restore reads
// this version only.
const snapshotFormat = "sqslocal.snapshot/v1"

// failureSnapshot is the FailureReason a snapshot gives a task that was
// running when it was taken: a restored server does not resume it.
const failureSnapshot = "sqslocal: the task was running when the server's snapshot was taken"

// snapshot is the document Snapshot writes and Restore reads. Times are
// absolute instants (RFC 3339); see doc.go for what Restore makes of them.
type snapshot struct {
	Format string `json:"format"`
	// TakenAt is the server's clock when the snapshot was taken, for a
	// caller that resumes a virtual clock; Restore does not need it.
	TakenAt       time.Time       `json:"takenAt"`
	Account       string          `json:"account"`
	Region        string          `json:"region"`
	Queues        []snapshotQueue `json:"queues"`
	DeletedQueues []deletedQueue  `json:"deletedQueues,omitempty"`
}

// snapshotQueue is one queue: its settable attributes as
// GetQueueAttributes reports them, its tags, its messages oldest first and
// its latest message move tasks newest first.
type snapshotQueue struct {
	Name       string             `json:"name"`
	CreatedAt  time.Time          `json:"createdAt"`
	ModifiedAt time.Time          `json:"modifiedAt"`
	PurgedAt   time.Time          `json:"purgedAt,omitzero"`
	Attributes map[string]string  `json:"attributes"`
	Tags       map[string]string  `json:"tags,omitempty"`
	Messages   []snapshotMessage  `json:"messages"`
	MoveTasks  []snapshotMoveTask `json:"moveTasks,omitempty"`
	// Sequence is a FIFO queue's last SequenceNumber, and Deduplication
	// its deduplication window; both are absent on a standard queue.
	Sequence      uint64               `json:"sequence,omitempty"`
	Deduplication []snapshotDedupEntry `json:"deduplication,omitempty"`
}

// snapshotDedupEntry is a message a FIFO queue accepted within the
// deduplication interval, under its MessageDeduplicationId.
type snapshotDedupEntry struct {
	DeduplicationID string    `json:"messageDeduplicationId"`
	MessageGroupID  string    `json:"messageGroupId"`
	MessageID       string    `json:"messageId"`
	SequenceNumber  string    `json:"sequenceNumber"`
	Expires         time.Time `json:"expires"`
}

// snapshotMessage is one message. State is a MessageState's name; Until,
// for a delayed or in-flight message, is when it becomes visible.
type snapshotMessage struct {
	ID                       string                      `json:"id"`
	Body                     string                      `json:"body"`
	MD5OfBody                string                      `json:"md5OfBody"`
	MessageAttributes        map[string]MessageAttribute `json:"messageAttributes,omitempty"`
	MD5OfMessageAttributes   string                      `json:"md5OfMessageAttributes,omitempty"`
	AWSTraceHeader           string                      `json:"awsTraceHeader,omitempty"`
	MessageGroupID           string                      `json:"messageGroupId,omitempty"`
	MessageDeduplicationID   string                      `json:"messageDeduplicationId,omitempty"`
	SequenceNumber           string                      `json:"sequenceNumber,omitempty"`
	DeadLetterQueueSourceARN string                      `json:"deadLetterQueueSourceArn,omitempty"`
	SentAt                   time.Time                   `json:"sentAt"`
	ReceiveCount             int                         `json:"receiveCount"`
	FirstReceivedAt          time.Time                   `json:"firstReceivedAt,omitzero"`
	LastReceivedAt           time.Time                   `json:"lastReceivedAt,omitzero"`
	ReceiptHandle            string                      `json:"receiptHandle,omitempty"`
	State                    string                      `json:"state"`
	Until                    time.Time                   `json:"until,omitzero"`
}

// snapshotMoveTask is one ended message move task, as
// ListMessageMoveTasks reports it.
type snapshotMoveTask struct {
	TaskID         string    `json:"taskId"`
	Status         string    `json:"status"`
	FailureReason  string    `json:"failureReason,omitempty"`
	DestinationARN string    `json:"destinationArn,omitempty"`
	Rate           *int      `json:"maxNumberOfMessagesPerSecond,omitempty"`
	StartedAt      time.Time `json:"startedAt"`
	Moved          int       `json:"approximateNumberOfMessagesMoved"`
	ToMove         int       `json:"approximateNumberOfMessagesToMove"`
}

// deletedQueue is a recently deleted queue whose name is not yet reusable.
type deletedQueue struct {
	Name      string    `json:"name"`
	DeletedAt time.Time `json:"deletedAt"`
}

// Snapshot writes the server's whole state as JSON, for Restore: its
// queues with their attributes, tags, messages and message move tasks, and
// the names of recently deleted queues. The state is copied under the
// server's lock, so the snapshot is consistent, and written after, so
// requests are served meanwhile. doc.go says what a snapshot keeps.
func (s *Server) Snapshot(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(s.snapshot()); err != nil {
		return fmt.Errorf("sqslocal: snapshot: %w", err)
	}
	return nil
}

// snapshot copies the server's state. A message's attributes are shared,
// not copied: nothing changes them once the message exists.
func (s *Server) snapshot() snapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.opts.Clock.Now()
	snap := snapshot{Format: snapshotFormat, TakenAt: now, Account: s.opts.Account, Region: s.opts.Region, Queues: []snapshotQueue{}}
	for _, name := range slices.Sorted(maps.Keys(s.queues)) {
		q := s.queues[name]
		q.expire(now)
		snap.Queues = append(snap.Queues, q.snapshot(now))
	}
	for _, name := range slices.Sorted(maps.Keys(s.deleted)) {
		if at := s.deleted[name]; now.Before(at.Add(queueNameReuseDelay)) {
			snap.DeletedQueues = append(snap.DeletedQueues, deletedQueue{name, at})
		}
	}
	return snap
}

// snapshot copies q at now. It runs under Server.mu.
func (q *queue) snapshot(now time.Time) snapshotQueue {
	out := snapshotQueue{
		Name:       q.name,
		CreatedAt:  q.created,
		ModifiedAt: q.modified,
		PurgedAt:   q.purgedAt,
		Attributes: q.cfg.attributes(),
		Tags:       maps.Clone(q.tags),
		Messages:   make([]snapshotMessage, 0, len(q.messages)),
	}
	for _, m := range q.messages {
		state := m.state(now)
		out.Messages = append(out.Messages, snapshotMessage{
			ID:                       m.id,
			Body:                     m.body,
			MD5OfBody:                m.md5Body,
			MessageAttributes:        m.attrs,
			MD5OfMessageAttributes:   MD5OfMessageAttributes(m.attrs),
			AWSTraceHeader:           m.traceHeader,
			MessageGroupID:           m.groupID,
			MessageDeduplicationID:   m.dedupID,
			SequenceNumber:           m.sequence,
			DeadLetterQueueSourceARN: m.sourceARN,
			SentAt:                   m.sentAt,
			ReceiveCount:             m.receiveCount,
			FirstReceivedAt:          m.firstRecvAt,
			LastReceivedAt:           m.lastRecvAt,
			ReceiptHandle:            m.receipt,
			State:                    state.String(),
			Until:                    m.pendingUntil(state),
		})
	}
	out.Sequence = q.sequence
	for _, id := range slices.Sorted(maps.Keys(q.dedup)) {
		for _, d := range dropExpired(q.dedup[id], now) {
			out.Deduplication = append(out.Deduplication, snapshotDedupEntry{id, d.groupID, d.messageID, d.sequence, d.expires})
		}
	}
	for _, t := range q.moves {
		st := snapshotMoveTask{
			TaskID:         t.id,
			Status:         t.status,
			FailureReason:  t.failure,
			DestinationARN: t.destARN,
			Rate:           t.rate,
			StartedAt:      t.started,
			Moved:          t.moved,
			ToMove:         t.toMove,
		}
		// The restored server does not run the task: a running one ends
		// FAILED, one being cancelled CANCELLED, as its cancel would end it.
		switch t.status {
		case moveRunning:
			st.Status, st.FailureReason = moveFailed, failureSnapshot
		case moveCancelling:
			st.Status = moveCancelled
		}
		out.MoveTasks = append(out.MoveTasks, st)
	}
	return out
}

// Restore returns a server with opts holding the state a Snapshot wrote,
// its times compared with opts' clock, or an error naming an invalid
// option or what is wrong with the snapshot: not JSON, another format
// version, an unknown field, a different account or region than opts, an
// invalid queue attribute, a message whose MD5 digests do not match it,
// and the like. opts.Rand must not replay the reads of the server the
// snapshot is of (see the package documentation).
func Restore(r io.Reader, opts Options) (*Server, error) {
	s, err := NewServer(opts)
	if err != nil {
		return nil, err
	}
	snap, err := versioned.Read[snapshot](r, snapshotFormat, "this server")
	if err == nil {
		err = s.load(snap)
	}
	if err != nil {
		return nil, fmt.Errorf("sqslocal: restore: %w", err)
	}
	return s, nil
}

// load puts snap's queues and deleted queue names on s, a new server.
func (s *Server) load(snap *snapshot) error {
	if snap.Account != s.opts.Account || snap.Region != s.opts.Region {
		return fmt.Errorf("snapshot is of account %q in region %q, the options name account %q in region %q", snap.Account, snap.Region, s.opts.Account, s.opts.Region)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ids := make(map[string]bool) // message IDs, unique across queues
	for _, sq := range snap.Queues {
		q, err := s.loadQueue(sq, ids)
		if err != nil {
			return fmt.Errorf("queue %q: %w", sq.Name, err)
		}
		s.queues[q.name] = q
	}
	for _, d := range snap.DeletedQueues {
		_, dup := s.deleted[d.Name]
		switch {
		case checkQueueName(d.Name, strings.HasSuffix(d.Name, fifoSuffix)) != nil:
			return fmt.Errorf("deleted queue %q: not a queue name", d.Name)
		case dup || s.queues[d.Name] != nil:
			return fmt.Errorf("deleted queue %q: the snapshot holds the name twice", d.Name)
		}
		s.deleted[d.Name] = d.DeletedAt
	}
	return nil
}

// loadQueue rebuilds one queue, adding its message IDs to ids. It runs
// under s.mu. A redrive policy's target need not exist: it may have been
// deleted, as on the server the snapshot was taken of.
func (s *Server) loadQueue(sq snapshotQueue, ids map[string]bool) (*queue, error) {
	fifo := fifoRequested(sq.Attributes)
	if err := checkQueueName(sq.Name, fifo); err != nil {
		return nil, errors.New(err.message)
	}
	if s.queues[sq.Name] != nil {
		return nil, errors.New("the snapshot holds the queue twice")
	}
	attrs := maps.Clone(sq.Attributes)
	policy := attrs["RedrivePolicy"]
	delete(attrs, "RedrivePolicy")
	cfg, err := s.applyQueueAttributes(s.defaultQueueConfig(fifo), attrs, sq.Name)
	if err == nil {
		cfg.RedrivePolicy, err = decodeRedrivePolicy(policy)
	}
	if err == nil {
		err = checkTags(sq.Tags)
	}
	if err != nil {
		return nil, errors.New(err.message)
	}
	q := newQueue(sq.Name, cfg, sq.CreatedAt)
	q.modified, q.purgedAt, q.tags = sq.ModifiedAt, sq.PurgedAt, sq.Tags
	if !fifo && (sq.Sequence != 0 || len(sq.Deduplication) > 0) {
		return nil, errors.New("a standard queue with a FIFO queue's sequence or deduplication window")
	}
	q.sequence = sq.Sequence
	for _, d := range sq.Deduplication {
		if checkFIFOID("MessageDeduplicationId", d.DeduplicationID) != nil || d.MessageID == "" {
			return nil, fmt.Errorf("deduplication entry %q: not a deduplication ID, or no message ID", d.DeduplicationID)
		}
		q.rememberEntry(d.DeduplicationID, dedupEntry{d.MessageGroupID, d.MessageID, d.SequenceNumber, d.Expires})
	}
	for _, sm := range sq.Messages {
		m, err := sm.load(sq.Name)
		if err == nil && ids[m.id] {
			err = errors.New("the snapshot holds the message twice")
		}
		if err == nil {
			err = q.checkFIFOMessage(m)
		}
		if err != nil {
			return nil, fmt.Errorf("message %q: %w", sm.ID, err)
		}
		ids[m.id] = true
		q.messages = append(q.messages, m)
	}
	q.resetOldest()
	if len(sq.MoveTasks) > maxListMoveTasks {
		return nil, fmt.Errorf("%d message move tasks, more than the %d a queue keeps", len(sq.MoveTasks), maxListMoveTasks)
	}
	for _, st := range sq.MoveTasks {
		if st.TaskID == "" || !slices.Contains([]string{moveCompleted, moveCancelled, moveFailed}, st.Status) {
			return nil, fmt.Errorf("message move task %q: status %q is not one a snapshot holds (COMPLETED, CANCELLED or FAILED)", st.TaskID, st.Status)
		}
		q.moves = append(q.moves, &moveTask{
			id:      st.TaskID,
			source:  q,
			destARN: st.DestinationARN,
			rate:    st.Rate,
			started: st.StartedAt,
			toMove:  st.ToMove,
			moved:   st.Moved,
			status:  st.Status,
			failure: st.FailureReason,
		})
	}
	return q, nil
}

// load rebuilds the message, checking it against its digests and its
// state, and its receipt handle against the queue called queueName.
func (sm snapshotMessage) load(queueName string) (*message, error) {
	state, known := parseMessageState(sm.State)
	switch {
	case sm.ID == "" || sm.Body == "":
		return nil, errors.New("no id or no body")
	case MD5OfBody(sm.Body) != sm.MD5OfBody:
		return nil, fmt.Errorf("md5OfBody %q does not match the body", sm.MD5OfBody)
	case MD5OfMessageAttributes(sm.MessageAttributes) != sm.MD5OfMessageAttributes:
		return nil, fmt.Errorf("md5OfMessageAttributes %q does not match the message attributes", sm.MD5OfMessageAttributes)
	case sm.ReceiveCount < 0:
		return nil, fmt.Errorf("negative receiveCount %d", sm.ReceiveCount)
	case !known:
		return nil, fmt.Errorf("state %q is not visible, in-flight or delayed", sm.State)
	case state == StateVisible && !sm.Until.IsZero():
		return nil, errors.New("state visible with an until time")
	case state != StateVisible && sm.Until.IsZero():
		return nil, fmt.Errorf("state %s without an until time", sm.State)
	case state == StateInFlight && sm.ReceiveCount == 0:
		return nil, errors.New("state in-flight with receiveCount 0")
	case state == StateDelayed && sm.ReceiveCount > 0:
		return nil, fmt.Errorf("state delayed with receiveCount %d", sm.ReceiveCount)
	}
	if sm.ReceiptHandle != "" {
		if id, err := receiptMessageID(sm.ReceiptHandle, queueName); err != nil || id != sm.ID {
			return nil, fmt.Errorf("receiptHandle %q is not one of this message on this queue", sm.ReceiptHandle)
		}
	}
	return &message{
		id:           sm.ID,
		body:         sm.Body,
		attrs:        sm.MessageAttributes,
		md5Body:      sm.MD5OfBody,
		traceHeader:  sm.AWSTraceHeader,
		groupID:      sm.MessageGroupID,
		dedupID:      sm.MessageDeduplicationID,
		sequence:     sm.SequenceNumber,
		sentAt:       sm.SentAt,
		visibleAt:    sm.Until,
		receiveCount: sm.ReceiveCount,
		firstRecvAt:  sm.FirstReceivedAt,
		lastRecvAt:   sm.LastReceivedAt,
		receipt:      sm.ReceiptHandle,
		sourceARN:    sm.DeadLetterQueueSourceARN,
	}, nil
}
