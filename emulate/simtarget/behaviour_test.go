package simtarget

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseBehaviour(t *testing.T) {
	start := time.Date(2026, 1, 2, 15, 0, 0, 0, time.UTC)
	tests := []struct {
		spec     string
		want     Behaviour
		schedule Schedule
	}{
		{"healthy", Behaviour{}, nil},
		{"down", Behaviour{Health: Down}, Schedule{{From: start, Health: Down}}},
		{"down:2m", Behaviour{Health: Down, For: 2 * time.Minute}, Outage(start, 2*time.Minute)},
		{"flaky:0.3", Behaviour{Health: Degraded, ErrorRate: 0.3},
			Schedule{{From: start, Health: Degraded, ErrorRate: 0.3}}},
		{"flaky:1:5m", Behaviour{Health: Degraded, ErrorRate: 1, For: 5 * time.Minute},
			Schedule{{From: start, Health: Degraded, ErrorRate: 1}, {From: start.Add(5 * time.Minute), Health: Healthy}}},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			b, err := ParseBehaviour(tt.spec)
			require.NoError(t, err)
			assert.Equal(t, tt.want, b)
			assert.Equal(t, tt.schedule, b.Schedule(start))
			assert.NoError(t, b.Schedule(start).Validate())
			again, err := ParseBehaviour(b.String())
			require.NoError(t, err, "String %q reads back", b.String())
			assert.Equal(t, b, again)
		})
	}
}

func TestParseBehaviourRefusesBadSpecs(t *testing.T) {
	tests := []struct{ spec, want string }{
		{"", "want healthy, down[:DURATION] or flaky:RATE[:DURATION]"},
		{"sick", "want healthy, down[:DURATION] or flaky:RATE[:DURATION]"},
		{"healthy:5m", "healthy takes no arguments"},
		{"down:soon", `duration "soon": want a positive duration`},
		{"down:-1m", `duration "-1m": want a positive duration`},
		{"down:1m:2m", "too many ':'-separated parts"},
		{"flaky", "want flaky:RATE[:DURATION]"},
		{"flaky:0", `rate "0": want a number in (0, 1]`},
		{"flaky:1.5", `rate "1.5": want a number in (0, 1]`},
		{"flaky:NaN", `rate "NaN": want a number in (0, 1]`},
		{"flaky:0.5:1m:2m", "too many ':'-separated parts"},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			_, err := ParseBehaviour(tt.spec)
			assert.ErrorContains(t, err, tt.want)
		})
	}
}
