package test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/emulate/sim"
)

// updateFigures rewrites the docs' figures blocks from the recorded runs
// (make figures records them, then runs this with -update-figures).
var updateFigures = flag.Bool("update-figures", false, "rewrite the figures blocks of the docs from docs/figures/*.json")

// figuresDocs are the documents with figures blocks.
var figuresDocs = []string{"README.md", "docs/performance-history.md"}

// figuresBlock is a block of figures in a document:
// "<!-- figures table NAME -->" (the table of the run of scenario NAME)
// or "<!-- figures scenarios NAME... -->" (one row per run), its rendered
// content, and "<!-- /figures -->".
var figuresBlock = regexp.MustCompile(`(?s)(<!-- figures (table|scenarios) ([a-z0-9 -]+) -->\n).*?(<!-- /figures -->)`)

// TestDocsShowTheRecordedRuns holds every figures block of the docs to the
// run it names, as redrive run -json recorded it under docs/figures/: a
// figure edited by hand, or a run recorded and not rendered, fails.
func TestDocsShowTheRecordedRuns(t *testing.T) {
	for _, doc := range figuresDocs {
		path := filepath.Join("..", doc)
		text, err := os.ReadFile(path)
		require.NoError(t, err)
		blocks := 0
		rendered := figuresBlock.ReplaceAllFunc(text, func(block []byte) []byte {
			blocks++
			m := figuresBlock.FindSubmatch(block)
			var rows [][]string
			switch names := strings.Fields(string(m[3])); string(m[2]) {
			case "table":
				require.Len(t, names, 1, "%s: a table block names one run", doc)
				rows = sim.SummaryTable(recordedRun(t, names[0]))
			default:
				var runs []sim.Summary
				for _, name := range names {
					runs = append(runs, recordedRun(t, name))
				}
				rows = sim.ScenarioRows(runs)
			}
			return bytes.Join([][]byte{m[1], []byte(sim.Markdown(rows)), m[4]}, nil)
		})
		require.NotZero(t, blocks, "%s has no figures block", doc)
		if *updateFigures {
			require.NoError(t, os.WriteFile(path, rendered, 0o644))
			continue
		}
		assert.Equal(t, string(rendered), string(text), "%s: its figures are not the recorded runs': make figures", doc)
	}
}

// TestRecordedDefaultRunIsTodays holds the recorded default run, the
// README's table, to the default scenario's golden figures: a change
// that changes what the simulation does (and its golden figures) without
// recording the run again fails.
func TestRecordedDefaultRunIsTodays(t *testing.T) {
	recorded := recordedRun(t, "default")
	recorded.WallSeconds = 0
	for i := range recorded.Strategies {
		recorded.Strategies[i].WallSeconds = 0
	}
	got, err := json.Marshal(recorded)
	require.NoError(t, err)
	golden, err := os.ReadFile(filepath.Join("..", "emulate", "sim", "testdata", "default.golden.json"))
	require.NoError(t, err)
	assert.JSONEq(t, string(golden), string(got), "docs/figures/default.json is not today's default run: make figures")
}

// recordedRun reads docs/figures/<name>.json.
func recordedRun(t *testing.T, name string) sim.Summary {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "docs", "figures", name+".json"))
	require.NoError(t, err, "no recorded run of %s: make figures", name)
	defer f.Close()
	sum, err := sim.ReadSummary(f)
	require.NoError(t, err, "docs/figures/%s.json", name)
	return sum
}
