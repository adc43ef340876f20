package sqslocal

import (
	"bytes"
	"fmt"
	"time"
)

// MessageState is where a message stands on its queue.
type MessageState int

// The states of a message.
const (
	// StateVisible messages are returned by the next ReceiveMessage.
	StateVisible MessageState = iota
	// StateInFlight messages were received and are hidden until their
	// visibility timeout ends or they are deleted.
	StateInFlight
	// StateDelayed messages were sent with a delay that has not ended.
	StateDelayed
)

// String returns the state's name.
func (s MessageState) String() string {
	switch s {
	case StateVisible:
		return "visible"
	case StateInFlight:
		return "in-flight"
	case StateDelayed:
		return "delayed"
	}
	return fmt.Sprintf("MessageState(%d)", int(s))
}

// parseMessageState returns the state whose String is name.
func parseMessageState(name string) (MessageState, bool) {
	for _, s := range []MessageState{StateVisible, StateInFlight, StateDelayed} {
		if s.String() == name {
			return s, true
		}
	}
	return 0, false
}

// Message is a snapshot of one message on a queue, for tests and the
// simulation; receiving it is not needed and changes nothing.
type Message struct {
	ID         string
	Body       string
	Attributes map[string]MessageAttribute
	SentAt     time.Time
	// ReceiveCount is ApproximateReceiveCount: how many times it was
	// received. It travels to a dead-letter queue, plus one for the
	// receive that moved it there.
	ReceiveCount    int
	FirstReceivedAt time.Time // zero if never received
	State           MessageState
	// VisibleAt is when a delayed or in-flight message becomes visible;
	// zero for a visible message.
	VisibleAt time.Time
	// DeadLetterSourceARN is the queue it was moved from, for a message in a
	// dead-letter queue.
	DeadLetterSourceARN string
}

// Depth counts a queue's messages by state, as the Approximate* queue
// attributes do.
type Depth struct {
	Visible  int
	InFlight int
	Delayed  int
}

// Total is the number of messages on the queue.
func (d Depth) Total() int { return d.Visible + d.InFlight + d.Delayed }

// Messages returns the messages on the queue called name, oldest first, or
// an error wrapping ErrQueueNotFound.
func (s *Server) Messages(name string) ([]Message, error) {
	return inspect(s, name, func(q *queue, now time.Time) []Message {
		out := make([]Message, 0, len(q.messages))
		for _, m := range q.messages {
			state := m.state(now)
			out = append(out, Message{
				ID:                  m.id,
				Body:                m.body,
				Attributes:          cloneAttributes(m.attrs),
				SentAt:              m.sentAt,
				ReceiveCount:        m.receiveCount,
				FirstReceivedAt:     m.firstRecvAt,
				State:               state,
				VisibleAt:           m.pendingUntil(state),
				DeadLetterSourceARN: m.sourceARN,
			})
		}
		return out
	})
}

// Due is what a poller of a queue needs to know to poll again in time.
type Due struct {
	// Visible says a message can be received now.
	Visible bool
	// Next is the earliest time a delayed or in-flight message becomes
	// visible; zero when none will.
	Next time.Time
}

// NextDue reads queue name's Due without copying its messages.
func (s *Server) NextDue(name string) (Due, error) {
	return inspect(s, name, func(q *queue, now time.Time) Due {
		var d Due
		for _, m := range q.messages {
			switch {
			case m.state(now) == StateVisible:
				d.Visible = true
			case d.Next.IsZero() || m.visibleAt.Before(d.Next):
				d.Next = m.visibleAt
			}
		}
		return d
	})
}

// cloneAttributes deep-copies attributes, so a snapshot shares no bytes
// with the queue.
func cloneAttributes(attrs map[string]MessageAttribute) map[string]MessageAttribute {
	if attrs == nil {
		return nil
	}
	out := make(map[string]MessageAttribute, len(attrs))
	for name, a := range attrs {
		a.BinaryValue = bytes.Clone(a.BinaryValue)
		out[name] = a
	}
	return out
}

// Depth counts the messages on the queue called name, or returns an error
// wrapping ErrQueueNotFound.
func (s *Server) Depth(name string) (Depth, error) {
	return inspect(s, name, (*queue).depth)
}

// inspect runs fn under s.mu with the queue called name and the time of
// the call, for the inspection methods.
func inspect[T any](s *Server, name string, fn func(q *queue, now time.Time) T) (T, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.opts.Clock.Now()
	q, err := s.lookup(name, now)
	if err != nil {
		var zero T
		return zero, fmt.Errorf("inspect queue %q: %w", name, ErrQueueNotFound)
	}
	return fn(q, now), nil
}
