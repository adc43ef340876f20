package sim

import (
	"context"
	"time"

	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/emulate/quota"
	"github.com/redrive/redrive/emulate/simtarget"
)

// Strategy is one way of redriving a scenario's DLQ.
type Strategy interface {
	// Name is the strategy's column in the table, e.g. "redrive".
	Name() string
	// Run plays the scenario's messages against a fresh simulated
	// consumer on a fresh virtual clock starting at Epoch, and reports
	// what happened. It reports progress and breaker transitions to obs.
	Run(ctx context.Context, s Scenario, msgs []Message, obs Observer) (Outcome, error)
}

// Observer follows strategies while they run. Its methods are called from
// the simulation's goroutines and must be safe for concurrent use.
type Observer interface {
	// Progress reports that at virtual offset now, settled of total
	// messages are delivered or parked.
	Progress(strategy string, now time.Duration, settled, total int)
	// Transition reports a breaker state change.
	Transition(strategy string, t breaker.Transition)
}

// CallObserver is an Observer that also follows the consumer's calls one
// by one, as a test does that looks at single calls; the figures need
// only their tally (Outcome.Calls). A strategy passes every call to Call
// as the consumer records it, with the consumer's lock held; Redrive's
// calls carry SQS origin ids, not the scenario's message ids.
type CallObserver interface {
	Observer
	// Call reports one call of strategy's consumer.
	Call(strategy string, c simtarget.Call)
}

// Outcome is what one strategy did with a scenario: the tally of the
// consumer's calls and the strategy's own account of every message.
// Metrics compares the two, so a message the strategy calls delivered that
// the consumer never processed counts as lost.
type Outcome struct {
	// Strategy is the strategy's name.
	Strategy string
	// Calls is the tally of the consumer's calls, its deliveries counted
	// by the scenario's message ids.
	Calls CallTally
	// Delivered is when each message the strategy considers done was
	// acknowledged, by message id.
	Delivered map[string]time.Time
	// Parked is when each message set aside for a person got there
	// (parking lot, or left in the DLQ), by message id.
	Parked map[string]time.Time
	// Pending lists messages still being worked on when the run ended.
	Pending map[string]bool
	// HasBreaker says the strategy has circuit breakers; Transitions are
	// their state changes, oldest first.
	HasBreaker  bool
	Transitions []breaker.Transition
	// Usage is what the run consumed of billable resources.
	Usage Usage
	// Samples is Usage over time, at the scenario's sample step.
	Samples []Sample
	// HasRoom says the strategy has a waiting room, read into every
	// Sample's Room.
	HasRoom bool
	// End is when the run ended: every message settled, or the horizon.
	End time.Time
	// Wall is how long the run took in wall-clock time.
	Wall time.Duration
	// Quotas is what the strategy's account used of its quotas; nil for
	// a strategy that keeps no account (the bulk move, which has its own
	// rate).
	Quotas *quota.Report
	// Journeys are a few messages followed step by step through the
	// Step Functions execution that settled them, read from the
	// executor's histories before it closed, for the report only (not
	// the table, nor the JSON): the first message to arrive, the
	// delivered and the parked message whose execution took longest, at
	// most one each (one message picked twice is shown once), of those
	// whose history the executor kept. Nil for a strategy without
	// executions (the bulk move). Picking them is deterministic for a
	// seed and reads a handful of histories, whatever the scale (see
	// journeyPicker).
	Journeys []Journey
}

// Usage counts the billable work of a run.
type Usage struct {
	// Transitions counts Standard workflows' state transitions.
	Transitions int64
	// ExpressStarts counts Express executions, ExpressDuration their
	// billed durations, LogBytes what they log.
	ExpressStarts   int64
	ExpressDuration time.Duration
	LogBytes        int64
	// S3Puts and S3Gets count the claim check's requests.
	S3Puts, S3Gets int64
	// Invocations counts the orchestrator's own Lambda invocations, by
	// function (local's names); each is billed at its function's
	// memory size.
	Invocations map[string]int64
	// ReleaseTime is the time the release function's invocations spent
	// pacing their ticks (sleeping between releases), billed besides
	// their work.
	ReleaseTime time.Duration
	// TargetCalls counts invocations of the consumer.
	TargetCalls int64
	// WaitedCalls counts consumer calls the attempt function waited on
	// (billed as its duration too).
	WaitedCalls int64
	// DynamoReads and DynamoWrites count request units; failed
	// conditional writes are billed and counted as writes, and so are the
	// writes the table's indexes take (on the in-process table).
	DynamoReads, DynamoWrites int64
}

// Sample is the usage at one point of a run.
type Sample struct {
	// At is the offset from Epoch.
	At time.Duration
	// Usage is the total so far.
	Usage Usage
	// Room is the waiting room's reading, when the Outcome HasRoom.
	Room RoomReading
}

// sampleStep is the scenario's sampling interval for progress, usage and
// the report's series: about 360 points over the horizon, whole seconds.
func (s Scenario) sampleStep() time.Duration {
	return max(time.Second, (s.Horizon / 360).Truncate(time.Second))
}
