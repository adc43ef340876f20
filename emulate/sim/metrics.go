package sim

import (
	"cmp"
	"time"

	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/emulate/quota"
)

// Metrics are one strategy's figures on a scenario, the table's column.
type Metrics struct {
	// Strategy names the strategy.
	Strategy string
	// Messages is the scenario's message count.
	Messages int

	// OutageCalls counts calls that reached the target while it was not
	// healthy (the amplification of the outage); Calls counts them all,
	// Throttled the ones beyond capacity.
	OutageCalls, Calls, Throttled int

	// Recovered says the scenario has a recovery (the target failed, then
	// became healthy for good) at Recovery.
	Recovered bool
	Recovery  time.Duration
	// BreakerClosed says every breaker that was not CLOSED at the recovery
	// closed after it; RecoveryLatency is how long the last one took. Zero
	// for a strategy without a breaker (HasBreaker false).
	HasBreaker      bool
	BreakerClosed   bool
	RecoveryLatency time.Duration
	// FirstDelivery is the recovery to the first delivery after it;
	// HasFirstDelivery says there was one.
	HasFirstDelivery bool
	FirstDelivery    time.Duration

	// Drained says every message that is not poison was delivered by the
	// end; DrainTime is the recovery to the last delivery, DrainedCount the
	// deliveries after the recovery, and PhysicalDrain the least time the
	// target's capacity allows for them (DrainedCount / capacity).
	Drained        bool
	DrainTime      time.Duration
	DrainedCount   int
	PhysicalDrain  time.Duration
	PeakRate       int
	Capacity       int
	TransitionsPer float64
	BreakerChanges int

	// Usage and Cost are the run's totals; CostPerMillion is Cost scaled
	// to a million messages.
	Usage          Usage
	Cost           Cost
	CostPerMillion Cost

	// Delivered, Parked, Pending and Lost count every message exactly
	// once; Twice counts messages the consumer processed more than once
	// (or processed and that were also parked).
	Delivered, Parked, Pending, Lost, Twice int
	// FIFO says the scenario's messages are in FIFO groups; OutOfOrder
	// counts the deliveries that came after a later message of their
	// group.
	FIFO       bool
	OutOfOrder int

	// HasRoom says the strategy has a waiting room; PeakRoomDepth is the
	// most messages waiting in it at a reading, PeakReleaseRate the most
	// releases per second between two readings.
	HasRoom         bool
	PeakRoomDepth   int
	PeakReleaseRate float64

	// Quotas is what the strategy's account used of its quotas (nil for
	// one without an account); QuotasOn says the scenario has quotas.
	Quotas   *quota.Report
	QuotasOn bool

	// End is the simulated time the run took; Wall the wall-clock time.
	End  time.Duration
	Wall time.Duration
}

// Measure computes a strategy's metrics from its outcome.
func Measure(s Scenario, msgs []Message, o Outcome, prices Prices) Metrics {
	m := Metrics{
		Strategy: o.Strategy, Messages: len(msgs), Calls: o.Calls.calls, Capacity: s.Target.Capacity,
		HasBreaker: o.HasBreaker, End: o.End.Sub(Epoch), Wall: o.Wall, BreakerChanges: len(o.Transitions),
		Quotas: o.Quotas, QuotasOn: cmp.Or(s.Quotas, DefaultQuotas) != quotasNone.Name,
		FIFO: s.Messages.Groups > 0, OutOfOrder: o.Calls.outOfOrder,
	}
	_, to, recovered := s.Outage()
	m.Recovered, m.Recovery = recovered, to
	recoveredAt := Epoch.Add(to)

	m.OutageCalls, m.Throttled, m.DrainedCount = o.Calls.outageCalls, o.Calls.throttled, o.Calls.drained
	m.PeakRate = o.Calls.peakRate()

	deliverable := 0
	for _, msg := range msgs {
		if !msg.Poison {
			deliverable++
		}
		n := o.Calls.DeliveriesOf(msg.ID)
		_, delivered := o.Delivered[msg.ID]
		_, parked := o.Parked[msg.ID]
		switch {
		case delivered && n > 0:
			m.Delivered++
		case parked:
			m.Parked++
		case o.Pending[msg.ID]:
			m.Pending++
		default:
			m.Lost++
		}
		if n > 1 || (n > 0 && parked) {
			m.Twice++
		}
	}

	if recovered {
		m.HasFirstDelivery = !o.Calls.firstAfter.IsZero()
		m.FirstDelivery = o.Calls.firstAfter.Sub(recoveredAt)
		m.Drained = m.DrainedCount > 0 && m.Delivered >= deliverable
		m.DrainTime = o.Calls.lastAfter.Sub(recoveredAt)
		m.PhysicalDrain = time.Duration(float64(m.DrainedCount) / float64(s.Target.Capacity) * float64(time.Second))
		m.BreakerClosed, m.RecoveryLatency = closedAfter(o.Transitions, recoveredAt)
	}

	if o.HasRoom {
		depth, rate := roomLines(sortedSamples(o))
		m.HasRoom, m.PeakRoomDepth, m.PeakReleaseRate = true, peak(depth), peak(rate)
	}

	o.Usage.TargetCalls = int64(o.Calls.calls)
	m.Usage = o.Usage
	m.TransitionsPer = float64(o.Usage.Transitions) / float64(len(msgs))
	m.Cost = prices.Estimate(o.Usage, AssumptionsFor(s))
	m.CostPerMillion = m.Cost.Scale(1e6 / float64(len(msgs)))
	return m
}

// closedAfter reports whether every breaker that was not CLOSED at t
// closed after it, and how long after t the last one did. A breaker's
// state at t is the To of its last transition before t (CLOSED if none).
func closedAfter(ts []breaker.Transition, t time.Time) (bool, time.Duration) {
	state := map[string]breaker.State{}
	closedAt := map[string]time.Time{}
	for _, tr := range ts {
		if tr.At.Before(t) {
			state[tr.Key] = tr.To
			continue
		}
		if _, done := closedAt[tr.Key]; !done && tr.To == breaker.Closed && state[tr.Key] != breaker.Closed {
			closedAt[tr.Key] = tr.At
		}
	}
	var latency time.Duration
	for key, st := range state {
		if st == breaker.Closed {
			continue
		}
		at, ok := closedAt[key]
		if !ok {
			return false, 0
		}
		latency = max(latency, at.Sub(t))
	}
	return true, latency
}
