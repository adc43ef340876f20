package sim

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/redrive/redrive/emulate/executor"
	"github.com/redrive/redrive/emulate/simtarget"
)

// BulkMove is SQS's own redrive, the fixed-rate bulk move: every Bulk.Every a
// move task sends the messages then in the DLQ back to the source queue at
// Bulk.Rate per second. The consumer's event source receives them (batch
// size 1, so one call is one message, as in the other strategies) with up
// to Bulk.Concurrency calls in flight; a failed message is received again
// after the visibility timeout, and one already received MaxReceiveCount
// times is moved back to the DLQ, to wait for the next move. A message
// whose call outlives its visibility timeout can be received again while
// the first call runs, and the first call's delete then uses a stale
// receipt handle, as in SQS, so a double delivery would show.
//
// The queues are modelled here, on an executor's timeline, rather than
// run on sqslocal, which does not implement message move tasks; no Step
// Functions, orchestrator Lambda or DynamoDB is involved.
type BulkMove struct{}

// Name implements Strategy.
func (BulkMove) Name() string { return "bulk move" }

// bulkPlace is where a message is in the bulk model.
type bulkPlace int

const (
	bulkNotYet    bulkPlace = iota // not dead-lettered yet
	bulkDLQ                        // in the DLQ
	bulkVisible                    // in the source queue, visible
	bulkInvisible                  // in the source queue, received
	bulkDeleted                    // processed and deleted
)

// bulkMessage is one message's state.
type bulkMessage struct {
	Message
	place    bulkPlace
	receives int       // receives since it last left the DLQ
	receipt  int       // increases with every receive
	since    time.Time // when it reached its place
}

// bulkRun is one run's state, touched only from executor events (one at a
// time: the executor runs with one worker).
type bulkRun struct {
	s      Scenario
	exec   *executor.Executor
	target *simtarget.Target

	msgs     []*bulkMessage
	dlq      []*bulkMessage
	ready    []*bulkMessage // visible in the source queue
	rnd      *rand.Rand     // which visible message a receive returns
	inFlight int
	moving   bool
	deleted  int
}

// Run implements Strategy.
func (b BulkMove) Run(ctx context.Context, s Scenario, msgs []Message, obs Observer) (Outcome, error) {
	wall := time.Now()
	exec := executor.New(executor.Options{Start: Epoch, Seed: s.Seed})
	calls := NewCallTally(s)
	opts := s.TargetOptions(exec, tallyCalls(calls, b.Name(), obs))
	// The model spends the consumer's latency itself: executor.Delay outside
	// an execution would sleep in wall time.
	opts.Latency = 0
	target, err := simtarget.New(opts)
	if err != nil {
		return Outcome{}, fmt.Errorf("sim: bulk: consumer: %w", err)
	}
	r := &bulkRun{s: s, exec: exec, target: target, rnd: rand.New(rand.NewPCG(uint64(s.Seed), 0xb01c))}
	for _, m := range msgs {
		bm := &bulkMessage{Message: m}
		r.msgs = append(r.msgs, bm)
		exec.At(Epoch.Add(m.Arrival), func(context.Context) { r.toDLQ(bm) })
	}
	exec.At(Epoch.Add(s.Bulk.Every), r.cron)
	p := newSampler(exec, b.Name(), s, obs, func() (Usage, int, bool) {
		return Usage{}, r.deleted, r.deleted == len(r.msgs)
	})
	p.start()
	if err := exec.RunUntil(ctx, Epoch.Add(s.Horizon)); err != nil {
		return Outcome{}, fmt.Errorf("sim: bulk: run: %w", err)
	}
	out := Outcome{
		Strategy:  b.Name(),
		Calls:     *calls,
		Delivered: map[string]time.Time{},
		Parked:    map[string]time.Time{},
		Pending:   map[string]bool{},
	}
	out.Samples, out.End = p.finish()
	for _, m := range r.msgs {
		switch m.place {
		case bulkDeleted:
			out.Delivered[m.ID] = m.since
		case bulkDLQ:
			out.Parked[m.ID] = m.since
		case bulkVisible, bulkInvisible, bulkNotYet:
			out.Pending[m.ID] = true
		}
	}
	out.Wall = time.Since(wall)
	return out, nil
}

// toDLQ puts m in the DLQ.
func (r *bulkRun) toDLQ(m *bulkMessage) {
	m.place, m.since, m.receives = bulkDLQ, r.exec.Now(), 0
	r.dlq = append(r.dlq, m)
}

// cron is the operator's job: start a move task if none is running and the
// DLQ holds messages; come back after Every until every message is done.
func (r *bulkRun) cron(context.Context) {
	if r.deleted == len(r.msgs) {
		return
	}
	if !r.moving && len(r.dlq) > 0 {
		r.moving = true
		r.move(len(r.dlq))
	}
	r.exec.At(r.exec.Now().Add(r.s.Bulk.Every), r.cron)
}

// move sends the DLQ's oldest message back to the source queue and
// schedules the next one 1/Rate later, left messages in all.
func (r *bulkRun) move(left int) {
	if left == 0 || len(r.dlq) == 0 {
		r.moving = false
		return
	}
	m := r.dlq[0]
	r.dlq = r.dlq[1:]
	r.makeVisible(m)
	gap := time.Second / time.Duration(r.s.Bulk.Rate)
	r.exec.At(r.exec.Now().Add(gap), func(context.Context) { r.move(left - 1) })
}

// pollDelay bounds how long a visible message waits for one of the event
// source's long-polling pollers. Receiving every message at the very
// instant it becomes visible would keep retries in lockstep, so that the
// same messages land beyond the consumer's capacity in every wave.
const pollDelay = time.Second

// makeVisible puts m in the source queue, visible, and lets the event
// source take it within pollDelay.
func (r *bulkRun) makeVisible(m *bulkMessage) {
	m.place, m.since = bulkVisible, r.exec.Now()
	delay := time.Duration(r.rnd.Int64N(int64(pollDelay)))
	r.exec.At(m.since.Add(delay), func(context.Context) {
		r.ready = append(r.ready, m)
		r.pump()
	})
}

// pump is the event source: while a call slot is free, receive a visible
// message, chosen at random as a standard queue does not keep order (a
// fixed order would throttle the same messages in every wave), and call
// the consumer with it.
func (r *bulkRun) pump() {
	for r.inFlight < r.s.Bulk.Concurrency && len(r.ready) > 0 {
		// A standard queue's order is best effort: any visible message.
		i := r.rnd.IntN(len(r.ready))
		m := r.ready[i]
		r.ready[i] = r.ready[len(r.ready)-1]
		r.ready = r.ready[:len(r.ready)-1]
		if m.receives >= r.s.Bulk.MaxReceiveCount {
			r.toDLQ(m) // SQS moves it on the receive that would exceed the count
			continue
		}
		r.receive(m)
	}
}

// receive hands m to the consumer: the call's fate is decided now, it
// completes after the consumer's latency, and m is visible again after the
// visibility timeout unless the call deleted it by then.
func (r *bulkRun) receive(m *bulkMessage) {
	now := r.exec.Now()
	m.receives++
	m.receipt++
	receipt := m.receipt
	m.place, m.since = bulkInvisible, now
	r.inFlight++
	_, callErr := r.target.Handle(context.Background(), events.SQSEvent{Records: []events.SQSMessage{m.Event()}})
	r.exec.At(now.Add(r.s.Target.Latency), func(context.Context) {
		r.inFlight--
		if callErr == nil && m.receipt == receipt && m.place == bulkInvisible {
			m.place, m.since = bulkDeleted, r.exec.Now()
			r.deleted++
		}
		r.pump()
	})
	r.exec.At(now.Add(r.s.Bulk.VisibilityTimeout), func(context.Context) {
		if m.receipt == receipt && m.place == bulkInvisible {
			r.makeVisible(m)
		}
	})
}
