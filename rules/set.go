package rules

import (
	"slices"
	"strings"
	"time"

	"github.com/redrive/redrive/message"
)

// Set is the rules in force, ready to match messages. The zero Set has no
// rules. It is safe for concurrent use.
type Set struct {
	rules []compiled
}

// compiled is a rule with its value getter.
type compiled struct {
	Rule
	value func(key string, msg message.Message) (string, bool)
}

// NewSet compiles rules; a rule whose Spec does not check (never stored
// so) is left out.
func NewSet(rules []Rule) Set {
	var s Set
	for _, r := range rules {
		if len(r.Check()) > 0 {
			continue
		}
		s.rules = append(s.rules, compiled{Rule: r, value: getter(r.On)})
	}
	return s
}

// getter returns how the value a rule on on looks at is read.
func getter(on string) func(string, message.Message) (string, bool) {
	switch {
	case on == OnBreaker:
		return func(key string, _ message.Message) (string, bool) { return key, true }
	case on == OnGroup:
		return func(_ string, msg message.Message) (string, bool) {
			g := msg.Attributes[message.AttrMessageGroupID]
			return g, g != ""
		}
	case strings.HasPrefix(on, OnAttribute):
		name := strings.TrimPrefix(on, OnAttribute)
		return func(_ string, msg message.Message) (string, bool) {
			a, ok := msg.MessageAttributes[name]
			return a.StringValue, ok && a.IsString()
		}
	}
	p, _ := message.ParsePointer(strings.TrimPrefix(on, OnBody))
	return func(_ string, msg message.Message) (string, bool) { return p.Text(msg.Body) }
}

// InForce reports whether the set has the rule id in force at now.
func (s Set) InForce(id string, now time.Time) bool {
	return slices.ContainsFunc(s.rules, func(r compiled) bool { return r.ID == id && r.ActiveAt(now) })
}

// Len is how many rules the set has, in force or not.
func (s Set) Len() int { return len(s.rules) }

// Verdict is what the rules in force say about one message.
type Verdict struct {
	// Quarantine, if set, is the rule that parks the message.
	Quarantine *Rule
	// Hold, if set (and Quarantine is not), is the rule that holds it;
	// the one that ends last, when several do.
	Hold *Rule
	// Delay is the longest delay of the delay rules that match; DelayRule
	// is that rule.
	Delay     time.Duration
	DelayRule *Rule
}

// Match returns the verdict of the rules in force at now on a message with
// breaker key key.
func (s Set) Match(now time.Time, key string, msg message.Message) Verdict {
	var v Verdict
	for i := range s.rules {
		r := &s.rules[i]
		if !r.ActiveAt(now) || !r.matches(key, msg) {
			continue
		}
		switch r.Action {
		case Quarantine:
			if v.Quarantine == nil {
				v.Quarantine = &r.Rule
			}
		case Hold:
			if v.Hold == nil || endsLater(r.Rule, *v.Hold) {
				v.Hold = &r.Rule
			}
		case Delay:
			if d := r.DelayDuration(); d > v.Delay {
				v.Delay, v.DelayRule = d, &r.Rule
			}
		}
	}
	if v.Quarantine != nil {
		v.Hold = nil
	}
	return v
}

// endsLater reports whether a ends after b (a rule without an end, last).
func endsLater(a, b Rule) bool {
	switch {
	case b.Until.IsZero():
		return false
	case a.Until.IsZero():
		return true
	}
	return a.Until.After(b.Until)
}

// matches reports whether r matches the message.
func (r *compiled) matches(key string, msg message.Message) bool {
	v, ok := r.value(key, msg)
	if !ok {
		return false
	}
	switch {
	case r.Equals != "":
		return v == r.Equals
	case r.Prefix != "":
		return strings.HasPrefix(v, r.Prefix)
	}
	return slices.Contains(r.In, v)
}
