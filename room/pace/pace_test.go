package pace_test

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/room/pace"
)

func TestStep(t *testing.T) {
	tests := []struct {
		name      string
		policy    pace.Policy
		in        pace.State
		throttles int64
		want      pace.State
		n         int
	}{
		{name: "first tick of an epoch starts at Start",
			in: pace.State{Ceiling: 80, Carry: 0.7, Full: true, SeenThrottles: 4}, throttles: 4,
			want: pace.State{Rate: 10, SeenThrottles: 4}, n: 10},
		{name: "first tick takes no throttle as news",
			in: pace.State{SeenThrottles: 1}, throttles: 9,
			want: pace.State{Rate: 10, SeenThrottles: 9}, n: 10},
		{name: "slow start doubles after a full tick",
			in:   pace.State{Rate: 10, Full: true},
			want: pace.State{Rate: 20, Full: true}, n: 20},
		{name: "no growth when the tick was not used in full",
			in:   pace.State{Rate: 40},
			want: pace.State{Rate: 40}, n: 40},
		{name: "no growth near the ceiling when not full",
			in:   pace.State{Rate: 96, Ceiling: 100},
			want: pace.State{Rate: 96, Ceiling: 100}, n: 96},
		{name: "the first throttle halves and remembers the rate",
			in: pace.State{Rate: 80, Full: true, SeenThrottles: 2}, throttles: 3,
			want: pace.State{Rate: 40, Ceiling: 80, Full: true, SeenThrottles: 3}, n: 40},
		{name: "halving keeps at least one per second",
			in: pace.State{Rate: 1.5}, throttles: 1,
			want: pace.State{Rate: 1, Ceiling: 1.5, SeenThrottles: 1}, n: 1},
		{name: "a later throttle backs off by Backoff",
			in: pace.State{Rate: 50, Ceiling: 80, Full: true}, throttles: 1,
			want: pace.State{Rate: 45, Ceiling: 50, Full: true, SeenThrottles: 1}, n: 45},
		{name: "backoff by a configured factor",
			policy: pace.Policy{Backoff: 0.5},
			in:     pace.State{Rate: 50, Ceiling: 80}, throttles: 1,
			want: pace.State{Rate: 25, Ceiling: 50, SeenThrottles: 1}, n: 25},
		{name: "far below the ceiling: a quarter of the way to 95% of it",
			in:   pace.State{Rate: 100, Ceiling: 200, Full: true},
			want: pace.State{Rate: 122.5, Ceiling: 200, Full: true, Carry: 0.5}, n: 122},
		{name: "just below 95% of the ceiling: +2%",
			in:   pace.State{Rate: 180, Ceiling: 200, Full: true},
			want: pace.State{Rate: 183.6, Ceiling: 200, Full: true, Carry: 0.6}, n: 183},
		{name: "below the ceiling: at least +1",
			in:   pace.State{Rate: 20, Ceiling: 21.5, Full: true},
			want: pace.State{Rate: 21, Ceiling: 21.5, Full: true}, n: 21},
		{name: "near the ceiling: +0.2%",
			in:   pace.State{Rate: 195, Ceiling: 200, Full: true},
			want: pace.State{Rate: 195.39, Ceiling: 200, Full: true, Carry: 0.39}, n: 195},
		{name: "near the ceiling: at least +0.25, the fraction carried",
			in:   pace.State{Rate: 9.6, Ceiling: 10, Full: true},
			want: pace.State{Rate: 9.85, Ceiling: 10, Full: true, Carry: 0.85}, n: 9},
		{name: "past the ceiling: +1%",
			in:   pace.State{Rate: 200, Ceiling: 200, Full: true},
			want: pace.State{Rate: 202, Ceiling: 200, Full: true}, n: 202},
		{name: "carry adds up to a whole message",
			in:   pace.State{Rate: 10.25, Ceiling: 10, Carry: 0.8},
			want: pace.State{Rate: 10.25, Ceiling: 10, Carry: 0.05}, n: 11},
		{name: "capped at Max",
			in:   pace.State{Rate: 2000, Full: true},
			want: pace.State{Rate: 3000, Full: true}, n: 3000},
		{name: "capped at a configured Max",
			policy: pace.Policy{Start: 5, Max: 12},
			in:     pace.State{Rate: 10, Full: true},
			want:   pace.State{Rate: 12, Full: true}, n: 12},
		{name: "a short tick releases its share of the rate",
			policy: pace.Policy{Tick: 250 * time.Millisecond},
			in:     pace.State{Rate: 10},
			want:   pace.State{Rate: 10, Carry: 0.5}, n: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, n := tt.policy.Step(tt.in, tt.throttles)
			assert.Equal(t, tt.n, n)
			assert.InDelta(t, tt.want.Rate, got.Rate, 1e-9, "rate")
			assert.InDelta(t, tt.want.Carry, got.Carry, 1e-9, "carry")
			got.Rate, got.Carry, tt.want.Rate, tt.want.Carry = 0, 0, 0, 0
			assert.Equal(t, tt.want, got)
		})
	}
}

// TestStepFindsTheTargetsCapacity runs the controller against a target
// that throttles whenever a tick releases more than it takes: the rate
// settles below the capacity and keeps most of it.
func TestStepFindsTheTargetsCapacity(t *testing.T) {
	const capacity = 137
	var p pace.Policy
	var s pace.State
	var throttles int64
	var rates []float64
	for range 300 {
		var n int
		s, n = p.Step(s, throttles)
		if n > capacity {
			throttles++
		}
		s.Full = true
		rates = append(rates, s.Rate)
	}
	last := rates[len(rates)-100:]
	for _, r := range last {
		assert.LessOrEqual(t, r, capacity*1.02)
		assert.GreaterOrEqual(t, r, capacity*0.8)
	}
}

func TestPolicyDefaults(t *testing.T) {
	assert.Equal(t, pace.Policy{Start: 10, Max: 3000, Backoff: 0.9, Tick: time.Second, Lease: time.Minute}, pace.Policy{}.WithDefaults())
	custom := pace.Policy{Start: 1, Max: 2, Backoff: 0.5, Tick: 2 * time.Second, Lease: time.Hour}
	assert.Equal(t, custom, custom.WithDefaults())
	assert.NoError(t, pace.Policy{}.Validate())
	assert.NoError(t, custom.Validate())
}

func TestPolicyValidate(t *testing.T) {
	tests := []struct {
		name   string
		policy pace.Policy
		field  string
		want   string
	}{
		{"negative start", pace.Policy{Start: -1}, "Start", "must be a positive rate"},
		{"start not a number", pace.Policy{Start: math.NaN()}, "Start", "must be a positive rate"},
		{"infinite start", pace.Policy{Start: math.Inf(1), Max: math.Inf(1)}, "Start", "must be a positive rate"},
		{"max below start", pace.Policy{Start: 20, Max: 10}, "Max", "must be at least Start"},
		{"start above the default max", pace.Policy{Start: 4000}, "Max", "must be at least Start"},
		{"infinite max", pace.Policy{Max: math.Inf(1)}, "Max", "must be at least Start"},
		{"backoff of one", pace.Policy{Backoff: 1}, "Backoff", "must be in (0, 1)"},
		{"negative backoff", pace.Policy{Backoff: -0.5}, "Backoff", "must be in (0, 1)"},
		{"tick too short", pace.Policy{Tick: 5 * time.Millisecond}, "Tick", "must be at least 10ms"},
		{"lease shorter than three ticks", pace.Policy{Tick: time.Minute}, "Lease", "must be at least three ticks"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.policy.Validate()
			var pe *pace.PolicyError
			require.ErrorAs(t, err, &pe)
			assert.Equal(t, tt.field, pe.Field)
			assert.Equal(t, tt.want, pe.Problem)
			assert.ErrorContains(t, err, "pace: policy "+tt.field+" ")
		})
	}
}
