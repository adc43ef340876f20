package telemetry_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/breaker/breakertest"
	"github.com/redrive/redrive/lambda/telemetry"
)

func TestGauges(t *testing.T) {
	var buf bytes.Buffer
	m := telemetry.NewMetrics(&buf, nil, breakertest.NewClock(t0))
	m.Gauges("orders") // nothing to write
	assert.Zero(t, buf.Len())
	m.Gauges("orders",
		telemetry.Gauge{Name: telemetry.RoomDepth, Value: 1200, Unit: telemetry.UnitCount},
		telemetry.Gauge{Name: telemetry.OldestWaitingSeconds, Value: 95, Unit: telemetry.UnitSeconds},
		telemetry.Gauge{Name: telemetry.ReleaseRatePerMinute, Value: 600, Unit: telemetry.UnitCount})
	var line struct {
		AWS struct {
			Timestamp         int64
			CloudWatchMetrics []struct {
				Namespace  string
				Dimensions [][]string
				Metrics    []struct{ Name, Unit string }
			}
		} `json:"_aws"`
		Breaker              string
		RoomDepth            int64
		OldestWaitingSeconds int64
		ReleaseRatePerMinute int64
	}
	require.NoError(t, json.Unmarshal(buf.Bytes(), &line), buf.String())
	assert.Equal(t, t0.UnixMilli(), line.AWS.Timestamp)
	require.Len(t, line.AWS.CloudWatchMetrics, 1)
	d := line.AWS.CloudWatchMetrics[0]
	assert.Equal(t, "Redrive", d.Namespace)
	assert.Equal(t, [][]string{{"Breaker"}}, d.Dimensions)
	assert.Equal(t, []struct{ Name, Unit string }{
		{"RoomDepth", "Count"}, {"OldestWaitingSeconds", "Seconds"}, {"ReleaseRatePerMinute", "Count"},
	}, d.Metrics)
	assert.Equal(t, "orders", line.Breaker)
	assert.EqualValues(t, 1200, line.RoomDepth)
	assert.EqualValues(t, 95, line.OldestWaitingSeconds)
	assert.EqualValues(t, 600, line.ReleaseRatePerMinute)
}
