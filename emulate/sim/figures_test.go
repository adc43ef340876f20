package sim_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/emulate/sim"
)

// summaryJSON is the small scenario's WriteJSON, decoded without the
// package's types, so the test sees the field names a script sees.
func summaryJSON(t *testing.T, r sim.Result) map[string]any {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, sim.WriteJSON(&buf, r))
	var doc map[string]any
	require.NoError(t, json.Unmarshal(buf.Bytes(), &doc))
	return doc
}

func TestWriteJSONNamesTheScenario(t *testing.T) {
	r := playSmall(t)
	doc := summaryJSON(t, r)
	assert.EqualValues(t, sim.SummaryVersion, doc["version"])
	assert.Equal(t, map[string]any{"name": "small", "seed": 1.0, "messages": 80.0, "capacity": 5.0,
		"description": "80 messages of 2 tenants dead-lettered while a 5 calls/s consumer is down for 10 minutes"}, doc["scenario"])
	assert.InDelta(t, r.Wall.Seconds(), doc["wallSeconds"], 1e-9)
	strategies := doc["strategies"].([]any)
	require.Len(t, strategies, 3)
	for i, name := range []string{"redrive", "naive backoff", "bulk move"} {
		assert.Equal(t, name, strategies[i].(map[string]any)["strategy"])
	}
}

// cellCheck checks a table cell against its strategy's JSON figures.
type cellCheck func(t *testing.T, cell string, f map[string]any)

// count checks an integer cell ("1,234") against the figure named key.
func count(key string) cellCheck {
	return func(t *testing.T, cell string, f map[string]any) {
		n, err := strconv.Atoi(strings.ReplaceAll(cell, ",", ""))
		require.NoError(t, err, cell)
		assert.EqualValues(t, n, f[key], key)
	}
}

// rounded checks a cell holding numbers with the given decimals against
// the figures named keys, in order ("12 (2.4x)", "1.5 / 0.3", "$12.34").
func rounded(decimals int, keys ...string) cellCheck {
	return func(t *testing.T, cell string, f map[string]any) {
		numbers := regexp.MustCompile(`[0-9][0-9,]*(\.[0-9]+)?`).FindAllString(cell, -1)
		require.Len(t, numbers, len(keys), cell)
		for i, key := range keys {
			figure := dig(f, key)
			require.IsType(t, 0.0, figure, key)
			// As the table rounds it (fmt's %.Nf: 7.25, stored a little
			// below, is 7.2).
			want := strconv.FormatFloat(figure.(float64), 'f', decimals, 64)
			assert.Equal(t, want, strings.ReplaceAll(numbers[i], ",", ""), "%s in %q", key, cell)
		}
	}
}

// seconds checks an h:mm:ss cell against the figure named key, or a word
// cell against a null figure.
func seconds(key string, words ...string) cellCheck {
	return func(t *testing.T, cell string, f map[string]any) {
		clock := regexp.MustCompile(`^(\d+):(\d\d):(\d\d)`).FindStringSubmatch(cell)
		if clock == nil {
			assert.Contains(t, words, cell, key)
			if key != "" {
				assert.Nil(t, f[key], "%s is null where the table says %q", key, cell)
			}
			return
		}
		h, _ := strconv.Atoi(clock[1])
		m, _ := strconv.Atoi(clock[2])
		s, _ := strconv.Atoi(clock[3])
		require.IsType(t, 0.0, f[key], key)
		want := time.Duration(f[key].(float64) * float64(time.Second)).Round(time.Second)
		assert.Equal(t, want, time.Duration(h)*time.Hour+time.Duration(m)*time.Minute+time.Duration(s)*time.Second, key)
	}
}

// orDash checks a "-" cell against a null figure named key, and any other
// cell with check.
func orDash(key string, check cellCheck) cellCheck {
	return func(t *testing.T, cell string, f map[string]any) {
		if cell == "-" {
			assert.Nil(t, f[key], key)
			return
		}
		check(t, cell, f)
	}
}

// dig is the figure at a dotted path.
func dig(f map[string]any, path string) any {
	var v any = f
	for _, k := range strings.Split(path, ".") {
		v = v.(map[string]any)[k]
	}
	return v
}

// tableChecks are the JSON figures of each of the table's rows, by label.
var tableChecks = map[string]cellCheck{
	"calls during the outage (amplification)": count("outageCalls"),
	"calls in all":                count("calls"),
	"  throttled (over capacity)": count("throttled"),
	"peak calls/s (capacity 5)": func(t *testing.T, cell string, f map[string]any) {
		peak, ratio, ok := strings.Cut(cell, " ")
		require.True(t, ok, cell)
		count("peakCallsPerSecond")(t, peak, f)
		rounded(1, "peakOverCapacity")(t, ratio, f)
	},
	"recovery: healthy -> breaker CLOSED": seconds("breakerClosedSeconds", "no breaker", "no recovery", "never closed"),
	"recovery: healthy -> first delivery": seconds("firstDeliverySeconds", "none"),
	"drain: healthy -> last delivery": func(t *testing.T, cell string, f map[string]any) {
		if f["drained"] == false && f["drainSeconds"] != nil {
			assert.Equal(t, "not drained", cell)
			return
		}
		seconds("drainSeconds", "nothing delivered")(t, cell, f)
	},
	"  physical limit (deliveries / capacity)": func(t *testing.T, cell string, f map[string]any) {
		seconds("physicalDrainSeconds", "-")(t, cell, f)
		if cell != "-" {
			rounded(1, "drainOverPhysical")(t, strings.SplitN(cell, " ", 2)[1], f)
		}
	},
	"breaker state changes": func(t *testing.T, cell string, f map[string]any) {
		if cell == "no breaker" {
			assert.Nil(t, f["breakerChanges"])
			assert.Equal(t, false, f["hasBreaker"])
			return
		}
		count("breakerChanges")(t, cell, f)
	},
	"Standard state transitions per message": rounded(2, "transitionsPerMessage"),
	"DynamoDB reads / writes per message":    rounded(1, "dynamoReadsPerMessage", "dynamoWritesPerMessage"),
	"est. cost per million messages":         rounded(2, "costPerMillion.total"),
	"  Step Functions":                       rounded(2, "costPerMillion.stepFunctions"),
	"  Lambda (orchestrator + consumer)":     rounded(2, "costPerMillion.lambda"),
	"  DynamoDB":                             rounded(2, "costPerMillion.dynamoDB"),
	"  S3 and logs": func(t *testing.T, cell string, f map[string]any) {
		cost := f["costPerMillion"].(map[string]any)
		assert.Equal(t, fmt.Sprintf("$%.2f", cost["s3"].(float64)+cost["logs"].(float64)), cell)
	},
	"messages delivered":                count("delivered"),
	"messages parked (for a person)":    count("parked"),
	"messages still pending at the end": count("pending"),
	"messages lost":                     count("lost"),
	"messages delivered twice":          count("deliveredTwice"),
	"peak room depth":                   orDash("peakRoomDepth", count("peakRoomDepth")),
	"peak release rate":                 orDash("peakReleasesPerSecond", rounded(1, "peakReleasesPerSecond")),
	"open Standard executions (peak)":   orDash("peakOpenStandardExecutions", count("peakOpenStandardExecutions")),
	"account quota calls throttled": func(t *testing.T, cell string, f map[string]any) {
		throttles, _ := f["quotaThrottles"].(map[string]any)
		if throttles == nil {
			assert.Equal(t, "-", cell)
			return
		}
		var total float64
		for _, c := range throttles {
			total += c.(float64)
		}
		if total == 0 {
			assert.Equal(t, "none", cell)
			return
		}
		n, _, _ := strings.Cut(cell, " ")
		got, err := strconv.Atoi(strings.ReplaceAll(n, ",", ""))
		require.NoError(t, err, cell)
		assert.EqualValues(t, total, got)
	},
	"simulated time / wall time": func(t *testing.T, cell string, f map[string]any) {
		simulated, wall, ok := strings.Cut(cell, " / ")
		require.True(t, ok, cell)
		seconds("simulatedSeconds")(t, simulated, f)
		rounded(1, "wallSeconds")(t, wall, f)
	},
}

func TestJSONAgreesWithTheTable(t *testing.T) {
	r := playSmall(t)
	table := sim.Table(r)
	strategies := summaryJSON(t, r)["strategies"].([]any)
	require.Len(t, table[0], 1+len(strategies))
	for _, row := range table[1:] {
		check, ok := tableChecks[row[0]]
		require.True(t, ok, "row %q has no JSON check", row[0])
		for i, cell := range row[1:] {
			f := strategies[i].(map[string]any)
			t.Run(fmt.Sprintf("%s/%s", strings.TrimSpace(row[0]), f["strategy"]), func(t *testing.T) {
				check(t, cell, f)
			})
		}
	}
	assert.Len(t, table[1:], len(tableChecks), "every check has its row")
}
