package attempt

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestBackoffHasEqualJitter(t *testing.T) {
	c := Config{BackoffBase: 30 * time.Second, BackoffMax: 15 * time.Minute}
	tests := []struct {
		tries    int
		r        float64
		want     time.Duration
		wantSecs int
	}{
		{1, 0, 15 * time.Second, 15},
		{1, 0.999, 29985 * time.Millisecond, 30},
		{2, 0, 30 * time.Second, 30},
		{5, 0.5, 360 * time.Second, 360}, // step 8m
		{6, 0, 450 * time.Second, 450},   // step 16m, capped at 15m
		{60, 0.5, 675 * time.Second, 675},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("tries %d r %v", tt.tries, tt.r), func(t *testing.T) {
			got := c.backoff(tt.tries, tt.r)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.wantSecs, waitSeconds(got))
		})
	}
}

func TestWaitSecondsRoundsUpToAtLeastOne(t *testing.T) {
	for d, want := range map[time.Duration]int{0: 1, time.Millisecond: 1, time.Second: 1, 1001 * time.Millisecond: 2, time.Minute: 60} {
		assert.Equal(t, want, waitSeconds(d), d)
	}
}
