package sim

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/redrive/redrive/emulate/local"
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
	fmt.Fprintf(&b, "Wall time of the whole run: %.1fs (strategies run one after another).\n", r.Wall.Seconds())
	_, err := io.WriteString(w, b.String())
	return err
}

// scenarioText describes the scenario in three lines: its name and
// description, then scenarioProse.
func scenarioText(s Scenario) string {
	return fmt.Sprintf("Scenario %q: %s\n  %s", s.Name, s.Description, strings.Join(scenarioProse(s), "\n  "))
}

// scenarioProse describes the scenario's messages and consumer in two
// sentences.
func scenarioProse(s Scenario) []string {
	m := s.Messages
	arrival := "all at " + hms(m.Start)
	if m.Rate > 0 {
		arrival = fmt.Sprintf("from %s on, %g per second", hms(m.Start), m.Rate)
	}
	return []string{
		fmt.Sprintf("%s messages (%s poison, %s) are dead-lettered %s.",
			thousands(int64(m.Count)), percent(m.Poison), plural(m.Tenants, "tenant"), arrival),
		fmt.Sprintf("The consumer takes %s per second with a latency of %v and is %s.",
			plural(s.Target.Capacity, "call"), s.Target.Latency, outageText(s)),
	}
}

// CostNote states the prices and assumptions of the cost estimate.
func CostNote(s Scenario) string {
	a := AssumptionsFor(s)
	p := ListPrices
	return fmt.Sprintf("Cost: us-east-1 list prices: Step Functions Standard $%.3f per 1,000 state transitions, Express $%.2f per 1M executions\n"+
		"  + $%.8f per GB-s (at %d MB, 100 ms steps); Lambda $%.2f per 1M requests + $%.10f per GB-s (arm64);\n"+
		"  DynamoDB on-demand $%.3f per 1M write and $%.3f per 1M read request units; CloudWatch Logs $%.2f per GB;\n"+
		"  S3 $%.4f per 1,000 PUTs and $%.4f per 1,000 GETs\n"+
		"  (%s; not re-checked online when written, 2026-11).\n"+
		"  Assumed: functions at their deployed memory (%s) and a %d MB consumer,\n"+
		"  %v of orchestrator work per invocation (plus the time a release invocation paces its ticks, as run), each consumer call billed for its %v latency\n"+
		"  (again at the attempt's memory when the attempt waits for it), DynamoDB units by item size, no free tier, SQS requests not counted.",
		p.TransitionsPerThousand, p.ExpressRequestsPerMillion, p.ExpressGBSecond, ExpressMemoryMB,
		p.LambdaRequestsPerMillion, p.LambdaGBSecond, p.DynamoWritesPerMillion, p.DynamoReadsPerMillion, p.LogsPerGB,
		p.S3PutsPerThousand, p.S3GetsPerThousand,
		strings.Join(PriceSources, ", "), a.memoryNote(), a.MemoryMB[local.FunctionConsumer],
		a.OrchestratorDuration, a.ConsumerLatency)
}

// Table is the result as rows of cells: a header row of strategy names,
// then one row per figure, its label first. It renders SummaryOf(r), as
// WriteJSON does.
func Table(r Result) [][]string { return SummaryTable(SummaryOf(r)) }

// SummaryTable is Table of a run's Summary (as -json wrote it).
func SummaryTable(sum Summary) [][]string {
	var rows [][]string
	row := func(label string, cell func(f Figures) string) {
		cells := []string{label}
		for _, f := range sum.Strategies {
			cells = append(cells, cell(f))
		}
		rows = append(rows, cells)
	}
	row("", func(f Figures) string { return f.Strategy })
	row("calls during the outage (amplification)", func(f Figures) string { return thousands(int64(f.OutageCalls)) })
	row("calls in all", func(f Figures) string { return thousands(int64(f.Calls)) })
	row("  throttled (over capacity)", func(f Figures) string { return thousands(int64(f.Throttled)) })
	row(fmt.Sprintf("peak calls/s (capacity %d)", sum.Scenario.Capacity), func(f Figures) string {
		return fmt.Sprintf("%d (%.1fx)", f.PeakCallsPerSecond, f.PeakOverCapacity)
	})
	row("recovery: healthy -> breaker CLOSED", recoveryCell)
	row("recovery: healthy -> first delivery", func(f Figures) string {
		if f.FirstDeliverySeconds == nil {
			return "none"
		}
		return clockSeconds(*f.FirstDeliverySeconds)
	})
	row("drain: healthy -> last delivery", func(f Figures) string {
		switch {
		case f.DrainSeconds == nil:
			return "nothing delivered"
		case !f.Drained:
			return "not drained"
		}
		return clockSeconds(*f.DrainSeconds)
	})
	row("  physical limit (deliveries / capacity)", func(f Figures) string {
		if f.PhysicalDrainSeconds == nil {
			return "-"
		}
		return fmt.Sprintf("%s (%.1fx)", clockSeconds(*f.PhysicalDrainSeconds), *f.DrainOverPhysical)
	})
	row("breaker state changes", func(f Figures) string {
		if f.BreakerChanges == nil {
			return "no breaker"
		}
		return thousands(int64(*f.BreakerChanges))
	})
	row("Standard state transitions per message", func(f Figures) string { return fmt.Sprintf("%.2f", f.TransitionsPerMessage) })
	row("DynamoDB reads / writes per message", func(f Figures) string {
		return fmt.Sprintf("%.1f / %.1f", f.DynamoReadsPerMessage, f.DynamoWritesPerMessage)
	})
	row("est. cost per million messages", func(f Figures) string { return dollars(f.CostPerMillion.Total) })
	row("  Step Functions", func(f Figures) string { return dollars(f.CostPerMillion.StepFunctions) })
	row("  Lambda (orchestrator + consumer)", func(f Figures) string { return dollars(f.CostPerMillion.Lambda) })
	row("  DynamoDB", func(f Figures) string { return dollars(f.CostPerMillion.DynamoDB) })
	row("  S3 and logs", func(f Figures) string { return dollars(f.CostPerMillion.S3 + f.CostPerMillion.Logs) })
	row("messages delivered", func(f Figures) string { return thousands(int64(f.Delivered)) })
	row("messages parked (for a person)", func(f Figures) string { return thousands(int64(f.Parked)) })
	row("messages still pending at the end", func(f Figures) string { return thousands(int64(f.Pending)) })
	row("messages lost", func(f Figures) string { return thousands(int64(f.Lost)) })
	row("messages delivered twice", func(f Figures) string { return thousands(int64(f.DeliveredTwice)) })
	if sum.Scenario.Groups > 0 {
		row("delivered out of order in their group", func(f Figures) string {
			if f.DeliveredOutOfOrder == nil {
				return "-"
			}
			return thousands(int64(*f.DeliveredOutOfOrder))
		})
	}
	row("peak room depth", func(f Figures) string {
		if f.PeakRoomDepth == nil {
			return "-"
		}
		return thousands(int64(*f.PeakRoomDepth))
	})
	row("peak release rate", func(f Figures) string {
		if f.PeakReleasesPerSecond == nil {
			return "-"
		}
		return fmt.Sprintf("%.1f/s", *f.PeakReleasesPerSecond)
	})
	row("open Standard executions (peak)", func(f Figures) string {
		if f.PeakOpenStandardExecutions == nil {
			return "-"
		}
		return thousands(int64(*f.PeakOpenStandardExecutions))
	})
	row("account quota calls throttled", quotaCell)
	row("simulated time / wall time", func(f Figures) string {
		return fmt.Sprintf("%s / %.1fs", clockSeconds(f.SimulatedSeconds), f.WallSeconds)
	})
	return rows
}

// recoveryCell is the breaker recovery latency of f.
func recoveryCell(f Figures) string {
	switch {
	case !f.HasBreaker:
		return "no breaker"
	case !f.Recovered:
		return "no recovery"
	case !f.BreakerClosed:
		return "never closed"
	}
	return clockSeconds(*f.BreakerClosedSeconds)
}

// outageText describes the scenario's outage, to follow "the consumer
// is".
func outageText(s Scenario) string {
	if from, to, ok := s.Outage(); ok {
		return fmt.Sprintf("unhealthy from %s to %s", hms(from), hms(to))
	}
	for _, p := range s.Target.Health {
		if p.State != StateHealthy {
			return fmt.Sprintf("unhealthy from %s and never recovers", hms(p.At))
		}
	}
	return "healthy throughout"
}

// hms formats d as h:mm:ss.
func hms(d time.Duration) string {
	d = d.Round(time.Second)
	sign := ""
	if d < 0 {
		sign, d = "-", -d
	}
	return fmt.Sprintf("%s%d:%02d:%02d", sign, int(d.Hours()), int(d.Minutes())%60, int(d.Seconds())%60)
}

// clockSeconds formats a figure's seconds as h:mm:ss.
func clockSeconds(s float64) string { return hms(time.Duration(s * float64(time.Second))) }

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

// plural is n of a noun, e.g. "1 tenant", "2 tenants", "5,000 calls".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return thousands(int64(n)) + " " + noun + "s"
}

// percent formats a share.
func percent(f float64) string { return fmt.Sprintf("%g%%", f*100) }

// quotaCell is the calls the account's quotas throttled, in all, and the
// quota that throttled most.
func quotaCell(f Figures) string {
	if f.QuotaThrottles == nil {
		return "-"
	}
	var total int64
	top := ""
	for n, c := range f.QuotaThrottles {
		total += c
		if top == "" || c > f.QuotaThrottles[top] || c == f.QuotaThrottles[top] && n < top {
			top = n
		}
	}
	if total == 0 {
		return "none"
	}
	return fmt.Sprintf("%s (most: %s)", thousands(total), top)
}
