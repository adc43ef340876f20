package sim_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/internal/sim"
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
