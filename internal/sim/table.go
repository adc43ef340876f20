package sim

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
)

// WriteTable prints the result as a table, one column per strategy, with
// the scenario above it and the cost assumptions below.
func WriteTable(w io.Writer, r Result) error {
	var b strings.Builder
	b.WriteString(scenarioText(r.Scenario) + "\n\n")
	tw := tabwriter.NewWriter(&b, 0, 0, 3, ' ', 0)
	for _, row := range Table(r) {
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("sim: table: %w", err)
	}
	b.WriteString("\n" + CostNote(r.Scenario) + "\n")
	fmt.Fprintf(&b, "Wall time of the whole run: %.1fs (strategies run concurrently).\n", r.Wall.Seconds())
	_, err := io.WriteString(w, b.String())
	return err
}

// scenarioText describes the scenario in two lines.
func scenarioText(s Scenario) string {
	return fmt.Sprintf("Scenario %q: %s\n  %s messages (%s poison, %d tenant(s)), consumer capacity %d calls/s, latency %v, %s",
		s.Name, s.Description, thousands(int64(s.Messages.Count)), percent(s.Messages.Poison), s.Messages.Tenants,
		s.Target.Capacity, s.Target.Latency, outageText(s))
}

// CostNote states the prices and assumptions of the cost estimate.
func CostNote(s Scenario) string {
	a := AssumptionsFor(s)
	p := ListPrices
	return fmt.Sprintf("Cost: us-east-1 list prices: Step Functions Standard $%.3f per 1,000 state transitions; Lambda $%.2f per 1M requests\n"+
		"  + $%.10f per GB-s (arm64); DynamoDB on-demand $%.3f per 1M write and $%.3f per 1M read request units\n"+
		"  (%s; not re-checked online when written, 2026-11).\n"+
		"  Assumed: %d MB functions, %v of orchestrator work per invocation, each consumer call billed for its %v\n"+
		"  latency (twice when an orchestrator Lambda waits for it), items under 1 KB, no free tier, SQS requests not counted.",
		p.TransitionsPerThousand, p.LambdaRequestsPerMillion, p.LambdaGBSecond, p.DynamoWritesPerMillion, p.DynamoReadsPerMillion,
		strings.Join(PriceSources, ", "), a.LambdaMemoryMB, a.OrchestratorDuration, a.ConsumerLatency)
}

// Table is the result as rows of cells: a header row of strategy names,
// then one row per figure, its label first.
func Table(r Result) [][]string {
	var rows [][]string
	row := func(label string, cell func(m Metrics) string) {
		cells := []string{label}
		for _, m := range r.Metrics {
			cells = append(cells, cell(m))
		}
		rows = append(rows, cells)
	}
	row("", func(m Metrics) string { return m.Strategy })
	row("calls during the outage (amplification)", func(m Metrics) string { return thousands(int64(m.OutageCalls)) })
	row("calls in all", func(m Metrics) string { return thousands(int64(m.Calls)) })
	row("  throttled (over capacity)", func(m Metrics) string { return thousands(int64(m.Throttled)) })
	row(fmt.Sprintf("peak calls/s (capacity %d)", r.Scenario.Target.Capacity), func(m Metrics) string {
		return fmt.Sprintf("%d (%.1fx)", m.PeakRate, float64(m.PeakRate)/float64(m.Capacity))
	})
	row("recovery: healthy -> breaker CLOSED", recoveryCell)
	row("recovery: healthy -> first delivery", func(m Metrics) string {
		if !m.HasFirstDelivery {
			return "none"
		}
		return clock(m.FirstDelivery)
	})
	row("drain: healthy -> last delivery", func(m Metrics) string {
		switch {
		case !m.Recovered || m.DrainedCount == 0:
			return "nothing delivered"
		case !m.Drained:
			return "not drained"
		}
		return clock(m.DrainTime)
	})
	row("  physical limit (deliveries / capacity)", func(m Metrics) string {
		if m.DrainedCount == 0 {
			return "-"
		}
		return fmt.Sprintf("%s (%.1fx)", clock(m.PhysicalDrain), m.DrainTime.Seconds()/max(m.PhysicalDrain.Seconds(), 1e-9))
	})
	row("breaker state changes", func(m Metrics) string {
		if !m.HasBreaker {
			return "no breaker"
		}
		return thousands(int64(m.BreakerChanges))
	})
	row("state transitions per message", func(m Metrics) string { return fmt.Sprintf("%.1f", m.TransitionsPer) })
	row("DynamoDB reads / writes per message", func(m Metrics) string {
		n := float64(m.Messages)
		return fmt.Sprintf("%.1f / %.1f", float64(m.Usage.DynamoReads)/n, float64(m.Usage.DynamoWrites)/n)
	})
	row("est. cost per million messages", func(m Metrics) string { return dollars(m.CostPerMillion.Total()) })
	row("  Step Functions", func(m Metrics) string { return dollars(m.CostPerMillion.StepFunctions) })
	row("  Lambda (orchestrator + consumer)", func(m Metrics) string { return dollars(m.CostPerMillion.Lambda) })
	row("  DynamoDB", func(m Metrics) string { return dollars(m.CostPerMillion.DynamoDB) })
	row("messages delivered", func(m Metrics) string { return thousands(int64(m.Delivered)) })
	row("messages parked (for a person)", func(m Metrics) string { return thousands(int64(m.Parked)) })
	row("messages still pending at the end", func(m Metrics) string { return thousands(int64(m.Pending)) })
	row("messages lost", func(m Metrics) string { return thousands(int64(m.Lost)) })
	row("messages delivered twice", func(m Metrics) string { return thousands(int64(m.Twice)) })
	row("simulated time / wall time", func(m Metrics) string {
		return fmt.Sprintf("%s / %.1fs", clock(m.End), m.Wall.Seconds())
	})
	return rows
}

// recoveryCell is the breaker recovery latency of m.
func recoveryCell(m Metrics) string {
	switch {
	case !m.HasBreaker:
		return "no breaker"
	case !m.Recovered:
		return "no recovery"
	case !m.BreakerClosed:
		return "never closed"
	}
	return clock(m.RecoveryLatency)
}

// outageText describes the scenario's outage.
func outageText(s Scenario) string {
	from, to, ok := s.Outage()
	if !ok {
		return "no outage with a recovery"
	}
	return fmt.Sprintf("unhealthy from %s to %s", clock(from), clock(to))
}

// clock formats d as h:mm:ss.
func clock(d time.Duration) string {
	d = d.Round(time.Second)
	sign := ""
	if d < 0 {
		sign, d = "-", -d
	}
	return fmt.Sprintf("%s%d:%02d:%02d", sign, int(d.Hours()), int(d.Minutes())%60, int(d.Seconds())%60)
}

// thousands formats n with thousands separators.
func thousands(n int64) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + thousands(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// dollars formats a dollar amount.
func dollars(v float64) string { return fmt.Sprintf("$%.2f", v) }

// percent formats a share.
func percent(f float64) string { return fmt.Sprintf("%g%%", f*100) }
