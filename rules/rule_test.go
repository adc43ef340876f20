package rules_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/redrive/redrive/message"
	"github.com/redrive/redrive/rules"
)

func TestCheckNamesEveryProblem(t *testing.T) {
	tests := []struct {
		name string
		spec rules.Spec
		want []string // "field: start of the problem"
	}{
		{"valid quarantine", rules.Spec{On: "attribute:tenant", Equals: "acme", Action: rules.Quarantine}, nil},
		{"valid hold on a key set", rules.Spec{On: "breaker", In: []string{"orders", "payments"}, Action: rules.Hold}, nil},
		{"valid delay on the body", rules.Spec{On: "body:/customer/tier", Prefix: "free", Action: rules.Delay, Delay: "10m"}, nil},
		{"empty", rules.Spec{}, []string{"rule.on: required", "rule.equals: give exactly one", "rule.action: required"}},
		{"unknown on", rules.Spec{On: "header:x", Equals: "a", Action: rules.Hold}, []string{`rule.on: "header:x"`}},
		{"lineage attribute", rules.Spec{On: "attribute:redrive", Equals: "a", Action: rules.Hold}, []string{`rule.on: "attribute:redrive"`}},
		{"bad pointer", rules.Spec{On: "body:tenant", Equals: "a", Action: rules.Hold}, []string{`rule.on: "body:tenant"`}},
		{"two values", rules.Spec{On: "breaker", Equals: "a", Prefix: "b", Action: rules.Hold}, []string{"rule.equals: give exactly one of equals, prefix and in (2 given)"}},
		{"empty in value", rules.Spec{On: "breaker", In: []string{"a", ""}, Action: rules.Hold}, []string{"rule.in: value 1 is empty"}},
		{"unknown action", rules.Spec{On: "breaker", Equals: "a", Action: "drop"}, []string{`rule.action: "drop"`}},
		{"delay without a delay", rules.Spec{On: "breaker", Equals: "a", Action: rules.Delay}, []string{"rule.delay: required"}},
		{"delay too long", rules.Spec{On: "breaker", Equals: "a", Action: rules.Delay, Delay: "48h"}, []string{"rule.delay: 48h0m0s: want 1s to 24h"}},
		{"delay not a duration", rules.Spec{On: "breaker", Equals: "a", Action: rules.Delay, Delay: "soon"}, []string{`rule.delay: "soon"`}},
		{"delay on a hold", rules.Spec{On: "breaker", Equals: "a", Action: rules.Hold, Delay: "1m"}, []string{"rule.delay: only for delay"}},
		{"value too long", rules.Spec{On: "breaker", Equals: strings.Repeat("x", rules.MaxText+1), Action: rules.Hold}, []string{"rule.equals: 513 bytes"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.spec.Check()
			assert.Len(t, got, len(tt.want), "%v", got)
			for i := range min(len(got), len(tt.want)) {
				assert.True(t, strings.HasPrefix(got[i].Field+": "+got[i].Problem, tt.want[i]), "problem %d: %q, want it to start with %q", i, got[i], tt.want[i])
			}
		})
	}
}

func TestDescribe(t *testing.T) {
	r := rules.Rule{ID: "r7", Spec: rules.Spec{On: "attribute:tenant", Equals: "acme", Action: rules.Quarantine}, Reason: "broken client"}
	assert.Equal(t, "rule r7 (attribute:tenant equals acme): broken client", r.Describe())
	r.Equals, r.In = "", []string{"a", "b"}
	assert.Equal(t, "rule r7 (attribute:tenant in a,b): broken client", r.Describe())
}

var t0 = time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)

func msg(tenant, body string) message.Message {
	m := message.Message{ID: "m", Body: body}
	if tenant != "" {
		m.MessageAttributes = map[string]message.Attribute{"tenant": message.StringAttribute(tenant)}
	}
	return m
}

func TestMatch(t *testing.T) {
	rule := func(id string, s rules.Spec) rules.Rule { return rules.Rule{ID: id, Spec: s, Reason: "why"} }
	set := rules.NewSet([]rules.Rule{
		rule("r1", rules.Spec{On: "attribute:tenant", Equals: "acme", Action: rules.Quarantine}),
		rule("r2", rules.Spec{On: "breaker", In: []string{"orders", "payments"}, Action: rules.Hold}),
		rule("r3", rules.Spec{On: "body:/tier", Prefix: "free", Action: rules.Delay, Delay: "10m"}),
		rule("r4", rules.Spec{On: "body:/tier", Equals: "free-trial", Action: rules.Delay, Delay: "1h"}),
		rule("r5", rules.Spec{On: "body:/n", Equals: "7", Action: rules.Hold}),
		rule("r6", rules.Spec{On: "group", Equals: "account-7", Action: rules.Hold}),
	})
	inGroup := func(g string) message.Message {
		m := msg("", `{}`)
		m.Attributes = map[string]string{message.AttrMessageGroupID: g}
		return m
	}
	ids := func(v rules.Verdict) []string {
		var out []string
		for _, r := range []*rules.Rule{v.Quarantine, v.Hold, v.DelayRule} {
			if r != nil {
				out = append(out, r.ID)
			}
		}
		return out
	}
	tests := []struct {
		name      string
		key       string
		msg       message.Message
		want      []string
		wantDelay time.Duration
	}{
		{"nothing matches", "billing", msg("globex", `{"tier":"gold"}`), nil, 0},
		{"an attribute", "billing", msg("acme", `{}`), []string{"r1"}, 0},
		{"a key in a set", "payments", msg("", `{}`), []string{"r2"}, 0},
		{"quarantine wins over hold", "orders", msg("acme", `{}`), []string{"r1"}, 0},
		{"the longest delay", "billing", msg("", `{"tier":"free-trial"}`), []string{"r4"}, time.Hour},
		{"a prefix", "billing", msg("", `{"tier":"free"}`), []string{"r3"}, 10 * time.Minute},
		{"a number in the body", "billing", msg("", `{"n":7}`), []string{"r5"}, 0},
		{"a body that is not JSON", "billing", msg("", `tier=free`), nil, 0},
		{"hold and delay", "orders", msg("", `{"tier":"free"}`), []string{"r2", "r3"}, 10 * time.Minute},
		{"a FIFO group", "billing", inGroup("account-7"), []string{"r6"}, 0},
		{"another FIFO group", "billing", inGroup("account-8"), nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := set.Match(t0, tt.key, tt.msg)
			assert.Equal(t, tt.want, ids(v))
			assert.Equal(t, tt.wantDelay, v.Delay)
		})
	}
}

func TestARuleEndsAtItsUntil(t *testing.T) {
	r := rules.Rule{ID: "r1", Spec: rules.Spec{On: "breaker", Equals: "orders", Action: rules.Hold}, Until: t0.Add(time.Hour)}
	set := rules.NewSet([]rules.Rule{r})
	assert.NotNil(t, set.Match(t0.Add(59*time.Minute), "orders", msg("", "")).Hold)
	assert.Nil(t, set.Match(t0.Add(time.Hour), "orders", msg("", "")).Hold)
}

func TestTheHoldThatEndsLastWins(t *testing.T) {
	hold := func(id string, until time.Time) rules.Rule {
		return rules.Rule{ID: id, Spec: rules.Spec{On: "breaker", Equals: "orders", Action: rules.Hold}, Until: until}
	}
	set := rules.NewSet([]rules.Rule{hold("r1", t0.Add(time.Hour)), hold("r2", t0.Add(2*time.Hour)), hold("r3", t0.Add(30*time.Minute))})
	assert.Equal(t, "r2", set.Match(t0, "orders", msg("", "")).Hold.ID)
	set = rules.NewSet([]rules.Rule{hold("r1", t0.Add(time.Hour)), hold("r2", time.Time{})})
	assert.Equal(t, "r2", set.Match(t0, "orders", msg("", "")).Hold.ID, "a hold without an end outlasts any")
}
