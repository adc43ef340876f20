package sim

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/redrive/redrive/attempt"
	"github.com/redrive/redrive/emulate/executor"
	"github.com/redrive/redrive/emulate/local"
	"github.com/redrive/redrive/emulate/simtarget"
	"github.com/redrive/redrive/message"
	"github.com/redrive/redrive/rules"
	"github.com/redrive/redrive/starter"
)

// Redrive is the real orchestrator, assembled in process by local: the
// DLQ's event source invokes the starter, which starts one redrive
// execution per message on the local executor, whose Attempt task admits
// through the breaker (a DynamoDB row on minidyn), delivers to the
// consumer and records the outcome; cooldowns are Wait states in virtual
// time.
type Redrive struct {
	// DirectInvoke has the attempt task call the consumer through the
	// Registry rather than through the Lambda Invoke API wire format:
	// faster, same behaviour.
	DirectInvoke bool
	// DynamoDBEndpoint is a DynamoDB endpoint for the stack's table
	// (local.Options.DynamoDBEndpoint); empty: the table is kept in
	// process (local.Options.InProcess).
	DynamoDBEndpoint string
	// WaitingRoom, when set, is called once the stack has started and
	// returns the RoomSource the sampler reads the stack's waiting room
	// (emulate/local's) from, e.g., for a room with a method of that
	// signature, func(st *local.Stack) RoomSource { return st.Room.Read }.
	// The outcome then has room readings (HasRoom), and the table, the JSON
	// and the report show the room's depth and release rate. Unset, or
	// returning nil, they are left out.
	WaitingRoom func(stack *local.Stack) RoomSource
}

// Name implements Strategy.
func (Redrive) Name() string { return "redrive" }

// keptHistories is how many executions' histories a strategy's executor
// records at once, and how many of the finished ones it keeps.
const keptHistories = 1000

// options are the Stack's options for s, reporting the executions that
// end to book and the consumer's calls to tally.
func (r Redrive) options(s Scenario, book *redriveBook, tally func(simtarget.Call)) local.Options {
	opts := local.Options{
		Seed:         s.Seed,
		Start:        Epoch,
		Policy:       s.Breaker.Policy(),
		Attempt:      attempt.Config{MaxAttempts: s.Retry.MaxAttempts, BackoffBase: s.Retry.BackoffBase, BackoffMax: s.Retry.BackoffMax},
		Target:       s.TargetOptions(nil, tally),
		DirectInvoke: r.DirectInvoke,
		BatchWindow:  starter.BatchWindow,
		// The endpoint is the caller's choice, e.g. DDB_ENDPOINT's;
		// without one the table, the queues and the executor are
		// reached in process, without the APIs' wire format.
		DynamoDBEndpoint: r.DynamoDBEndpoint,
		InProcess:        r.DynamoDBEndpoint == "",
		// The figures come from the executions as they end (Finished)
		// and from the executor's running totals, not from histories:
		// keep a few for debugging and only a summary of the others, so
		// memory follows what is in flight, not everything that happened.
		DuplicateStarts:   s.DuplicateStarts,
		StandardAttempts:  s.AttemptType == "standard",
		FIFO:              s.Messages.Groups > 0,
		FIFOOnPark:        s.FIFOOnPark,
		FinishedHistories: keptHistories,
		RunningHistories:  keptHistories,
		Compact:           true,
	}
	if s.Messages.Tenants > 1 {
		opts.BreakerKeyAttribute = TenantAttribute
	}
	if p, err := s.QuotaProfile(); err == nil { // Validate said so
		opts.Quotas = &p
	}
	opts.Finished = book.finished
	return opts
}

// Run implements Strategy.
func (r Redrive) Run(ctx context.Context, s Scenario, msgs []Message, obs Observer) (_ Outcome, err error) {
	wall := time.Now()
	book := &redriveBook{delivered: map[string]deliveredAt{}, journeys: newJourneyPicker(keptHistories, 0)}
	calls := NewCallTally(s)
	stack, err := local.Start(ctx, r.options(s, book, tallyCalls(calls, r.Name(), obs)))
	if err != nil {
		return Outcome{}, fmt.Errorf("sim: redrive: start the local stack: %w", err)
	}
	book.journeys.attach(stack.Executor)
	defer func() {
		if cerr := stack.Close(); cerr != nil {
			err = errors.Join(err, fmt.Errorf("sim: redrive: close the local stack: %w", cerr))
		}
	}()

	var sendErr error
	if s.LiftHoldsAt > 0 {
		// From then on, the operator lifts each hold as it comes, looking
		// once a minute while messages wait.
		var lift func(context.Context)
		lift = func(ctx context.Context) {
			if err := liftHolds(ctx, stack, stack.Executor.Now()); err != nil && sendErr == nil {
				sendErr = fmt.Errorf("sim: redrive: %w", err)
			}
			if depth, _ := stack.Room(); depth > 0 {
				stack.Executor.At(stack.Executor.Now().Add(time.Minute), lift)
			}
		}
		stack.Executor.At(Epoch.Add(s.LiftHoldsAt), lift)
	}

	// Each message is made as it arrives, not all up front: a million
	// bodies waiting on the timeline would be most of a large run's
	// memory before the first arrival.
	for i, m := range msgs {
		stack.Executor.At(Epoch.Add(m.Arrival), func(ctx context.Context) {
			msg := message.Message{
				Body:              m.Body(),
				MessageAttributes: map[string]message.Attribute{TenantAttribute: message.StringAttribute(m.Tenant)},
			}
			if m.Group != "" {
				msg.Attributes = map[string]string{message.AttrMessageGroupID: m.Group}
			}
			ids, err := stack.SendToDLQ(ctx, msg)
			if err != nil && sendErr == nil {
				sendErr = fmt.Errorf("sim: redrive: %w", err)
			}
			if i == 0 && len(ids) == 1 {
				// The first message's executions are named after its
				// origin id (see scenarioID).
				prefix := ids[0] + "-a"
				book.journeys.setFirst(func(name string) bool { return strings.HasPrefix(name, prefix) })
			}
		})
	}
	w := &redriveWatch{stack: stack, obs: obs, name: r.Name(), book: book}
	p := newSampler(stack.Executor, r.Name(), s, obs, func() (Usage, int, bool) {
		return w.read(ctx, len(msgs))
	})
	if r.WaitingRoom != nil {
		p.room = r.WaitingRoom(stack)
	}
	p.start()
	if err := stack.RunUntil(ctx, Epoch.Add(s.Horizon)); err != nil {
		return Outcome{}, fmt.Errorf("sim: redrive: %w", err)
	}
	if sendErr != nil {
		return Outcome{}, sendErr
	}
	w.report()
	out := Outcome{Strategy: r.Name(), Calls: *calls, HasBreaker: true, Transitions: stack.BreakerChanges(), HasRoom: p.room != nil}
	if stack.Quotas != nil {
		out.Quotas = ptr(stack.Quotas.Report())
	}
	out.Samples, out.End = p.finish()
	if out.Usage, err = usageOf(ctx, stack); err != nil {
		return Outcome{}, fmt.Errorf("sim: redrive: %w", err)
	}
	byOrigin, err := account(ctx, stack, book, msgs, &out)
	if err != nil {
		return Outcome{}, err
	}
	// Read before the deferred Close: the executor holds the histories.
	out.Journeys, err = book.journeys.journeys(ctx, func(name string) string {
		id, _ := scenarioID(name, byOrigin)
		return id
	})
	if err != nil {
		return Outcome{}, fmt.Errorf("sim: redrive: sample journeys: %w", err)
	}
	out.Wall = time.Since(wall)
	return out, nil
}

// redriveWatch reads a running Stack for the sampler and reports breaker
// transitions as they appear.
type redriveWatch struct {
	stack *local.Stack
	obs   Observer
	name  string
	book  *redriveBook

	mu       sync.Mutex
	reported int // transitions already reported
}

// read is the sampler's probe: usage, settled messages (executions that
// ended, in the Delivered or Parked state), and done once every message
// was sent, the DLQ is empty and no execution runs. It reads running
// totals, not the executions: the same cost at any scale.
func (w *redriveWatch) read(ctx context.Context, total int) (Usage, int, bool) {
	w.report()
	counts, err := w.stack.Executor.Counts(ctx, w.stack.RedriveARN)
	if err != nil {
		return Usage{}, 0, false
	}
	depth, err := w.stack.SQSServer.Depth(w.stack.QueueName(local.DLQName))
	waiting, _ := w.stack.Room()
	done := err == nil && w.stack.SentCount() == total && depth.Total() == 0 && counts.Running == 0 && waiting == 0
	u, err := usageOf(ctx, w.stack)
	if err != nil {
		return Usage{}, 0, false
	}
	return u, w.book.settledCount(), done
}

// report passes the transitions saved since the last report to the
// observer.
func (w *redriveWatch) report() {
	changes := w.stack.BreakerChanges()
	w.mu.Lock()
	fresh := changes[w.reported:]
	w.reported = len(changes)
	w.mu.Unlock()
	for _, t := range fresh {
		w.obs.Transition(w.name, t)
	}
}

// usageOf is the billable usage of a Stack so far: the transitions of its
// redrive and release executions, the orchestrator's invocations by
// function (not the consumer's), and the DynamoDB request units the table
// billed (by item size, with its indexes'; on an endpoint, one a call on
// the breaker rows, delivery records, the waiting room and the pace rows).
func usageOf(ctx context.Context, stack *local.Stack) (Usage, error) {
	var u Usage
	for _, arn := range []string{stack.RedriveARN, stack.ReleaseARN} {
		c, err := stack.Executor.Counts(ctx, arn)
		if err != nil {
			return Usage{}, fmt.Errorf("count executions: %w", err)
		}
		if arn == stack.RedriveARN && stack.ExpressAttempts() {
			u.ExpressStarts += c.Started
			u.ExpressDuration += c.BilledDuration
			u.LogBytes += (c.Failed + c.TimedOut) * ExpressLogBytes
			continue
		}
		u.Transitions += c.Transitions
	}
	st := stack.Stats()
	u.S3Puts, u.S3Gets = st.S3Puts, st.S3Gets
	u.ReleaseTime = st.InvocationTime[local.FunctionRelease]
	u.Invocations = map[string]int64{}
	for name, n := range st.Invocations {
		if name == local.FunctionConsumer {
			u.WaitedCalls += n // the attempt task waits for every consumer call
			continue
		}
		u.Invocations[name] = n
	}
	if c := st.Capacity; c != nil {
		u.DynamoReads, u.DynamoWrites = int64(math.Ceil(c.ReadUnits)), c.WriteUnits
		return u, nil
	}
	for _, io := range []local.RowIO{st.BreakerRows, st.DeliveryRecords, st.ParkedItems, st.RoomItems} {
		u.DynamoReads += io.Reads
		u.DynamoWrites += io.Writes + io.Conflicts
	}
	return u, nil
}

// redriveDoc is the part of a redrive execution's document this package
// reads: the origin id and the last Attempt's decision (a Delivered
// execution outputs its document).
type redriveDoc struct {
	OriginID string       `json:"originId"`
	Next     message.Next `json:"next"`
}

// redriveBook keeps what the simulation needs of the redrive executions,
// read from each as it ends (local.Options.Finished), so that the
// executor may forget their input and output: how many settled, and when
// each message (by SQS origin id) was delivered. Its journeys pick the
// report's sample journeys from the same executions.
type redriveBook struct {
	mu        sync.Mutex
	settled   int
	delivered map[string]deliveredAt
	err       error // the first execution that could not be read

	journeys *journeyPicker // nil: none picked
}

// deliveredAt is when an execution that delivered a message ended, and
// when it started.
type deliveredAt struct {
	start, stop time.Time
}

// redriveMachine ends the ARN of the redrive state machine.
const redriveMachine = ":stateMachine:" + local.RedriveStateMachine

// finished is the executor's Finished: it books x (ended) and shows it
// to the journey picker.
func (b *redriveBook) finished(x executor.Execution) {
	outcome := b.ended(x)
	if b.journeys != nil {
		b.journeys.finished(x, outcome)
	}
}

// ended reads an execution that ended: a redrive execution that succeeded
// and did not queue its message (in the Queued state, its last decision
// ROOM: the message waits in the room, and its release starts a new
// execution) settled it, and one whose last decision was DONE delivered
// it. It returns the execution's outcome for the journeys: "delivered",
// "parked" (it settled otherwise, in the Parked state), the status of a
// redrive execution that did not succeed, or "" for one that queued and
// for the other state machines'.
func (b *redriveBook) ended(x executor.Execution) string {
	if !strings.HasSuffix(x.StateMachineARN, redriveMachine) {
		return ""
	}
	if x.Status != executor.Succeeded {
		return journeyStatus(x.Status)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	var result redriveDoc
	err := json.Unmarshal(x.Output, &result) // v2: every execution ends here, and the executor wrote the output
	if err == nil && result.Next == message.NextRoom {
		return ""
	}
	b.settled++
	if err == nil && result.Next != message.NextDone {
		return journeyParked
	}
	if err == nil && result.OriginID == "" {
		err = errors.New("no origin id")
	}
	if err != nil {
		if b.err == nil {
			b.err = fmt.Errorf("sim: redrive: read the output of %s: %w", x.Name, err)
		}
		return ""
	}
	// Of two executions that delivered one message (a double delivery),
	// the one that started first is kept, as a listing would have.
	if d, ok := b.delivered[result.OriginID]; !ok || x.StartDate.Before(d.start) {
		b.delivered[result.OriginID] = deliveredAt{start: x.StartDate, stop: x.StopDate}
	}
	return journeyDelivered
}

// scenarioID is the scenario's id of the message a redrive execution
// redrives, found by its name, which starts with its origin id
// (message.ExecutionName: "<origin>-a<attempt>..."; the executor keeps no
// input, see local.Options.Compact). byOrigin maps origin ids to
// scenario ids.
func scenarioID(name string, byOrigin map[string]string) (string, bool) {
	for i := 0; ; i += 2 {
		j := strings.Index(name[i:], "-a")
		if j < 0 {
			return "", false
		}
		i += j
		if id, ok := byOrigin[name[:i]]; ok {
			return id, true
		}
	}
}

// waitingID is the scenario's id of the message a room entry holds, found
// by its partition key (local.Stack.Waiting: "room#<breaker key>#<origin
// id>#<attempt>..."), one of whose parts is the origin id. byOrigin maps
// origin ids to scenario ids.
func waitingID(pk string, byOrigin map[string]string) (string, bool) {
	for part := range strings.SplitSeq(pk, "#") {
		if id, ok := byOrigin[part]; ok {
			return id, true
		}
	}
	return "", false
}

// settledCount is how many messages settled so far.
func (b *redriveBook) settledCount() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.settled
}

// account files every message under delivered (an execution ended in
// Delivered, as the book recorded), parked (it is in the parking lot) or
// pending (an execution still runs, or it is still in the DLQ), by origin
// id mapped back to the scenario's message id; a message found nowhere
// counts as lost. It returns that map, origin id to message id.
func account(ctx context.Context, stack *local.Stack, book *redriveBook, msgs []Message, out *Outcome) (map[string]string, error) {
	out.Delivered, out.Parked, out.Pending = map[string]time.Time{}, map[string]time.Time{}, map[string]bool{}
	byBody := make(map[string]string, len(msgs))
	for _, m := range msgs {
		byBody[m.Body()] = m.ID
	}
	byOrigin := map[string]string{}
	for _, sent := range stack.Sent() {
		id, ok := byBody[sent.Body]
		if !ok {
			return nil, fmt.Errorf("sim: redrive: sent a message %s that is not the scenario's", sent.ID)
		}
		byOrigin[sent.ID] = id
	}
	// The consumer knows messages by their SQS origin id.
	out.Calls.rename(byOrigin)
	book.mu.Lock()
	defer book.mu.Unlock()
	if book.err != nil {
		return nil, book.err
	}
	for origin, d := range book.delivered {
		id, ok := byOrigin[origin]
		if !ok {
			return nil, fmt.Errorf("sim: redrive: an execution carries unknown origin %q", origin)
		}
		out.Delivered[id] = d.stop
	}
	running, err := stack.Executor.ListExecutions(ctx, stack.RedriveARN, executor.Running)
	if err != nil {
		return nil, fmt.Errorf("sim: redrive: list executions: %w", err)
	}
	for _, x := range running {
		id, ok := scenarioID(x.Name, byOrigin)
		if !ok {
			return nil, fmt.Errorf("sim: redrive: execution %s is not named after a known origin", x.Name)
		}
		out.Pending[id] = true
	}
	for _, pk := range stack.Waiting() {
		id, ok := waitingID(pk, byOrigin)
		if !ok {
			return nil, fmt.Errorf("sim: redrive: room entry %s is not of a known origin", pk)
		}
		out.Pending[id] = true // in the room, as a document: its release starts its next execution
	}
	parked, err := stack.ReceiveParked(ctx)
	if err != nil {
		return nil, fmt.Errorf("sim: redrive: %w", err)
	}
	for _, p := range parked {
		id, ok := byOrigin[p.Record.OriginID]
		if !ok {
			return nil, errors.New("sim: redrive: parked message of unknown origin " + p.Record.OriginID)
		}
		out.Parked[id] = p.Record.ParkedAt
	}
	left, err := stack.SQSServer.Messages(stack.QueueName(local.DLQName))
	if err != nil {
		return nil, fmt.Errorf("sim: redrive: inspect the DLQ: %w", err)
	}
	for _, m := range left {
		if id, ok := byBody[m.Body]; ok {
			out.Pending[id] = true
		}
	}
	return byOrigin, nil
}

// liftHolds removes every hold rule on a FIFO group at now, as an
// operator would once they have looked at the parked messages that hold
// their groups (through the rules' store: an admin execution cannot run
// inside the executor's event).
func liftHolds(ctx context.Context, stack *local.Stack, now time.Time) error {
	store := stack.Rules()
	book, err := store.Load(ctx)
	if err != nil {
		return fmt.Errorf("list the rules: %w", err)
	}
	for _, r := range book.Rules {
		if r.On != rules.OnGroup || r.Action != rules.Hold {
			continue
		}
		if _, err := store.Remove(ctx, r.ID, "sim operator", "looked at it", now); err != nil {
			return fmt.Errorf("lift the hold %s: %w", r.ID, err)
		}
	}
	return nil
}
