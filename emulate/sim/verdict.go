package sim

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// verdict is what one strategy did, in a sentence for the report's top:
// its Strategy's name, then Text.
type verdict struct {
	Strategy string
	Text     string
}

// verdictsOf says, per strategy of r, what happened: how many messages it
// delivered (and how long after the recovery the last one), parked, left
// pending, lost or delivered twice, how many calls it put on the
// unhealthy consumer, and its estimated cost per million messages and per
// million delivered.
func verdictsOf(r Result) []verdict {
	sum := SummaryOf(r)
	unhealthy := everUnhealthy(r.Scenario)
	var out []verdict
	for _, f := range sum.Strategies {
		var parts []string
		if f.Delivered == 0 {
			parts = append(parts, fmt.Sprintf("delivered none of the %s messages", thousands(int64(sum.Scenario.Messages))))
		} else {
			d := fmt.Sprintf("delivered %s of %s messages", thousands(int64(f.Delivered)), thousands(int64(sum.Scenario.Messages)))
			if f.Recovered && f.DrainSeconds != nil {
				d += fmt.Sprintf(", the last %s after the consumer recovered (%.1fx the physical limit)",
					clockSeconds(*f.DrainSeconds), *f.DrainOverPhysical)
			}
			parts = append(parts, d)
		}
		parts = append(parts, fmt.Sprintf("parked %s for a person", thousands(int64(f.Parked))))
		for _, c := range []struct {
			n    int
			what string
		}{{f.Pending, "left %s pending at the end"}, {f.Lost, "lost %s"}, {f.DeliveredTwice, "delivered %s twice"}} {
			if c.n > 0 {
				parts = append(parts, fmt.Sprintf(c.what, thousands(int64(c.n))))
			}
		}
		if unhealthy {
			parts = append(parts, fmt.Sprintf("put %s on the consumer while it was unhealthy", plural(f.OutageCalls, "call")))
		} else {
			parts = append(parts, fmt.Sprintf("made %s on the consumer, which was healthy throughout", plural(f.Calls, "call")))
		}
		parts = append(parts, "est. cost "+dollars(f.CostPerMillion.Total)+" per million messages, "+costPerDelivered(f, sum.Scenario.Messages))
		out = append(out, verdict{Strategy: f.Strategy, Text: strings.Join(parts, "; ") + "."})
	}
	return out
}

// everUnhealthy says the scenario's consumer is unhealthy at some time.
func everUnhealthy(s Scenario) bool {
	for _, p := range s.Target.Health {
		if p.State != StateHealthy {
			return true
		}
	}
	return false
}

// perDelivered is f's estimated cost per million messages delivered (of
// messages dead-lettered in all), and whether it delivered any.
func perDelivered(f Figures, messages int) (float64, bool) {
	if f.Delivered == 0 {
		return 0, false
	}
	return f.CostPerMillion.Total * float64(messages) / float64(f.Delivered), true
}

// costPerDelivered is the table's cell of perDelivered.
func costPerDelivered(f Figures, messages int) string {
	v, ok := perDelivered(f, messages)
	if !ok {
		return "nothing delivered"
	}
	return dollars(v) + " per million delivered"
}

// baseline is a baseline strategy's settings, described from the values
// it runs with.
type baseline struct {
	Strategy string
	Text     string
}

// baselinesOf describes the settings of the baselines among r's
// strategies: the naive backoff's retry, read from the workflow it runs,
// and the bulk move's schedule, rate and queue settings.
func baselinesOf(r Result) ([]baseline, error) {
	var out []baseline
	for _, o := range r.Outcomes {
		switch o.Strategy {
		case NaiveBackoff{}.Name():
			text, err := naiveSettings(r.Scenario)
			if err != nil {
				return nil, err
			}
			out = append(out, baseline{Strategy: o.Strategy, Text: text})
		case BulkMove{}.Name():
			out = append(out, baseline{Strategy: o.Strategy, Text: bulkSettings(r.Scenario.Bulk)})
		}
	}
	return out, nil
}

// naiveSettings describes the naive backoff's retry as its workflow's
// definition for s states it.
func naiveSettings(s Scenario) (string, error) {
	def, err := naiveDefinition(s)
	if err != nil {
		return "", err
	}
	var asl struct {
		States map[string]struct {
			Retry []struct {
				ErrorEquals     []string
				IntervalSeconds int
				MaxAttempts     int
				BackoffRate     float64
				MaxDelaySeconds int
				JitterStrategy  string
			}
		}
	}
	if err := json.Unmarshal([]byte(def), &asl); err != nil {
		return "", fmt.Errorf("sim: naive definition: %w", err)
	}
	for _, rt := range asl.States["Deliver"].Retry {
		if len(rt.ErrorEquals) != 1 || rt.ErrorEquals[0] != "States.ALL" {
			continue
		}
		tries := rt.MaxAttempts + 1
		interval := time.Duration(rt.IntervalSeconds) * time.Second
		limit := time.Duration(rt.MaxDelaySeconds) * time.Second
		var longest time.Duration // all waits at their most
		wait := interval
		for range rt.MaxAttempts {
			longest += min(wait, limit)
			wait = time.Duration(float64(wait) * rt.BackoffRate)
		}
		growth := fmt.Sprintf("growing %gx", rt.BackoffRate)
		if rt.BackoffRate == 2 {
			growth = "doubling"
		}
		jitter := ""
		if rt.JitterStrategy == "FULL" {
			jitter = ", with full jitter (each wait random, up to that)"
		}
		return fmt.Sprintf("one Step Functions Standard execution per dead-lettered message, started as it arrives, "+
			"tries the consumer up to %s; the waits between tries start at %s, %s up to at most %s%s, "+
			"so a message whose tries all fail is parked within about %s of its first; poison is parked at once.",
			plural(tries, "time"), spoken(interval), growth, spoken(limit), jitter, spoken(longest)), nil
	}
	return "", fmt.Errorf("sim: naive definition: no retry of States.ALL")
}

// bulkSettings describes the bulk move's settings.
func bulkSettings(b Bulk) string {
	return fmt.Sprintf("every %s, while the DLQ holds messages, a move task sends them back to the source queue at %d per second; "+
		"the consumer's event source takes one message per call, at most %d calls in flight; a failed message is received again "+
		"after the %s visibility timeout, and one received %s (maxReceiveCount %d) goes back to the DLQ for the next move; "+
		"what is in the DLQ at the end counts as parked.",
		spoken(b.Every), b.Rate, b.Concurrency, spoken(b.VisibilityTimeout), plural(b.MaxReceiveCount, "time"), b.MaxReceiveCount)
}

// spoken formats d in words of units: 30 s, 15 min, 7 min 30 s, 1 h.
func spoken(d time.Duration) string {
	d = d.Round(time.Second)
	var parts []string
	if h := d / time.Hour; h > 0 {
		parts = append(parts, fmt.Sprintf("%d h", h))
	}
	if m := d % time.Hour / time.Minute; m > 0 {
		parts = append(parts, fmt.Sprintf("%d min", m))
	}
	if s := d % time.Minute / time.Second; s > 0 || len(parts) == 0 {
		parts = append(parts, fmt.Sprintf("%d s", s))
	}
	return strings.Join(parts, " ")
}
