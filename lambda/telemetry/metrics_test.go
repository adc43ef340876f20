package telemetry_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/breaker/breakertest"
	"github.com/redrive/redrive/lambda/telemetry"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 987654321, time.UTC)

// emfLine is one parsed EMF line: its metadata, checked against AWS's
// specification, and its top-level members.
type emfLine struct {
	timestamp int64
	metrics   map[string]string // name -> unit
	members   map[string]any
}

// parseEMF checks one line against the embedded metric format
// specification and returns it: an _aws object with an integer Timestamp
// (ms) and CloudWatchMetrics directives, each with a Namespace, Dimensions
// (arrays of member names) and Metrics ({Name, Unit}); every dimension a
// string member and every metric a number member at the top level.
func parseEMF(t *testing.T, line string) emfLine {
	t.Helper()
	var members map[string]any
	dec := json.NewDecoder(strings.NewReader(line))
	dec.UseNumber()
	require.NoError(t, dec.Decode(&members), "line %q", line)

	var raw struct {
		AWS json.RawMessage `json:"_aws"`
	}
	require.NoError(t, json.Unmarshal([]byte(line), &raw))
	require.NotEmpty(t, raw.AWS, "_aws")
	var meta struct {
		Timestamp         *int64
		CloudWatchMetrics []struct {
			Namespace  string
			Dimensions [][]string
			Metrics    []struct{ Name, Unit string }
		}
	}
	strict := json.NewDecoder(bytes.NewReader(raw.AWS))
	strict.DisallowUnknownFields() // only the specification's members
	require.NoError(t, strict.Decode(&meta))

	require.NotNil(t, meta.Timestamp, "_aws.Timestamp")
	require.Len(t, meta.CloudWatchMetrics, 1)
	directive := meta.CloudWatchMetrics[0]
	assert.Equal(t, "Redrive", directive.Namespace)
	assert.Equal(t, [][]string{{"Breaker"}}, directive.Dimensions)
	for _, dims := range directive.Dimensions {
		for _, dim := range dims {
			assert.IsType(t, "", members[dim], "dimension %q is a top-level string", dim)
			assert.NotEmpty(t, members[dim])
		}
	}
	out := emfLine{timestamp: *meta.Timestamp, metrics: map[string]string{}, members: members}
	require.NotEmpty(t, directive.Metrics)
	for _, m := range directive.Metrics {
		assert.Contains(t, []string{"Count", "None"}, m.Unit)
		assert.IsType(t, json.Number(""), members[m.Name], "metric %q is a top-level number", m.Name)
		out.metrics[m.Name] = m.Unit
	}
	return out
}

// lines splits output into lines, each ending in a newline.
func lines(t *testing.T, out string) []string {
	t.Helper()
	if out == "" {
		return nil
	}
	require.True(t, strings.HasSuffix(out, "\n"), "output ends with a newline")
	return strings.Split(strings.TrimSuffix(out, "\n"), "\n")
}

func TestCount(t *testing.T) {
	for _, name := range []telemetry.Name{
		telemetry.Delivered, telemetry.Transient, telemetry.Poison, telemetry.Parked, telemetry.Trips,
		telemetry.Closes, telemetry.Canaries, telemetry.Waits, telemetry.Duplicates, telemetry.StartThrottled,
	} {
		t.Run(string(name), func(t *testing.T) {
			var out bytes.Buffer
			m := telemetry.NewMetrics(&out, nil, breakertest.NewClock(t0))
			m.Count("orders", name, 3)

			got := lines(t, out.String())
			require.Len(t, got, 1)
			line := parseEMF(t, got[0])
			assert.Equal(t, t0.UnixMilli(), line.timestamp)
			assert.Equal(t, map[string]string{string(name): "Count"}, line.metrics)
			assert.Equal(t, "orders", line.members["Breaker"])
			assert.Equal(t, json.Number("3"), line.members[string(name)])
			assert.Len(t, line.members, 3, "_aws, the dimension, the metric")
			assert.NoError(t, m.Err())
		})
	}
}

func TestCountEscapesTheKey(t *testing.T) {
	tests := []struct{ key, want string }{
		{key: `tenant "a"`, want: `tenant "a"`},
		{key: `back\slash`, want: `back\slash`},
		{key: "line\nbreak\r\ttab", want: "line\nbreak\r\ttab"},
		{key: "ctrl\x00\x01\x1f\x7f", want: "ctrl\x00\x01\x1f\x7f"},
		{key: "unicode é 日本 \u2028", want: "unicode é 日本 \u2028"},
		{key: "bad \xff utf8", want: "bad \ufffd utf8"},
		{key: "", want: "unknown"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			var out bytes.Buffer
			telemetry.NewMetrics(&out, nil, nil).Count(tt.key, telemetry.Delivered, 1)
			got := lines(t, out.String())
			require.Len(t, got, 1, "no raw newline inside a line")
			assert.Equal(t, tt.want, parseEMF(t, got[0]).members["Breaker"])
		})
	}
}

func TestStateValue(t *testing.T) {
	assert.Equal(t, int64(0), telemetry.StateValue(breaker.Closed))
	assert.Equal(t, int64(1), telemetry.StateValue(breaker.HalfOpen))
	assert.Equal(t, int64(2), telemetry.StateValue(breaker.Open))
	assert.Equal(t, int64(3), telemetry.StateValue(breaker.ForcedOpen))
	assert.Equal(t, int64(4), telemetry.StateValue(breaker.ForcedClosed))
	assert.Equal(t, int64(-1), telemetry.StateValue(breaker.State(9)))
}

func TestOnTransition(t *testing.T) {
	tests := []struct {
		name    string
		from    breaker.State
		to      breaker.State
		cause   string
		level   string
		metrics map[string]string // name -> value
	}{
		{name: "trip", from: breaker.Closed, to: breaker.Open, cause: breaker.CauseConsecutiveFailures, level: "WARN", metrics: map[string]string{"BreakerState": "2", "Trips": "1"}},
		{name: "probe succeeded", from: breaker.Open, to: breaker.HalfOpen, cause: breaker.CauseProbeSuccess, level: "INFO", metrics: map[string]string{"BreakerState": "1"}},
		{name: "canary failed", from: breaker.HalfOpen, to: breaker.Open, cause: breaker.CauseCanaryFailure, level: "WARN", metrics: map[string]string{"BreakerState": "2", "Trips": "1"}},
		{name: "recovered", from: breaker.HalfOpen, to: breaker.Closed, cause: breaker.CauseCanarySuccesses, level: "INFO", metrics: map[string]string{"BreakerState": "0", "Closes": "1"}},
		{name: "forced open", from: breaker.Closed, to: breaker.ForcedOpen, cause: breaker.CauseForceOpen, level: "WARN", metrics: map[string]string{"BreakerState": "3"}},
		{name: "forced closed", from: breaker.Open, to: breaker.ForcedClosed, cause: breaker.CauseForceClose, level: "INFO", metrics: map[string]string{"BreakerState": "4"}},
		{name: "forced mode expired", from: breaker.ForcedOpen, to: breaker.Closed, cause: breaker.CauseForcedExpired, level: "INFO", metrics: map[string]string{"BreakerState": "0"}},
		{name: "reset while closed", from: breaker.Closed, to: breaker.Closed, cause: breaker.CauseReset, level: "INFO", metrics: map[string]string{"BreakerState": "0"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var metricsOut, logOut bytes.Buffer
			m := telemetry.NewMetrics(&metricsOut, telemetry.JSONLoggerOn(&logOut, breakertest.NewClock(t0)), breakertest.NewClock(t0.Add(time.Hour)))
			m.OnTransition(breaker.Transition{Key: "orders", From: tt.from, To: tt.to, Generation: 8, Cause: tt.cause, At: t0})

			metricLines := lines(t, metricsOut.String())
			require.Len(t, metricLines, 1, "one metric line per transition")
			line := parseEMF(t, metricLines[0])
			assert.Equal(t, t0.UnixMilli(), line.timestamp, "stamped with the transition's time")
			assert.Equal(t, "orders", line.members["Breaker"])
			assert.Len(t, line.metrics, len(tt.metrics))
			for name, value := range tt.metrics {
				assert.Equal(t, json.Number(value), line.members[name], name)
			}
			assert.Equal(t, "None", line.metrics["BreakerState"])

			logLines := lines(t, logOut.String())
			require.Len(t, logLines, 1, "one log line per transition")
			var entry map[string]any
			require.NoError(t, json.Unmarshal([]byte(logLines[0]), &entry))
			assert.Equal(t, "breaker state change", entry["message"])
			assert.Equal(t, tt.level, entry["level"])
			assert.Equal(t, "orders", entry["breaker"])
			assert.Equal(t, tt.from.String(), entry["from"])
			assert.Equal(t, tt.to.String(), entry["to"])
			assert.Equal(t, tt.cause, entry["cause"])
			assert.Equal(t, 8.0, entry["generation"])
			assert.Equal(t, t0.Format(time.RFC3339Nano), entry["timestamp"], "the logger's clock, the breaker's")
			assert.NotContains(t, entry, "at", "one time per line")
		})
	}
}

// TestObserverOfARealBreaker wires OnTransition as a breaker's observer and
// trips it: the observer sees the trip, and the line says so.
func TestObserverOfARealBreaker(t *testing.T) {
	var metricsOut, logOut bytes.Buffer
	now := t0
	m := telemetry.NewMetrics(&metricsOut, telemetry.JSONLogger(&logOut), breakertest.NewClock(now))
	b, err := breaker.New(breaker.NewMemStore(), breaker.Policy{ConsecutiveFailures: 2}, breaker.Options{Clock: breakertest.NewClock(now), Random: breaker.NewRandom(1), Observer: m.OnTransition})
	require.NoError(t, err)
	for range 2 {
		d, err := b.Admit(t.Context(), "orders")
		require.NoError(t, err)
		_, err = b.Record(t.Context(), "orders", d.Row, d.Ticket, breaker.Transient)
		require.NoError(t, err)
	}
	got := lines(t, metricsOut.String())
	require.Len(t, got, 1)
	line := parseEMF(t, got[0])
	assert.Equal(t, json.Number("2"), line.members["BreakerState"])
	assert.Equal(t, json.Number("1"), line.members["Trips"])
	assert.Len(t, lines(t, logOut.String()), 1)
}

func TestConcurrentCountsKeepLinesWhole(t *testing.T) {
	var out bytes.Buffer
	m := telemetry.NewMetrics(&out, nil, nil)
	const writers, each = 16, 50
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for range each {
				m.Count(strings.Repeat("k", w+1), telemetry.Delivered, 1)
			}
		})
	}
	wg.Wait()
	scanner := bufio.NewScanner(&out)
	perKey := map[string]int{}
	for scanner.Scan() {
		perKey[parseEMF(t, scanner.Text()).members["Breaker"].(string)]++
	}
	require.NoError(t, scanner.Err())
	assert.Len(t, perKey, writers)
	for key, n := range perKey {
		assert.Equal(t, each, n, key)
	}
}

// failingWriter fails every write.
type failingWriter struct{ err error }

func (f failingWriter) Write([]byte) (int, error) { return 0, f.err }

func TestWriteErrorIsKept(t *testing.T) {
	broken := errors.New("stdout closed")
	m := telemetry.NewMetrics(failingWriter{broken}, nil, nil)
	m.Count("orders", telemetry.Delivered, 1)
	m.Count("orders", telemetry.Delivered, 1)
	assert.ErrorIs(t, m.Err(), broken)
}
