package sim_test

import (
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/emulate/sim"
)

// scenarioDir holds the ready scenarios.
const scenarioDir = "../../scenarios"

func TestDefaultFileIsDefault(t *testing.T) {
	s, err := sim.Load(filepath.Join(scenarioDir, "default.yaml"))
	require.NoError(t, err)
	assert.Equal(t, sim.Default(), s)
}

func TestReadyScenariosLoad(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(scenarioDir, "*.yaml"))
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(files), 4)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			s, err := sim.Load(f)
			require.NoError(t, err)
			assert.NotEmpty(t, s.Description)
			_, _, ok := s.Outage()
			assert.True(t, ok || len(s.Target.Health) == 0, "every ready scenario has an outage and a recovery, or is healthy throughout")
		})
	}
}

func TestParseOverridesDefault(t *testing.T) {
	s, err := sim.Parse("x.yaml", []byte(`
name: small
messages: {count: 10, rate: 0}
target:
  latency: 2s
  health:
    - {at: 1m, state: degraded, error_rate: 0.5}
    - {at: 1h30m, state: healthy}
breaker: {consecutive_failures: 3, cooldown_max: 5m}
`))
	require.NoError(t, err)
	want := sim.Default()
	want.Name = "small"
	want.Messages.Count, want.Messages.Rate = 10, 0
	want.Target.Latency = 2 * time.Second
	want.Target.Health = []sim.Phase{{At: time.Minute, State: "degraded", ErrorRate: 0.5}, {At: 90 * time.Minute, State: "healthy"}}
	want.Breaker.ConsecutiveFailures, want.Breaker.CooldownMax = 3, 5*time.Minute
	assert.Equal(t, want, s)
	assert.Equal(t, 3, s.Breaker.Policy().ConsecutiveFailures)
}

func TestParseJSON(t *testing.T) {
	s, err := sim.Parse("x.json", []byte(`{"name": "j", "target": {"capacity": 7}, "bulk": {"every": "5m"}}`))
	require.NoError(t, err)
	assert.Equal(t, 7, s.Target.Capacity)
	assert.Equal(t, 5*time.Minute, s.Bulk.Every)
}

func TestParseRejectsBadScenarios(t *testing.T) {
	tests := []struct {
		name, doc, want string
	}{
		{"capacity zero", "target: {capacity: 0}", "scenarios/x.yaml: target.capacity: must be > 0"},
		{"capacity not a number", "target: {capacity: fast}", `scenarios/x.yaml: target.capacity: line 1: "fast" is not an integer`},
		{"unknown field", "target: {capacty: 5}", "scenarios/x.yaml: target.capacty: line 1: unknown field (known: capacity, health, latency)"},
		{"unknown top field", "outage: 5m", "scenarios/x.yaml: outage: line 1: unknown field"},
		{"field twice", "name: a\nname: b", "scenarios/x.yaml: name: line 2: given twice"},
		{"bad duration", "horizon: 3 hours", `scenarios/x.yaml: horizon: line 1: "3 hours" is not a duration`},
		{"duration as number", "horizon: 30", `scenarios/x.yaml: horizon: line 1: "30" is not a duration`},
		{"negative latency", "target: {latency: -1s}", "scenarios/x.yaml: target.latency: must be in [0, 1m), got -1s"},
		{"poison share", "messages: {poison: 1.5}", "scenarios/x.yaml: messages.poison: must be in [0, 1), got 1.5"},
		{"no messages", "messages: {count: 0}", "scenarios/x.yaml: messages.count: must be 1 to 1000000, got 0"},
		{"tenants", "messages: {tenants: 0}", "scenarios/x.yaml: messages.tenants: must be 1 to 1000"},
		{"health not a list", "target: {health: down}", `scenarios/x.yaml: target.health: line 1: want a list, got "down"`},
		{"unknown state", "target: {health: [{at: 1m, state: sleepy}]}", `scenarios/x.yaml: target.health[0].state: must be "healthy", "down" or "degraded", got "sleepy"`},
		{"phases out of order", "target: {health: [{at: 5m, state: down}, {at: 1m, state: healthy}]}", "scenarios/x.yaml: target.health[1].at: 1m0s is not after the previous phase's 5m0s"},
		{"degraded without rate", "target: {health: [{at: 1m, state: degraded}]}", "scenarios/x.yaml: target.health[0].error_rate: must be in (0, 1], got 0"},
		{"rate when down", "target: {health: [{at: 1m, state: down, error_rate: 0.2}]}", `scenarios/x.yaml: target.health[0].error_rate: only for "degraded", not "down"`},
		{"unknown phase field", "target: {health: [{at: 1m, state: down, for: 5m}]}", "scenarios/x.yaml: target.health[0].for: line 1: unknown field (known: at, error_rate, state)"},
		{"breaker policy", "breaker: {window_size: 65}", "scenarios/x.yaml: breaker.window_size: 65: must be at most 64"},
		{"breaker cooldowns", "breaker: {cooldown_base: 10m, cooldown_max: 1m}", "scenarios/x.yaml: breaker.cooldown_max: 1m0s: must be at least CooldownBase"},
		{"retry", "retry: {max_attempts: 0}", "scenarios/x.yaml: retry.max_attempts: must be 1 to 100, got 0"},
		{"backoff", "retry: {backoff_base: 10m, backoff_max: 1m}", "scenarios/x.yaml: retry.backoff_max: must be at least backoff_base (10m0s), got 1m0s"},
		{"bulk rate", "bulk: {rate: 501}", "scenarios/x.yaml: bulk.rate: must be 1 to 500 messages per second"},
		{"bulk concurrency", "bulk: {concurrency: 1}", "scenarios/x.yaml: bulk.concurrency: must be 2 to 1000"},
		{"seed", "seed: 0", "scenarios/x.yaml: seed: must not be 0"},
		{"start after horizon", "horizon: 1h\nmessages: {start: 2h}", "scenarios/x.yaml: messages.start: 2h0m0s is not before the horizon 1h0m0s"},
		{"empty", "", "scenarios/x.yaml: (document): empty"},
		{"not a mapping", "- a\n- b", "scenarios/x.yaml: (document): line 1: want a mapping, got a list"},
		{"not yaml", "name: [unclosed", "scenarios/x.yaml: (document): not YAML or JSON"},
		{"two documents", "name: a\n---\nname: b", "scenarios/x.yaml: (document): holds more than one YAML document"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := sim.Parse("scenarios/x.yaml", []byte(tt.doc))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			assert.True(t, errors.Is(err, sim.ErrInvalidScenario), "%v", err)
		})
	}
}

func TestValidateReportsEveryField(t *testing.T) {
	s := sim.Default()
	s.Target.Capacity = -1
	s.Bulk.Rate = 0
	err := s.Validate()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "scenario: target.capacity: must be > 0")
	assert.Contains(t, err.Error(), "scenario: bulk.rate: must be 1 to 500")
}

func TestValidateQuotas(t *testing.T) {
	s := sim.Default()
	s.Quotas, s.OpenExecutionsLimit = "huge", -1
	err := s.Validate()
	require.Error(t, err)
	assert.Contains(t, err.Error(), `scenario: quotas: must be none, standard or large, got "huge"`)
	assert.Contains(t, err.Error(), "scenario: open_executions_limit: must be >= 0")
	for _, name := range []string{"", "none", "standard", "large"} {
		s.Quotas, s.OpenExecutionsLimit = name, 0
		assert.NoError(t, s.Validate(), name)
	}
}

func TestValidateFIFO(t *testing.T) {
	s := sim.Default()
	s.Messages.Groups, s.FIFOOnPark, s.LiftHoldsAt = -1, "wait", -time.Minute
	err := s.Validate()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "scenario: messages.groups: must be 0 (a standard queue) to messages.count (5000), got -1")
	assert.Contains(t, err.Error(), `scenario: fifo_on_park: must be "continue" or "hold", got "wait"`)
	assert.Contains(t, err.Error(), "scenario: lift_holds_at: must be 0 or")
	s.Messages.Groups, s.FIFOOnPark, s.LiftHoldsAt = 0, "hold", 0
	assert.ErrorContains(t, s.Validate(), "scenario: fifo_on_park: only for a FIFO scenario")
	s.FIFOOnPark, s.LiftHoldsAt = "", time.Hour
	assert.ErrorContains(t, s.Validate(), "scenario: lift_holds_at")
	s.Messages.Groups, s.FIFOOnPark = 10, "hold"
	assert.NoError(t, s.Validate())
}

func TestLoadMissingFile(t *testing.T) {
	_, err := sim.Load(filepath.Join(t.TempDir(), "nope.yaml"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "sim: read scenario")
}

func TestPlan(t *testing.T) {
	s := sim.Default()
	s.Messages = sim.Messages{Count: 200, Start: time.Minute, Rate: 4, Poison: 0.05, Tenants: 3}
	msgs := s.Plan()
	require.Len(t, msgs, 200)
	poison := 0
	for i, m := range msgs {
		assert.Equal(t, time.Minute+time.Duration(i)*250*time.Millisecond, m.Arrival, "message %d", i)
		assert.Equal(t, []string{"tenant-01", "tenant-02", "tenant-03"}[i%3], m.Tenant)
		assert.Contains(t, m.Body(), m.ID)
		assert.Equal(t, m.Tenant, *m.Event().MessageAttributes[sim.TenantAttribute].StringValue)
		if m.Poison {
			poison++
			assert.Contains(t, m.Body(), `"kind":"POISON"`)
		}
	}
	assert.Equal(t, 10, poison, "exactly 5% of 200")
	assert.Equal(t, msgs, s.Plan(), "the same seed plans the same messages")

	s.Messages.Rate = 0
	for _, m := range s.Plan() {
		assert.Equal(t, time.Minute, m.Arrival, "rate 0 is a burst")
	}
}

func TestOutage(t *testing.T) {
	phase := func(at time.Duration, state string) sim.Phase { return sim.Phase{At: at, State: state} }
	tests := []struct {
		name     string
		health   []sim.Phase
		from, to time.Duration
		ok       bool
	}{
		{"always healthy", nil, 0, 0, false},
		{"down for good", []sim.Phase{phase(time.Minute, "down")}, 0, 0, false},
		{"outage", []sim.Phase{phase(time.Minute, "down"), phase(time.Hour, "healthy")}, time.Minute, time.Hour, true},
		{"down then degraded", []sim.Phase{phase(time.Minute, "down"), {At: 10 * time.Minute, State: "degraded", ErrorRate: 0.3},
			phase(time.Hour, "healthy"), phase(2*time.Hour, "healthy")}, time.Minute, time.Hour, true},
		{"two outages", []sim.Phase{phase(time.Minute, "down"), phase(2*time.Minute, "healthy"), phase(3*time.Minute, "down"),
			phase(4*time.Minute, "healthy")}, time.Minute, 4 * time.Minute, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := sim.Default()
			s.Target.Health = tt.health
			from, to, ok := s.Outage()
			assert.Equal(t, tt.ok, ok)
			assert.Equal(t, tt.from, from)
			assert.Equal(t, tt.to, to)
		})
	}
}
