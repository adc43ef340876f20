package breaker_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/redrive/redrive/breaker"
)

// rapidRandom draws the pure functions' randomness from rapid, so failing
// cases shrink through it too.
type rapidRandom struct{ t *rapid.T }

func (r rapidRandom) Float64() float64 {
	return rapid.Float64Range(0, 0.999999).Draw(r.t, "u")
}

func (r rapidRandom) Uint64() uint64 { return rapid.Uint64().Draw(r.t, "id") }

func drawDuration(t *rapid.T, label string, lo, hi time.Duration) time.Duration {
	return time.Duration(rapid.Int64Range(int64(lo/time.Millisecond), int64(hi/time.Millisecond)).Draw(t, label)) * time.Millisecond
}

// drawPolicy draws a small valid policy, including disabled trips and
// jitter.
func drawPolicy(t *rapid.T) breaker.Policy {
	window := rapid.IntRange(1, 12).Draw(t, "WindowSize")
	base := drawDuration(t, "CooldownBase", time.Second, 30*time.Second)
	p := breaker.Policy{
		ConsecutiveFailures:  rapid.SampledFrom([]int{-1, 1, 2, 3, 5}).Draw(t, "ConsecutiveFailures"),
		WindowSize:           window,
		MinimumCalls:         rapid.IntRange(1, window).Draw(t, "MinimumCalls"),
		FailureRateThreshold: rapid.SampledFrom([]float64{-1, 0.1, 0.5, 1}).Draw(t, "FailureRateThreshold"),
		CooldownBase:         base,
		CooldownMultiplier:   rapid.Float64Range(1, 3).Draw(t, "CooldownMultiplier"),
		CooldownMax:          base * time.Duration(rapid.IntRange(1, 10).Draw(t, "CooldownMaxFactor")),
		Jitter:               rapid.SampledFrom([]float64{-1, 0.1, 0.5, 0.9}).Draw(t, "Jitter"),
		HalfOpenPermits:      rapid.IntRange(1, 4).Draw(t, "HalfOpenPermits"),
		CanaryLease:          drawDuration(t, "CanaryLease", time.Second, time.Minute),
		SuccessesToClose:     rapid.IntRange(1, 3).Draw(t, "SuccessesToClose"),
		PollInterval:         drawDuration(t, "PollInterval", time.Second, 10*time.Second),
		ThrottlePause:        drawDuration(t, "ThrottlePause", time.Millisecond, 5*time.Second),
	}
	if p.ConsecutiveFailures < 0 && p.FailureRateThreshold < 0 {
		p.ConsecutiveFailures = 3
	}
	if err := p.Validate(); err != nil {
		t.Fatalf("drawn policy is invalid: %v", err)
	}
	return p
}

// machine drives the pure functions with random admits, outcomes (late
// and stale ones too), clock advances and commands, saving every change
// through a MemStore as the Breaker does, and checks the invariants.
type machine struct {
	p       breaker.Policy
	store   *breaker.MemStore
	row     breaker.Row
	now     time.Time
	tickets []breaker.Ticket
	writes  int64
}

// apply checks one change made by a pure function and saves it.
func (m *machine) apply(t *rapid.T, next breaker.Row, changed bool) {
	before := m.row
	if next.Version != before.Version {
		t.Fatalf("a pure function changed the version: %d -> %d", before.Version, next.Version)
	}
	if next.Generation < before.Generation {
		t.Fatalf("generation went back: %d -> %d", before.Generation, next.Generation)
	}
	if !changed {
		if !reflect.DeepEqual(before, next) {
			t.Fatalf("unchanged row differs:\n%+v\n%+v", before, next)
		}
		return
	}
	if next.State != before.State && next.Generation == before.Generation {
		t.Fatalf("%s -> %s without a new generation", before.State, next.State)
	}
	if next.Generation != before.Generation {
		if next.Generation != before.Generation+1 {
			t.Fatalf("generation jumped %d -> %d", before.Generation, next.Generation)
		}
		if s := (step{before.State, next.State, next.Cause}); !allowedSteps[s] {
			t.Fatalf("undefined transition %s -> %s (%s)", s.from, s.to, s.cause)
		}
	}
	m.checkTrips(t, before, next)
	if next.State == breaker.Open && (before.State != breaker.Open || next.OpenUntil != before.OpenUntil) {
		if d := next.OpenUntil.Sub(m.now); d <= 0 || d > m.p.CooldownMax {
			t.Fatalf("cooldown %v, cap %v", d, m.p.CooldownMax)
		}
	}
	next.Version = before.Version + 1
	if err := m.store.Save(context.Background(), before.Version, next); err != nil {
		t.Fatalf("save: %v", err)
	}
	m.writes++
	loaded, err := m.store.Load(context.Background(), "k")
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	if loaded.Version != m.writes || loaded.Version <= before.Version {
		t.Fatalf("version %d after %d writes (was %d)", loaded.Version, m.writes, before.Version)
	}
	m.row = loaded
}

// checkTrips checks that total trips never go back and count one per trip,
// and that only a trip sets the last trip, at its time, with its cause.
func (m *machine) checkTrips(t *rapid.T, before, next breaker.Row) {
	switch trips := next.Totals.Trips - before.Totals.Trips; {
	case trips < 0 || trips > 1:
		t.Fatalf("total trips %d -> %d: never reset, one per trip", before.Totals.Trips, next.Totals.Trips)
	case trips == 1 && (!next.LastTripAt.Equal(m.now) || next.LastTripCause == ""):
		t.Fatalf("a trip at %s kept last trip %s (%q)", m.now, next.LastTripAt, next.LastTripCause)
	case trips == 0 && (next.LastTripAt != before.LastTripAt || next.LastTripCause != before.LastTripCause):
		t.Fatalf("no trip, but the last trip changed: %s (%q) -> %s (%q)", before.LastTripAt, before.LastTripCause, next.LastTripAt, next.LastTripCause)
	}
}

// admit decides on one call and returns the decision.
func (m *machine) admit(t *rapid.T) breaker.Decision {
	d, next, changed := breaker.Decide(m.p, m.row, m.now, rapidRandom{t})
	if lifted := m.row.State == breaker.ForcedOpen && next.State != breaker.ForcedOpen; d.Lifted != lifted {
		t.Fatalf("Lifted %v when %s became %s", d.Lifted, m.row.State, next.State)
	}
	switch d.Verdict {
	case breaker.Proceed:
		m.tickets = append(m.tickets, d.Ticket)
	case breaker.Canary:
		if next.State == breaker.Open && next.Generation != m.row.Generation {
			t.Fatalf("the probe changed the generation")
		}
		m.tickets = append(m.tickets, d.Ticket)
	case breaker.Queue:
		if !m.released(next) {
			t.Fatalf("queued in %s with nothing out to release it: %+v", next.State, next)
		}
		if d.Wait != 0 {
			t.Fatalf("queued with a wait of its own: %v", d.Wait)
		}
		// Queueing writes nothing of its own: only the release of an
		// expired forced mode, before it, may (nobody scouts a cooldown).
		if changed && !expired(m.row, next) {
			t.Fatalf("queueing in %s wrote the row: %+v -> %+v", next.State, m.row, next)
		}
	case breaker.Wait:
		// Only a state this version does not know waits; the machine makes
		// none.
		t.Fatalf("wait in %s", next.State)
	default:
		t.Fatalf("undefined verdict %v", d.Verdict)
	}
	m.apply(t, next, changed)
	return d
}

// deliver is one delivery try: admit, and if admitted, answer at once. A
// queued message is released by the breaker's controller, which looks
// again when what holds it ends (see wake): then it is admitted again.
func (m *machine) deliver(t *rapid.T) {
	d := m.admit(t)
	if d.Verdict == breaker.Queue {
		if at, ok := m.wake(m.row); ok && at.After(m.now) {
			m.now = at
			d = m.admit(t)
		}
	}
	if d.Verdict == breaker.Proceed || d.Verdict == breaker.Canary {
		m.observe(t, d.Ticket)
	}
}

// wake is when what holds a message queued on r ends, when the controller
// looks again: the throttle pause, the cooldown, a timed hold, or the
// first live lease's expiry. ok is false for an operator's untimed hold.
func (m *machine) wake(r breaker.Row) (time.Time, bool) {
	switch r.State {
	case breaker.Closed, breaker.ForcedClosed:
		return r.ThrottledUntil, true
	case breaker.ForcedOpen:
		return r.ForcedUntil, !r.ForcedUntil.IsZero()
	case breaker.Open:
		if m.now.Before(r.OpenUntil) {
			return r.OpenUntil, true
		}
	}
	if m.now.Before(r.ThrottledUntil) {
		return r.ThrottledUntil, true
	}
	var first time.Time
	for _, l := range r.Leases {
		if l.Expires.After(m.now) && (first.IsZero() || l.Expires.Before(first)) {
			first = l.Expires
		}
	}
	return first, !first.IsZero()
}

// expired reports whether next is before's forced mode released at its
// end (the one write a decision may make besides a canary's lease).
func expired(before, next breaker.Row) bool {
	return (before.State == breaker.ForcedOpen || before.State == breaker.ForcedClosed) &&
		next.State == breaker.Closed && next.Cause == breaker.CauseForcedExpired && next.Generation == before.Generation+1
}

// released reports whether a call queued on r will be let through without
// an operator: something is out that ends (a throttle pause, the cooldown,
// the probe, the canaries, a timed hold), when the breaker's controller
// releases it, or an operator holds the breaker open.
func (m *machine) released(r breaker.Row) bool {
	live := liveLeases(r, m.now)
	switch r.State {
	case breaker.Closed, breaker.ForcedClosed:
		return m.now.Before(r.ThrottledUntil)
	case breaker.Open:
		// The cooldown lasts, the probe is out, or the controller waits
		// out the throttle pause before it releases the next probe.
		return m.now.Before(r.OpenUntil) || live > 0 || m.now.Before(r.ThrottledUntil)
	case breaker.HalfOpen:
		// The permits are out, or the releaser waits out the throttle
		// pause before it sends the next canary.
		return live >= m.p.HalfOpenPermits || m.now.Before(r.ThrottledUntil)
	default:
		// An operator's untimed hold waits for the operator; a timed one
		// ends, and the controller waits for its end.
		return r.State == breaker.ForcedOpen
	}
}

func liveLeases(r breaker.Row, now time.Time) int {
	live := 0
	for _, l := range r.Leases {
		if l.Expires.After(now) {
			live++
		}
	}
	return live
}

// outcomes weighs failures up, so that the breaker trips often.
var outcomes = []breaker.Outcome{breaker.Success, breaker.Success, breaker.Transient, breaker.Transient, breaker.Transient, breaker.Poison, breaker.Throttled}

// outcome answers one of the last few tickets, which may be late or stale.
func (m *machine) outcome(t *rapid.T) {
	if len(m.tickets) == 0 {
		t.Skip("no ticket yet")
	}
	age := rapid.IntRange(0, min(len(m.tickets), 4)-1).Draw(t, "age")
	m.observe(t, m.tickets[len(m.tickets)-1-age])
}

// observe records a drawn outcome for ticket and checks what it did.
func (m *machine) observe(t *rapid.T, ticket breaker.Ticket) {
	o := rapid.SampledFrom(outcomes).Draw(t, "outcome")
	before := m.row
	next, changed := breaker.Observe(m.p, m.row, ticket, o, m.now, rapidRandom{t})
	if o == breaker.Poison || o == breaker.Throttled {
		if next.Totals.Trips != before.Totals.Trips || (next.State == breaker.Open && before.State != breaker.Open) {
			t.Fatalf("%s tripped the breaker: %s -> %s", o, before.State, next.State)
		}
		if next.State == before.State && (next.Window != before.Window || next.ConsecutiveFailures != before.ConsecutiveFailures) {
			t.Fatalf("%s counted in the window", o)
		}
	}
	if before.State == breaker.Open && next.State == breaker.Open && next.Trips != before.Trips {
		if o != breaker.Transient || next.Trips != before.Trips+1 || next.Generation != before.Generation {
			t.Fatalf("OPEN trips %d -> %d on %s, generation %d -> %d", before.Trips, next.Trips, o, before.Generation, next.Generation)
		}
	}
	if ticket.Generation != before.Generation && next.Generation == before.Generation && changed {
		t.Fatalf("a stale outcome (generation %d, row %d) was written", ticket.Generation, before.Generation)
	}
	m.apply(t, next, changed)
}

// advance moves the clock within a lease, past a cooldown, or past both.
func (m *machine) advance(t *rapid.T) {
	longest := rapid.SampledFrom([]time.Duration{m.p.CanaryLease / 2, m.p.CooldownMax, 2*m.p.CooldownMax + m.p.CanaryLease}).Draw(t, "scale")
	m.now = m.now.Add(drawDuration(t, "advance", 0, longest))
}

func (m *machine) command(t *rapid.T) {
	if rapid.IntRange(0, 7).Draw(t, "rare") != 0 {
		t.Skip("commands are rare, so that the breaker's own transitions get a chance")
	}
	c := breaker.Command{
		Kind:  rapid.SampledFrom([]breaker.CommandKind{breaker.Reset, breaker.ForceOpen, breaker.ForceClose, breaker.Release}).Draw(t, "command"),
		Actor: "rapid",
	}
	if (c.Kind == breaker.ForceOpen || c.Kind == breaker.ForceClose) && rapid.Bool().Draw(t, "until") {
		c.Until = m.now.Add(drawDuration(t, "for", time.Millisecond, time.Hour))
	}
	next, changed, err := breaker.ApplyCommand(m.row, c, m.now)
	if err != nil {
		t.Fatalf("valid command %v refused: %v", c, err)
	}
	m.apply(t, next, changed)
}

// check holds after every action.
func (m *machine) check(t *rapid.T) {
	r, p := m.row, m.p
	live := liveLeases(r, m.now)
	switch {
	case live > p.HalfOpenPermits:
		t.Fatalf("%d live leases, %d permits", live, p.HalfOpenPermits)
	case r.State == breaker.Open && live > 1:
		t.Fatalf("%d probes out at once", live)
	case len(r.Leases) > 0 && r.State != breaker.HalfOpen && r.State != breaker.Open:
		t.Fatalf("leases held in %s", r.State)
	case r.Window.Count > p.WindowSize:
		t.Fatalf("window holds %d, size %d", r.Window.Count, p.WindowSize)
	case r.State == breaker.Closed && r.Trips != 0:
		t.Fatalf("CLOSED with %d trips", r.Trips)
	}
	m.checkNotStranded(t)
}

// checkNotStranded: once every lease, cooldown and throttle pause has run
// out, a caller is admitted at once, unless an operator holds the breaker
// open; a timed hold admits at its end. Nobody is left queued.
func (m *machine) checkNotStranded(t *rapid.T) {
	p := m.p
	at := m.now.Add(p.CanaryLease + p.CooldownMax + p.ThrottlePause)
	d, next, _ := breaker.Decide(p, m.row, at, rapidRandom{t})
	if next.State == breaker.ForcedOpen {
		if next.ForcedUntil.IsZero() {
			return // the operator's to release
		}
		at = next.ForcedUntil
		if d, next, _ = breaker.Decide(p, m.row, at, rapidRandom{t}); !d.Lifted {
			t.Fatalf("a timed hold not lifted at its end %v: %s in %s", at, d.Verdict, next.State)
		}
	}
	if d.Verdict != breaker.Proceed && d.Verdict != breaker.Canary {
		t.Fatalf("stranded in %s: %s at %v", next.State, d.Verdict, at)
	}
}

// newMachine starts a machine on a new breaker or, half the time, on one
// that has just tripped, so that runs reach the cooldown, the probe and
// HALF_OPEN often.
func newMachine(t *rapid.T) *machine {
	m := &machine{p: drawPolicy(t), store: breaker.NewMemStore(), row: breaker.Row{Key: "k"}, now: t0}
	if rapid.Bool().Draw(t, "tripped") {
		m.apply(t, breaker.Row{Key: "k", State: breaker.Open, Generation: 1, Trips: 1,
			OpenUntil: t0.Add(m.p.Cooldown(1, 0.5)), ChangedAt: t0, Cause: breaker.CauseConsecutiveFailures}, true)
	}
	return m
}

func TestPropertyTransitions(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m := newMachine(t)
		t.Repeat(map[string]func(*rapid.T){
			"admit":   func(t *rapid.T) { m.admit(t) },
			"deliver": m.deliver,
			"outcome": m.outcome,
			"advance": m.advance,
			"command": m.command,
			"":        m.check,
		})
	})
}
