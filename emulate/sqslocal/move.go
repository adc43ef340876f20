package sqslocal

import (
	"encoding/base64"
	"encoding/json"
	"slices"
	"time"
)

// The statuses of a message move task, as ListMessageMoveTasks reports
// them.
const (
	moveRunning    = "RUNNING"
	moveCompleted  = "COMPLETED"
	moveCancelling = "CANCELLING"
	moveCancelled  = "CANCELLED"
	moveFailed     = "FAILED"
)

// Message move limits: MaxNumberOfMessagesPerSecond is at most 500, and
// without it the task moves at defaultMoveRate, the fastest rate a caller
// may set (AWS picks a rate from the backlog instead; see doc.go).
// ListMessageMoveTasks returns up to 10 tasks, so a queue keeps that many.
const (
	maxMoveRate      = 500
	defaultMoveRate  = maxMoveRate
	maxListMoveTasks = 10
)

// failureClosed is the FailureReason of a task stopped by Server.Close.
const failureClosed = "sqslocal: the server was closed"

// moveTask is one StartMessageMoveTask. It moves the messages that were on
// its source queue when it started, oldest first, one every interval, to
// its destination or, without one, each back to the queue it was
// dead-lettered from. Its fields are guarded by Server.mu.
type moveTask struct {
	id       string
	handle   string
	source   *queue
	dest     *queue // nil: back to each message's source queue
	destARN  string // as requested, "" if none
	rate     *int   // as requested, nil if none
	interval time.Duration
	started  time.Time
	toMove   int
	moved    int
	pending  map[*message]bool // messages still to move, still on source
	next     time.Time         // when the next message may move
	status   string
	failure  string
	cancel   chan struct{} // closed by CancelMessageMoveTask
}

// taskHandle is what a TaskHandle encodes (base64 JSON, as AWS's handles
// do): the task and its source queue.
type taskHandle struct {
	TaskID    string `json:"taskId"`
	SourceArn string `json:"sourceArn"`
}

type startMessageMoveTaskInput struct {
	SourceArn                    string
	DestinationArn               string
	MaxNumberOfMessagesPerSecond *int
}

type startMessageMoveTaskOutput struct {
	TaskHandle string
}

// startMessageMoveTask starts moving the messages of a dead-letter queue,
// at most one task per source queue at a time, and returns at once; the
// task's goroutine moves them at its rate on the server's clock.
func (s *Server) startMessageMoveTask(_ call, in *startMessageMoveTaskInput) (any, *apiError) {
	if in.SourceArn == "" {
		return nil, missing("SourceArn")
	}
	rate, err := optionalInt("MaxNumberOfMessagesPerSecond", in.MaxNumberOfMessagesPerSecond, 1, maxMoveRate, defaultMoveRate)
	if err != nil {
		return nil, err
	}
	if in.DestinationArn == in.SourceArn {
		return nil, errInvalidParameterValue.errorf("Source queue arn and destination queue arn cannot be the same.")
	}
	id, err := s.newUUID()
	if err != nil {
		return nil, err
	}
	handle, _ := json.Marshal(taskHandle{id, in.SourceArn}) // two strings: cannot fail
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.opts.Clock.Now()
	src, err := s.queueByARN(in.SourceArn, "SourceArn", now)
	if err != nil {
		return nil, err
	}
	if len(s.deadLetterSources(src)) == 0 {
		return nil, errInvalidParameterValue.errorf("Source queue must be configured as a Dead Letter Queue.")
	}
	t := &moveTask{
		id:       id,
		handle:   base64.StdEncoding.EncodeToString(handle),
		source:   src,
		destARN:  in.DestinationArn,
		rate:     in.MaxNumberOfMessagesPerSecond,
		interval: time.Second / time.Duration(rate),
		started:  now,
		toMove:   len(src.messages),
		pending:  make(map[*message]bool, len(src.messages)),
		next:     now,
		status:   moveRunning,
		cancel:   make(chan struct{}),
	}
	if in.DestinationArn != "" {
		if t.dest, err = s.queueByARN(in.DestinationArn, "DestinationArn", now); err != nil {
			return nil, err
		}
		if t.dest.cfg.FifoQueue != src.cfg.FifoQueue {
			return nil, errInvalidParameterValue.errorf("The source queue and the destination queue must be of the same type (both standard or both FIFO).")
		}
	}
	if len(src.moves) > 0 && src.moves[0].active() {
		return nil, errInvalidParameterValue.errorf("There is already a task running. Only one active task is allowed for a source queue arn at a given time.")
	}
	for _, m := range src.messages {
		t.pending[m] = true
	}
	src.moves = slices.Insert(src.moves, 0, t)[:min(len(src.moves)+1, maxListMoveTasks)]
	s.startMove(t)
	return startMessageMoveTaskOutput{t.handle}, nil
}

// queueByARN returns the live queue an ARN parameter of the move task
// actions names, or their ResourceNotFoundException. It runs under s.mu.
func (s *Server) queueByARN(arn, param string, now time.Time) (*queue, *apiError) {
	name, ok := s.nameFromARN(arn)
	q, err := s.lookup(name, now)
	if !ok || err != nil {
		return nil, errResourceNotFound.errorf("The resource that you specified for the %s parameter doesn't exist.", param)
	}
	return q, nil
}

// active reports whether t still runs or is being cancelled.
func (t *moveTask) active() bool {
	return t.status == moveRunning || t.status == moveCancelling
}

// startMove makes t's first step, which moves its first message at once,
// and runs the later steps in a goroutine that wakes when a message may
// move next, t is cancelled or the server closes. It runs under s.mu, as
// Close closes the server, so Close never misses the goroutine.
func (s *Server) startMove(t *moveTask) {
	wait, ok := s.step(t)
	if !ok {
		return
	}
	s.moving.Add(1)
	go func() {
		defer s.moving.Done()
		for ok {
			select {
			case <-s.opts.Clock.After(wait):
			case <-t.cancel:
			case <-s.closed:
			}
			s.mu.Lock()
			wait, ok = s.step(t)
			s.mu.Unlock()
		}
	}()
}

// step moves the messages of t that are due by now and returns how long to
// wait before the next step, or false once t has ended. A message moves
// only while visible; time in which none can move earns no catch-up, so
// the rate is never exceeded. It runs under s.mu, so a message is on
// exactly one queue at any time.
func (s *Server) step(t *moveTask) (time.Duration, bool) {
	now := s.opts.Clock.Now()
	switch {
	case s.isClosed():
		t.status, t.failure = moveFailed, failureClosed
	case t.status == moveCancelling:
		t.status = moveCancelled
	case t.source.gone:
		t.status, t.failure = moveFailed, errQueueDoesNotExist.code
	}
	if t.status != moveRunning {
		return 0, false
	}
	t.source.expire(now)
	pending := make(map[*message]bool, len(t.pending))
	var soonest time.Time // when a pending message can move next
	t.source.messages = slices.DeleteFunc(t.source.messages, func(m *message) bool {
		if !t.pending[m] {
			return false
		}
		if t.status == moveRunning && !m.visibleAt.After(now) && !t.next.After(now) {
			reason := s.redrive(t, m, now)
			if reason == "" {
				t.moved++
				t.next = t.next.Add(t.interval)
				return true
			}
			t.status, t.failure = moveFailed, reason
		}
		pending[m] = true
		if at := later(m.visibleAt, now); soonest.IsZero() || at.Before(soonest) {
			soonest = at
		}
		return false
	})
	t.pending = pending
	switch {
	case t.status != moveRunning:
		return 0, false
	case len(pending) == 0:
		t.status = moveCompleted
		return 0, false
	}
	t.next = later(t.next, now)
	return later(soonest, t.next).Sub(now), true
}

// later returns the later of a and b.
func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// redrive adds a copy of m to t's destination as a new message (a new ID
// and send time, the same body and attributes, the destination's delay;
// on a FIFO queue the same group and deduplication ID, the next
// SequenceNumber) and returns "", or the FailureReason when it cannot: the
// destination, or the queue m came from, does not exist.
func (s *Server) redrive(t *moveTask, m *message, now time.Time) string {
	dest := t.dest
	if dest == nil {
		name, _ := s.nameFromARN(m.sourceARN)
		dest = s.queues[name]
	}
	if dest == nil || dest.gone {
		return errQueueDoesNotExist.code
	}
	id, err := s.newUUID()
	if err != nil {
		return err.kind.code
	}
	moved := &message{
		id:          id,
		body:        m.body,
		attrs:       m.attrs,
		md5Body:     m.md5Body,
		traceHeader: m.traceHeader,
		groupID:     m.groupID,
		sentAt:      now,
		visibleAt:   now.Add(time.Duration(dest.cfg.DelaySeconds) * time.Second),
	}
	dest.add(moved)
	if dest.cfg.FifoQueue {
		moved.dedupID = m.dedupID
		dest.remember(moved, now)
	}
	return ""
}

type cancelMessageMoveTaskInput struct {
	TaskHandle string
}

type cancelMessageMoveTaskOutput struct {
	ApproximateNumberOfMessagesMoved int
}

// cancelMessageMoveTask stops a running task; the messages it moved stay
// moved, the others stay on the source. No message moves once it returns.
func (s *Server) cancelMessageMoveTask(_ call, in *cancelMessageMoveTaskInput) (any, *apiError) {
	if in.TaskHandle == "" {
		return nil, missing("TaskHandle")
	}
	var h taskHandle
	raw, err := base64.StdEncoding.DecodeString(in.TaskHandle)
	if err != nil || json.Unmarshal(raw, &h) != nil || h.TaskID == "" {
		return nil, errInvalidParameterValue.errorf("Value for parameter TaskHandle is invalid.")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	src, apiErr := s.queueByARN(h.SourceArn, "SourceArn", s.opts.Clock.Now())
	if apiErr != nil {
		return nil, apiErr
	}
	i := slices.IndexFunc(src.moves, func(t *moveTask) bool { return t.id == h.TaskID })
	if i < 0 {
		return nil, errResourceNotFound.errorf("Task does not exist.")
	}
	t := src.moves[i]
	if t.status != moveRunning {
		return nil, errInvalidParameterValue.errorf("Only a task in status RUNNING can be cancelled; this one is %s.", t.status)
	}
	t.status = moveCancelling
	close(t.cancel)
	return cancelMessageMoveTaskOutput{t.moved}, nil
}

type listMessageMoveTasksInput struct {
	SourceArn  string
	MaxResults *int
}

// moveTaskEntry is one task as ListMessageMoveTasks reports it: the
// handle only while it runs, the destination and rate only if requested.
type moveTaskEntry struct {
	TaskHandle                        string `json:",omitempty"`
	Status                            string
	SourceArn                         string
	DestinationArn                    string `json:",omitempty"`
	MaxNumberOfMessagesPerSecond      *int   `json:",omitempty"`
	ApproximateNumberOfMessagesMoved  int
	ApproximateNumberOfMessagesToMove int
	FailureReason                     string `json:",omitempty"`
	StartedTimestamp                  int64
}

type listMessageMoveTasksOutput struct {
	Results []moveTaskEntry
}

// listMessageMoveTasks returns a source queue's latest tasks, newest
// first: MaxResults of them, 1 by default, up to 10.
func (s *Server) listMessageMoveTasks(_ call, in *listMessageMoveTasksInput) (any, *apiError) {
	if in.SourceArn == "" {
		return nil, missing("SourceArn")
	}
	limit, err := optionalInt("MaxResults", in.MaxResults, 1, maxListMoveTasks, 1)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	src, err := s.queueByARN(in.SourceArn, "SourceArn", s.opts.Clock.Now())
	if err != nil {
		return nil, err
	}
	out := listMessageMoveTasksOutput{Results: []moveTaskEntry{}}
	for _, t := range src.moves[:min(limit, len(src.moves))] {
		e := moveTaskEntry{
			Status:                            t.status,
			SourceArn:                         in.SourceArn,
			DestinationArn:                    t.destARN,
			MaxNumberOfMessagesPerSecond:      t.rate,
			ApproximateNumberOfMessagesMoved:  t.moved,
			ApproximateNumberOfMessagesToMove: t.toMove,
			FailureReason:                     t.failure,
			StartedTimestamp:                  t.started.UnixMilli(),
		}
		if t.status == moveRunning {
			e.TaskHandle = t.handle
		}
		out.Results = append(out.Results, e)
	}
	return out, nil
}
