package admin_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/admin"
	"github.com/redrive/redrive/rules"
)

// stepFunctionsLimit is Step Functions' limit on a state's result, 256
// KiB; the lambda:invoke result adds about 2 KiB of metadata to the
// output.
const stepFunctionsLimit = 256 << 10

// largeSpec is a rule at the documented limits: rules.MaxValues values of
// rules.MaxText bytes each, unlike those of other n.
func largeSpec(n int) rules.Spec {
	values := make([]string, rules.MaxValues)
	for i := range values {
		prefix := fmt.Sprintf("%d-%d-", n, i)
		values[i] = prefix + strings.Repeat("v", rules.MaxText-len(prefix))
	}
	return rules.Spec{On: "attribute:tenant", In: values, Action: rules.Quarantine}
}

// listAll follows rule-list's next from the start, with limit, checking
// every page against MaxPageBytes and limit, and returns the pages'
// rules and audit changes and how many pages there were.
func listAll(t *testing.T, f fixture, limit int) (rs []rules.Rule, audit []rules.Change, pages int) {
	t.Helper()
	next := ""
	for {
		out, err := f.command(t, admin.Request{Command: admin.CommandRuleList, Next: next, Limit: limit})
		require.NoError(t, err)
		pages++
		data, err := json.Marshal(out)
		require.NoError(t, err)
		require.LessOrEqual(t, len(data), admin.MaxPageBytes, "page %d", pages)
		require.NotEmpty(t, len(out.Rules)+len(out.Audit), "page %d holds something", pages)
		if limit > 0 {
			require.LessOrEqual(t, len(out.Rules)+len(out.Audit), limit, "page %d", pages)
		}
		rs, audit = append(rs, out.Rules...), append(audit, out.Audit...)
		if out.Next == "" {
			return rs, audit, pages
		}
		require.NotEqual(t, next, out.Next, "the list moves on")
		require.Less(t, pages, rules.MaxRules+rules.MaxAudit, "the list ends")
		next = out.Next
	}
}

// TestRuleListPagesRulesAtTheirLimits fills the rules item with twenty
// small rules, a trail of their adds and of as many adds and removes, and
// three rules at their documented limits: more than 256 KiB as one
// output, which Step Functions refuses. rule-list pages them, every page under MaxPageBytes,
// the pages together holding every rule and audit change once, in order.
func TestRuleListPagesRulesAtTheirLimits(t *testing.T) {
	f := withRules(newFixture(t, nil))
	for n := range 20 {
		spec := rules.Spec{On: "breaker", Equals: fmt.Sprintf("kept-%d", n), Action: rules.Hold}
		_, err := f.command(t, admin.Request{Command: admin.CommandRuleAdd, Rule: &spec, Reason: "kept"})
		require.NoError(t, err)
		spec.Equals = fmt.Sprintf("gone-%d", n)
		added, err := f.command(t, admin.Request{Command: admin.CommandRuleAdd, Rule: &spec, Reason: "briefly"})
		require.NoError(t, err)
		out, err := f.command(t, admin.Request{Command: admin.CommandRuleRemove, ID: added.Rule.ID, Reason: "done"})
		require.NoError(t, err)
		data, err := json.Marshal(out)
		require.NoError(t, err)
		assert.Less(t, len(data), 1<<10, "a rule-remove's output holds the rule removed, not the rules in force")
		assert.Equal(t, n+1, *out.InForce)
	}
	long := strings.Repeat("x", rules.MaxText)
	for n := range 3 {
		spec := largeSpec(n)
		out, err := f.command(t, admin.Request{Command: admin.CommandRuleAdd, Rule: &spec, Reason: long, Actor: long})
		require.NoError(t, err)
		data, err := json.Marshal(out)
		require.NoError(t, err)
		assert.Less(t, len(data), 60<<10, "a rule-add's output holds the rule added, not the rules in force")
		assert.Equal(t, 20+n+1, *out.InForce)
	}
	book, err := rules.NewStore(f.client, f.table).Load(t.Context())
	require.NoError(t, err)
	require.Len(t, book.Rules, 23)
	require.Len(t, book.Audit, 20*3+3, "the trail is whole: the item has room for it")
	whole, err := json.Marshal(admin.Output{Command: admin.CommandRuleList, Rules: book.Rules, Audit: book.Audit})
	require.NoError(t, err)
	require.Greater(t, len(whole), stepFunctionsLimit, "as one output, Step Functions would refuse it")

	rs, audit, pages := listAll(t, f, 0)
	assert.Equal(t, book.Rules, rs, "every rule once, in order")
	assert.Equal(t, book.Audit, audit, "every change once, oldest first")
	assert.GreaterOrEqual(t, pages, 2)

	rs, audit, pages = listAll(t, f, 7)
	assert.Equal(t, book.Rules, rs)
	assert.Equal(t, book.Audit, audit)
	assert.GreaterOrEqual(t, pages, (23+63)/7)
}

// TestTheLargestRuleFitsInAPage adds the largest rule the store takes
// (its JSON rules.MaxRulesBytes, of characters JSON escapes in six bytes)
// with an actor and a reason as long and as escaped, and removes it the
// same way: the add's and the remove's outputs, and rule-list's pages
// holding that rule or its audit change, stay under MaxPageBytes, which
// leaves room under Step Functions' limit.
func TestTheLargestRuleFitsInAPage(t *testing.T) {
	require.Less(t, admin.MaxPageBytes+2<<10, stepFunctionsLimit, "the budget leaves room for lambda:invoke's metadata")
	f := withRules(newFixture(t, nil))
	escaped := strings.Repeat("<", rules.MaxText) // \u003c in JSON
	rule := rules.Rule{Spec: rules.Spec{On: "breaker", Action: rules.Hold}, ID: "r1", Reason: escaped, Actor: escaped, Added: t0}
	size := func() int {
		data, err := json.Marshal([]rules.Rule{rule})
		require.NoError(t, err)
		return len(data)
	}
	const value = len(`,""`) + 6*rules.MaxText // one more value of In, escaped
	for size()+value <= rules.MaxRulesBytes {
		rule.In = append(rule.In, escaped)
	}
	rest := rules.MaxRulesBytes - size() - len(`,""`)
	rule.In = append(rule.In, strings.Repeat("<", rest/6)+strings.Repeat("x", rest%6))
	require.Equal(t, rules.MaxRulesBytes, size(), "the largest rules in force the store takes")
	require.Empty(t, rule.Check())

	added, err := f.command(t, admin.Request{Command: admin.CommandRuleAdd, Rule: &rule.Spec, Reason: escaped, Actor: escaped})
	require.NoError(t, err)
	assert.Equal(t, rule, *added.Rule)
	require.Len(t, added.Notes, 4, "three keys named, then how many more")
	assert.Equal(t, fmt.Sprintf("and %d more of the rule's keys have no breaker yet", len(rule.In)-3), added.Notes[3])
	rs, _, pages := listAll(t, f, 0)
	assert.Equal(t, []rules.Rule{rule}, rs)
	assert.Equal(t, 1, pages)

	removed, err := f.command(t, admin.Request{Command: admin.CommandRuleRemove, ID: "r1", Reason: escaped, Actor: escaped})
	require.NoError(t, err)
	for _, out := range []admin.Output{added, removed} {
		data, err := json.Marshal(out)
		require.NoError(t, err)
		assert.LessOrEqual(t, len(data), admin.MaxPageBytes, out.Command)
	}
	_, audit, _ := listAll(t, f, 0)
	require.NotEmpty(t, audit, "the item keeps the remove's change (the add's left it for room)")
	assert.Equal(t, rules.Change{At: t0, Op: rules.OpRemove, Actor: escaped, Reason: escaped, Rule: rule}, audit[len(audit)-1])
}

// A rule-add names at most three keys without a breaker in its notes, so
// that its output stays bounded, and counts the others.
func TestRuleAddNamesAFewUnknownKeys(t *testing.T) {
	f := withRules(newFixture(t, nil))
	f.trip(t, "orders")
	spec := rules.Spec{On: "breaker", In: []string{"a", "orders", "b", "c", "d", "e"}, Action: rules.Hold}
	out, err := f.command(t, admin.Request{Command: admin.CommandRuleAdd, Rule: &spec, Reason: "r"})
	require.NoError(t, err)
	assert.Equal(t, []string{
		`no breaker has the key "a" yet; the rule applies to its messages when they arrive`,
		`no breaker has the key "b" yet; the rule applies to its messages when they arrive`,
		`no breaker has the key "c" yet; the rule applies to its messages when they arrive`,
		"and 2 more of the rule's keys have no breaker yet",
	}, out.Notes)
}

// TestRuleListRefusesBadTokens: a next that no rule-list gave, or one from
// before the rules changed, is an *InvalidCommand saying to list from the
// start, as are next and limit where they do not belong.
func TestRuleListRefusesBadTokens(t *testing.T) {
	f := withRules(newFixture(t, nil))
	for _, on := range []string{"a", "b", "c"} {
		spec := rules.Spec{On: "breaker", Equals: on, Action: rules.Hold}
		_, err := f.command(t, admin.Request{Command: admin.CommandRuleAdd, Rule: &spec, Reason: "r"})
		require.NoError(t, err)
	}
	first, err := f.command(t, admin.Request{Command: admin.CommandRuleList, Limit: 2})
	require.NoError(t, err)
	require.NotEmpty(t, first.Next)
	_, err = f.command(t, admin.Request{Command: admin.CommandRuleList, Next: first.Next})
	require.NoError(t, err, "the token holds while the rules do not change")

	bad := `not the "next" of a rule-list output; leave it out to list from the start`
	token := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
	tests := []struct {
		name, request string
		want          []admin.Problem
	}{
		{"not base64", `{"command": "rule-list", "next": "not a token!"}`, []admin.Problem{{Field: "next", Problem: bad}}},
		{"not a token", `{"command": "rule-list", "next": "` + token("page 2") + `"}`, []admin.Problem{{Field: "next", Problem: bad}}},
		{"no version", `{"command": "rule-list", "next": "` + token("0.2") + `"}`, []admin.Problem{{Field: "next", Problem: bad}}},
		{"not canonical", `{"command": "rule-list", "next": "` + token("3.02") + `"}`, []admin.Problem{{Field: "next", Problem: bad}}},
		{"past the end", `{"command": "rule-list", "next": "` + token("3.6") + `"}`, []admin.Problem{{Field: "next", Problem: bad}}},
		{"next not a string", `{"command": "rule-list", "next": 2}`, []admin.Problem{{Field: "next", Problem: "want a string"}}},
		{"a negative limit", `{"command": "rule-list", "limit": -1}`,
			[]admin.Problem{{Field: "limit", Problem: "-1: want a positive number, or no limit for as many as fit"}}},
		{"limit not a number", `{"command": "rule-list", "limit": "10"}`,
			[]admin.Problem{{Field: "limit", Problem: "want a whole number: the most rules and audit changes one output holds"}}},
		{"next on rule-add", `{"command": "rule-add", "reason": "r", "rule": {"on": "breaker", "equals": "d", "action": "hold"}, "next": "x", "limit": 1}`,
			[]admin.Problem{{Field: "next", Problem: "only for rule-list"}, {Field: "limit", Problem: "only for rule-list"}}},
		{"next on status", `{"command": "status", "breaker": "orders", "next": "x"}`, []admin.Problem{{Field: "next", Problem: "only for rule-list"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, f.problemsOf(t, tt.request))
		})
	}

	t.Run("from before a change", func(t *testing.T) {
		_, err := f.command(t, admin.Request{Command: admin.CommandRuleRemove, ID: "r1", Reason: "done"})
		require.NoError(t, err)
		assert.Equal(t, []admin.Problem{{Field: "next",
			Problem: `the rules changed (a rule was added or removed) since the list this "next" is from began; leave it out to list again from the start`}},
			f.problemsOf(t, `{"command": "rule-list", "next": "`+first.Next+`"}`))
	})
}
