package asl

import (
	"encoding/json"
	"slices"
	"time"
)

// Definition is a parsed, validated state machine definition.
type Definition struct {
	startAt *State
	states  map[string]*State
	// timeout is the execution's TimeoutSeconds; 0 means none.
	timeout time.Duration
}

// StartAt is the state an execution starts in.
func (d *Definition) StartAt() *State { return d.startAt }

// State is the state called name, or nil if there is none.
func (d *Definition) State(name string) *State { return d.states[name] }

// CallbackStates names the states whose Task waits for a task token
// (".waitForTaskToken"), in name order.
func (d *Definition) CallbackStates() []string {
	var out []string
	for name, st := range d.states {
		if st.task != nil && st.task.Callback {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// Timeout is the definition's TimeoutSeconds, or 0 without one.
func (d *Definition) Timeout() time.Duration { return d.timeout }

// Parse validates an ASL definition and compiles it. Its error is a
// *DefinitionError.
func Parse(text string) (*Definition, error) {
	raw, err := DecodeJSON([]byte(text))
	if err != nil {
		code := codeInvalidJSON
		if json.Valid([]byte(text)) {
			code = codeSchema // valid JSON, but a number out of range
		}
		return nil, &DefinitionError{Code: code, Message: "definition: " + err.Error()}
	}
	top, ok := raw.(map[string]any)
	if !ok {
		return nil, defError("", field{}, "must be a JSON object, got %s", typeName(raw))
	}
	f := fields{obj: top}
	for k := range top {
		switch k {
		case "StartAt", "States", "Comment", "Version", "TimeoutSeconds":
		case "QueryLanguage":
			if top[k] != "JSONPath" {
				return nil, f.err(k, "only \"JSONPath\" is supported, got %s", jsonText(top[k]))
			}
		default:
			return nil, f.err(k, "is not supported by the local executor")
		}
	}
	startAt, err := f.str("StartAt", true)
	if err != nil {
		return nil, err
	}
	if _, err := f.str("Comment", false); err != nil {
		return nil, err
	}
	if v, ok := top["Version"]; ok && v != "1.0" {
		return nil, f.err("Version", "must be \"1.0\", got %s", jsonText(v))
	}
	d := &Definition{states: map[string]*State{}}
	if secs, ok, err := f.integer("TimeoutSeconds", 1, maxTimeoutSeconds); err != nil {
		return nil, err
	} else if ok {
		d.timeout = time.Duration(secs) * time.Second
	}
	rawStates, ok := top["States"].(map[string]any)
	if !ok {
		return nil, f.err("States", "must be an object of states")
	}
	if len(rawStates) == 0 {
		return nil, f.err("States", "must contain at least one state")
	}
	names := make([]string, 0, len(rawStates))
	for name := range rawStates {
		names = append(names, name)
	}
	slices.Sort(names) // report errors deterministically
	for _, name := range names {
		st, err := compileState(name, rawStates[name])
		if err != nil {
			return nil, err
		}
		d.states[name] = st
	}
	if d.startAt = d.states[startAt]; d.startAt == nil {
		return nil, f.err("StartAt", "state %q does not exist", startAt)
	}
	if err := d.link(names); err != nil {
		return nil, err
	}
	return d, nil
}

// Validate checks a definition as Parse does and returns its first error,
// or nil when Parse accepts it.
func Validate(text string) *DefinitionError {
	_, err := Parse(text)
	derr, _ := err.(*DefinitionError) // every error of Parse is one
	return derr
}

// link resolves Next, Default and Catch targets and checks that every
// state is reachable from StartAt.
func (d *Definition) link(names []string) error {
	resolve := func(from string, at field, target string) (*State, error) {
		st := d.states[target]
		if st == nil {
			return nil, defError(from, at, "refers to state %q, which does not exist", target)
		}
		return st, nil
	}
	for _, name := range names {
		st := d.states[name]
		var err error
		if st.nextName != "" {
			if st.next, err = resolve(name, field{}.member("Next"), st.nextName); err != nil {
				return err
			}
		}
		if st.defaultName != "" {
			if st.defaultState, err = resolve(name, field{}.member("Default"), st.defaultName); err != nil {
				return err
			}
		}
		st.choiceNext = make([]*State, len(st.choices))
		for i, r := range st.choices {
			if st.choiceNext[i], err = resolve(name, field{}.member("Choices").index(i).member("Next"), r.next); err != nil {
				return err
			}
		}
		for i, c := range st.catchers {
			if c.next, err = resolve(name, field{}.member("Catch").index(i).member("Next"), c.nextName); err != nil {
				return err
			}
		}
	}
	seen := map[*State]bool{d.startAt: true}
	stack := []*State{d.startAt}
	for len(stack) > 0 {
		st := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		targets := append([]*State{st.next, st.defaultState}, st.choiceNext...)
		for _, c := range st.catchers {
			targets = append(targets, c.next)
		}
		for _, t := range targets {
			if t != nil && !seen[t] {
				seen[t] = true
				stack = append(stack, t)
			}
		}
	}
	for _, name := range names {
		if !seen[d.states[name]] {
			return defError(name, field{}, "is not reachable from StartAt %q", d.startAt.name)
		}
	}
	return nil
}
