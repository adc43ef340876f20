package admin

import (
	"context"
	"errors"
	"fmt"
	"slices"
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

// handleRule applies a rule command.
func (h *Handler) handleRule(ctx context.Context, in Input) (Output, error) {
	if h.Rules == nil {
		return Output{}, errors.New("admin: handler has no rule store (Handler.Rules)")
	}
	c, err := parseRule(in, h.Clock.Now())
	if err != nil {
		return Output{}, err
	}
	out := Output{Command: c.command}
	switch c.command {
	case CommandRuleAdd:
		added, err := h.Rules.Add(ctx, c.spec, c.actor, c.reason, c.until, h.Clock.Now())
		if err != nil {
			return Output{}, h.ruleError(c, err)
		}
		out.Rule, out.Changed = &added, true
		out.Notes = h.unknownKeys(ctx, added)
		h.Logger.InfoContext(ctx, "rule command", "command", c.command, "rule", added.ID, "on", added.On, "action", added.Action,
			"actor", c.actor, "reason", c.reason, "until", added.Until, "describe", added.Describe())
	case CommandRuleRemove:
		removed, err := h.Rules.Remove(ctx, c.id, c.actor, c.reason, h.Clock.Now())
		if err != nil {
			return Output{}, h.ruleError(c, err)
		}
		out.Rule, out.Changed = &removed, true
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
	now := h.Clock.Now()
	out.Rules = slices.DeleteFunc(book.Rules, func(r rules.Rule) bool { return !r.ActiveAt(now) })
	if c.command == CommandRuleList {
		out.Audit = book.Audit
	}
	return out, nil
}

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

// unknownKeys notes each breaker key a rule on breaker keys names that has
// no breaker row yet: the rule is kept, and applies once such messages
// arrive.
func (h *Handler) unknownKeys(ctx context.Context, r rules.Rule) []string {
	if r.On != rules.OnBreaker || r.Prefix != "" {
		return nil
	}
	var notes []string
	for _, key := range append([]string{r.Equals}, r.In...) {
		if key == "" {
			continue
		}
		row, err := h.Breaker.Status(ctx, key)
		if err == nil && row.Version == 0 {
			notes = append(notes, fmt.Sprintf("no breaker has the key %q yet; the rule applies to its messages when they arrive", key))
		}
	}
	return notes
}

// heldNote tells an operator who removed a hold when its messages go.
const heldNote = "the messages the hold held wait in their breakers' rooms and are looked at again every minute: they go at their breaker's pace within a minute"
