package sim_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/breaker/breakertest"
	"github.com/redrive/redrive/emulate/sim"
)

func TestConsoleLinesAndBar(t *testing.T) {
	var lines, bar bytes.Buffer
	c := &sim.Console{Lines: &lines, Bar: &bar, Every: time.Nanosecond}
	c.Progress("redrive", 90*time.Second, 25, 100)
	assert.Equal(t, "\r\033[Kredrive [###.........] 25/100 t=0:01:30", bar.String())

	bar.Reset()
	c.Transition("redrive", breaker.Transition{Key: "orders", From: breaker.Closed, To: breaker.Open,
		Cause: breaker.CauseConsecutiveFailures, At: sim.Epoch.Add(2*time.Minute + 5*time.Second)})
	assert.Equal(t, "0:02:05  redrive  breaker orders       CLOSED -> OPEN (consecutive-failures)\n", lines.String())
	assert.Equal(t, "\r\033[K"+"\r\033[Kredrive [###.........] 25/100 t=0:01:30", bar.String(), "the bar is cleared for the line, then redrawn")

	bar.Reset()
	c.Progress("bulk move", time.Hour, 100, 100)
	assert.Contains(t, bar.String(), "bulk move [############] 100/100 t=1:00:00 | redrive [###.........]")
	c.Done()
	assert.True(t, bytes.HasSuffix(bar.Bytes(), []byte("\r\033[K")), "Done clears the bar")
}

func TestConsoleWithoutBarPrintsOnlyLines(t *testing.T) {
	var lines bytes.Buffer
	c := &sim.Console{Lines: &lines}
	c.Progress("redrive", time.Minute, 1, 2)
	c.Done()
	assert.Empty(t, lines.String())
	c.Transition("redrive", breaker.Transition{Key: "k", From: breaker.Open, To: breaker.HalfOpen, Cause: "cooldown-elapsed", At: sim.Epoch})
	assert.Equal(t, "0:00:00  redrive  breaker k            OPEN -> HALF_OPEN (cooldown-elapsed)\n", lines.String())
}

// TestConsolePaceAndTimeLeft reports progress on a fake wall clock: after
// ten seconds the bar shows the pace (settled per second, simulated
// speed) and the time left, the lesser of the messages' and the
// horizon's estimates.
func TestConsolePaceAndTimeLeft(t *testing.T) {
	var bar bytes.Buffer
	wall := breakertest.NewClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	c := &sim.Console{Lines: &bytes.Buffer{}, Bar: &bar, Every: time.Nanosecond, Horizon: 3 * time.Hour, Clock: wall}
	c.Progress("redrive", 0, 0, 1000)
	wall.Advance(10 * time.Second)
	c.Progress("redrive", 10*time.Minute, 100, 1000)
	// 10 per second: 900 left is 90s; 10 simulated minutes in 10s is 60x,
	// and 2h50m to the horizon at 60x is 170s.
	assert.Equal(t, "redrive [#...........] 100/1000 t=0:10:00 10/s 60x ~0:01:30 left", c.Status())
	assert.Contains(t, bar.String(), "~0:01:30 left")

	wall.Advance(10 * time.Second)
	c.Progress("redrive", 20*time.Minute, 100, 1000)
	assert.Equal(t, "redrive [#...........] 100/1000 t=0:20:00 0.0/s 60x ~0:02:40 left", c.Status(), "nothing settled: the horizon bounds it")
}

func TestConsoleLogsProgressWithoutABar(t *testing.T) {
	var lines, log bytes.Buffer
	wall := breakertest.NewClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	c := &sim.Console{Lines: &lines, Log: &log, LogEvery: time.Minute, Clock: wall}
	c.Progress("redrive", 0, 0, 10)
	wall.Advance(30 * time.Second)
	c.Progress("redrive", time.Minute, 1, 10)
	assert.Empty(t, log.String(), "nothing before a minute")
	wall.Advance(30 * time.Second)
	c.Progress("redrive", 2*time.Minute, 2, 10)
	assert.Equal(t, "redrive [##..........] 2/10 t=0:02:00 0.0/s 2x ~0:04:00 left\n", log.String())
	assert.Empty(t, lines.String())
}
