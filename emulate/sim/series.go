package sim

import (
	"math"
	"slices"
	"sort"
	"time"

	"github.com/redrive/redrive/breaker"
)

// Series are a result's values over time, the report's charts. Times are
// minutes from Epoch; every per-strategy slice has one value per bucket.
type Series struct {
	// StepSeconds is the bucket width; Minutes the buckets' ends.
	StepSeconds float64   `json:"stepSeconds"`
	Minutes     []float64 `json:"minutes"`
	// Capacity is the consumer's calls per second.
	Capacity int `json:"capacity"`
	// Strategies are the per-strategy lines.
	Strategies []StrategySeries `json:"strategies"`
	// Health is the consumer's health over time.
	Health []Band `json:"health"`
	// Breakers are Redrive's breaker states over time, per key.
	Breakers []KeyBands `json:"breakers"`
}

// StrategySeries is one strategy's lines.
type StrategySeries struct {
	Name string `json:"name"`
	// PeakPerSecond is the most calls in one second within the bucket.
	PeakPerSecond []int `json:"peakPerSecond"`
	// Backlog counts messages arrived but not yet delivered or parked at
	// the bucket's end.
	Backlog []int `json:"backlog"`
	// Delivered counts deliveries so far, Parked messages parked so far.
	Delivered []int `json:"delivered"`
	Parked    []int `json:"parked"`
	// Cost is the estimated cost so far, in dollars.
	Cost []float64 `json:"cost"`
	// RoomDepth is the most messages waiting in the waiting room at a
	// reading within the bucket, and ReleaseRate the most releases per
	// second between two readings; both absent (nil) for a strategy
	// without a room.
	RoomDepth   []int     `json:"roomDepth,omitempty"`
	ReleaseRate []float64 `json:"releaseRate,omitempty"`
}

// Band is a stretch of time in one state.
type Band struct {
	From  float64 `json:"from"`
	To    float64 `json:"to"`
	State string  `json:"state"`
}

// KeyBands is one breaker's states over time.
type KeyBands struct {
	Key   string `json:"key"`
	Bands []Band `json:"bands"`
}

// HasRoom says some strategy has a waiting room, so the series have its
// lines (RoomDepth and ReleaseRate); without, the report leaves their
// charts out.
func (s Series) HasRoom() bool {
	return slices.ContainsFunc(s.Strategies, func(ss StrategySeries) bool { return ss.RoomDepth != nil })
}

// maxBuckets bounds the points of a line.
const maxBuckets = 300

// SeriesOf computes the report's series of r.
func SeriesOf(r Result) Series {
	span := r.span()
	step := max(time.Second, time.Duration(math.Ceil(float64(span)/maxBuckets/float64(time.Second)))*time.Second)
	n := int(math.Ceil(float64(span) / float64(step)))
	end := time.Duration(n) * step // the last bucket's end, where the charts' axes end
	out := Series{StepSeconds: step.Seconds(), Capacity: r.Scenario.Target.Capacity, Minutes: make([]float64, n)}
	for i := range n {
		out.Minutes[i] = minutes(time.Duration(i+1) * step)
	}
	arrivals := make([]time.Duration, len(r.Messages))
	for i, m := range r.Messages {
		arrivals[i] = m.Arrival
	}
	for i, o := range r.Outcomes {
		out.Strategies = append(out.Strategies, strategySeries(r.Scenario, o, arrivals, step, n))
		if o.HasBreaker {
			out.Breakers = append(out.Breakers, breakerBands(r.Outcomes[i].Transitions, end)...)
		}
	}
	out.Health = healthBands(r.Scenario, end)
	return out
}

// span is how much of the timeline the charts show: up to the latest of
// the outage's end, the last delivery and every run that ended before the
// horizon, plus a tenth, within the horizon.
func (r Result) span() time.Duration {
	_, end, _ := r.Scenario.Outage()
	for _, m := range r.Messages {
		end = max(end, m.Arrival)
	}
	for _, o := range r.Outcomes {
		if at := o.End.Sub(Epoch); at < r.Scenario.Horizon {
			end = max(end, at)
		}
		for _, at := range o.Delivered {
			end = max(end, at.Sub(Epoch))
		}
	}
	return min(r.Scenario.Horizon, max(time.Minute, end+end/10))
}

// strategySeries buckets one outcome.
func strategySeries(s Scenario, o Outcome, arrivals []time.Duration, step time.Duration, n int) StrategySeries {
	ss := StrategySeries{
		Name: o.Strategy, PeakPerSecond: make([]int, n), Backlog: make([]int, n),
		Delivered: make([]int, n), Parked: make([]int, n), Cost: make([]float64, n),
	}
	bucket := func(at time.Duration) int { return bucketOf(at, step, n) }

	// Epoch and step are whole seconds, so each second's calls fall in
	// one bucket, or all after the last.
	callsIn := make([]int, n)
	for sec, calls := range o.Calls.perSecond {
		at := time.Unix(sec, 0).Sub(Epoch)
		if at >= step*time.Duration(n) {
			continue
		}
		b := bucket(at)
		ss.PeakPerSecond[b] = max(ss.PeakPerSecond[b], calls)
		callsIn[b] += calls
	}

	arrivedIn := make([]int, n)
	for _, at := range arrivals {
		arrivedIn[bucket(at)]++
	}
	settledIn := make([]int, n)
	deliveredIn := make([]int, n)
	parkedIn := make([]int, n)
	for _, at := range o.Delivered {
		settledIn[bucket(at.Sub(Epoch))]++
		deliveredIn[bucket(at.Sub(Epoch))]++
	}
	for _, at := range o.Parked {
		settledIn[bucket(at.Sub(Epoch))]++
		parkedIn[bucket(at.Sub(Epoch))]++
	}

	samples := sortedSamples(o)
	if o.HasRoom {
		depth, rate := roomLines(samples)
		ss.RoomDepth, ss.ReleaseRate = heldPeaks(depth, step, n), heldPeaks(rate, step, n)
	}
	a := AssumptionsFor(s)
	arrived, settled, delivered, parked, calls, next := 0, 0, 0, 0, 0, 0
	var usage Usage
	for b := range n {
		arrived += arrivedIn[b]
		settled += settledIn[b]
		delivered += deliveredIn[b]
		parked += parkedIn[b]
		calls += callsIn[b]
		end := time.Duration(b+1) * step
		for next < len(samples) && samples[next].At <= end {
			usage = samples[next].Usage
			next++
		}
		usage.TargetCalls = int64(calls)
		ss.Backlog[b] = max(0, arrived-settled)
		ss.Delivered[b] = delivered
		ss.Parked[b] = parked
		ss.Cost[b] = ListPrices.Estimate(usage, a).Total()
	}
	return ss
}

// bucketOf is the bucket of offset at among n buckets step wide; offsets
// outside fall in the first or the last.
func bucketOf(at, step time.Duration, n int) int { return min(n-1, max(0, int(at/step))) }

// sortedSamples is a copy of o's samples in order of At.
func sortedSamples(o Outcome) []Sample {
	samples := append([]Sample(nil), o.Samples...)
	sort.Slice(samples, func(i, j int) bool { return samples[i].At < samples[j].At })
	return samples
}

// breakerBands are each breaker's states from Epoch to span, from its
// transitions; a breaker is CLOSED until its first change.
func breakerBands(ts []breaker.Transition, span time.Duration) []KeyBands {
	var out []KeyBands
	index := map[string]int{}
	for _, t := range ts {
		i, ok := index[t.Key]
		if !ok {
			i = len(out)
			index[t.Key] = i
			out = append(out, KeyBands{Key: t.Key, Bands: []Band{{From: 0, State: breaker.Closed.String()}}})
		}
		at := minutes(min(t.At.Sub(Epoch), span))
		bands := out[i].Bands
		bands[len(bands)-1].To = at
		out[i].Bands = append(bands, Band{From: at, State: t.To.String()})
	}
	for i := range out {
		out[i].Bands[len(out[i].Bands)-1].To = minutes(span)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

// healthBands is the consumer's health from Epoch to span.
func healthBands(s Scenario, span time.Duration) []Band {
	out := []Band{{From: 0, State: StateHealthy}}
	for _, p := range s.Target.Health {
		at := minutes(min(p.At, span))
		out[len(out)-1].To = at
		out = append(out, Band{From: at, State: p.State})
	}
	out[len(out)-1].To = minutes(span)
	return out
}

// minutes is d in minutes.
func minutes(d time.Duration) float64 { return d.Minutes() }
