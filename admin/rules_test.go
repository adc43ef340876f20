package admin_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/admin"
	"github.com/redrive/redrive/rules"
)

// withRules gives the fixture's handler the rule store on its table.
func withRules(f fixture) fixture {
	f.handler.Rules = rules.NewStore(f.client, f.table)
	return f
}

func TestRuleAddListRemove(t *testing.T) {
	f := withRules(newFixture(t, nil))
	f.trip(t, "orders")
	spec := rules.Spec{On: "breaker", In: []string{"orders", "nobody-yet"}, Action: rules.Hold}
	out, err := f.command(t, admin.Request{Command: admin.CommandRuleAdd, Rule: &spec, Reason: "maintenance",
		Until: "1h"}) // from the table's clock
	require.NoError(t, err)
	require.NotNil(t, out.Rule)
	assert.True(t, out.Changed)
	want := rules.Rule{Spec: spec, ID: "r1", Reason: "maintenance", Actor: "execution:ops-1", Added: t0, Until: t0.Add(time.Hour)}
	assert.Equal(t, want, *out.Rule)
	assert.Equal(t, 1, *out.InForce, "a count of the rules in force, not the rules: rule-list pages them")
	assert.Empty(t, out.Rules)
	assert.Equal(t, []string{`no breaker has the key "nobody-yet" yet; the rule applies to its messages when they arrive`}, out.Notes,
		"a key without a breaker is allowed, and said so; one with a breaker is not noted")
	assert.Nil(t, out.Before, "a rule command shows no breaker")

	out, err = f.command(t, admin.Request{Command: admin.CommandRuleList})
	require.NoError(t, err)
	assert.Equal(t, []rules.Rule{want}, out.Rules)
	require.Len(t, out.Audit, 1)
	assert.Equal(t, rules.OpAdd, out.Audit[0].Op)
	assert.Equal(t, 1, *out.InForce)
	assert.Empty(t, out.Next, "one page holds it all")

	f.clock.Advance(time.Minute)
	out, err = f.command(t, admin.Request{Command: admin.CommandRuleRemove, ID: "r1", Reason: "done", Actor: "alice"})
	require.NoError(t, err)
	assert.Equal(t, want, *out.Rule)
	assert.Equal(t, 0, *out.InForce)
	// The messages the hold held wait in their breakers' rooms, looked at
	// again every minute: nothing to release, the note says when they go.
	require.Len(t, out.Notes, 1)
	assert.Contains(t, out.Notes[0], "looked at again every minute")
	assert.Contains(t, out.Notes[0], "within a minute")
	assert.Empty(t, f.launcher.Keys(), "a rule-remove starts no controller")
	assert.Contains(t, f.log.String(), `"msg":"rule command","command":"rule-remove","rule":"r1","actor":"alice","reason":"done"`)
	removed, err := json.Marshal(out)
	require.NoError(t, err)
	assert.NotContains(t, string(removed), `"released"`, "no count of resumed messages any more")

	_, err = f.command(t, admin.Request{Command: admin.CommandRuleRemove, ID: "r1", Reason: "again"})
	var invalid *admin.InvalidCommand
	require.ErrorAs(t, err, &invalid)
	assert.Equal(t, []admin.Problem{{Field: "id", Problem: `no rule "r1" is in force (rule-list shows them)`}}, invalid.Problems)
}

// Removing a rule that holds nothing (a quarantine) adds no note.
func TestRemovingAQuarantineAddsNoNote(t *testing.T) {
	f := withRules(newFixture(t, nil))
	spec := rules.Spec{On: "breaker", Equals: "orders", Action: rules.Quarantine}
	_, err := f.command(t, admin.Request{Command: admin.CommandRuleAdd, Rule: &spec, Reason: "r"})
	require.NoError(t, err)
	out, err := f.command(t, admin.Request{Command: admin.CommandRuleRemove, ID: "r1", Reason: "done"})
	require.NoError(t, err)
	assert.True(t, out.Changed)
	assert.Empty(t, out.Notes)
}

func TestListLeavesOutRulesPastTheirEnd(t *testing.T) {
	f := withRules(newFixture(t, nil))
	spec := rules.Spec{On: "breaker", Equals: "orders", Action: rules.Quarantine}
	_, err := f.command(t, admin.Request{Command: admin.CommandRuleAdd, Rule: &spec, Reason: "r", Until: t0.Add(time.Minute).Format(time.RFC3339)})
	require.NoError(t, err)
	f.clock.Advance(time.Minute)
	out, err := f.command(t, admin.Request{Command: admin.CommandRuleList})
	require.NoError(t, err)
	assert.Empty(t, out.Rules)
}

func TestInvalidRuleCommandsNameEveryProblem(t *testing.T) {
	f := withRules(newFixture(t, nil))
	tests := []struct {
		name    string
		request string
		want    []admin.Problem
	}{
		{
			"add: everything wrong at once",
			`{"command": "rule-add", "breaker": "orders", "id": "r1", "until": "2020-01-01T00:00:00Z",
			  "rule": {"on": "header:x", "equals": "a", "prefix": "b", "action": "drop"}}`,
			[]admin.Problem{
				{Field: "breaker", Problem: `not for rule commands; a rule matches a breaker key with {"on": "breaker", "equals": "orders"}`},
				{Field: "reason", Problem: "required for rule-add: it is kept with the rule and in the audit trail"},
				{Field: "until", Problem: `"2020-01-01T00:00:00Z" is not in the future (now 2026-01-02T15:00:00Z)`},
				{Field: "rule.on", Problem: `"header:x": want "breaker", "group", "attribute:NAME" or "body:/json/pointer"`},
				{Field: "rule.equals", Problem: "give exactly one of equals, prefix and in (2 given)"},
				{Field: "rule.action", Problem: `"drop": want one of quarantine, hold, delay`},
				{Field: "id", Problem: "not for rule-add: the rule's id is assigned"},
			},
		},
		{
			"add: no rule",
			`{"command": "rule-add", "reason": "r"}`,
			[]admin.Problem{{Field: "rule", Problem: `required: e.g. {"on": "attribute:tenant", "equals": "acme", "action": "quarantine"}`}},
		},
		{
			"add: a mistyped rule field",
			`{"command": "rule-add", "reason": "r", "rule": {"on": "breaker", "equal": "orders", "action": "hold"}}`,
			[]admin.Problem{
				{Field: "rule", Problem: `want an object such as {"on": "attribute:tenant", "equals": "acme", "action": "quarantine"}: json: unknown field "equal"`},
				{Field: "rule.equals", Problem: "give exactly one of equals, prefix and in (0 given)"},
			},
		},
		{
			"remove: no id, no reason",
			`{"command": "rule-remove"}`,
			[]admin.Problem{
				{Field: "reason", Problem: "required for rule-remove: it is kept with the rule and in the audit trail"},
				{Field: "id", Problem: `required: the rule's id, e.g. "r7" (rule-list shows them)`},
			},
		},
		{
			"a rule on a breaker command",
			`{"command": "status", "breaker": "orders", "rule": {"on": "breaker", "equals": "orders", "action": "hold"}, "id": "r1"}`,
			[]admin.Problem{{Field: "rule", Problem: "only for rule-add"}, {Field: "id", Problem: "only for rule-remove"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, f.problemsOf(t, tt.request))
		})
	}
}

// TestOversizeTextIsRefusedBeforeAnyWrite adds a rule with a 130 KiB
// reason, then removes one with an oversize actor: each is an
// *InvalidCommand naming the field, and no rule was written, so an
// operator never sees a failure while a rule is in force.
func TestOversizeTextIsRefusedBeforeAnyWrite(t *testing.T) {
	f := withRules(newFixture(t, nil))
	long := strings.Repeat("x", 130<<10)
	assert.Equal(t, []admin.Problem{{Field: "reason", Problem: fmt.Sprintf("%d bytes, want at most %d", len(long), admin.MaxText)}},
		f.problemsOf(t, `{"command": "rule-add", "reason": "`+long+`", "rule": {"on": "breaker", "equals": "orders", "action": "hold"}}`))
	assert.Equal(t, []admin.Problem{{Field: "actor", Problem: fmt.Sprintf("%d bytes, want at most %d", 513, admin.MaxText)}},
		f.problemsOf(t, `{"command": "rule-remove", "id": "r1", "reason": "r", "actor": "`+strings.Repeat("a", 513)+`"}`))
	out, err := f.command(t, admin.Request{Command: admin.CommandRuleList})
	require.NoError(t, err)
	assert.Empty(t, out.Rules, "nothing was written")
	assert.Empty(t, out.Audit)
}
