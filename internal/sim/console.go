package sim

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/redrive/redrive/breaker"
)

// Console is the Observer of `redrive run`: a line per breaker state
// change on Lines, and, when Bar is set, a progress bar of every strategy
// redrawn in place on Bar (a terminal), at most every Every of wall time.
type Console struct {
	// Lines receives a line per breaker state change.
	Lines io.Writer
	// Bar receives the progress bar; nil means none.
	Bar io.Writer
	// Every is the least wall time between redraws; default 100ms.
	Every time.Duration

	mu       sync.Mutex
	progress map[string]progress
	order    []string
	drawn    time.Time
	shown    bool // a bar is on the screen
}

// progress is one strategy's last report.
type progress struct {
	now            time.Duration
	settled, total int
}

var _ Observer = (*Console)(nil)

// Progress implements Observer.
func (c *Console) Progress(strategy string, now time.Duration, settled, total int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.progress == nil {
		c.progress = map[string]progress{}
	}
	if _, ok := c.progress[strategy]; !ok {
		c.order = append(c.order, strategy)
		slices.Sort(c.order)
	}
	c.progress[strategy] = progress{now: now, settled: settled, total: total}
	every := c.Every
	if every == 0 {
		every = 100 * time.Millisecond
	}
	if c.Bar != nil && time.Since(c.drawn) >= every {
		c.draw()
	}
}

// Transition implements Observer.
func (c *Console) Transition(strategy string, t breaker.Transition) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.clear()
	fmt.Fprintf(c.Lines, "%s  %-8s breaker %-12s %s -> %s (%s)\n",
		clock(t.At.Sub(Epoch)), strategy, t.Key, t.From, t.To, t.Cause)
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

// draw redraws the bar in place. Call with c.mu held.
func (c *Console) draw() {
	var parts []string
	for _, name := range c.order {
		p := c.progress[name]
		parts = append(parts, fmt.Sprintf("%s %s %d/%d t=%s", name, bar(p.settled, p.total, 12), p.settled, p.total, clock(p.now)))
	}
	fmt.Fprintf(c.Bar, "\r\033[K%s", strings.Join(parts, " | "))
	c.drawn, c.shown = time.Now(), true
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
