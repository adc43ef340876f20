package sim

import (
	"encoding/json"
	"fmt"
	"io"
)

// SummaryVersion is Summary's schema version. Fields may be added without
// changing it; renaming, removing or changing the meaning of one changes
// it.
const SummaryVersion = 1

// Summary is a result's figures: the one source of both the table (Table,
// WriteTable) and the JSON that `redrive run -json` writes (WriteJSON), so
// the two always agree. Durations are in seconds, costs in US dollars; a
// figure that does not apply is null in JSON (a nil pointer here) where
// the table shows a word instead, and the booleans beside it say why.
type Summary struct {
	// Version is SummaryVersion.
	Version int `json:"version"`
	// Scenario is what was played.
	Scenario ScenarioFigures `json:"scenario"`
	// Strategies are the strategies' figures, in the table's order.
	Strategies []Figures `json:"strategies"`
	// WallSeconds is the wall-clock time of the whole play (the strategies
	// run one after another).
	WallSeconds float64 `json:"wallSeconds"`
}

// ScenarioFigures identifies the scenario of a Summary.
type ScenarioFigures struct {
	// Name and Seed are the scenario's; with the scenario file they
	// replay the run.
	Name string `json:"name"`
	Seed int64  `json:"seed"`
	// Description is the scenario's one-line description.
	Description string `json:"description"`
	// Messages is how many messages were dead-lettered.
	Messages int `json:"messages"`
	// Capacity is the consumer's calls per second.
	Capacity int `json:"capacity"`
	// Groups is how many FIFO message groups the messages are in; absent
	// for a standard queue.
	Groups int `json:"groups,omitempty"`
}

// Figures are one strategy's figures on a scenario: a column of the table.
type Figures struct {
	// Strategy names the strategy, e.g. "redrive".
	Strategy string `json:"strategy"`

	// OutageCalls counts calls that reached the consumer while it was not
	// healthy (the amplification of the outage); Calls counts them all,
	// Throttled those refused as beyond its capacity.
	OutageCalls int `json:"outageCalls"`
	Calls       int `json:"calls"`
	Throttled   int `json:"throttled"`
	// PeakCallsPerSecond is the most calls in one second;
	// PeakOverCapacity is it over the consumer's capacity.
	PeakCallsPerSecond int     `json:"peakCallsPerSecond"`
	PeakOverCapacity   float64 `json:"peakOverCapacity"`

	// HasBreaker says the strategy has circuit breakers; Recovered says
	// the scenario has a recovery (the consumer failed, then became healthy
	// for good); BreakerClosed says every breaker that was not CLOSED at
	// the recovery closed after it.
	HasBreaker    bool `json:"hasBreaker"`
	Recovered     bool `json:"recovered"`
	BreakerClosed bool `json:"breakerClosed"`
	// BreakerClosedSeconds is the recovery to the last of those closes;
	// null without a breaker, a recovery or a close.
	BreakerClosedSeconds *float64 `json:"breakerClosedSeconds"`
	// FirstDeliverySeconds is the recovery to the first delivery after it;
	// null without one.
	FirstDeliverySeconds *float64 `json:"firstDeliverySeconds"`

	// DeliveredAfterRecovery counts the deliveries after the recovery;
	// Drained says every message that is not poison was delivered by the
	// end.
	DeliveredAfterRecovery int  `json:"deliveredAfterRecovery"`
	Drained                bool `json:"drained"`
	// DrainSeconds is the recovery to the last delivery (the drain time
	// when Drained); PhysicalDrainSeconds is the least time the consumer's
	// capacity allows for DeliveredAfterRecovery, DrainOverPhysical the
	// first over the second. All three are null when nothing was
	// delivered after the recovery.
	DrainSeconds         *float64 `json:"drainSeconds"`
	PhysicalDrainSeconds *float64 `json:"physicalDrainSeconds"`
	DrainOverPhysical    *float64 `json:"drainOverPhysical"`

	// BreakerChanges counts breaker state changes; null without a breaker.
	BreakerChanges *int `json:"breakerChanges"`
	// TransitionsPerMessage counts Step Functions state transitions, and
	// DynamoReadsPerMessage and DynamoWritesPerMessage DynamoDB request
	// units, per dead-lettered message.
	TransitionsPerMessage  float64 `json:"transitionsPerMessage"`
	DynamoReadsPerMessage  float64 `json:"dynamoReadsPerMessage"`
	DynamoWritesPerMessage float64 `json:"dynamoWritesPerMessage"`
	// CostPerMillion is the estimated cost scaled to a million messages.
	CostPerMillion CostFigures `json:"costPerMillion"`

	// Delivered, Parked, Pending and Lost count every message exactly
	// once; DeliveredTwice counts messages the consumer processed more
	// than once (or processed and that were also parked).
	Delivered      int `json:"delivered"`
	Parked         int `json:"parked"`
	Pending        int `json:"pending"`
	Lost           int `json:"lost"`
	DeliveredTwice int `json:"deliveredTwice"`
	// DeliveredOutOfOrder counts, in a FIFO scenario, the deliveries that
	// came after a later message of their group had been delivered;
	// absent otherwise.
	DeliveredOutOfOrder *int `json:"deliveredOutOfOrder,omitempty"`

	// PeakRoomDepth is the most messages waiting in the waiting room at a
	// reading, PeakReleasesPerSecond the most releases per second between
	// two readings; both null for a strategy without a waiting room.
	PeakRoomDepth         *int     `json:"peakRoomDepth"`
	PeakReleasesPerSecond *float64 `json:"peakReleasesPerSecond"`

	// QuotaPeakUse is each account quota's peak use as a fraction of it
	// (see quota.Report), QuotaThrottles the calls each throttled
	// (refused, or state transitions delayed), both keyed by the quota's
	// name; null when the scenario has no quotas, or the strategy keeps
	// no account (the bulk move). PeakOpenStandardExecutions is the most
	// Standard executions open at once, quotas or not; null for a
	// strategy without executions.
	QuotaPeakUse               map[string]float64 `json:"quotaPeakUse"`
	QuotaThrottles             map[string]int64   `json:"quotaThrottles"`
	PeakOpenStandardExecutions *int               `json:"peakOpenStandardExecutions"`

	// SimulatedSeconds is the simulated time the run took, WallSeconds the
	// wall-clock time.
	SimulatedSeconds float64 `json:"simulatedSeconds"`
	WallSeconds      float64 `json:"wallSeconds"`
}

// CostFigures is an estimated cost in US dollars and its parts.
type CostFigures struct {
	Total         float64 `json:"total"`
	StepFunctions float64 `json:"stepFunctions"`
	Lambda        float64 `json:"lambda"`
	DynamoDB      float64 `json:"dynamoDB"`
	Logs          float64 `json:"logs"`
	S3            float64 `json:"s3"`
}

// SummaryOf is r's figures.
func SummaryOf(r Result) Summary {
	out := Summary{
		Version: SummaryVersion,
		Scenario: ScenarioFigures{
			Name: r.Scenario.Name, Seed: r.Scenario.Seed, Description: r.Scenario.Description,
			Messages: r.Scenario.Messages.Count, Capacity: r.Scenario.Target.Capacity, Groups: r.Scenario.Messages.Groups,
		},
		WallSeconds: r.Wall.Seconds(),
	}
	for _, m := range r.Metrics {
		out.Strategies = append(out.Strategies, m.Figures())
	}
	return out
}

// Figures is m's figures.
func (m Metrics) Figures() Figures {
	n := float64(m.Messages)
	f := Figures{
		Strategy:    m.Strategy,
		OutageCalls: m.OutageCalls, Calls: m.Calls, Throttled: m.Throttled,
		PeakCallsPerSecond: m.PeakRate, PeakOverCapacity: float64(m.PeakRate) / float64(m.Capacity),
		HasBreaker: m.HasBreaker, Recovered: m.Recovered, BreakerClosed: m.BreakerClosed,
		DeliveredAfterRecovery: m.DrainedCount, Drained: m.Drained,
		TransitionsPerMessage:  m.TransitionsPer,
		DynamoReadsPerMessage:  float64(m.Usage.DynamoReads) / n,
		DynamoWritesPerMessage: float64(m.Usage.DynamoWrites) / n,
		CostPerMillion:         costFigures(m.CostPerMillion),
		Delivered:              m.Delivered, Parked: m.Parked, Pending: m.Pending, Lost: m.Lost, DeliveredTwice: m.Twice,
		SimulatedSeconds: m.End.Seconds(), WallSeconds: m.Wall.Seconds(),
	}
	if m.HasBreaker {
		f.BreakerChanges = ptr(m.BreakerChanges)
		if m.Recovered && m.BreakerClosed {
			f.BreakerClosedSeconds = ptr(m.RecoveryLatency.Seconds())
		}
	}
	if m.FIFO {
		f.DeliveredOutOfOrder = ptr(m.OutOfOrder)
	}
	if m.HasFirstDelivery {
		f.FirstDeliverySeconds = ptr(m.FirstDelivery.Seconds())
	}
	if m.DrainedCount > 0 {
		f.DrainSeconds = ptr(m.DrainTime.Seconds())
		f.PhysicalDrainSeconds = ptr(m.PhysicalDrain.Seconds())
		f.DrainOverPhysical = ptr(m.DrainTime.Seconds() / max(m.PhysicalDrain.Seconds(), 1e-9))
	}
	if m.HasRoom {
		f.PeakRoomDepth, f.PeakReleasesPerSecond = ptr(m.PeakRoomDepth), ptr(m.PeakReleaseRate)
	}
	if q := m.Quotas; q != nil {
		f.PeakOpenStandardExecutions = ptr(q.PeakOpenStandard)
		if m.QuotasOn {
			f.QuotaPeakUse, f.QuotaThrottles = map[string]float64{}, map[string]int64{}
			for n, u := range q.PeakUse {
				f.QuotaPeakUse[string(n)] = u
			}
			for n, c := range q.Throttles {
				f.QuotaThrottles[string(n)] = c
			}
		}
	}
	return f
}

// costFigures is c with its total.
func costFigures(c Cost) CostFigures {
	return CostFigures{Total: c.Total(), StepFunctions: c.StepFunctions, Lambda: c.Lambda, DynamoDB: c.DynamoDB, Logs: c.Logs, S3: c.S3}
}

// ptr is a pointer to v, for a figure that may be null.
func ptr[T any](v T) *T { return &v }

// WriteJSON writes r's Summary as indented JSON.
func WriteJSON(w io.Writer, r Result) error {
	data, err := json.MarshalIndent(SummaryOf(r), "", "  ")
	if err != nil {
		return fmt.Errorf("sim: summary: %w", err)
	}
	if _, err := w.Write(append(data, '\n')); err != nil {
		return fmt.Errorf("sim: write summary: %w", err)
	}
	return nil
}
