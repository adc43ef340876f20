package sim

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/clock"
)

// Console is the Observer of `redrive run`: a line per breaker state
// change on Lines, and, when Bar is set, a progress bar of every strategy
// redrawn in place on Bar (a terminal), at most every Every of wall time;
// when Bar is not set but Log is, a progress line on Log every LogEvery.
// Once a strategy has run for a while, its progress shows its pace
// (messages settled per wall second, simulated time per wall second) and
// an estimate of the wall time it has left.
type Console struct {
	// Lines receives a line per breaker state change.
	Lines io.Writer
	// Bar receives the progress bar; nil means none.
	Bar io.Writer
	// Every is the least wall time between redraws; default 100ms.
	Every time.Duration
	// Log receives a progress line every LogEvery (default 30s) when Bar
	// is nil: for a long run whose output is a log, not a terminal.
	Log      io.Writer
	LogEvery time.Duration
	// Horizon is the scenario's horizon, when a strategy stops at the
	// latest: it bounds the estimate of the time left. Zero: unknown.
	Horizon time.Duration
	// Clock is the wall clock the pace is measured on; default clock.Wall.
	Clock clock.Clock

	mu       sync.Mutex
	progress map[string]*progress
	order    []string
	drawn    time.Time
	logged   time.Time
	shown    bool // a bar is on the screen
}

// paceWindow is the wall time over which a strategy's pace is measured.
const paceWindow = 10 * time.Second

// progress is one strategy's last report and its pace.
type progress struct {
	now            time.Duration
	settled, total int
	// mark is the report paceWindow or more ago the pace is measured
	// from; perSecond and simPerSecond are the pace (zero until known).
	mark                    mark
	perSecond, simPerSecond float64
}

// mark is a strategy's progress at a wall time.
type mark struct {
	wall    time.Time
	now     time.Duration
	settled int
}

var _ Observer = (*Console)(nil)

// Progress implements Observer.
func (c *Console) Progress(strategy string, now time.Duration, settled, total int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	wall := c.wall()
	if c.progress == nil {
		c.progress = map[string]*progress{}
	}
	p, ok := c.progress[strategy]
	if !ok {
		p = &progress{mark: mark{wall: wall, now: now, settled: settled}}
		c.progress[strategy] = p
		c.order = append(c.order, strategy)
		slices.Sort(c.order)
	}
	p.now, p.settled, p.total = now, settled, total
	if dt := wall.Sub(p.mark.wall); dt >= paceWindow {
		p.perSecond = float64(settled-p.mark.settled) / dt.Seconds()
		p.simPerSecond = (now - p.mark.now).Seconds() / dt.Seconds()
		p.mark = mark{wall: wall, now: now, settled: settled}
	}
	every := c.Every
	if every == 0 {
		every = 100 * time.Millisecond
	}
	if c.Bar != nil && wall.Sub(c.drawn) >= every {
		c.draw()
	}
	logEvery := c.LogEvery
	if logEvery == 0 {
		logEvery = 30 * time.Second
	}
	if c.Bar == nil && c.Log != nil && wall.Sub(c.logged) >= logEvery {
		if !c.logged.IsZero() {
			fmt.Fprintln(c.Log, c.status())
		}
		c.logged = wall
	}
}

// Transition implements Observer.
func (c *Console) Transition(strategy string, t breaker.Transition) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.clear()
	fmt.Fprintf(c.Lines, "%s  %-8s breaker %-12s %s -> %s (%s)\n",
		hms(t.At.Sub(Epoch)), strategy, t.Key, t.From, t.To, t.Cause)
	if c.Bar != nil {
		c.draw()
	}
}

// Done removes the bar, so what follows starts on a clean line.
func (c *Console) Done() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.clear()
}

// Status is every strategy's progress so far, on one line: what the bar
// shows.
func (c *Console) Status() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.status()
}

// wall reads the wall clock. Call with c.mu held.
func (c *Console) wall() time.Time {
	if c.Clock != nil {
		return c.Clock.Now()
	}
	return clock.Wall.Now()
}

// status is Status. Call with c.mu held.
func (c *Console) status() string {
	var parts []string
	for _, name := range c.order {
		p := c.progress[name]
		part := fmt.Sprintf("%s %s %d/%d t=%s", name, bar(p.settled, p.total, 12), p.settled, p.total, hms(p.now))
		if p.simPerSecond > 0 {
			part += fmt.Sprintf(" %s/s %.0fx", rate(p.perSecond), p.simPerSecond)
			if left, ok := c.left(p); ok {
				part += " ~" + hms(left) + " left"
			}
		}
		parts = append(parts, part)
	}
	return strings.Join(parts, " | ")
}

// left estimates the wall time a strategy has left: until every message
// settles at its current pace, or until its simulated time reaches the
// horizon at its current speed, whichever comes first.
func (c *Console) left(p *progress) (time.Duration, bool) {
	var est []time.Duration
	if p.perSecond > 0 {
		est = append(est, time.Duration(float64(p.total-p.settled)/p.perSecond*float64(time.Second)))
	}
	if c.Horizon > p.now && p.simPerSecond > 0 {
		est = append(est, time.Duration((c.Horizon-p.now).Seconds()/p.simPerSecond*float64(time.Second)))
	}
	if len(est) == 0 {
		return 0, false
	}
	return slices.Min(est), true
}

// rate formats messages per second: a decimal below 10.
func rate(perSecond float64) string {
	if perSecond < 10 {
		return fmt.Sprintf("%.1f", perSecond)
	}
	return thousands(int64(perSecond))
}

// draw redraws the bar in place. Call with c.mu held.
func (c *Console) draw() {
	fmt.Fprintf(c.Bar, "\r\033[K%s", c.status())
	c.drawn, c.shown = c.wall(), true
}

// clear erases the bar. Call with c.mu held.
func (c *Console) clear() {
	if c.shown {
		fmt.Fprint(c.Bar, "\r\033[K")
		c.shown = false
	}
}

// bar draws done of total as width cells.
func bar(done, total, width int) string {
	full := 0
	if total > 0 {
		full = min(width, done*width/total)
	}
	return "[" + strings.Repeat("#", full) + strings.Repeat(".", width-full) + "]"
}
