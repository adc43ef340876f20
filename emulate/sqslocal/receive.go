package sqslocal

import (
	"iter"
	"slices"
	"strconv"
	"strings"
	"time"
)

// maxReceiveMessages is the most messages one ReceiveMessage returns.
const maxReceiveMessages = 10

// messageSystemAttributes are the system attribute names a receive may ask
// for ("All" for every one).
var messageSystemAttributes = []string{
	"All", "SenderId", "SentTimestamp", "ApproximateReceiveCount",
	"ApproximateFirstReceiveTimestamp", "SequenceNumber",
	"MessageDeduplicationId", "MessageGroupId", "AWSTraceHeader",
	"DeadLetterQueueSourceArn",
}

type receiveMessageInput struct {
	QueueURL                    string `json:"QueueUrl"`
	AttributeNames              []string
	MessageSystemAttributeNames []string
	MessageAttributeNames       []string
	MaxNumberOfMessages         *int
	VisibilityTimeout           *int
	WaitTimeSeconds             *int
	// ReceiveRequestAttemptId is accepted and ignored: a retried receive
	// gets messages afresh (see doc.go).
	ReceiveRequestAttemptID *string `json:"ReceiveRequestAttemptId"`
}

type receiveMessageOutput struct {
	Messages []wireMessage `json:",omitempty"`
}

// wireMessage is a received message as ReceiveMessage returns it.
type wireMessage struct {
	MessageID              string                      `json:"MessageId"`
	ReceiptHandle          string                      `json:"ReceiptHandle"`
	MD5OfBody              string                      `json:"MD5OfBody"`
	Body                   string                      `json:"Body"`
	Attributes             map[string]string           `json:"Attributes,omitempty"`
	MD5OfMessageAttributes string                      `json:"MD5OfMessageAttributes,omitempty"`
	MessageAttributes      map[string]MessageAttribute `json:"MessageAttributes,omitempty"`
}

// selection is what a receive asked to see of each message.
type selection struct {
	system []string // system attribute names; "All" for every one
	user   []string // message attribute names, "All", ".*" or "prefix.*"
}

// receiveMessage returns up to MaxNumberOfMessages visible messages,
// hiding each for the visibility timeout. With a wait time it long-polls:
// it returns as soon as a message can be returned (one is sent, or a
// delay or visibility timeout ends) or when the wait time has passed.
func (s *Server) receiveMessage(c call, in *receiveMessageInput) (any, *apiError) {
	r, err := s.newReceive(in)
	if err != nil {
		return nil, err
	}
	var deadlineC <-chan time.Time
	for {
		msgs, wake, err := s.poll(r)
		if err != nil || wake == nil {
			return receiveMessageOutput{msgs}, err
		}
		var eventC <-chan time.Time
		if wake.event > 0 {
			eventC = s.opts.Clock.After(wake.event)
		}
		if deadlineC == nil {
			deadlineC = s.opts.Clock.After(wake.deadline)
		}
		select {
		case <-wake.changed:
		case <-eventC:
		case <-deadlineC:
			// The wait is over on the injected clock, whatever Now
			// rounds to: poll once more and return.
			r.deadline = time.Time{}
		case <-s.closed:
		case <-c.ctx.Done():
			return receiveMessageOutput{}, nil
		}
	}
}

// receive is one ReceiveMessage call's validated parameters.
type receive struct {
	q          *queue
	limit      int
	visibility time.Duration
	deadline   time.Time // end of the long poll
	sel        selection
}

// wakeup tells a long poll what to wait for before polling again.
type wakeup struct {
	changed  <-chan struct{} // closed when the queue changes
	event    time.Duration   // until a message becomes visible; 0 if none will before the deadline
	deadline time.Duration   // until the wait time ends
}

// newReceive validates a ReceiveMessage input against its queue.
func (s *Server) newReceive(in *receiveMessageInput) (*receive, *apiError) {
	limit, err := optionalInt("MaxNumberOfMessages", in.MaxNumberOfMessages, 1, maxReceiveMessages, 1)
	if err != nil {
		return nil, err
	}
	sel := selection{system: append(slices.Clone(in.AttributeNames), in.MessageSystemAttributeNames...), user: in.MessageAttributeNames}
	for _, name := range sel.system {
		if !slices.Contains(messageSystemAttributes, name) {
			return nil, errInvalidAttributeName.errorf("Unknown Attribute %s.", name)
		}
	}
	return onQueue(s, in.QueueURL, func(q *queue, now time.Time) (*receive, *apiError) {
		visibility, err := optionalInt("VisibilityTimeout", in.VisibilityTimeout, 0, maxVisibilitySeconds, q.cfg.VisibilityTimeout)
		if err != nil {
			return nil, err
		}
		wait, err := optionalInt("WaitTimeSeconds", in.WaitTimeSeconds, 0, maxWaitSeconds, q.cfg.ReceiveMessageWaitTimeSeconds)
		if err != nil {
			return nil, err
		}
		return &receive{
			q:          q,
			limit:      limit,
			visibility: time.Duration(visibility) * time.Second,
			deadline:   now.Add(time.Duration(wait) * time.Second),
			sel:        sel,
		}, nil
	})
}

// poll makes one attempt at r. It returns the messages, or a wakeup when
// the call should wait and poll again.
func (s *Server) poll(r *receive) ([]wireMessage, *wakeup, *apiError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.opts.Clock.Now()
	if r.q.gone {
		return nil, nil, nil
	}
	r.q.expire(now)
	msgs, err := s.take(r.q, now, r.limit, r.visibility, r.sel)
	if err != nil || len(msgs) > 0 || !now.Before(r.deadline) || s.isClosed() {
		return msgs, nil, err
	}
	w := &wakeup{changed: r.q.changed, deadline: r.deadline.Sub(now)}
	if next, ok := r.q.nextVisible(now); ok && next.Before(r.deadline) {
		w.event = next.Sub(now)
	}
	return nil, w, nil
}

// isClosed reports whether Close was called.
func (s *Server) isClosed() bool {
	select {
	case <-s.closed:
		return true
	default:
		return false
	}
}

// optionalInt returns *v (def if v is nil) after checking it lies in
// [lo, hi].
func optionalInt(param string, v *int, lo, hi, def int) (int, *apiError) {
	if v == nil {
		return def, nil
	}
	if *v < lo || *v > hi {
		return 0, invalidValue(param, *v, "Must be between "+strconv.Itoa(lo)+" and "+strconv.Itoa(hi)+", if provided.")
	}
	return *v, nil
}

// take receives up to limit messages from q at now, in the order
// receivable gives them. A message already received maxReceiveCount times
// moves to the dead-letter queue instead, as SQS does when a receive
// reaches it (the receive count and the attributes travel with it; a
// FIFO message's deduplication ID becomes its message ID, as the redrive
// guide says, and its SequenceNumber the dead-letter queue's next). It
// runs under s.mu.
func (s *Server) take(q *queue, now time.Time, limit int, visibility time.Duration, sel selection) ([]wireMessage, *apiError) {
	var out []wireMessage
	var moved []*message
	dlq := s.deadLetterQueue(q)
	for m := range q.receivable(now) {
		if len(out) == limit {
			break
		}
		if dlq != nil && m.receiveCount >= q.cfg.RedrivePolicy.MaxReceiveCount {
			moved = append(moved, m)
			continue
		}
		receipt, err := s.newReceipt(q.name, m.id)
		if err != nil {
			return nil, err
		}
		m.receiveCount++
		if m.firstRecvAt.IsZero() {
			m.firstRecvAt = now
		}
		m.lastRecvAt, m.visibleAt, m.receipt = now, now.Add(visibility), receipt
		out = append(out, s.render(m, sel))
	}
	if len(moved) > 0 {
		q.messages = slices.DeleteFunc(q.messages, func(m *message) bool { return slices.Contains(moved, m) })
		for _, m := range moved {
			// The receive that finds the count at maxReceiveCount takes it
			// past the limit ("when the ReceiveCount exceeds
			// maxReceiveCount") and moves the message.
			m.receiveCount++
			m.visibleAt, m.receipt, m.sourceARN = now, "", s.queueARN(q.name)
			if q.cfg.FifoQueue {
				m.dedupID = m.id
			}
			dlq.add(m)
		}
	}
	return out, nil
}

// receivable yields the messages of q a receive at now may take, in the
// order it takes them: a standard queue's visible messages oldest first,
// a FIFO queue's as fifoReceivable orders them.
func (q *queue) receivable(now time.Time) iter.Seq[*message] {
	if q.cfg.FifoQueue {
		return slices.Values(q.fifoReceivable(now))
	}
	return func(yield func(*message) bool) {
		for _, m := range q.messages {
			if !m.visibleAt.After(now) && !yield(m) {
				return
			}
		}
	}
}

// deadLetterQueue is q's dead-letter queue, or nil if it has none or the
// target no longer exists (messages then stay on q, as nothing can take
// them).
func (s *Server) deadLetterQueue(q *queue) *queue {
	if q.cfg.RedrivePolicy == nil {
		return nil
	}
	name, _ := s.nameFromARN(q.cfg.RedrivePolicy.DeadLetterTargetArn)
	return s.queues[name]
}

// render is m as ReceiveMessage returns it with sel. The attribute digest
// covers the returned attributes only, as SQS computes it.
func (s *Server) render(m *message, sel selection) wireMessage {
	w := wireMessage{MessageID: m.id, ReceiptHandle: m.receipt, MD5OfBody: m.md5Body, Body: m.body}
	system := map[string]string{
		"SenderId":                         s.opts.Account,
		"SentTimestamp":                    millis(m.sentAt),
		"ApproximateReceiveCount":          strconv.Itoa(m.receiveCount),
		"ApproximateFirstReceiveTimestamp": millis(m.firstRecvAt),
		"AWSTraceHeader":                   m.traceHeader,
		"MessageGroupId":                   m.groupID,
		"MessageDeduplicationId":           m.dedupID,
		"SequenceNumber":                   m.sequence,
		"DeadLetterQueueSourceArn":         m.sourceARN,
	}
	for name, value := range system {
		if value != "" && (slices.Contains(sel.system, "All") || slices.Contains(sel.system, name)) {
			if w.Attributes == nil {
				w.Attributes = map[string]string{}
			}
			w.Attributes[name] = value
		}
	}
	for name, a := range m.attrs {
		if sel.wantsUser(name) {
			if w.MessageAttributes == nil {
				w.MessageAttributes = map[string]MessageAttribute{}
			}
			w.MessageAttributes[name] = a
		}
	}
	w.MD5OfMessageAttributes = MD5OfMessageAttributes(w.MessageAttributes)
	return w
}

// wantsUser reports whether the selection includes the message attribute
// called name.
func (sel selection) wantsUser(name string) bool {
	for _, want := range sel.user {
		if want == "All" || want == name {
			return true
		}
		if prefix, ok := strings.CutSuffix(want, ".*"); ok && strings.HasPrefix(name, prefix) {
			return true
		}
	}
	return false
}

// millis is t as SQS's millisecond epoch timestamps.
func millis(t time.Time) string {
	return strconv.FormatInt(t.UnixMilli(), 10)
}
