package admin

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redrive/redrive/lambda/retryable"
	"github.com/redrive/redrive/rules"
)

// RuleStore changes the routing rules; *rules.Store satisfies it.
type RuleStore interface {
	Load(ctx context.Context) (rules.Book, error)
	Add(ctx context.Context, spec rules.Spec, actor, reason string, until, now time.Time) (rules.Rule, error)
	Remove(ctx context.Context, id, actor, reason string, now time.Time) (rules.Rule, error)
}

var _ RuleStore = (*rules.Store)(nil)

// ruleCommand is a valid rule request, ready to apply.
type ruleCommand struct {
	command       string
	spec          rules.Spec
	id            string
	actor, reason string
	until         time.Time
	// next is where a rule-list begins: zero from the start.
	next listToken
	// limit bounds a rule-list's entries; 0 means no more than fit.
	limit int
}

// parseRule checks a rule command's request at now and returns it, or an
// *InvalidCommand listing every problem.
func parseRule(in Input, now time.Time) (ruleCommand, error) {
	r := in.Request
	problems := slices.Clone(r.problems)
	fail := func(field, problem string) { problems = append(problems, Problem{Field: field, Problem: problem}) }
	c := ruleCommand{command: r.Command, id: strings.TrimSpace(r.ID), reason: strings.TrimSpace(r.Reason), actor: in.actor()}
	if r.Breaker != "" {
		fail("breaker", `not for rule commands; a rule matches a breaker key with {"on": "breaker", "equals": "`+r.Breaker+`"}`)
	}
	if r.Replay != nil {
		fail("replay", "only for "+CommandReplay)
	}
	switch r.Command {
	case CommandRuleAdd:
		if r.Rule == nil {
			fail("rule", `required: e.g. {"on": "attribute:tenant", "equals": "acme", "action": "quarantine"}`)
		} else {
			c.spec = *r.Rule
			for _, p := range c.spec.Check() {
				fail(p.Field, p.Problem)
			}
		}
		if r.ID != "" {
			fail("id", "not for "+CommandRuleAdd+": the rule's id is assigned")
		}
		if r.Until != "" {
			var problem string
			if c.until, problem = untilAt(r.Until, now); problem != "" {
				fail("until", problem)
			}
		}
	case CommandRuleRemove:
		if c.id == "" {
			fail("id", `required: the rule's id, e.g. "r7" (rule-list shows them)`)
		}
		for field, given := range map[string]bool{"rule": r.Rule != nil, "until": r.Until != ""} {
			if given {
				fail(field, "not for "+CommandRuleRemove)
			}
		}
	case CommandRuleList:
		for field, given := range map[string]bool{"rule": r.Rule != nil, "until": r.Until != "", "id": r.ID != ""} {
			if given {
				fail(field, "not for "+CommandRuleList)
			}
		}
		if r.Next != "" {
			var ok bool
			if c.next, ok = parseListToken(r.Next); !ok {
				fail("next", badToken)
			}
		}
		if c.limit = r.Limit; c.limit < 0 {
			fail("limit", fmt.Sprintf("%d: want a positive number, or no limit for as many as fit", c.limit))
		}
	}
	if r.Command != CommandRuleList {
		if c.reason == "" {
			fail("reason", "required for "+r.Command+": it is kept with the rule and in the audit trail")
		}
		if c.actor == "" {
			fail("actor", actorRequired)
		}
	}
	if problem := tooLong(c.reason); problem != "" {
		fail("reason", problem)
	}
	if problem := tooLong(c.actor); problem != "" {
		fail("actor", problem)
	}
	if len(problems) > 0 {
		sortProblems(problems)
		return ruleCommand{}, &InvalidCommand{Problems: problems}
	}
	return c, nil
}

// sortProblems orders problems by their fields' order in requestFields,
// keeping the order of those of one field.
func sortProblems(problems []Problem) {
	slices.SortStableFunc(problems, func(a, b Problem) int { return fieldOrder(a.Field) - fieldOrder(b.Field) })
}

// fieldOrder orders problems by requestFields, a rule's own fields with
// "rule".
func fieldOrder(field string) int {
	field, _, _ = strings.Cut(field, ".")
	if i := slices.Index(requestFields, field); i >= 0 {
		return i
	}
	return len(requestFields)
}

// handleRule applies a rule command. A rule-add or a rule-remove returns
// the rule it added or removed and how many rules are in force, not the
// rules themselves: rule-list pages them.
func (h *Handler) handleRule(ctx context.Context, in Input) (Output, error) {
	if h.Rules == nil {
		return Output{}, errors.New("admin: handler has no rule store (Handler.Rules)")
	}
	c, err := parseRule(in, h.Clock.Now())
	if err != nil {
		return Output{}, err
	}
	if c.command == CommandRuleList {
		return h.listRules(ctx, c)
	}
	out := Output{Command: c.command, Changed: true}
	switch c.command {
	case CommandRuleAdd:
		added, err := h.Rules.Add(ctx, c.spec, c.actor, c.reason, c.until, h.Clock.Now())
		if err != nil {
			return Output{}, h.ruleError(c, err)
		}
		out.Rule = &added
		out.Notes = h.unknownKeys(ctx, added)
		h.Logger.InfoContext(ctx, "rule command", "command", c.command, "rule", added.ID, "on", added.On, "action", added.Action,
			"actor", c.actor, "reason", c.reason, "until", added.Until, "describe", added.Describe())
	case CommandRuleRemove:
		removed, err := h.Rules.Remove(ctx, c.id, c.actor, c.reason, h.Clock.Now())
		if err != nil {
			return Output{}, h.ruleError(c, err)
		}
		out.Rule = &removed
		if removed.Action == rules.Hold {
			out.Notes = []string{heldNote}
		}
		h.Logger.InfoContext(ctx, "rule command", "command", c.command, "rule", removed.ID, "actor", c.actor, "reason", c.reason,
			"describe", removed.Describe())
	}
	book, err := h.Rules.Load(ctx)
	if err != nil {
		return Output{}, fmt.Errorf("admin: %s: read the rules: %w", c.command, err)
	}
	out.InForce = inForce(book.Rules, h.Clock.Now())
	return out, nil
}

// MaxPageBytes bounds the JSON of one rule command's output, 32 KiB below
// Step Functions' 256 KiB limit on a state's result (the lambda:invoke
// result wraps the output in about 2 KiB of metadata). A rule-list output
// holds the rules in force, then the audit trail, from where its request's
// next says, as many as fit (at least one) and as its limit allows, and
// says where the next one goes on. One entry always fits: a rule encodes
// in at most rules.MaxRulesBytes (200,000) bytes, and its audit change in
// about 6 KB more. A rule-add's or a rule-remove's output holds one rule
// and at most maxKeyNotes+1 notes.
const MaxPageBytes = 224 << 10

// listRules returns a page of rule-list from where c.next says: the rules
// in force, then the audit trail, oldest first; its Next, when more
// remain, is where the next page begins.
func (h *Handler) listRules(ctx context.Context, c ruleCommand) (Output, error) {
	book, err := h.Rules.Load(ctx)
	if err != nil {
		return Output{}, fmt.Errorf("admin: %s: read the rules: %w", c.command, err)
	}
	total := len(book.Rules) + len(book.Audit)
	if c.next != (listToken{}) && c.next.version != book.Version {
		return Output{}, &InvalidCommand{Problems: []Problem{{Field: "next", Problem: staleToken}}}
	}
	if c.next.offset >= max(total, 1) {
		return Output{}, &InvalidCommand{Problems: []Problem{{Field: "next", Problem: badToken}}}
	}
	now := h.Clock.Now()
	out := Output{Command: c.command, InForce: inForce(book.Rules, now), Next: listToken{book.Version, total}.String()}
	size, err := encodedLen(out) // with the longest next any page has
	if err != nil {
		return Output{}, err
	}
	out.Next = ""
	size += len(`,"rules":[],"audit":[]`)
	entries := 0
	for i := c.next.offset; i < total; i++ {
		var entry any
		if i < len(book.Rules) {
			if !book.Rules[i].ActiveAt(now) {
				continue
			}
			entry = book.Rules[i]
		} else {
			entry = book.Audit[i-len(book.Rules)]
		}
		n, err := encodedLen(entry)
		if err != nil {
			return Output{}, err
		}
		if entries > 0 && (size+n+1 > MaxPageBytes || entries == c.limit) {
			out.Next = listToken{book.Version, i}.String()
			break
		}
		if i < len(book.Rules) {
			out.Rules = append(out.Rules, book.Rules[i])
		} else {
			out.Audit = append(out.Audit, book.Audit[i-len(book.Rules)])
		}
		size += n + 1 // and a comma
		entries++
	}
	return out, nil
}

// encodedLen is the length of v's JSON.
func encodedLen(v any) (int, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return 0, fmt.Errorf("admin: %s: encode: %w", CommandRuleList, err)
	}
	return len(data), nil
}

// inForce counts the rules in force at now.
func inForce(rs []rules.Rule, now time.Time) *int {
	n := 0
	for _, r := range rs {
		if r.ActiveAt(now) {
			n++
		}
	}
	return &n
}

// listToken is where a rule-list page begins: an entry of the rules item
// (its rules, then its audit trail) as of the item's version. Its String
// is the opaque "next" of an output.
type listToken struct {
	version int64
	offset  int
}

// String is t as an output's next.
func (t listToken) String() string {
	return base64.RawURLEncoding.EncodeToString(fmt.Appendf(nil, "%d.%d", t.version, t.offset))
}

// parseListToken reads a next that String wrote; ok is false for anything
// else.
func parseListToken(s string) (t listToken, ok bool) {
	raw, err := base64.RawURLEncoding.DecodeString(s)
	version, offset, cut := strings.Cut(string(raw), ".")
	if err != nil || !cut {
		return listToken{}, false
	}
	t.version, err = strconv.ParseInt(version, 10, 64)
	if err != nil {
		return listToken{}, false
	}
	if t.offset, err = strconv.Atoi(offset); err != nil || t.version < 1 || t.offset < 1 || t.String() != s {
		return listToken{}, false
	}
	return t, true
}

// The problems of a rule-list's next.
const (
	badToken   = `not the "next" of a rule-list output; leave it out to list from the start`
	staleToken = `the rules changed (a rule was added or removed) since the list this "next" is from began; leave it out to list again from the start`
)

// ruleError turns a rule store's error into the handler's: an unknown id
// is an *InvalidCommand, a lost race a *retryable.BreakerContention.
func (h *Handler) ruleError(c ruleCommand, err error) error {
	switch {
	case errors.Is(err, rules.ErrNoRule):
		return &InvalidCommand{Problems: []Problem{{Field: "id", Problem: fmt.Sprintf("no rule %q is in force (rule-list shows them)", c.id)}}}
	case errors.Is(err, rules.ErrTooMany), errors.Is(err, rules.ErrTooLarge):
		return &InvalidCommand{Problems: []Problem{{Field: "rule", Problem: err.Error() + "; remove one first"}}}
	}
	if ce := retryable.Contention(c.command, err); ce != nil {
		return ce
	}
	return fmt.Errorf("admin: %s: %w", c.command, err)
}

// unknownKeys notes the breaker keys a rule on breaker keys names that
// have no breaker row yet, the first maxKeyNotes by name: the rule is
// kept, and applies once such messages arrive.
func (h *Handler) unknownKeys(ctx context.Context, r rules.Rule) []string {
	if r.On != rules.OnBreaker || r.Prefix != "" {
		return nil
	}
	var notes []string
	unknown := 0
	for _, key := range append([]string{r.Equals}, r.In...) {
		if key == "" {
			continue
		}
		row, err := h.Breaker.Status(ctx, key)
		if err != nil || row.Version != 0 {
			continue
		}
		if unknown++; unknown <= maxKeyNotes {
			notes = append(notes, fmt.Sprintf("no breaker has the key %q yet; the rule applies to its messages when they arrive", key))
		}
	}
	if more := unknown - maxKeyNotes; more > 0 {
		notes = append(notes, fmt.Sprintf("and %d more of the rule's keys have no breaker yet", more))
	}
	return notes
}

// maxKeyNotes bounds the keys a rule-add's notes name, so its output stays
// under MaxPageBytes (a rule may name rules.MaxValues keys).
const maxKeyNotes = 3

// heldNote tells an operator who removed a hold when its messages go.
const heldNote = "the messages the hold held wait in their breakers' rooms and are looked at again every minute: they go at their breaker's pace within a minute"
