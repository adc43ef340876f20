package admin

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/message"
	"github.com/redrive/redrive/rules"
)

// Input is the admin function's event, as admin.asl.json builds it: the
// execution's input as the request, and the execution's name.
type Input struct {
	// Request is what the operator started the execution with.
	Request Request `json:"request"`
	// ExecutionName names the execution; the default actor.
	ExecutionName string `json:"executionName"`
}

// Request is one operator command.
type Request struct {
	// Command is one of Commands().
	Command string `json:"command"`
	// Breaker is the breaker key, e.g. "orders".
	Breaker string `json:"breaker"`
	// Reason says why; required for every command but status.
	Reason string `json:"reason,omitempty"`
	// Until ends an open, a close or a rule: an RFC 3339 time, or a
	// positive duration from when the command runs (Go's syntax: "30m",
	// "12h"), read on the table's clock; empty means until released.
	Until string `json:"until,omitempty"`
	// Actor says who; default "execution:<execution name>".
	Actor string `json:"actor,omitempty"`
	// Rule is the routing rule a rule-add adds.
	Rule *rules.Spec `json:"rule,omitempty"`
	// ID names the rule a rule-remove removes, e.g. "r7".
	ID string `json:"id,omitempty"`
	// Replay is a replay command's options.
	Replay *ReplayRequest `json:"replay,omitempty"`
	// Next, for rule-list, is the "next" of the output before: the list
	// goes on from there. Empty starts it.
	Next string `json:"next,omitempty"`
	// Limit, for rule-list, bounds the rules and audit changes one output
	// holds; 0 means as many as fit in MaxPageBytes.
	Limit int `json:"limit,omitempty"`

	// problems are what UnmarshalJSON found wrong with the JSON itself
	// (unknown fields, values that are not strings).
	problems []Problem
	// notObject is set by UnmarshalJSON when the request is not a JSON
	// object: that is then the only problem worth reporting.
	notObject bool
}

// CommandStatus reads a breaker without changing it; the rule commands
// manage the routing rules (rules); the other commands are
// breaker.CommandKind names.
const (
	CommandStatus     = "status"
	CommandRuleAdd    = "rule-add"
	CommandRuleList   = "rule-list"
	CommandRuleRemove = "rule-remove"
)

// Commands lists the command names a Request may use.
func Commands() []string {
	return []string{CommandStatus, breaker.Reset.String(), breaker.ForceOpen.String(),
		breaker.ForceClose.String(), breaker.Release.String(), CommandRuleAdd, CommandRuleList, CommandRuleRemove, CommandReplay}
}

// isRuleCommand reports a command on the routing rules rather than on a
// breaker.
func isRuleCommand(command string) bool {
	return command == CommandRuleAdd || command == CommandRuleList || command == CommandRuleRemove
}

// requestFields lists Request's JSON field names, in the order problems
// are reported.
var requestFields = []string{"command", "breaker", "reason", "until", "actor", "rule", "id", "replay", "next", "limit"}

// UnmarshalJSON reads a request leniently: an unknown field, a value of
// the wrong type, or next or limit on a command other than rule-list is
// remembered as a problem for validation to report with the others (as an
// *InvalidCommand), instead of failing the decode with an error the state
// machine could not name.
func (r *Request) UnmarshalJSON(data []byte) error {
	*r = Request{}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil || fields == nil {
		r.notObject = true
		return nil
	}
	dest := map[string]*string{"command": &r.Command, "breaker": &r.Breaker, "reason": &r.Reason, "until": &r.Until, "actor": &r.Actor, "id": &r.ID,
		"next": &r.Next}
	for _, name := range slices.Sorted(maps.Keys(fields)) {
		ptr, known := dest[name]
		switch {
		case (name == "next" || name == "limit") && r.Command != CommandRuleList: // "command" sorts before them
			r.problems = append(r.problems, Problem{Field: name, Problem: "only for " + CommandRuleList})
		case name == "limit":
			if json.Unmarshal(fields[name], &r.Limit) != nil {
				r.problems = append(r.problems, Problem{Field: name, Problem: "want a whole number: the most rules and audit changes one output holds"})
			}
		case name == "rule":
			r.Rule = &rules.Spec{}
			if problem := decodeStrict(fields[name], r.Rule, ruleExample); problem != "" {
				r.problems = append(r.problems, Problem{Field: name, Problem: problem})
			}
		case name == "replay":
			r.Replay = &ReplayRequest{}
			if problem := decodeStrict(fields[name], r.Replay, replayExample); problem != "" {
				r.problems = append(r.problems, Problem{Field: name, Problem: problem})
			}
		case !known:
			r.problems = append(r.problems, Problem{Field: name, Problem: "unknown field; want " + strings.Join(requestFields, ", ")})
		case json.Unmarshal(fields[name], ptr) != nil:
			r.problems = append(r.problems, Problem{Field: name, Problem: "want a string"})
		}
	}
	return nil
}

// Examples of the object fields, for their problems.
const (
	ruleExample   = `{"on": "attribute:tenant", "equals": "acme", "action": "quarantine"}`
	replayExample = `{"filter": {"reason": "exhausted", "since": "2026-01-02T15:04:05Z"}, "dryRun": true}`
)

// decodeStrict decodes data into v, refusing unknown fields; it returns
// the problem, naming example, or "".
func decodeStrict(data []byte, v any, example string) string {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return "want an object such as " + example + ": " + err.Error()
	}
	return ""
}

// actorRequired is the problem of a changing request without an actor.
const actorRequired = "required when the input has no executionName to default it from"

// actor is who made the request: its actor, else
// "execution:<execution name>"; "" without either.
// MaxText bounds an actor and a reason, in bytes: they are kept on the
// breaker row or with a rule and its audit trail, and shown in every
// output, which Step Functions bounds to 256 KiB.
const MaxText = rules.MaxText

// tooLong names a text over MaxText; "" when it is not.
func tooLong(s string) string {
	if len(s) <= MaxText {
		return ""
	}
	return fmt.Sprintf("%d bytes, want at most %d", len(s), MaxText)
}

func (in Input) actor() string {
	if a := strings.TrimSpace(in.Request.Actor); a != "" || in.ExecutionName == "" {
		return a
	}
	return "execution:" + in.ExecutionName
}

// parsed is a valid request, ready to apply.
type parsed struct {
	key     string
	command string
	// change is the breaker command; Kind is 0 for status.
	change breaker.Command
}

// parse checks in at now and returns the command to apply, or an
// *InvalidCommand listing every problem.
func parse(in Input, now time.Time) (parsed, error) {
	r := in.Request
	if r.notObject {
		return parsed{}, &InvalidCommand{Problems: []Problem{{Field: "request",
			Problem: `want a JSON object, e.g. {"command": "status", "breaker": "orders"}`}}}
	}
	problems := slices.Clone(r.problems)
	fail := func(field, problem string) { problems = append(problems, Problem{Field: field, Problem: problem}) }

	p := parsed{key: r.Breaker, command: r.Command}
	known := r.Command == CommandStatus
	if !known {
		kind, err := breaker.ParseCommandKind(r.Command)
		known = err == nil
		p.change.Kind = kind
	}
	switch {
	case r.Command == "":
		fail("command", "required; want one of "+strings.Join(Commands(), ", "))
	case !known:
		fail("command", "unknown command "+strconv.Quote(r.Command)+"; want one of "+strings.Join(Commands(), ", "))
	}

	if r.Rule != nil {
		fail("rule", "only for "+CommandRuleAdd)
	}
	if r.ID != "" {
		fail("id", "only for "+CommandRuleRemove)
	}
	if r.Replay != nil {
		fail("replay", "only for "+CommandReplay)
	}
	if r.Breaker == "" {
		fail("breaker", `required: the breaker key, e.g. "orders"`)
	} else if err := message.CheckKey(r.Breaker); err != nil {
		fail("breaker", err.Error())
	}

	// What the rest needs depends on the command; an unknown one is
	// reported alone rather than with guesses.
	if !known {
		return parsed{}, &InvalidCommand{Problems: problems}
	}
	changes := p.change.Kind != 0
	p.change.Reason = strings.TrimSpace(r.Reason)
	if changes && p.change.Reason == "" {
		fail("reason", "required for "+r.Command+": it is kept on the breaker for the audit trail")
	}
	if problem := tooLong(p.change.Reason); problem != "" {
		fail("reason", problem)
	}
	if r.Until != "" {
		until, problem := parseUntil(r.Until, p.change.Kind, now)
		if problem != "" {
			fail("until", problem)
		}
		p.change.Until = until
	}
	p.change.Actor = in.actor()
	if changes && p.change.Actor == "" {
		fail("actor", actorRequired)
	}
	if problem := tooLong(p.change.Actor); problem != "" {
		fail("actor", problem)
	}

	if len(problems) > 0 {
		return parsed{}, &InvalidCommand{Problems: problems}
	}
	return p, nil
}

// parseUntil reads an until for a command of kind at now; problem is ""
// when it is valid.
func parseUntil(s string, kind breaker.CommandKind, now time.Time) (until time.Time, problem string) {
	if kind != breaker.ForceOpen && kind != breaker.ForceClose {
		return time.Time{}, "only for open and close"
	}
	return untilAt(s, now)
}

// untilAt reads an until at now: an RFC 3339 time in the future, or a
// positive duration from now; problem is "" when it is valid.
func untilAt(s string, now time.Time) (until time.Time, problem string) {
	if d, err := time.ParseDuration(s); err == nil {
		if d <= 0 {
			return time.Time{}, strconv.Quote(s) + " is not a positive duration"
		}
		return now.Add(d).UTC(), ""
	}
	until, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, `want an RFC 3339 time with a zone, e.g. "2026-01-02T15:04:05Z", or a duration from now, e.g. "30m", not ` + strconv.Quote(s)
	}
	if !until.After(now) {
		return time.Time{}, strconv.Quote(s) + " is not in the future (now " + now.UTC().Format(time.RFC3339) + ")"
	}
	return until.UTC(), ""
}
