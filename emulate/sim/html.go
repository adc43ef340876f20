package sim

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"strings"
)

// The report's page, style and script, inlined into every report so it
// opens offline.
var (
	//go:embed report/report.html.tmpl
	reportPage string
	//go:embed report/report.css
	reportCSS string
	//go:embed report/report.js
	reportJS string
)

var reportTemplate = template.Must(template.New("report").Funcs(template.FuncMap{
	"offset": stepClock,     // a time from the start, h:mm:ss.s
	"took":   shortDuration, // a duration, e.g. 11m19.6s
}).Parse(reportPage))

// WriteHTML writes the result as a self-contained HTML page: at the top a
// verdict, one sentence per strategy (delivered, parked, calls on the
// unhealthy consumer, cost), and the baselines' settings; then the table,
// with the cost per million messages delivered beside the cost per
// million messages and the best value of every ranked row marked; a
// glossary; charts over time (consumer health and breaker states, calls
// per second against capacity on a log scale, backlog, deliveries, parked
// messages on a log scale, cumulative cost, and, when a strategy has a
// waiting room, its depth and release rate against capacity), each with
// its legend, drawn by an inline script into inline SVG; and the
// strategies' sample journeys (Outcome.Journeys) as tables. Once drawn,
// the page's body has data-status="drawn" and every chart data-marks (its
// drawn elements), or data-status="error: ..." if the script failed.
func WriteHTML(w io.Writer, r Result) error {
	baselines, err := baselinesOf(r)
	if err != nil {
		return fmt.Errorf("sim: report: %w", err)
	}
	header, rows := figureRowsOf(r)
	var buf bytes.Buffer
	err = reportTemplate.Execute(&buf, map[string]any{
		"Scenario":      r.Scenario,
		"ScenarioProse": strings.Join(scenarioProse(r.Scenario), " "),
		"Verdicts":      verdictsOf(r),
		"Baselines":     baselines,
		"Header":        header,
		"Rows":          rows,
		"Glossary":      glossary(),
		"CostNote":      CostNote(r.Scenario),
		"Series":        SeriesOf(r),
		"Journeys":      journeysOf(r),
		"CSS":           template.CSS(reportCSS),
		"JS":            template.JS(reportJS),
	})
	if err != nil {
		return fmt.Errorf("sim: report: %w", err)
	}
	if _, err := w.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("sim: write report: %w", err)
	}
	return nil
}
