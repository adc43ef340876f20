package sim

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestEveryRankedRowIsARowOfTheTable(t *testing.T) {
	labels := map[string]bool{costPerDeliveredLabel: true}
	for _, row := range Table(Result{}) {
		labels[row[0]] = true
	}
	assert.True(t, labels[costPerMessageLabel], "the cost per million delivered follows a row of the table")
	for label, rk := range rankings {
		assert.True(t, labels[label], "%q is a row of the table", label)
		assert.Contains(t, []string{"lower", "higher"}, rk.better, label)
	}
}

func TestMarkBest(t *testing.T) {
	open := func(n int) Figures { return Figures{PeakOpenStandardExecutions: ptr(n)} }
	rk := rankings["open Standard executions (peak)"]
	marks := func(figs ...Figures) []bool {
		cells := make([]figureCell, len(figs))
		markBest(cells, Summary{Strategies: figs}, rk)
		var out []bool
		for _, c := range cells {
			out = append(out, c.Best)
		}
		return out
	}
	assert.Equal(t, []bool{false, true, false}, marks(open(3), open(1), open(2)), "the lowest")
	assert.Equal(t, []bool{true, false, true}, marks(open(1), open(2), open(1)), "every one of a tie")
	assert.Equal(t, []bool{false, true}, marks(Figures{}, open(7)), "a strategy without the figure is not ranked")
	assert.Equal(t, []bool{false}, marks(open(1)), "one strategy is compared with none")
	assert.Equal(t, []bool{false, false}, marks(Figures{}, Figures{}), "nothing to rank")

	delivered := rankings["messages delivered"]
	cells := make([]figureCell, 2)
	markBest(cells, Summary{Strategies: []Figures{{Delivered: 5}, {Delivered: 9}}}, delivered)
	assert.Equal(t, []figureCell{{}, {Best: true}}, cells, "higher is better")
}
