package clock

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestScaledRunsScaleTimesFaster(t *testing.T) {
	start := time.Date(2026, 1, 2, 15, 0, 0, 0, time.UTC)
	tests := []struct {
		scale   float64
		elapsed time.Duration
		want    time.Duration
	}{
		{1, 90 * time.Second, 90 * time.Second},
		{10, 3 * time.Second, 30 * time.Second},
		{0.5, time.Minute, 30 * time.Second},
		{60, 0, 0},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%v at %gx", tt.elapsed, tt.scale), func(t *testing.T) {
			wall := start
			c, err := NewScaled(tt.scale, func() time.Time { return wall })
			require.NoError(t, err)
			assert.Equal(t, start, c.Now(), "starts at the wall time")
			wall = start.Add(tt.elapsed)
			assert.Equal(t, start.Add(tt.want), c.Now())
			assert.Equal(t, tt.scale, c.Scale())
		})
	}
}

func TestScaledRefusesBadScales(t *testing.T) {
	for _, scale := range []float64{0, -1, math.Inf(1), math.NaN()} {
		_, err := NewScaled(scale, time.Now)
		assert.ErrorContains(t, err, "want a finite number > 0", "scale %v", scale)
	}
}

func TestScaledSleep(t *testing.T) {
	c, err := NewScaled(1000, time.Now)
	require.NoError(t, err)
	before := c.Now()
	c.Sleep(t.Context(), 2*time.Second)
	assert.GreaterOrEqual(t, c.Now().Sub(before), 2*time.Second, "the handlers' clock advanced at least d")

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	slow, err := NewScaled(1e-9, time.Now)
	require.NoError(t, err)
	slow.Sleep(ctx, time.Hour) // would take 1e12 hours of wall time; returns since ctx is done
}

func TestScaledDeadlinesAreWallDeadlines(t *testing.T) {
	wall := time.Date(2026, 1, 2, 15, 0, 0, 0, time.UTC)
	c, err := NewScaled(60, func() time.Time { return wall })
	require.NoError(t, err)
	ctx, cancel := c.WithDeadline(t.Context(), wall.Add(time.Hour))
	defer cancel()
	d, ok := ctx.Deadline()
	require.True(t, ok)
	assert.Equal(t, wall.Add(time.Minute), d, "an hour at 60x is a minute of wall time")
	got, ok := c.Deadline(ctx)
	require.True(t, ok)
	assert.Equal(t, wall.Add(time.Hour), got)
	_, ok = c.Deadline(t.Context())
	assert.False(t, ok)
}

func TestWallIsTheWallClock(t *testing.T) {
	assert.WithinDuration(t, time.Now(), Wall.Now(), time.Second)
	at := time.Now().Add(time.Hour)
	ctx, cancel := Wall.WithDeadline(t.Context(), at)
	defer cancel()
	d, _ := ctx.Deadline()
	assert.Equal(t, at, d)
}

func TestScaledFromContinuesAReading(t *testing.T) {
	wall := time.Date(2026, 1, 2, 15, 0, 0, 0, time.UTC)
	from := time.Date(2026, 1, 3, 9, 0, 0, 0, time.UTC) // where a stopped clock was
	c, err := NewScaledFrom(60, from, func() time.Time { return wall })
	require.NoError(t, err)
	assert.Equal(t, from, c.Now())
	wall = wall.Add(time.Second)
	assert.Equal(t, from.Add(time.Minute), c.Now())
	assert.Equal(t, wall.Add(time.Second), c.ToWall(from.Add(2*time.Minute)))
}
