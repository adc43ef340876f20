package rules

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redrive/redrive/message"
)

// The actions a rule takes on the messages it matches.
const (
	// Quarantine parks a matching message at once, with the rule's
	// reason in the park reason.
	Quarantine = "quarantine"
	// Hold keeps a matching message waiting, apart from its breaker's
	// room, until the rule ends or is removed; it then queues behind its
	// breaker's room and is released at the target's pace.
	Hold = "hold"
	// Delay makes a matching message wait at least the rule's delay after
	// it arrived, and after each failed try, before it is tried.
	Delay = "delay"
)

// Actions lists the action names, in the order they win when several
// rules match one message: a quarantine over a hold over a delay.
func Actions() []string { return []string{Quarantine, Hold, Delay} }

// What a Match looks at: the breaker key, a FIFO message's group, a
// message attribute ("attribute:NAME") or a field of a JSON body
// ("body:/json/pointer").
const (
	OnBreaker   = "breaker"
	OnGroup     = "group"
	OnAttribute = "attribute:"
	OnBody      = "body:"
)

// Limits on a rule.
const (
	// MaxRules bounds the rules in force, so that the rules item stays
	// far below DynamoDB's 400 KB item limit and matching stays cheap.
	MaxRules = 100
	// MaxValues bounds a match's set of values ("in").
	MaxValues = 100
	// MaxDelay bounds a delay rule's delay: a message waits in a Wait
	// state, and a longer pause is what hold is for.
	MaxDelay = 24 * time.Hour
	// MaxText bounds the length of a reason, an actor and each value, in
	// bytes.
	MaxText = 512
)

// Spec is a rule as an operator writes it in an admin request's "rule":
//
//	{"on": "attribute:tenant", "equals": "acme", "action": "quarantine"}
//	{"on": "breaker", "in": ["orders", "payments"], "action": "hold"}
//	{"on": "body:/customer/tier", "prefix": "free", "action": "delay", "delay": "10m"}
//
// Exactly one of Equals, Prefix and In is given.
type Spec struct {
	// On says what is matched: "breaker", "group" (a FIFO message's
	// MessageGroupId), "attribute:NAME" or "body:/json/pointer".
	On string `json:"on"`
	// Equals matches a value equal to it.
	Equals string `json:"equals,omitempty"`
	// Prefix matches a value that starts with it.
	Prefix string `json:"prefix,omitempty"`
	// In matches a value equal to one of them.
	In []string `json:"in,omitempty"`
	// Action is one of Actions().
	Action string `json:"action"`
	// Delay is a delay rule's minimum wait between tries, a Go duration
	// such as "10m"; only for delay.
	Delay string `json:"delay,omitempty"`
}

// Rule is a rule in force: its Spec, and who made it, why and until when.
type Rule struct {
	Spec
	// ID names the rule, e.g. "r7"; assigned when the rule is added.
	ID string `json:"id"`
	// Reason says why; it is part of the park reason of a quarantined
	// message.
	Reason string `json:"reason"`
	// Actor is who added the rule.
	Actor string `json:"actor"`
	// Added is when.
	Added time.Time `json:"added"`
	// Until ends the rule; zero means until removed.
	Until time.Time `json:"until,omitzero"`
}

// Problem is one thing wrong with a rule, by field.
type Problem struct {
	// Field is the field, e.g. "rule.on".
	Field string
	// Problem says what is wrong and what is wanted instead.
	Problem string
}

// Check returns everything wrong with s, each problem under its field
// ("rule.on", "rule.equals"...); none means it is valid.
func (s Spec) Check() []Problem {
	var problems []Problem
	fail := func(field, format string, args ...any) {
		problems = append(problems, Problem{Field: "rule." + field, Problem: fmt.Sprintf(format, args...)})
	}
	switch {
	case s.On == "":
		fail("on", `required: "breaker", "group", "attribute:NAME" or "body:/json/pointer"`)
	case s.On == OnBreaker, s.On == OnGroup:
	case strings.HasPrefix(s.On, OnAttribute):
		if name := strings.TrimPrefix(s.On, OnAttribute); name == "" || name == message.AttributeName {
			fail("on", "%q: want an attribute name after %q, other than %q (the lineage)", s.On, OnAttribute, message.AttributeName)
		}
	case strings.HasPrefix(s.On, OnBody):
		if _, err := message.ParsePointer(strings.TrimPrefix(s.On, OnBody)); err != nil {
			fail("on", "%q: %v", s.On, err)
		}
	default:
		fail("on", `%q: want "breaker", "group", "attribute:NAME" or "body:/json/pointer"`, s.On)
	}

	given := 0
	for _, set := range []bool{s.Equals != "", s.Prefix != "", len(s.In) > 0} {
		if set {
			given++
		}
	}
	if given != 1 {
		fail("equals", "give exactly one of equals, prefix and in (%d given)", given)
	}
	if len(s.In) > MaxValues {
		fail("in", "%d values, want at most %d", len(s.In), MaxValues)
	}
	for i, v := range append([]string{s.Equals, s.Prefix}, s.In...) {
		if len(v) > MaxText {
			fail(valueField(i), "%d bytes, want at most %d", len(v), MaxText)
		}
	}
	for i, v := range s.In {
		if v == "" {
			fail("in", "value %d is empty", i)
		}
	}

	switch s.Action {
	case "":
		fail("action", "required: one of %s", strings.Join(Actions(), ", "))
	case Delay:
		d, err := time.ParseDuration(s.Delay)
		switch {
		case s.Delay == "":
			fail("delay", `required for delay: a duration such as "10m"`)
		case err != nil:
			fail("delay", "%q: want a duration such as \"10m\"", s.Delay)
		case d < time.Second || d > MaxDelay:
			fail("delay", "%s: want 1s to %s", d, MaxDelay)
		}
	default:
		if !slices.Contains(Actions(), s.Action) {
			fail("action", "%q: want one of %s", s.Action, strings.Join(Actions(), ", "))
		} else if s.Delay != "" {
			fail("delay", "only for delay, not %s", s.Action)
		}
	}
	return problems
}

// valueField names value i of Equals, Prefix, In... for a problem.
func valueField(i int) string {
	switch i {
	case 0:
		return "equals"
	case 1:
		return "prefix"
	}
	return "in[" + strconv.Itoa(i-2) + "]"
}

// DelayDuration is a delay rule's delay; 0 for other actions.
func (r Rule) DelayDuration() time.Duration {
	if r.Action != Delay {
		return 0
	}
	d, _ := time.ParseDuration(r.Delay)
	return d
}

// ActiveAt reports whether r is in force at now.
func (r Rule) ActiveAt(now time.Time) bool { return r.Until.IsZero() || now.Before(r.Until) }

// Describe is the rule in one line, for park reasons and logs: "rule r7
// (attribute:tenant equals acme): broken client".
func (r Rule) Describe() string {
	var how string
	switch {
	case r.Equals != "":
		how = "equals " + r.Equals
	case r.Prefix != "":
		how = "prefix " + r.Prefix
	default:
		how = "in " + strings.Join(r.In, ",")
	}
	return fmt.Sprintf("rule %s (%s %s): %s", r.ID, r.On, how, r.Reason)
}
