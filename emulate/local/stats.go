package local

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/emulate/ddbmem"
	"github.com/redrive/redrive/emulate/executor"
	"github.com/redrive/redrive/rules"
)

// Stats counts what a Stack did so far.
type Stats struct {
	// Invocations counts Lambda invocations per function name (see the
	// Function constants).
	Invocations map[string]int64
	// InvocationTime is the time the invocations took on the stack's
	// clock, per function name: what they slept or waited for (the
	// release function's paced ticks, the attempt's consumer calls), not
	// their own work, which takes no virtual time.
	InvocationTime map[string]time.Duration
	// Breaker is the breaker-row I/O the tasks' breakers report, summed.
	Breaker breaker.Stats
	// BreakerRows and DeliveryRecords count the tasks' DynamoDB calls on
	// breaker rows and on delivery-ledger records; ParkedItems on the
	// parking lot's index entries; RoomItems on the rest: the waiting room
	// (its index queries count as reads) and the pace rows.
	BreakerRows, DeliveryRecords, ParkedItems, RoomItems RowIO
	// Capacity is the request units the table billed, by item size and
	// with its indexes' writes, as DynamoDB on demand bills them: counted
	// on the in-process table (Options.InProcess, as redrive run has it);
	// nil on an endpoint, where only the calls above are counted.
	Capacity *ddbmem.Capacity
	// Source is what the DLQ's event source did.
	Source SourceStats
	// StartsThrottled counts StartExecution calls refused while
	// ThrottleStartExecution was in force.
	StartsThrottled int64
	// DuplicatedStarts counts the attempt executions Options.DuplicateStarts
	// started a second time.
	DuplicatedStarts int64
	// S3Puts and S3Gets count the claim check's requests.
	S3Puts, S3Gets int64
}

// Stats returns the counts so far.
func (s *Stack) Stats() Stats {
	st := Stats{Source: s.source.snapshot(), StartsThrottled: s.throttle.count(),
		DuplicatedStarts: s.duplicated.Load(), S3Puts: s.bodies.puts.Load(), S3Gets: s.bodies.gets.Load()}
	st.Invocations, st.InvocationTime = s.invoker.snapshot()
	for _, b := range s.breakers {
		bs := b.Stats()
		st.Breaker.Loads += bs.Loads
		st.Breaker.Saves += bs.Saves
		st.Breaker.Conflicts += bs.Conflicts
	}
	st.BreakerRows, st.DeliveryRecords, st.ParkedItems, st.RoomItems = s.db.snapshot()
	if s.dynamo.mem != nil {
		c := s.dynamo.mem.Capacity()
		st.Capacity = &c
	}
	return st
}

// Room returns how many messages wait in the waiting room (of every
// breaker key) and how many it released so far (executions started for
// room entries). Safe for concurrent use.
func (s *Stack) Room() (depth int, released int64) {
	return s.db.roomDepth(), s.db.released.Load()
}

// Waiting returns the partition keys of the messages waiting in the
// waiting room (of every breaker key), sorted: "room#<breaker key>#<id>",
// the id being the message's message.Document.RoomID, which starts with
// its origin id and "#". Safe for concurrent use.
func (s *Stack) Waiting() []string {
	return s.db.roomEntries()
}

// Cost is one redrive execution and what it cost, read from its history.
type Cost struct {
	// Execution is the execution as DescribeExecution returns it.
	Execution executor.Execution
	// Transitions counts billed state transitions, from the history:
	// every state entered, plus every Task retry.
	Transitions int
	// Events counts history events (Step Functions' limit is 25,000).
	Events int
	// States lists the states entered, in order.
	States []string
	// Waits lists how long each Wait state lasted, in order.
	Waits []time.Duration
}

// Costs returns every execution of the redrive state machine, oldest first,
// with its cost. It reads their histories, which only a Standard attempt
// machine keeps (Options.StandardAttempts): an Express execution has none.
func (s *Stack) Costs(ctx context.Context) ([]Cost, error) {
	if s.ExpressAttempts() {
		return nil, errors.New("local: Costs reads the attempt executions' histories, which Express executions do not keep: start the stack with Options.StandardAttempts")
	}
	xs, err := s.Executor.ListExecutions(ctx, s.RedriveARN, "")
	if err != nil {
		return nil, fmt.Errorf("local: list executions: %w", err)
	}
	out := make([]Cost, 0, len(xs))
	for i := len(xs) - 1; i >= 0; i-- {
		history, err := s.Executor.History(ctx, xs[i].ARN)
		if err != nil {
			return nil, fmt.Errorf("local: history of %s: %w", xs[i].ARN, err)
		}
		c, err := costOf(history)
		if err != nil {
			return nil, fmt.Errorf("local: history of %s: %w", xs[i].ARN, err)
		}
		c.Execution = xs[i]
		out = append(out, c)
	}
	return out, nil
}

// costOf reads a history: states entered, Task retries (a TaskScheduled
// beyond the first of its state entry), and Wait durations.
func costOf(history []executor.Event) (Cost, error) {
	c := Cost{Events: len(history)}
	scheduled := 0
	var waitStart time.Time
	for _, ev := range history {
		switch {
		case strings.HasSuffix(ev.Type, "StateEntered"):
			name, err := enteredState(ev)
			if err != nil {
				return Cost{}, err
			}
			c.States = append(c.States, name)
			c.Transitions++
			scheduled = 0
			if ev.Type == "WaitStateEntered" {
				waitStart = ev.Timestamp
			}
		case ev.Type == "TaskScheduled" || ev.Type == "LambdaFunctionScheduled":
			if scheduled++; scheduled > 1 {
				c.Transitions++
			}
		case ev.Type == "WaitStateExited":
			c.Waits = append(c.Waits, ev.Timestamp.Sub(waitStart))
		}
	}
	return c, nil
}

// enteredState is the name of the state a *StateEntered event entered,
// read from the event's API form.
func enteredState(ev executor.Event) (string, error) {
	raw, err := json.Marshal(ev)
	if err != nil {
		return "", fmt.Errorf("event %d: %w", ev.ID, err)
	}
	var doc struct {
		Details *struct {
			Name string `json:"name"`
		} `json:"stateEnteredEventDetails"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil || doc.Details == nil {
		return "", fmt.Errorf("event %d (%s) has no stateEnteredEventDetails", ev.ID, ev.Type)
	}
	return doc.Details.Name, nil
}

// BreakerRow reads the breaker row for key, without counting toward
// Stats.
func (s *Stack) BreakerRow(ctx context.Context, key string) (breaker.Row, error) {
	row, err := s.rows.Load(ctx, key)
	if err != nil {
		return breaker.Row{}, fmt.Errorf("local: %w", err)
	}
	return row, nil
}

// Rules is the stack's routing rules' store, for a caller that changes
// them from inside an executor event, where an admin execution cannot
// run (the simulation's operator lifting holds).
func (s *Stack) Rules() *rules.Store { return rules.NewStore(s.dynamo.api, s.Table) }

// Pending is what a stack holds that is not done: running executions of
// the redrive state machine, and messages on its queues (the parking lot's
// too).
type Pending struct {
	Executions, Messages int
}

// Pending counts what the stack holds that is not done (what Close
// drops).
func (s *Stack) Pending(ctx context.Context) Pending {
	var p Pending
	if running, err := s.Executor.ListExecutions(ctx, s.RedriveARN, executor.Running); err == nil {
		p.Executions = len(running)
	}
	for _, q := range []string{DLQName, ParkingLotName, SourceQueueName} {
		if d, err := s.SQSServer.Depth(s.QueueName(q)); err == nil {
			p.Messages += d.Total()
		}
	}
	return p
}
