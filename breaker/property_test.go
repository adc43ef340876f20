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

// drawPolicy draws a small valid policy, including disabled trips, jitter
// and ramp.
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
		RampDuration:         rapid.SampledFrom([]time.Duration{-1, 10 * time.Second, time.Minute}).Draw(t, "RampDuration"),
		RampStart:            rapid.Float64Range(0.05, 1).Draw(t, "RampStart"),
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

func (m *machine) admit(t *rapid.T) {
	d, next, changed := breaker.Decide(m.p, m.row, m.now, rapidRandom{t})
	switch d.Verdict {
	case breaker.Proceed, breaker.Canary:
		m.tickets = append(m.tickets, d.Ticket)
	case breaker.Wait:
		if d.Wait <= 0 {
			t.Fatalf("wait %v is not positive", d.Wait)
		}
	default:
		t.Fatalf("undefined verdict %v", d.Verdict)
	}
	m.apply(t, next, changed)
}

func (m *machine) outcome(t *rapid.T) {
	if len(m.tickets) == 0 {
		t.Skip("no ticket yet")
	}
	ticket := rapid.SampledFrom(m.tickets).Draw(t, "ticket")
	o := rapid.SampledFrom([]breaker.Outcome{breaker.Success, breaker.Transient, breaker.Poison}).Draw(t, "outcome")
	before := m.row
	next, changed := breaker.Observe(m.p, m.row, ticket, o, m.now, rapidRandom{t})
	if o == breaker.Poison {
		if next.Totals.Trips != before.Totals.Trips || (next.State == breaker.Open && before.State != breaker.Open) {
			t.Fatalf("poison tripped the breaker: %s -> %s", before.State, next.State)
		}
		if next.State == before.State && (next.Window != before.Window || next.ConsecutiveFailures != before.ConsecutiveFailures) {
			t.Fatalf("poison counted in the window")
		}
	}
	if ticket.Generation != before.Generation && next.Generation == before.Generation && changed {
		t.Fatalf("a stale outcome (generation %d, row %d) was written", ticket.Generation, before.Generation)
	}
	m.apply(t, next, changed)
}

func (m *machine) advance(t *rapid.T) {
	m.now = m.now.Add(drawDuration(t, "advance", 0, 2*m.p.CooldownMax+m.p.CanaryLease))
}

func (m *machine) command(t *rapid.T) {
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
	live := 0
	for _, l := range r.Leases {
		if l.Expires.After(m.now) {
			live++
		}
	}
	if live > p.HalfOpenPermits {
		t.Fatalf("%d live leases, %d permits", live, p.HalfOpenPermits)
	}
	if len(r.Leases) > 0 && r.State != breaker.HalfOpen {
		t.Fatalf("leases held in %s", r.State)
	}
	if r.Window.Count > p.WindowSize {
		t.Fatalf("window holds %d, size %d", r.Window.Count, p.WindowSize)
	}
	if r.State == breaker.Closed && r.Trips != 0 {
		t.Fatalf("CLOSED with %d trips", r.Trips)
	}
	if r.State == breaker.Open && r.OpenUntil.Sub(r.ChangedAt) > maxCooldown(p) {
		t.Fatalf("cooldown %v over the cap", r.OpenUntil.Sub(r.ChangedAt))
	}
	m.checkNotStranded(t)
}

// checkNotStranded: once every lease and cooldown has run out, asking
// again and again (waiting as told) admits a call within the ramp, unless
// an operator holds the breaker open.
func (m *machine) checkNotStranded(t *rapid.T) {
	p, probe := m.p, m.row
	at := m.now.Add(p.CanaryLease + maxCooldown(m.p))
	deadline := at.Add(2*max(p.RampDuration, 0) + p.PollInterval)
	for !at.After(deadline) {
		d, next, _ := breaker.Decide(p, probe, at, rapidRandom{t})
		if d.Verdict == breaker.Proceed || d.Verdict == breaker.Canary || next.State == breaker.ForcedOpen {
			return
		}
		at, probe = at.Add(d.Wait), next
	}
	t.Fatalf("stranded in %s: no admission by %v", probe.State, deadline)
}

func maxCooldown(p breaker.Policy) time.Duration {
	return time.Duration(float64(p.CooldownMax) * (1 + max(p.Jitter, 0)))
}

func TestPropertyTransitions(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m := &machine{p: drawPolicy(t), store: breaker.NewMemStore(), row: breaker.Row{Key: "k"}, now: t0}
		t.Repeat(map[string]func(*rapid.T){
			"admit":   m.admit,
			"outcome": m.outcome,
			"advance": m.advance,
			"command": m.command,
			"":        m.check,
		})
	})
}
