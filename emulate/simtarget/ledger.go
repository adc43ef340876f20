package simtarget

import (
	"fmt"
	"time"
)

// Outcome is what happened to one record of an invocation.
type Outcome int

// The outcomes of a record.
const (
	// OutcomeDelivered: the consumer processed the record.
	OutcomeDelivered Outcome = iota
	// OutcomeThrottled: the invocation was over capacity.
	OutcomeThrottled
	// OutcomeUnavailable: the target was down, or degraded and the record
	// drew a failure.
	OutcomeUnavailable
	// OutcomePoison: the record is poison.
	OutcomePoison
	// OutcomeRejected: the record is one the consumer always fails on.
	OutcomeRejected
)

var outcomeNames = [...]string{"DELIVERED", "THROTTLED", "UNAVAILABLE", "POISON", "REJECTED"}

// String returns the outcome's name, e.g. "THROTTLED".
func (o Outcome) String() string {
	if o < 0 || int(o) >= len(outcomeNames) {
		return fmt.Sprintf("Outcome(%d)", int(o))
	}
	return outcomeNames[o]
}

// Record is one record of an invocation.
type Record struct {
	// MessageID is the record's SQS message id.
	MessageID string
	// OriginID is the message's first id, from its redrive lineage.
	OriginID string
	// Group and Sequence are a FIFO record's MessageGroupId and
	// SequenceNumber; "" from a standard queue.
	Group, Sequence string
	// Outcome is what happened to it.
	Outcome Outcome
}

// Call is one invocation of the consumer.
type Call struct {
	// At is when it arrived (executor time).
	At time.Time
	// Health is the target's condition then.
	Health Health
	// Records are the event's records, in order.
	Records []Record
}

// Ledger is a snapshot of a Target's invocations, oldest first.
type Ledger struct {
	calls []Call
}

// Calls returns the invocations.
func (l Ledger) Calls() []Call { return l.calls }

// Deliveries counts successful deliveries per origin id.
func (l Ledger) Deliveries() map[string]int {
	out := map[string]int{}
	for _, c := range l.calls {
		for _, r := range c.Records {
			if r.Outcome == OutcomeDelivered {
				out[r.OriginID]++
			}
		}
	}
	return out
}

// Count counts records with outcome o.
func (l Ledger) Count(o Outcome) int {
	n := 0
	for _, c := range l.calls {
		for _, r := range c.Records {
			if r.Outcome == o {
				n++
			}
		}
	}
	return n
}

// CallsWhile counts invocations that arrived while the target was in h;
// CallsWhile(Down) is the amplification of an outage.
func (l Ledger) CallsWhile(h Health) int {
	n := 0
	for _, c := range l.calls {
		if c.Health == h {
			n++
		}
	}
	return n
}

// CallsBetween counts invocations that arrived in [from, to).
func (l Ledger) CallsBetween(from, to time.Time) int {
	n := 0
	for _, c := range l.calls {
		if !c.At.Before(from) && c.At.Before(to) {
			n++
		}
	}
	return n
}

// PerSecond counts invocations per virtual second (keyed by the second's
// start), throttled ones included: the load the target saw.
func (l Ledger) PerSecond() map[time.Time]int {
	out := map[time.Time]int{}
	for _, c := range l.calls {
		out[c.At.Truncate(time.Second)]++
	}
	return out
}

// PeakRate is the most invocations that arrived in one virtual second.
func (l Ledger) PeakRate() int {
	peak := 0
	for _, n := range l.PerSecond() {
		peak = max(peak, n)
	}
	return peak
}
