package sim

import "math"

// figureRow is a row of the report's table: the label, which way its
// figures are better ("lower", "higher", or "" for a row not ranked), and
// one cell per strategy.
type figureRow struct {
	Label  string
	Better string
	Cells  []figureCell
}

// figureCell is a cell of the report's table; Best marks the best of its
// row (every one of a tie).
type figureCell struct {
	Text string
	Best bool
}

// ranking says which way a row of the table is better, and reads a
// strategy's value in it as the table shows it (rounded as its cell is);
// false when the strategy has none (the cell is a word or a dash), so it
// is not ranked.
type ranking struct {
	better string
	value  func(f Figures, messages int) (float64, bool)
}

// The labels of Table's row of the cost per million messages and of the
// report's row of the cost per million messages delivered, shown after it.
const (
	costPerMessageLabel   = "est. cost per million messages"
	costPerDeliveredLabel = "est. cost per million messages delivered"
)

// rankings are the ranked rows, by label. A row not here is not ranked:
// it is a reference (the physical limit), a part of a total (the cost's
// parts, and the state transitions and DynamoDB requests it is made of),
// a figure only a strategy with a breaker or a room has, one where neither
// way is better (the peak call rate: slower is gentler, faster drains
// sooner), or the run's times.
var rankings = map[string]ranking{
	"calls during the outage (amplification)": counted("lower", func(f Figures) int { return f.OutageCalls }),
	"calls in all":                counted("lower", func(f Figures) int { return f.Calls }),
	"  throttled (over capacity)": counted("lower", func(f Figures) int { return f.Throttled }),
	"recovery: healthy -> first delivery": {"lower", func(f Figures, _ int) (float64, bool) {
		return wholeSeconds(f.FirstDeliverySeconds)
	}},
	"drain: healthy -> last delivery": {"lower", func(f Figures, _ int) (float64, bool) {
		if !f.Drained {
			return 0, false
		}
		return wholeSeconds(f.DrainSeconds)
	}},
	costPerMessageLabel: {"lower", func(f Figures, _ int) (float64, bool) { return cents(f.CostPerMillion.Total), true }},
	costPerDeliveredLabel: {"lower", func(f Figures, messages int) (float64, bool) {
		v, ok := perDelivered(f, messages)
		return cents(v), ok
	}},
	"messages delivered":                counted("higher", func(f Figures) int { return f.Delivered }),
	"messages parked (for a person)":    counted("lower", func(f Figures) int { return f.Parked }),
	"messages still pending at the end": counted("lower", func(f Figures) int { return f.Pending }),
	"messages lost":                     counted("lower", func(f Figures) int { return f.Lost }),
	"messages delivered twice":          counted("lower", func(f Figures) int { return f.DeliveredTwice }),
	"open Standard executions (peak)": {"lower", func(f Figures, _ int) (float64, bool) {
		if f.PeakOpenStandardExecutions == nil {
			return 0, false
		}
		return float64(*f.PeakOpenStandardExecutions), true
	}},
	"account quota calls throttled": {"lower", func(f Figures, _ int) (float64, bool) {
		if f.QuotaThrottles == nil {
			return 0, false
		}
		var n int64
		for _, c := range f.QuotaThrottles {
			n += c
		}
		return float64(n), true
	}},
}

// counted ranks a count, better as better says.
func counted(better string, count func(Figures) int) ranking {
	return ranking{better, func(f Figures, _ int) (float64, bool) { return float64(count(f)), true }}
}

// wholeSeconds is a duration figure as its h:mm:ss cell shows it.
func wholeSeconds(s *float64) (float64, bool) {
	if s == nil {
		return 0, false
	}
	return math.Round(*s), true
}

// cents is a dollar amount rounded to cents, as its cell shows it.
func cents(v float64) float64 { return math.Round(v*100) / 100 }

// figureRowsOf is Table(r) as the report shows it: its header, and its
// rows with the cost per million messages delivered after the cost per
// million messages, and the best cells of every ranked row marked when
// two strategies or more are compared.
func figureRowsOf(r Result) ([]string, []figureRow) {
	sum := SummaryOf(r)
	table := Table(r)
	var rows []figureRow
	add := func(cells []string) {
		row := figureRow{Label: cells[0]}
		for _, c := range cells[1:] {
			row.Cells = append(row.Cells, figureCell{Text: c})
		}
		if rk, ok := rankings[row.Label]; ok {
			row.Better = rk.better
			markBest(row.Cells, sum, rk)
		}
		rows = append(rows, row)
	}
	for _, cells := range table[1:] {
		add(cells)
		if cells[0] == costPerMessageLabel {
			delivered := []string{costPerDeliveredLabel}
			for _, f := range sum.Strategies {
				v, ok := perDelivered(f, sum.Scenario.Messages)
				if !ok {
					delivered = append(delivered, "nothing delivered")
					continue
				}
				delivered = append(delivered, dollars(v))
			}
			add(delivered)
		}
	}
	return table[0][1:], rows
}

// markBest marks the cells of the strategies whose value is the best of
// the row, if two or more strategies are compared.
func markBest(cells []figureCell, sum Summary, rk ranking) {
	if len(sum.Strategies) < 2 {
		return
	}
	sign := 1.0
	if rk.better == "higher" {
		sign = -1
	}
	best, found := 0.0, false
	keys := make([]float64, len(sum.Strategies))
	has := make([]bool, len(sum.Strategies))
	for i, f := range sum.Strategies {
		v, ok := rk.value(f, sum.Scenario.Messages)
		if !ok {
			continue
		}
		keys[i], has[i] = sign*v, true
		if !found || keys[i] < best {
			best, found = keys[i], true
		}
	}
	for i := range cells {
		cells[i].Best = has[i] && keys[i] == best
	}
}
