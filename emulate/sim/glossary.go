package sim

import "github.com/redrive/redrive/breaker"

// term is a glossary entry of the report.
type term struct {
	Name       string
	Definition string
}

// glossary explains the report's words: its figures' (amplification,
// physical limit, parked, room depth, release rate), the breaker's states
// in the state strip and the verdicts in the journeys' details.
func glossary() []term {
	return []term{
		{"amplification", "the calls that reached the consumer while it was unhealthy (down or degraded): the load a strategy adds " +
			"to an outage (the row \"calls during the outage\")."},
		{"physical limit", "the least time the consumer's capacity allows for the deliveries after it recovered: those deliveries " +
			"over its calls per second. A drain's time over it (1.0x is as fast as the consumer takes) says how much slower a strategy drained."},
		{"parked", "set aside for a person: in the parking lot (poison at once, or a message whose tries all failed), or, for the bulk move, " +
			"left in the DLQ at the end."},
		{"waiting room", "where Redrive keeps a message that would only wait (its breaker not CLOSED, paced out or throttled, or backing off " +
			"long): a document in the table under its breaker key, in line by when it may go, not a running execution."},
		{"room depth", "the messages waiting in the waiting room at a reading (the chart: the most at a reading within each bucket)."},
		{"release rate", "the messages per second the breakers' controllers release from the waiting room, each into a delivery try: " +
			"while a breaker is CLOSED the due messages at the pace the consumer takes, discovered as they go; while OPEN one probe per cooldown; " +
			"while HALF_OPEN one per free canary permit."},
		{breaker.Closed.String(), "the breaker admits every delivery (pausing for a moment after the consumer throttled one); " +
			"failures count toward a trip."},
		{breaker.Open.String(), "tripped: every message waits in the room until the cooldown ends, then one is released as a probe."},
		{breaker.HalfOpen.String(), "probing: a few canary deliveries, each under a lease, close the breaker or open it again."},
		{breaker.ForcedOpen.String() + ", " + breaker.ForcedClosed.String(), "held open or closed by an operator, optionally until a time."},
		{breaker.Proceed.String(), "the Attempt's verdict to deliver the message, and report the outcome under the admission ticket."},
		{breaker.Canary.String(), "the Attempt's verdict to deliver the message as a HALF_OPEN probe, under a lease the outcome presents."},
		{breaker.Wait.String(), "the Attempt's verdict not to deliver and ask again after a wait; given only for a breaker row in a state " +
			"a newer version wrote."},
		{breaker.Queue.String(), "the Attempt's verdict not to deliver: the message waits in the waiting room until its breaker's controller " +
			"releases it (the breaker is open, its probe is out, no canary permit is free, it is forced open, or the consumer is throttling)."},
	}
}
