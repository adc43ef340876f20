package emulator

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestClockRunsScaleTimesFaster(t *testing.T) {
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
			c, err := NewClock(tt.scale, func() time.Time { return wall })
			require.NoError(t, err)
			assert.Equal(t, start, c.Now(), "starts at the wall time")
			wall = start.Add(tt.elapsed)
			assert.Equal(t, start.Add(tt.want), c.Now())
			assert.Equal(t, tt.scale, c.Scale())
		})
	}
}

func TestClockRefusesBadScales(t *testing.T) {
	for _, scale := range []float64{0, -1, math.Inf(1), math.NaN()} {
		_, err := NewClock(scale, time.Now)
		assert.ErrorContains(t, err, "want a finite number > 0", "scale %v", scale)
	}
}

func TestClockSleepWaitsOnTheScaledClock(t *testing.T) {
	c, err := NewClock(1000, time.Now)
	require.NoError(t, err)
	before := c.Now()
	c.Sleep(t.Context(), 2*time.Second)
	assert.GreaterOrEqual(t, c.Now().Sub(before), 2*time.Second, "the handlers' clock advanced at least d")

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	slow, err := NewClock(1e-9, time.Now)
	require.NoError(t, err)
	slow.Sleep(ctx, time.Hour) // would take 1e12 hours of wall time; returns since ctx is done
}
