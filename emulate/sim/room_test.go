package sim_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/emulate/sim"
)

// roomOutcome is a hand-made outcome with a waiting room read every 10s:
// depths 5, 9, 2, 0 and releases 0, 50, 60, 60 (5/s, then 1/s, then none).
func roomOutcome() sim.Outcome {
	o := sim.Outcome{Strategy: "roomy", HasRoom: true, End: at(30 * time.Second)}
	for i, r := range []sim.RoomReading{{Depth: 5}, {Depth: 9, Releases: 50}, {Depth: 2, Releases: 60}, {Releases: 60}} {
		o.Samples = append(o.Samples, sim.Sample{At: time.Duration(i) * 10 * time.Second, Room: r})
	}
	return o
}

func TestMeasureTakesTheRoomsPeaks(t *testing.T) {
	s, msgs := tiny()
	m := sim.Measure(s, msgs, roomOutcome(), sim.ListPrices)
	assert.True(t, m.HasRoom)
	assert.Equal(t, 9, m.PeakRoomDepth)
	assert.InDelta(t, 5.0, m.PeakReleaseRate, 1e-9)

	o := roomOutcome()
	o.HasRoom = false
	m = sim.Measure(s, msgs, o, sim.ListPrices)
	assert.False(t, m.HasRoom, "readings without a room are ignored")
	assert.Zero(t, m.PeakRoomDepth)
	assert.Nil(t, m.Figures().PeakRoomDepth)
	assert.Nil(t, m.Figures().PeakReleasesPerSecond)
}

func TestSeriesOfTheRoomArePeaksPerBucket(t *testing.T) {
	s, msgs := tiny()
	o := roomOutcome()
	without := o
	without.Strategy, without.HasRoom = "roomless", false
	series := sim.SeriesOf(sim.Result{Scenario: s, Messages: msgs, Outcomes: []sim.Outcome{o, without}})
	// The outage ends at 10m: 11m of charts in 3s buckets.
	require.Equal(t, 3.0, series.StepSeconds)
	require.True(t, series.HasRoom())
	room := series.Strategies[0]
	require.Len(t, room.RoomDepth, len(series.Minutes))
	require.Len(t, room.ReleaseRate, len(series.Minutes))
	// Bucket 3 is [9s, 12s): the depth goes 5 -> 9 and the rate 5/s -> 1/s in it.
	assert.Equal(t, []int{5, 5, 5, 9, 9, 9, 9, 2, 2, 2, 0, 0}, room.RoomDepth[:12])
	assert.Equal(t, []float64{5, 5, 5, 5, 1, 1, 1, 0, 0, 0, 0, 0}, room.ReleaseRate[:12])
	assert.Nil(t, series.Strategies[1].RoomDepth, "absent without a room")
	assert.Nil(t, series.Strategies[1].ReleaseRate)

	series = sim.SeriesOf(sim.Result{Scenario: s, Messages: msgs, Outcomes: []sim.Outcome{without}})
	assert.False(t, series.HasRoom())
}

func TestRedriveReadsItsWaitingRoom(t *testing.T) {
	r := playSmall(t)
	redrive := r.Outcomes[0]
	require.True(t, redrive.HasRoom, "played with the stack's room")
	var peakDepth int
	var peakRate float64
	for i, s := range redrive.Samples {
		peakDepth = max(peakDepth, s.Room.Depth)
		if i > 0 {
			prev := redrive.Samples[i-1]
			require.GreaterOrEqual(t, s.Room.Releases, prev.Room.Releases, "releases are cumulative")
			peakRate = max(peakRate, float64(s.Room.Releases-prev.Room.Releases)/(s.At-prev.At).Seconds())
		}
	}
	m := r.Metrics[0]
	assert.True(t, m.HasRoom)
	assert.Equal(t, peakDepth, m.PeakRoomDepth)
	assert.InDelta(t, peakRate, m.PeakReleaseRate, 1e-9)
	assert.Positive(t, m.PeakRoomDepth)
	assert.Positive(t, m.PeakReleaseRate)
	last := redrive.Samples[len(redrive.Samples)-1].Room
	assert.Zero(t, last.Depth, "the room empty at the end")
	assert.GreaterOrEqual(t, last.Releases, int64(m.Delivered), "every message arrived in the outage: each delivered one waited it out in the room")

	for i, o := range r.Outcomes[1:] {
		assert.False(t, o.HasRoom, o.Strategy)
		assert.False(t, r.Metrics[i+1].HasRoom, o.Strategy)
	}
	rows := sim.Table(r)
	for _, row := range rows {
		if row[0] == "peak room depth" || row[0] == "peak release rate" {
			assert.NotEqual(t, "-", row[1])
			assert.Equal(t, []string{"-", "-"}, row[2:], "the baselines have no room")
		}
	}
}
