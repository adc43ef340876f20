package starter

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/service/sfn"

	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/clock"
	"github.com/redrive/redrive/lambda/telemetry"
	"github.com/redrive/redrive/message"
	"github.com/redrive/redrive/park"
	"github.com/redrive/redrive/room"
	"github.com/redrive/redrive/room/pace"
	"github.com/redrive/redrive/rules"
)

// StartExecutionAPI is the one Step Functions call the starter makes, with
// the SDK's signature so *sfn.Client satisfies it.
type StartExecutionAPI interface {
	StartExecution(ctx context.Context, params *sfn.StartExecutionInput, optFns ...func(*sfn.Options)) (*sfn.StartExecutionOutput, error)
}

var _ StartExecutionAPI = (*sfn.Client)(nil)

// Breaker is what the starter asks of the breaker to record a consumer
// failure (sqs target); *breaker.Breaker is one.
type Breaker interface {
	Status(ctx context.Context, key string) (breaker.Row, error)
	Record(ctx context.Context, key string, seen breaker.Row, t breaker.Ticket, o breaker.Outcome) (breaker.Row, error)
}

var _ Breaker = (*breaker.Breaker)(nil)

// Counter adds to a metric of a breaker; *telemetry.Metrics is one.
type Counter interface {
	Count(key string, name telemetry.Name, n int64)
}

var _ Counter = (*telemetry.Metrics)(nil)

// Gate counts a batch's fresh arrivals per breaker key and says how many
// may go straight to the breaker; *pace.Store is one.
type Gate interface {
	Admit(ctx context.Context, key string, n int, p pace.Policy, now time.Time) (pace.Admission, error)
}

var _ Gate = (*pace.Store)(nil)

// Room takes the documents of messages that would only wait, and every
// FIFO message, in line behind its group; *room.Room is one.
type Room interface {
	Enter(ctx context.Context, e room.Entry) error
	EnterInLine(ctx context.Context, e room.Entry) (bool, error)
}

var _ Room = (*room.Room)(nil)

// Checker moves a body too large for a document to the claim-check
// store; *claimcheck.Store is one.
type Checker interface {
	Check(ctx context.Context, doc *message.Document) (bool, error)
}

// Launcher starts a breaker's controller when none runs;
// *release.Launcher is one.
type Launcher interface {
	Ensure(ctx context.Context, key string) (bool, error)
}

// Handler is the starter: the DLQ's event source function.
type Handler struct {
	// SFN starts executions.
	SFN StartExecutionAPI
	// Lot parks what cannot be started.
	Lot park.Parker
	// Breaker tells each breaker's state (through States) and records
	// consumer failures (when Config.RecordsReturns()); nil starts every
	// record.
	Breaker Breaker
	// States caches Breaker's rows, at most about a second old; set by
	// NewStates when Breaker is.
	States *States
	// Bodies, if set, keeps the bodies too large for a document in S3;
	// without it, such a message is parked as oversize.
	Bodies Checker
	// RoomBodies, if set, keeps in S3 the body of a document that enters
	// the room when it is over claimcheck.RoomThreshold (Bodies' store
	// ForRoom); nil leaves it in the document.
	RoomBodies Checker
	// Room and Launcher take the messages that would only wait (their
	// breaker is not CLOSED, they are beyond the pace, or the room is
	// being released) and start their breaker's controller; nil starts
	// every record, and the Attempt queues them.
	Room     Room
	Launcher Launcher
	// Gate paces fresh arrivals per breaker key; nil starts every record
	// unpaced.
	Gate Gate
	// Rules, if set, are the routing rules: a message a rule quarantines
	// is parked without an execution. nil applies none (the Attempt
	// applies them all).
	Rules rules.Source
	// Config is the starter's settings.
	Config Config
	// Metrics and Logger report what happened to each record.
	Metrics Counter
	Logger  *slog.Logger
	// Clock stamps receivedAt; default clock.Wall. The local executor
	// passes its virtual clock.
	Clock clock.Clock
}

// Handle processes an SQS batch from the DLQ, Config.Concurrency records at
// a time, and reports the records to retry as batch item failures, in the
// order of the batch (see process for what each record becomes). It never
// returns an error: every failure is a record's, and the others are done.
// The records of one FIFO message group are processed one after another,
// in the batch's order, and once one fails the rest of its group fail
// too, unprocessed, so the group comes back in its order.
func (h *Handler) Handle(ctx context.Context, event events.SQSEvent) (events.SQSEventResponse, error) {
	batch := make([]prepared, len(event.Records))
	for i, r := range event.Records {
		batch[i] = h.prepare(ctx, r)
	}
	waits := h.waits(ctx, batch)
	failed := make([]bool, len(event.Records))
	entered := make([]bool, len(event.Records))
	lanes := lanesOf(batch)
	forEach(len(lanes), h.Config.Concurrency, func(l int) {
		for _, i := range lanes[l] {
			var err error
			entered[i], err = h.process(ctx, batch[i], waits[i])
			if failed[i] = err != nil; failed[i] {
				for _, j := range lanes[l] {
					failed[j] = failed[j] || j > i
				}
				return
			}
		}
	})
	h.ensureControllers(ctx, batch, entered, failed)

	resp := events.SQSEventResponse{BatchItemFailures: []events.SQSBatchItemFailure{}}
	for i, f := range failed {
		if f {
			resp.BatchItemFailures = append(resp.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: event.Records[i].MessageId})
		}
	}
	return resp, nil
}

// lanesOf splits batch into what may be processed in parallel: each FIFO
// message group's records, in order, and every other record on its own.
func lanesOf(batch []prepared) [][]int {
	var lanes [][]int
	byGroup := map[string]int{} // group -> its lane
	for i, p := range batch {
		f := p.doc.FIFO
		if p.err != nil || f == nil {
			lanes = append(lanes, []int{i})
			continue
		}
		l, seen := byGroup[f.GroupID]
		if !seen {
			l = len(lanes)
			byGroup[f.GroupID] = l
			lanes = append(lanes, nil)
		}
		lanes[l] = append(lanes[l], i)
	}
	return lanes
}

// forEach calls fn for each of 0 to n-1, up to workers at a time, and
// returns when all are done. One worker calls them in order, on the
// caller's goroutine.
func forEach(n, workers int, fn func(i int)) {
	workers = min(max(workers, 1), n)
	if workers <= 1 {
		for i := range n {
			fn(i)
		}
		return
	}
	next := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := range next {
				fn(i)
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}

// now reads the handler's clock.
func (h *Handler) now() time.Time {
	if h.Clock != nil {
		return h.Clock.Now()
	}
	return clock.Wall.Now()
}
