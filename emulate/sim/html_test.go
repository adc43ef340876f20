package sim_test

import (
	"bytes"
	"context"
	"fmt"
	"html"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/emulate/sim"
)

// charts are the report's charts, by data-chart name; the small
// scenario's Redrive has a (stand-in) waiting room, so room and releases
// are drawn too.
var charts = []string{"states", "calls", "backlog", "delivered", "parked", "cost", "room", "releases"}

// roomCharts are the charts of a waiting room.
var roomCharts = []string{"room", "releases"}

// writeReport writes the small scenario's report into dir.
func writeReport(t *testing.T, dir string) (string, []byte) {
	t.Helper()
	return writeReportOf(t, dir, playSmall(t))
}

// writeReportOf writes r's report into dir.
func writeReportOf(t *testing.T, dir string, r sim.Result) (string, []byte) {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, sim.WriteHTML(&buf, r))
	path := filepath.Join(dir, "report.html")
	require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))
	return path, buf.Bytes()
}

func TestReportIsSelfContained(t *testing.T) {
	_, page := writeReport(t, t.TempDir())
	html := string(page)
	for _, bad := range []string{"<link", "src=", "@import", "url("} {
		assert.NotContains(t, html, bad, "the report must load nothing")
	}
	assert.Contains(t, html, `<body data-status="loading">`)
	for _, c := range charts {
		assert.Contains(t, html, `data-chart="`+c+`"`)
	}
	assert.Contains(t, html, `const REPORT = {"stepSeconds":`, "the series inline, as JSON")
	assert.Contains(t, html, "calls during the outage (amplification)")
	assert.Contains(t, html, "naive backoff")
	assert.Contains(t, html, `<p class="meta">80 messages (5% poison, 2 tenants) are dead-lettered from 0:01:00 on, 1 per second. `+
		`The consumer takes 5 calls per second with a latency of 100ms and is unhealthy from 0:01:00 to 0:11:00.</p>`, "the subtitle is prose")
}

func TestReportWithoutWaitingRoomLeavesItsChartsOut(t *testing.T) {
	r := playSmall(t)
	r.Outcomes = slices.Clone(r.Outcomes)
	r.Outcomes[0].HasRoom = false
	_, page := writeReportOf(t, t.TempDir(), r)
	for _, c := range roomCharts {
		assert.NotContains(t, string(page), `data-chart="`+c+`"`)
	}
	assert.NotContains(t, string(page), `"roomDepth":[`, "nor their series")
	assert.Contains(t, string(page), `data-chart="parked"`)
}

func TestSeriesOfTheSmallScenario(t *testing.T) {
	r := playSmall(t)
	s := sim.SeriesOf(r)
	require.NotEmpty(t, s.Minutes)
	require.Len(t, s.Strategies, 3)
	for i, ss := range s.Strategies {
		assert.Len(t, ss.PeakPerSecond, len(s.Minutes), ss.Name)
		assert.Len(t, ss.Backlog, len(s.Minutes), ss.Name)
		assert.Len(t, ss.Parked, len(s.Minutes), ss.Name)
		last := len(s.Minutes) - 1
		assert.GreaterOrEqual(t, ss.Cost[last], ss.Cost[0], "cost only grows")
		assert.Equal(t, r.Metrics[i].Delivered, ss.Delivered[last], "%s: every delivery within the charts", ss.Name)
		assert.Equal(t, r.Metrics[i].Parked, ss.Parked[last], "%s: every parked message within the charts", ss.Name)
		assert.Equal(t, i == 0, ss.RoomDepth != nil, "%s: room series for Redrive's room only", ss.Name)
	}
	assert.Equal(t, []sim.Band{{From: 0, To: 1, State: "healthy"}, {From: 1, To: 11, State: "down"}, {From: 11, To: s.Minutes[len(s.Minutes)-1], State: "healthy"}}, s.Health)
	require.Len(t, s.Breakers, 2)
	assert.Equal(t, "tenant-01", s.Breakers[0].Key)
	assert.Equal(t, "CLOSED", s.Breakers[0].Bands[0].State)
	assert.Equal(t, "OPEN", s.Breakers[0].Bands[1].State)
}

func TestWriteTable(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, sim.WriteTable(&buf, playSmall(t)))
	out := buf.String()
	header := regexp.MustCompile(`(?m)^\s+redrive\s+naive backoff\s+bulk move\s*$`)
	assert.Regexp(t, header, out)
	for _, row := range sim.Table(playSmall(t))[1:] {
		assert.Contains(t, out, strings.TrimSpace(row[0]))
	}
	assert.Contains(t, out, "messages lost")
	assert.Contains(t, out, "https://aws.amazon.com/step-functions/pricing/")
}

// checkDOM reads a report's DOM, as chromium --dump-dom prints it after
// the page's script ran: the body's status must be "drawn"; every chart
// must have drawn marks and a legend naming every strategy it drew, each
// strategy's line in a style of its own; the state strip must colour
// every state apart.
func checkDOM(dom string) error {
	status := regexp.MustCompile(`<body[^>]*\bdata-status="([^"]*)"`).FindStringSubmatch(dom)
	if status == nil {
		return fmt.Errorf("no <body data-status> in the DOM")
	}
	if status[1] != "drawn" {
		return fmt.Errorf("page status %q, want drawn", status[1])
	}
	for _, c := range charts {
		svg := regexp.MustCompile(`<svg[^>]*\bdata-chart="` + c + `"[^>]*>`).FindString(dom)
		marks := regexp.MustCompile(`\bdata-marks="(\d+)"`).FindStringSubmatch(svg)
		if marks == nil {
			return fmt.Errorf("chart %q has no data-marks: not drawn", c)
		}
		if n, _ := strconv.Atoi(marks[1]); n == 0 {
			return fmt.Errorf("chart %q is empty", c)
		}
		if err := checkLegend(c, chartSVG(dom, c)); err != nil {
			return err
		}
	}
	return nil
}

// chartSVG is the <svg> element of a chart in a DOM.
func chartSVG(dom, chart string) string {
	return regexp.MustCompile(`(?s)<svg[^>]*\bdata-chart="` + chart + `".*?</svg>`).FindString(dom)
}

// attr is the value of an element's attribute, "" if it has none.
func attr(tag, name string) string {
	m := regexp.MustCompile(`\s` + name + `="([^"]*)"`).FindStringSubmatch(tag)
	if m == nil {
		return ""
	}
	return m[1]
}

// checkLegend checks a drawn chart's legend: entries, the name of every
// strategy whose line the chart drew, and a style per strategy; in the
// state strip, a colour per state.
func checkLegend(chart, svg string) error {
	legend := regexp.MustCompile(`<g class="legend" data-entries="(\d+)"`).FindStringSubmatch(svg)
	if legend == nil {
		return fmt.Errorf("chart %q has no legend", chart)
	}
	if n, _ := strconv.Atoi(legend[1]); n == 0 {
		return fmt.Errorf("chart %q has an empty legend", chart)
	}
	keys := map[string]bool{}
	for _, m := range regexp.MustCompile(`<text class="key"[^>]*>([^<]*)</text>`).FindAllStringSubmatch(svg, -1) {
		keys[html.UnescapeString(m[1])] = true
	}
	styles := map[string]string{}
	for _, path := range regexp.MustCompile(`<path[^>]*>`).FindAllString(svg, -1) {
		name := html.UnescapeString(attr(path, "data-strategy"))
		if !keys[name] {
			return fmt.Errorf("chart %q: the legend does not name %q", chart, name)
		}
		style := attr(path, "stroke") + " " + attr(path, "stroke-dasharray") + " " + attr(path, "stroke-width")
		for other, st := range styles {
			if st == style {
				return fmt.Errorf("chart %q: %q and %q drawn alike (%s)", chart, other, name, style)
			}
		}
		styles[name] = style
	}
	if chart != "states" {
		return nil
	}
	fills := map[string]string{} // state by fill
	for _, rect := range regexp.MustCompile(`<rect[^>]*\bdata-state="[^"]*"[^>]*>`).FindAllString(svg, -1) {
		state, fill := attr(rect, "data-state"), attr(rect, "fill")
		if s, ok := fills[fill]; ok && s != state {
			return fmt.Errorf("chart %q: %s and %s share the colour %s", chart, s, state, fill)
		}
		fills[fill] = state
		if !keys[state] {
			return fmt.Errorf("chart %q: the legend does not name %s", chart, state)
		}
	}
	return nil
}

// chartTexts are the texts drawn in a chart of a DOM, but its legend's.
func chartTexts(dom, chart string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`<text( class="key")?[^>]*>([^<]*)</text>`).FindAllStringSubmatch(chartSVG(dom, chart), -1) {
		if m[1] == "" {
			out = append(out, m[2])
		}
	}
	return out
}

// logCharts are the charts on a log scale.
var logCharts = []string{"calls", "parked"}

// checkTicks checks the axes of a drawn report: time ticks every round
// time step; value ticks every round step (1, 2 or 5 x 10^n), or, on the
// log scales of the calls and parked charts, at round values from 0 and
// 1; dollars on the cost axis.
func checkTicks(t *testing.T, dom string) {
	t.Helper()
	assert.Subset(t, chartTexts(dom, "calls"), []string{"0/s", "1/s", "10/s"}, "the log scale's ticks")
	assert.Subset(t, chartTexts(dom, "parked"), []string{"0", "1", "2", "5", "10"}, "the log scale's ticks, from 1")
	for _, c := range charts {
		var times []time.Duration
		var values []float64
		for _, label := range chartTexts(dom, c) {
			if d, ok := tickTime(label); ok {
				times = append(times, d)
				continue
			}
			if c == "states" || strings.HasPrefix(label, "capacity ") {
				continue
			}
			if c == "cost" {
				assert.True(t, strings.HasPrefix(label, "$"), "cost: %q in dollars", label)
			}
			v, ok := tickValue(label)
			require.True(t, ok, "%s: tick %q", c, label)
			values = append(values, v)
		}
		require.Greater(t, len(times), 2, "%s: time ticks", c)
		assert.Contains(t, []time.Duration{15 * time.Second, 30 * time.Second, time.Minute, 2 * time.Minute, 5 * time.Minute,
			10 * time.Minute, 15 * time.Minute, 30 * time.Minute, time.Hour, 2 * time.Hour, 3 * time.Hour, 6 * time.Hour,
			12 * time.Hour, 24 * time.Hour}, times[1], "%s: a round time step", c)
		for i, d := range times {
			assert.Equal(t, time.Duration(i)*times[1], d, "%s: time ticks every %v", c, times[1])
		}
		if c == "states" {
			continue
		}
		require.Greater(t, len(values), 1, "%s: value ticks", c)
		if slices.Contains(logCharts, c) {
			for _, v := range values[1:] {
				assert.True(t, round(v), "%s: %v is 1, 2 or 5 x 10^n", c, v)
			}
			continue
		}
		assert.True(t, round(values[1]), "%s: step %v is 1, 2 or 5 x 10^n", c, values[1])
		for i, v := range values {
			assert.InDelta(t, float64(i)*values[1], v, values[1]*1e-9, "%s: ticks every %v", c, values[1])
		}
	}
}

// round says v is 1, 2 or 5 x 10^n.
func round(v float64) bool {
	mantissa := v / math.Pow(10, math.Floor(math.Log10(v)))
	return slices.ContainsFunc([]float64{1, 2, 5, 10}, func(m float64) bool { return math.Abs(mantissa-m) < 1e-9 })
}

// tickTime reads a time tick's label, e.g. "0 min", "1 h 30 min", "30 s".
func tickTime(label string) (time.Duration, bool) {
	m := regexp.MustCompile(`^(?:(\d+) h)? ?(?:(\d+) min)? ?(?:(\d+) s)?$`).FindStringSubmatch(label)
	if m == nil || label == "" {
		return 0, false
	}
	var d time.Duration
	for i, unit := range []time.Duration{time.Hour, time.Minute, time.Second} {
		n, _ := strconv.Atoi(m[i+1])
		d += time.Duration(n) * unit
	}
	return d, true
}

// tickValue reads a value tick's label, e.g. "0", "2.5k/s", "$0.002".
func tickValue(label string) (float64, bool) {
	m := regexp.MustCompile(`^\$?([0-9.]+)(k|M)?(/s)?$`).FindStringSubmatch(label)
	if m == nil {
		return 0, false
	}
	v, err := strconv.ParseFloat(m[1], 64)
	return v * map[string]float64{"": 1, "k": 1e3, "M": 1e6}[m[2]], err == nil
}

func TestCheckDOMFindsFailures(t *testing.T) {
	var page strings.Builder
	page.WriteString(`<body data-status="drawn">`)
	for _, c := range charts {
		fmt.Fprintf(&page, `<svg class="chart" data-chart="%s" viewBox="0 0 1 1" data-marks="4">`+
			`<path class="mark" data-strategy="redrive" stroke="#1" stroke-width="6"></path>`+
			`<path class="mark" data-strategy="bulk move" stroke="#3" stroke-width="3" stroke-dasharray="0.1 6"></path>`+
			`<rect class="mark" fill="#a" data-state="healthy"></rect><rect class="mark" fill="#b" data-state="CLOSED"></rect>`+
			`<g class="legend" data-entries="2"><g class="entry"><text class="key">redrive</text></g><g class="entry"><text class="key">bulk move</text></g>`+
			`<g class="entry"><text class="key">healthy</text></g><g class="entry"><text class="key">CLOSED</text></g></g></svg>`, c)
	}
	require.NoError(t, checkDOM(page.String()))
	tests := []struct{ name, dom, want string }{
		{"script error", strings.Replace(page.String(), `"drawn"`, `"error: boom"`, 1), `page status "error: boom"`},
		{"never ran", strings.Replace(page.String(), `"drawn"`, `"loading"`, 1), `page status "loading"`},
		{"empty chart", strings.Replace(page.String(), `data-chart="cost" viewBox="0 0 1 1" data-marks="4"`, `data-chart="cost" data-marks="0"`, 1), `chart "cost" is empty`},
		{"undrawn chart", strings.Replace(page.String(), `data-chart="calls" viewBox="0 0 1 1" data-marks="4"`, `data-chart="calls"`, 1), `chart "calls" has no data-marks`},
		{"no body", strings.Replace(page.String(), `<body data-status="drawn">`, "", 1), "no <body data-status>"},
		{"no legend", strings.Replace(page.String(), `<g class="legend" data-entries="2">`, "<g>", 1), `chart "states" has no legend`},
		{"empty legend", strings.Replace(page.String(), `data-entries="2"`, `data-entries="0"`, 1), `chart "states" has an empty legend`},
		{"unnamed line", strings.Replace(page.String(), `<text class="key">bulk move</text>`, `<text class="key">bulk</text>`, 1), `chart "states": the legend does not name "bulk move"`},
		{"lines alike", strings.Replace(page.String(), `stroke="#3" stroke-width="3" stroke-dasharray="0.1 6"`, `stroke="#1" stroke-width="6"`, 1), `chart "states": "redrive" and "bulk move" drawn alike`},
		{"states alike", strings.Replace(page.String(), `fill="#b"`, `fill="#a"`, 1), `chart "states": healthy and CLOSED share the colour #a`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := checkDOM(tt.dom)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

// chromiumPath is Debian's chromium, which `make browser` installs.
const chromiumPath = "/usr/bin/chromium"

// chromium runs headless chromium on a file with args, returning stdout
// and stderr.
func chromium(t *testing.T, page string, args ...string) (string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	base := []string{
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + t.TempDir(), "--enable-logging=stderr", "--v=0",
	}
	cmd := exec.CommandContext(ctx, chromiumPath, append(append(base, args...), "file://"+page)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), "chromium: %s", stderr.String())
	return stdout.String(), stderr.String()
}

// needChromium skips the test when chromium is absent, unless
// REQUIRE_BROWSER says it must run.
func needChromium(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(chromiumPath); err != nil {
		if os.Getenv("REQUIRE_BROWSER") != "" {
			t.Fatalf("REQUIRE_BROWSER is set but %s is missing (make browser installs it)", chromiumPath)
		}
		t.Skipf("skipped: %s not installed (make browser installs it; REQUIRE_BROWSER=1 makes this a failure)", chromiumPath)
	}
}

func TestReportInHeadlessChromium(t *testing.T) {
	needChromium(t)
	dir := t.TempDir()
	page, _ := writeReport(t, dir)

	dom, logs := chromium(t, page, "--dump-dom")
	require.NoError(t, checkDOM(dom), "DOM:\n%.2000s", dom)
	assert.NotContains(t, logs, "Uncaught", "no script error on the console")
	checkTicks(t, dom)
	assert.Len(t, regexp.MustCompile(`<ul class="verdicts">(?s:.*?)</ul>`).FindAllString(dom, -1), 1, "the verdict")
	assert.Equal(t, 3, strings.Count(dom, `<li data-strategy=`), "a verdict per strategy")
	assert.Contains(t, dom, `<td class="best"`, "the best values marked")
	assert.Contains(t, dom, `<section id="glossary">`)

	shot := filepath.Join(dir, "report.png")
	chromium(t, page, "--screenshot="+shot, "--window-size=1280,3400", "--hide-scrollbars")
	png, err := os.ReadFile(shot)
	require.NoError(t, err)
	require.True(t, bytes.HasPrefix(png, []byte("\x89PNG")), "a PNG screenshot")
	cache := filepath.Join("..", "..", ".cache")
	require.NoError(t, os.MkdirAll(cache, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(cache, "report.png"), png, 0o644))
	t.Logf("screenshot: %s (copied to .cache/report.png)", shot)
}

func TestBrokenReportFailsInHeadlessChromium(t *testing.T) {
	needChromium(t)
	dir := t.TempDir()
	page, html := writeReport(t, dir)
	broken := bytes.Replace(html, []byte(`lineChart(svg, "cost"`), []byte(`noSuchChart(svg, "cost"`), 1)
	require.NotEqual(t, html, broken)
	require.NoError(t, os.WriteFile(page, broken, 0o644))

	dom, _ := chromium(t, page, "--dump-dom")
	err := checkDOM(dom)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "noSuchChart is not defined")
}

// maxSteps is the most steps a journey shows (sim's maxJourneySteps),
// plus the one standing for those left out.
const maxSteps = 40 + 1

// checkJourneys checks the bounds of an outcome's journeys: at most 3, of
// distinct executions, each at most maxSteps steps in time order within
// its execution, with at most one Skipped step, in the middle.
func checkJourneys(t *testing.T, o sim.Outcome) {
	t.Helper()
	assert.LessOrEqual(t, len(o.Journeys), 3, "%s: at most 3 journeys", o.Strategy)
	seen := map[string]bool{}
	for _, j := range o.Journeys {
		assert.False(t, seen[j.Execution], "%s: %s shown twice", o.Strategy, j.Execution)
		seen[j.Execution] = true
		require.NotEmpty(t, j.Steps, "%s: %s has steps", o.Strategy, j.Execution)
		assert.LessOrEqual(t, len(j.Steps), maxSteps, "%s: %s's steps bounded", o.Strategy, j.Execution)
		assert.Equal(t, "execution started", j.Steps[0].Event)
		assert.True(t, strings.HasPrefix(j.Steps[len(j.Steps)-1].Event, "execution "), "ends with the execution's end")
		last, skipped := j.Start, 0
		for i, s := range j.Steps {
			if s.Skipped > 0 {
				skipped++
				assert.Equal(t, (maxSteps-1)/2, i, "the skipped steps in the middle")
				assert.Equal(t, maxSteps, len(j.Steps), "steps skipped only beyond the bound")
				continue
			}
			assert.GreaterOrEqual(t, s.At, last, "%s: steps in time order", j.Execution)
			assert.LessOrEqual(t, s.At, j.Stop, "%s: steps within the execution", j.Execution)
			last = s.At
		}
		assert.LessOrEqual(t, skipped, 1)
	}
}

func TestReportShowsSampleJourneys(t *testing.T) {
	r := playSmall(t)
	for _, o := range r.Outcomes {
		checkJourneys(t, o)
	}
	assert.Empty(t, r.Outcomes[0].Journeys, "the redrive's delivery tries are Express executions, which keep no history to show")
	naive := r.Outcomes[1].Journeys
	require.NotEmpty(t, naive, "the naive backoff's executions have journeys")
	first := naive[0]
	assert.Equal(t, "m-000001", first.Message)
	assert.Contains(t, first.Why, "the first message to arrive")
	assert.Equal(t, "parked", first.Outcome, "its tries all fall in the outage")
	assert.Equal(t, time.Minute, first.Start, "it starts as the message arrives")
	var states []string
	for _, s := range first.Steps {
		states = append(states, s.State)
	}
	assert.Subset(t, states, []string{"Deliver", "Park"}, "its tries, then the parking lot")
	assert.Contains(t, first.Steps, sim.Step{At: first.Start + 100*time.Millisecond, State: "Deliver", Event: "task failed",
		Detail: "Unavailable: simtarget: downstream unavailable (DOWN)"}, "its first try, with the error")
	for _, j := range naive {
		assert.Equal(t, "parked", j.Outcome, "the naive backoff parks every message of the outage")
		assert.Regexp(t, `^m-\d{6}$`, j.Message, "mapped to the scenario's message id")
	}
	assert.Empty(t, r.Outcomes[2].Journeys, "the bulk move runs no executions")

	_, page := writeReportOf(t, t.TempDir(), r)
	html := string(page)
	assert.Contains(t, html, `<section id="journeys">`)
	assert.NotContains(t, html, "<h3>redrive</h3>")
	assert.Contains(t, html, "<h3>naive backoff</h3>")
	assert.NotContains(t, html, "<h3>bulk move</h3>")
	assert.Contains(t, html, "<b>m-000001</b>, the first message to arrive")
	assert.Contains(t, html, "<td>0:01:00.0</td><td>Deliver</td><td>entered</td>")
	assert.Contains(t, html, "<td>Deliver</td><td>task failed</td><td>Unavailable: simtarget: downstream unavailable (DOWN)</td>",
		"the naive backoff's failed tries, with the error")

	// Journeys are for the report only.
	var table, js bytes.Buffer
	require.NoError(t, sim.WriteTable(&table, r))
	require.NoError(t, sim.WriteJSON(&js, r))
	for _, out := range []string{table.String(), js.String()} {
		assert.NotContains(t, out, first.Execution)
		assert.NotContains(t, out, "downstream unavailable")
	}
}

func TestSampleJourneysAreDeterministic(t *testing.T) {
	r := playSmall(t)
	again, err := sim.Play(context.Background(), small(), []sim.Strategy{sim.Redrive{DirectInvoke: true}, sim.NaiveBackoff{}}, &recorder{})
	require.NoError(t, err)
	for i := range again.Outcomes {
		assert.Equal(t, r.Outcomes[i].Journeys, again.Outcomes[i].Journeys, "%s: the same journeys for the same seed", r.Outcomes[i].Strategy)
	}
}

func TestLongJourneysAreCut(t *testing.T) {
	// 30 tries a second or two apart within the outage: a naive
	// execution's history has 30 failures and 29 retries.
	s := small()
	s.Messages.Count = 10
	s.Retry = sim.Retry{MaxAttempts: 30, BackoffBase: time.Second, BackoffMax: 2 * time.Second}
	o, _, _ := run(t, sim.NaiveBackoff{}, s)
	checkJourneys(t, o)
	require.NotEmpty(t, o.Journeys)
	j := o.Journeys[0]
	require.Len(t, j.Steps, maxSteps, "cut to the bound")
	mid := j.Steps[(maxSteps-1)/2]
	assert.Equal(t, sim.Step{Skipped: 64 - (maxSteps - 1)}, mid,
		"started, entered, 30 failures, 29 retries, left, Park entered, succeeded: 64 steps, 40 shown")
	assert.Equal(t, "execution succeeded", j.Steps[len(j.Steps)-1].Event, "the end is kept")
	assert.Equal(t, "Park", j.Steps[len(j.Steps)-2].State)

	r := sim.Result{Scenario: s, Messages: s.Plan(), Outcomes: []sim.Outcome{o}, Metrics: []sim.Metrics{sim.Measure(s, s.Plan(), o, sim.ListPrices)}}
	_, page := writeReportOf(t, t.TempDir(), r)
	assert.Contains(t, string(page), `<tr class="skipped"><td colspan="4">… 24 more steps</td></tr>`)
}

// verdicts are the report's verdict sentences, by strategy, unescaped.
func verdicts(page string) map[string]string {
	out := map[string]string{}
	for _, m := range regexp.MustCompile(`<li data-strategy="([^"]*)">(.*?)</li>`).FindAllStringSubmatch(page, -1) {
		out[html.UnescapeString(m[1])] = html.UnescapeString(regexp.MustCompile(`<[^>]*>`).ReplaceAllString(m[2], ""))
	}
	return out
}

func TestReportGivesAVerdictPerStrategy(t *testing.T) {
	r := playSmall(t)
	_, page := writeReportOf(t, t.TempDir(), r)
	got := verdicts(string(page))
	sum := sim.SummaryOf(r)
	require.Len(t, got, len(sum.Strategies))
	for _, f := range sum.Strategies {
		v := got[f.Strategy]
		require.NotEmpty(t, v, f.Strategy)
		assert.True(t, strings.HasPrefix(v, f.Strategy+" "), "%q names its strategy first", v)
		if f.Delivered == 0 {
			assert.Contains(t, v, "delivered none of the 80 messages")
			assert.Contains(t, v, "nothing delivered.")
		} else {
			drain := int(math.Round(*f.DrainSeconds))
			assert.Contains(t, v, fmt.Sprintf("delivered %d of 80 messages, the last %d:%02d:%02d after the consumer recovered", f.Delivered,
				drain/3600, drain/60%60, drain%60))
			assert.Contains(t, v, fmt.Sprintf("$%.2f per million delivered.", f.CostPerMillion.Total*80/float64(f.Delivered)))
		}
		assert.Contains(t, v, fmt.Sprintf("parked %d for a person", f.Parked))
		assert.Contains(t, v, fmt.Sprintf("put %d calls on the consumer while it was unhealthy", f.OutageCalls))
		assert.Contains(t, v, fmt.Sprintf("est. cost $%.2f per million messages", f.CostPerMillion.Total))
		assert.Equal(t, f.Pending > 0, strings.Contains(v, fmt.Sprintf("left %d pending at the end", f.Pending)), v)
	}

	healthy := r
	healthy.Scenario.Target.Health = nil
	_, page = writeReportOf(t, t.TempDir(), healthy)
	assert.Contains(t, verdicts(string(page))["redrive"], fmt.Sprintf("made %d calls on the consumer, which was healthy throughout", sum.Strategies[0].Calls))
}

// figureRows are the report's table rows: per label, the cells, and which
// of them are marked best.
func figureRows(t *testing.T, page string) map[string][]struct {
	text string
	best bool
} {
	t.Helper()
	out := map[string][]struct {
		text string
		best bool
	}{}
	for _, row := range regexp.MustCompile(`(?s)<tr><th scope="row">(.*?)</th>(.*?)</tr>`).FindAllStringSubmatch(page, -1) {
		label := html.UnescapeString(strings.TrimSpace(regexp.MustCompile(`(?s)<span.*?</span>`).ReplaceAllString(row[1], "")))
		for _, c := range regexp.MustCompile(`<td( class="best"[^>]*)?>([^<]*)</td>`).FindAllStringSubmatch(row[2], -1) {
			out[label] = append(out[label], struct {
				text string
				best bool
			}{html.UnescapeString(c[2]), c[1] != ""})
		}
	}
	return out
}

func TestReportMarksTheBestOfEachRow(t *testing.T) {
	r := playSmall(t)
	_, page := writeReportOf(t, t.TempDir(), r)
	rows := figureRows(t, string(page))
	sum := sim.SummaryOf(r)
	marked := func(label string) []bool {
		t.Helper()
		require.Contains(t, rows, label)
		var out []bool
		for _, c := range rows[label] {
			out = append(out, c.best)
		}
		return out
	}
	// best marks the strategies whose value is best, lowest unless higher.
	best := func(value func(sim.Figures) int, higher bool) []bool {
		sign := 1
		if higher {
			sign = -1
		}
		least := math.MaxInt
		for _, f := range sum.Strategies {
			least = min(least, sign*value(f))
		}
		var out []bool
		for _, f := range sum.Strategies {
			out = append(out, sign*value(f) == least)
		}
		return out
	}
	assert.Equal(t, best(func(f sim.Figures) int { return f.OutageCalls }, false), marked("calls during the outage (amplification)"), "fewest calls on the unhealthy consumer")
	assert.Equal(t, []bool{true, false, false}, marked("calls during the outage (amplification)"), "redrive's")
	assert.Equal(t, best(func(f sim.Figures) int { return f.Delivered }, true), marked("messages delivered"), "most delivered")
	assert.Equal(t, best(func(f sim.Figures) int { return f.Pending }, false), marked("messages still pending at the end"))
	assert.Equal(t, []bool{true, true, true}, marked("messages lost"), "a tie marks all")
	cheapest := math.Inf(1)
	for _, f := range sum.Strategies {
		cheapest = min(cheapest, math.Round(f.CostPerMillion.Total*100)/100)
	}
	for i, f := range sum.Strategies {
		assert.Equal(t, math.Round(f.CostPerMillion.Total*100)/100 == cheapest, marked("est. cost per million messages")[i], f.Strategy)
	}
	assert.False(t, marked("est. cost per million messages delivered")[1], "nothing delivered is never best")
	for _, label := range []string{"peak calls/s (capacity 5)", "recovery: healthy -> breaker CLOSED", "physical limit (deliveries / capacity)",
		"Step Functions", "peak room depth", "simulated time / wall time"} {
		assert.Equal(t, []bool{false, false, false}, marked(label), "%s: not ranked", label)
	}
	assert.Contains(t, string(page), `messages delivered <span class="better" title="higher is better">▲</span></th>`)
	assert.Contains(t, string(page), `calls in all <span class="better" title="lower is better">▼</span></th>`)
	assert.Contains(t, string(page), `peak calls/s (capacity 5)</th>`, "no arrow on a row not ranked")

	one := r
	one.Metrics = r.Metrics[:1]
	_, page = writeReportOf(t, t.TempDir(), one)
	assert.NotContains(t, string(page), `class="best"`, "one strategy is compared with none")
}

func TestReportShowsCostPerMessageDelivered(t *testing.T) {
	r := playSmall(t)
	_, page := writeReportOf(t, t.TempDir(), r)
	rows := figureRows(t, string(page))
	cells := rows["est. cost per million messages delivered"]
	sum := sim.SummaryOf(r)
	require.Len(t, cells, len(sum.Strategies))
	for i, f := range sum.Strategies {
		want := "nothing delivered"
		if f.Delivered > 0 {
			want = fmt.Sprintf("$%.2f", f.CostPerMillion.Total*float64(sum.Scenario.Messages)/float64(f.Delivered))
		}
		assert.Equal(t, want, cells[i].text, f.Strategy)
	}
	assert.Equal(t, 0, strings.Count(string(page), "est. cost per million messages delivered")-1, "once")
	assert.Regexp(t, `est. cost per million messages <span[^>]*>▼</span></th>.*</tr>\s*<tr><th scope="row">est. cost per million messages delivered`,
		string(page), "right after the cost per million messages")
}

// baselines are the report's baselines' settings, by strategy, unescaped.
func baselines(page string) map[string]string {
	out := map[string]string{}
	for _, m := range regexp.MustCompile(`<dd data-strategy="([^"]*)">([^<]*)</dd>`).FindAllStringSubmatch(page, -1) {
		out[html.UnescapeString(m[1])] = html.UnescapeString(m[2])
	}
	return out
}

func TestReportDescribesTheBaselinesFromTheirSettings(t *testing.T) {
	r := playSmall(t)
	_, page := writeReportOf(t, t.TempDir(), r)
	got := baselines(string(page))
	require.Len(t, got, 2, "the naive backoff and the bulk move")
	assert.Contains(t, got["naive backoff"], "tries the consumer up to 5 times; the waits between tries start at 30 s, doubling up to at most 15 min, "+
		"with full jitter (each wait random, up to that), so a message whose tries all fail is parked within about 7 min 30 s of its first")
	assert.Contains(t, got["bulk move"], "every 5 min, while the DLQ holds messages, a move task sends them back to the source queue at 10 per second")
	assert.Contains(t, got["bulk move"], "at most 20 calls in flight")
	assert.Contains(t, got["bulk move"], "after the 30 s visibility timeout, and one received 3 times (maxReceiveCount 3) goes back to the DLQ")

	// The texts follow the settings the baselines run with.
	r.Scenario.Retry = sim.Retry{MaxAttempts: 3, BackoffBase: 10 * time.Second, BackoffMax: 15 * time.Second}
	r.Scenario.Bulk = sim.Bulk{Rate: 7, Every: 90 * time.Minute, MaxReceiveCount: 2, VisibilityTimeout: 45 * time.Second, Concurrency: 4}
	_, page = writeReportOf(t, t.TempDir(), r)
	got = baselines(string(page))
	assert.Contains(t, got["naive backoff"], "up to 3 times; the waits between tries start at 10 s, doubling up to at most 15 s")
	assert.Contains(t, got["naive backoff"], "within about 25 s of its first")
	assert.Contains(t, got["bulk move"], "every 1 h 30 min")
	assert.Contains(t, got["bulk move"], "at 7 per second")
	assert.Contains(t, got["bulk move"], "at most 4 calls in flight")
	assert.Contains(t, got["bulk move"], "after the 45 s visibility timeout, and one received 2 times (maxReceiveCount 2)")

	r.Outcomes = r.Outcomes[:1]
	r.Metrics = r.Metrics[:1]
	_, page = writeReportOf(t, t.TempDir(), r)
	assert.Empty(t, baselines(string(page)), "no baseline played, none described")
	assert.NotContains(t, string(page), "The baselines' settings")
}

func TestReportHasAGlossary(t *testing.T) {
	_, page := writeReport(t, t.TempDir())
	section := regexp.MustCompile(`(?s)<section id="glossary">.*?</section>`).FindString(string(page))
	require.NotEmpty(t, section)
	terms := map[string]string{}
	for _, m := range regexp.MustCompile(`<dt>([^<]*)</dt><dd>([^<]*)</dd>`).FindAllStringSubmatch(section, -1) {
		terms[m[1]] = html.UnescapeString(m[2])
	}
	for _, term := range []string{"amplification", "physical limit", "room depth", "release rate", "parked", "CLOSED", "OPEN", "HALF_OPEN",
		"PROCEED", "CANARY", "WAIT", "QUEUE"} {
		assert.NotEmpty(t, terms[term], "%s defined", term)
	}
	assert.Contains(t, terms["amplification"], "while it was unhealthy")
	assert.Contains(t, terms["physical limit"], "over its calls per second")
	assert.Contains(t, terms["QUEUE"], "waiting room")
}
