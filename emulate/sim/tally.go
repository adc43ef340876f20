package sim

import (
	"strconv"
	"time"

	"github.com/redrive/redrive/emulate/simtarget"
)

// CallTally is what the figures (Measure) and the report's series
// (SeriesOf) need of a consumer's calls, kept as the consumer records each
// call (simtarget.Options.Tally) instead of a ledger of every call: its
// memory follows the simulated seconds and the messages, not the calls. A
// tally is made by NewCallTally; the zero value is the tally of no calls.
type CallTally struct {
	// outageFrom and recovery bound the scenario's outage; recovered says
	// it has one (Scenario.Outage).
	outageFrom, recovery time.Time
	recovered            bool

	// calls counts the calls, outageCalls the ones in the outage, and
	// throttled the records refused as beyond capacity.
	calls, outageCalls, throttled int
	// perSecond counts the calls per virtual second (its Unix time).
	perSecond map[int64]int
	// deliveries counts the deliveries per origin id.
	deliveries map[string]int
	// drained counts the deliveries at or after the recovery; firstAfter
	// and lastAfter are when the first and the last of them came.
	drained               int
	firstAfter, lastAfter time.Time
	// lastInGroup is the highest sequence number delivered of each FIFO
	// message group so far, and outOfOrder counts the deliveries that
	// came after a later message of their group.
	lastInGroup map[string]uint64
	outOfOrder  int
}

// NewCallTally is an empty tally of a consumer's calls in s.
func NewCallTally(s Scenario) *CallTally {
	from, to, recovered := s.Outage()
	return &CallTally{
		outageFrom: Epoch.Add(from), recovery: Epoch.Add(to), recovered: recovered,
		perSecond: map[int64]int{}, deliveries: map[string]int{}, lastInGroup: map[string]uint64{},
	}
}

// Add counts one call, in the consumer's order of calls: it is the
// consumer's simtarget.Options.Tally.
func (t *CallTally) Add(c simtarget.Call) {
	t.calls++
	t.perSecond[c.At.Unix()]++
	if t.recovered && !c.At.Before(t.outageFrom) && c.At.Before(t.recovery) {
		t.outageCalls++
	}
	for _, r := range c.Records {
		switch r.Outcome {
		case simtarget.OutcomeThrottled:
			t.throttled++
		case simtarget.OutcomeDelivered:
			t.deliveries[r.OriginID]++
			t.checkOrder(r)
			if t.recovered && !c.At.Before(t.recovery) {
				t.drained++
				if t.firstAfter.IsZero() {
					t.firstAfter = c.At
				}
				t.lastAfter = c.At
			}
		}
	}
}

// checkOrder counts r, a delivery, as out of order if a later message of
// its FIFO group was delivered before it. A delivery again of the latest
// is in order (it counts as delivered twice).
func (t *CallTally) checkOrder(r simtarget.Record) {
	if r.Group == "" {
		return
	}
	seq, err := strconv.ParseUint(r.Sequence, 10, 64)
	switch last, seen := t.lastInGroup[r.Group]; {
	case err != nil || (seen && seq < last):
		t.outOfOrder++
	default:
		t.lastInGroup[r.Group] = seq
	}
}

// DeliveriesOf is how many times the consumer processed the message whose
// origin id is id.
func (t *CallTally) DeliveriesOf(id string) int { return t.deliveries[id] }

// peakRate is the most calls that arrived in one virtual second.
func (t *CallTally) peakRate() int {
	peak := 0
	for _, n := range t.perSecond {
		peak = max(peak, n)
	}
	return peak
}

// rename counts the deliveries of every origin byOrigin maps under the id
// it maps it to (a scenario's message id); others stay under their origin.
func (t *CallTally) rename(byOrigin map[string]string) {
	renamed := make(map[string]int, len(t.deliveries))
	for origin, n := range t.deliveries {
		if id, ok := byOrigin[origin]; ok {
			origin = id
		}
		renamed[origin] += n
	}
	t.deliveries = renamed
}

// tallyCalls is the consumer's Tally of a strategy: it adds each call to
// calls and, when obs is a CallObserver, passes the call on to it.
func tallyCalls(calls *CallTally, strategy string, obs Observer) func(simtarget.Call) {
	co, ok := obs.(CallObserver)
	if !ok {
		return calls.Add
	}
	return func(c simtarget.Call) {
		calls.Add(c)
		co.Call(strategy, c)
	}
}
