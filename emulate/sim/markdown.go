package sim

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// ReadSummary reads a Summary as WriteJSON wrote it.
func ReadSummary(r io.Reader) (Summary, error) {
	var sum Summary
	if err := json.NewDecoder(r).Decode(&sum); err != nil {
		return Summary{}, fmt.Errorf("sim: read summary: %w", err)
	}
	if sum.Version != SummaryVersion {
		return Summary{}, fmt.Errorf("sim: read summary: version %d, want %d", sum.Version, SummaryVersion)
	}
	return sum, nil
}

// Markdown renders rows (SummaryTable's or ScenarioRows') as a Markdown
// table, the first row its header; a label's leading spaces (a sub-row)
// are kept as em spaces.
func Markdown(rows [][]string) string {
	var b strings.Builder
	for i, row := range rows {
		cells := make([]string, len(row))
		for j, c := range row {
			trimmed := strings.TrimLeft(c, " ")
			cells[j] = strings.Repeat("&emsp;", (len(c)-len(trimmed))/2) + strings.ReplaceAll(trimmed, "|", `\|`)
		}
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
		if i == 0 {
			b.WriteString(strings.Repeat("|---", len(row)) + "|\n")
		}
	}
	return b.String()
}

// ScenarioRows sums up runs in one row each, a header first: Redrive's
// figures, the baselines' in brackets where they compare.
func ScenarioRows(runs []Summary) [][]string {
	rows := [][]string{{"scenario", "calls during the outage (naive)", "breaker state changes", "throttled / calls",
		"healthy -> first / last delivery (physical limit)", "open Standard executions (peak)",
		"cost / M msgs (naive; bulk move)", "delivered / parked / lost / twice"}}
	for _, sum := range runs {
		rd, naive, bulk := sum.strategy("redrive"), sum.strategy("naive backoff"), sum.strategy("bulk move")
		if rd == nil || naive == nil || bulk == nil {
			rows = append(rows, []string{sum.Scenario.Name + ": not every strategy ran"})
			continue
		}
		rows = append(rows, []string{
			fmt.Sprintf("%s (%s)", sum.Scenario.Name, sum.Scenario.Description),
			fmt.Sprintf("%s (%s)", thousands(int64(rd.OutageCalls)), thousands(int64(naive.OutageCalls))),
			optional(rd.BreakerChanges, func(n int) string { return thousands(int64(n)) }),
			thousands(int64(rd.Throttled)) + " / " + thousands(int64(rd.Calls)),
			deliveriesCell(*rd),
			optional(rd.PeakOpenStandardExecutions, func(n int) string { return thousands(int64(n)) }),
			fmt.Sprintf("%s (%s; %s)", dollars(rd.CostPerMillion.Total), dollars(naive.CostPerMillion.Total), dollars(bulk.CostPerMillion.Total)),
			fmt.Sprintf("%s / %s / %s / %s", thousands(int64(rd.Delivered)), thousands(int64(rd.Parked)),
				thousands(int64(rd.Lost)), thousands(int64(rd.DeliveredTwice))) + outOfOrder(*rd),
		})
	}
	return rows
}

// strategy is the figures of the strategy named name, nil when it did
// not run.
func (s Summary) strategy(name string) *Figures {
	for i := range s.Strategies {
		if s.Strategies[i].Strategy == name {
			return &s.Strategies[i]
		}
	}
	return nil
}

// outOfOrder is, for a FIFO scenario, f's deliveries out of their
// group's order as a note; "" otherwise.
func outOfOrder(f Figures) string {
	if f.DeliveredOutOfOrder == nil {
		return ""
	}
	return fmt.Sprintf(" (%s out of order)", thousands(int64(*f.DeliveredOutOfOrder)))
}

// deliveriesCell is f's first and last delivery after the recovery, and
// the physical limit of the drain.
func deliveriesCell(f Figures) string {
	if f.FirstDeliverySeconds == nil || f.DrainSeconds == nil || f.PhysicalDrainSeconds == nil {
		return "-"
	}
	last := clockSeconds(*f.DrainSeconds)
	if !f.Drained {
		last = "not drained"
	}
	return fmt.Sprintf("%s / %s (%s)", clockSeconds(*f.FirstDeliverySeconds), last, clockSeconds(*f.PhysicalDrainSeconds))
}

// optional formats a figure that may be null as "-" when it is.
func optional[T any](v *T, format func(T) string) string {
	if v == nil {
		return "-"
	}
	return format(*v)
}
