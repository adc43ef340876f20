package breaker_test

import (
	"errors"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/breaker"
)

func TestPolicyWithDefaults(t *testing.T) {
	got := breaker.Policy{}.WithDefaults()
	assert.Equal(t, breaker.Policy{
		ConsecutiveFailures:  5,
		WindowSize:           20,
		MinimumCalls:         10,
		FailureRateThreshold: 0.5,
		CooldownBase:         30 * time.Second,
		CooldownMultiplier:   2,
		CooldownMax:          90 * time.Second,
		Jitter:               0.2,
		HalfOpenPermits:      1,
		CanaryLease:          2 * time.Minute,
		SuccessesToClose:     2,
		PollInterval:         5 * time.Second,
		ThrottlePause:        500 * time.Millisecond,
	}, got)

	t.Run("set and disabled fields are kept", func(t *testing.T) {
		p := breaker.Policy{ConsecutiveFailures: -1, WindowSize: 64, Jitter: -1, ThrottlePause: time.Minute}.WithDefaults()
		assert.Equal(t, -1, p.ConsecutiveFailures)
		assert.Equal(t, 64, p.WindowSize)
		assert.Equal(t, -1.0, p.Jitter)
		assert.Equal(t, time.Minute, p.ThrottlePause)
		assert.Equal(t, 10, p.MinimumCalls)
	})
}

func TestPolicyValidate(t *testing.T) {
	valid := []struct {
		name string
		p    breaker.Policy
	}{
		{"zero value", breaker.Policy{}},
		{"test policy", testPolicy},
		{"consecutive trip disabled", breaker.Policy{ConsecutiveFailures: -1}},
		{"rate trip disabled", breaker.Policy{FailureRateThreshold: -1}},
		{"largest window", breaker.Policy{WindowSize: 64, MinimumCalls: 64}},
		{"fixed cooldown", breaker.Policy{CooldownMultiplier: 1, CooldownBase: time.Minute, CooldownMax: time.Minute}},
	}
	for _, tc := range valid {
		t.Run("valid/"+tc.name, func(t *testing.T) {
			assert.NoError(t, tc.p.Validate())
		})
	}

	invalid := []struct {
		name, field, msg string
		p                breaker.Policy
	}{
		{"window too large", "WindowSize", "breaker: policy WindowSize 65: must be at most 64", breaker.Policy{WindowSize: 65}},
		{"window negative", "WindowSize", "breaker: policy WindowSize -1: must be positive", breaker.Policy{WindowSize: -1, MinimumCalls: 1}},
		{"minimum over window", "MinimumCalls", "breaker: policy MinimumCalls 11: must be at most WindowSize (10)", breaker.Policy{WindowSize: 10, MinimumCalls: 11}},
		{"minimum negative", "MinimumCalls", "breaker: policy MinimumCalls -3: must be positive", breaker.Policy{MinimumCalls: -3}},
		{"rate over one", "FailureRateThreshold", "breaker: policy FailureRateThreshold 1.5: must be in (0, 1], or negative to disable", breaker.Policy{FailureRateThreshold: 1.5}},
		{"rate NaN", "FailureRateThreshold", "", breaker.Policy{FailureRateThreshold: math.NaN()}},
		{"no trip at all", "ConsecutiveFailures", "", breaker.Policy{ConsecutiveFailures: -1, FailureRateThreshold: -1}},
		{"base negative", "CooldownBase", "breaker: policy CooldownBase -1s: must be positive", breaker.Policy{CooldownBase: -time.Second}},
		{"multiplier below one", "CooldownMultiplier", "breaker: policy CooldownMultiplier 0.5: must be at least 1", breaker.Policy{CooldownMultiplier: 0.5}},
		{"multiplier infinite", "CooldownMultiplier", "", breaker.Policy{CooldownMultiplier: math.Inf(1)}},
		{"max below base", "CooldownMax", "breaker: policy CooldownMax 10s: must be at least CooldownBase (30s)", breaker.Policy{CooldownMax: 10 * time.Second}},
		{"default max below base", "CooldownMax", "breaker: policy CooldownMax 1m30s: must be at least CooldownBase (2m0s)", breaker.Policy{CooldownBase: 2 * time.Minute}},
		{"jitter one", "Jitter", "breaker: policy Jitter 1: must be in [0, 1), or negative to disable", breaker.Policy{Jitter: 1}},
		{"permits negative", "HalfOpenPermits", "breaker: policy HalfOpenPermits -1: must be positive", breaker.Policy{HalfOpenPermits: -1}},
		{"lease negative", "CanaryLease", "breaker: policy CanaryLease -1m0s: must be positive", breaker.Policy{CanaryLease: -time.Minute}},
		{"successes negative", "SuccessesToClose", "breaker: policy SuccessesToClose -2: must be positive", breaker.Policy{SuccessesToClose: -2}},
		{"poll negative", "PollInterval", "breaker: policy PollInterval -1s: must be positive", breaker.Policy{PollInterval: -time.Second}},
		{"throttle pause negative", "ThrottlePause", "breaker: policy ThrottlePause -1s: must be positive", breaker.Policy{ThrottlePause: -time.Second}},
	}
	for _, tc := range invalid {
		t.Run("invalid/"+tc.name, func(t *testing.T) {
			err := tc.p.Validate()
			require.Error(t, err)
			var pe *breaker.PolicyError
			require.ErrorAs(t, err, &pe)
			assert.Equal(t, tc.field, pe.Field)
			assert.Contains(t, err.Error(), "breaker: policy "+tc.field)
			if tc.msg != "" {
				assert.Equal(t, tc.msg, err.Error())
			}
		})
	}

	t.Run("every invalid field is reported", func(t *testing.T) {
		err := breaker.Policy{WindowSize: 70, HalfOpenPermits: -1, ThrottlePause: -1}.Validate()
		require.Error(t, err)
		var fields []string
		for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
			var pe *breaker.PolicyError
			require.True(t, errors.As(e, &pe))
			fields = append(fields, pe.Field)
		}
		assert.Equal(t, []string{"WindowSize", "HalfOpenPermits", "ThrottlePause"}, fields)
	})
}

func TestCooldown(t *testing.T) {
	p := testPolicy // base 10s, x2, max 60s, no jitter
	growth := []struct {
		trips int
		want  time.Duration
	}{
		{0, 10 * time.Second},
		{1, 10 * time.Second},
		{2, 20 * time.Second},
		{3, 40 * time.Second},
		{4, 60 * time.Second},
		{5, 60 * time.Second},
		{10000, 60 * time.Second},
	}
	for _, tc := range growth {
		t.Run(fmt.Sprintf("trips=%d", tc.trips), func(t *testing.T) {
			assert.Equal(t, tc.want, p.Cooldown(tc.trips, 0.5))
		})
	}

	t.Run("jitter stays within +/-Jitter", func(t *testing.T) {
		j := p
		j.Jitter = 0.2
		assert.Equal(t, 32*time.Second, j.Cooldown(3, 0), "u=0 is the shortest")
		assert.Equal(t, 40*time.Second, j.Cooldown(3, 0.5), "u=0.5 is the middle")
		rnd := seeded(7)
		lo, hi := time.Duration(math.MaxInt64), time.Duration(0)
		for range 10000 {
			d := j.Cooldown(3, rnd.Float64())
			lo, hi = min(lo, d), max(hi, d)
		}
		assert.GreaterOrEqual(t, lo, 32*time.Second)
		assert.Less(t, hi, 48*time.Second)
		assert.Less(t, lo, 33*time.Second, "the spread reaches its low end")
		assert.Greater(t, hi, 47*time.Second, "the spread reaches its high end")
	})
}

// TestCooldownCapIncludesJitter: CooldownMax bounds the cooldown after the
// jitter, so it is a true bound on how late a recovery is noticed.
func TestCooldownCapIncludesJitter(t *testing.T) {
	p := testPolicy // base 10s, x2
	p.CooldownMax = 45 * time.Second
	p.Jitter = 0.2
	cases := []struct {
		name  string
		trips int
		u     float64
		want  time.Duration
	}{
		{"below the cap, spread down", 3, 0, 32 * time.Second},
		{"below the cap, in the middle", 3, 0.5, 40 * time.Second},
		{"spread up past the cap is cut to it", 3, 0.999, 45 * time.Second},
		{"a capped base spread down", 4, 0, 36 * time.Second},
		{"a capped base spread up stays at the cap", 4, 0.999, 45 * time.Second},
		{"far past the cap", 10000, 0.999, 45 * time.Second},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, p.Cooldown(tc.trips, tc.u))
		})
	}

	t.Run("the cap holds for every draw", func(t *testing.T) {
		rnd := seeded(11)
		for trips := 1; trips <= 8; trips++ {
			for range 1000 {
				assert.LessOrEqual(t, p.Cooldown(trips, rnd.Float64()), p.CooldownMax)
			}
		}
	})
	t.Run("the default cap is 90s with jitter", func(t *testing.T) {
		assert.Equal(t, 90*time.Second, breaker.Policy{}.Cooldown(100, 0.999))
		assert.Equal(t, 72*time.Second, breaker.Policy{}.Cooldown(100, 0), "30s x 2^99 capped at 90s, spread down by 20%")
	})
}
