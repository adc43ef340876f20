package local

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Limits from the Amazon States Language and Step Functions' quotas.
const (
	maxTimeoutSeconds  = 99999999 // TimeoutSeconds, Seconds, IntervalSeconds, MaxAttempts
	maxMaxDelaySeconds = 31622400 // MaxDelaySeconds: one year
)

// stateType is a state's Type.
type stateType int

// The supported state types.
const (
	typeTask stateType = iota
	typePass
	typeChoice
	typeWait
	typeSucceed
	typeFail
)

// stateTypes maps the ASL Type names to state types.
var stateTypes = map[string]stateType{
	"Task": typeTask, "Pass": typePass, "Choice": typeChoice,
	"Wait": typeWait, "Succeed": typeSucceed, "Fail": typeFail,
}

// allowedFields lists, per state type, the fields the executor supports
// (Type and Comment are allowed everywhere). Anything else is a load error.
var allowedFields = map[stateType][]string{
	typeTask: {"Resource", "Next", "End", "InputPath", "OutputPath", "Parameters", "ResultSelector",
		"ResultPath", "Retry", "Catch", "TimeoutSeconds", "TimeoutSecondsPath", "HeartbeatSeconds", "HeartbeatSecondsPath"},
	typePass:    {"Next", "End", "InputPath", "OutputPath", "Parameters", "Result", "ResultPath"},
	typeChoice:  {"Choices", "Default", "InputPath", "OutputPath"},
	typeWait:    {"Next", "End", "InputPath", "OutputPath", "Seconds", "SecondsPath", "Timestamp", "TimestampPath"},
	typeSucceed: {"InputPath", "OutputPath"},
	typeFail:    {"Error", "ErrorPath", "Cause", "CausePath"},
}

// definition is a loaded, validated state machine definition.
type definition struct {
	startAt *state
	states  map[string]*state
	// timeout is the execution's TimeoutSeconds; 0 means none.
	timeout time.Duration
}

// state is one compiled state. Pointers left nil mean the field's default.
type state struct {
	name string
	typ  stateType
	// entered and exited are the history event types, e.g. "TaskStateEntered".
	entered, exited string
	next            *state // nil with End (or for Choice, Succeed, Fail)
	nextName        string

	inputPath, outputPath *path
	inputNull, outputNull bool // the field is null: the input or output is {}
	parameters            *template
	resultSelector        *template
	resultPath            *refPath
	resultNull            bool // ResultPath null: discard the result
	result                any  // Pass Result (nil when absent)
	hasResult             bool
	usesContext           bool // some path refers to "$$"
	task                  *taskSpec
	wait                  *waitSpec
	choices               []*choiceRule
	choiceNext            []*state // the states choices[i] leads to
	defaultName           string
	defaultState          *state
	errorName, cause      string
	errorPath, causePath  *path
	retriers              []*retrier
	catchers              []*catcher
	timeout               time.Duration // Task TimeoutSeconds (default 99999999 s)
	timeoutPath           *path
	heartbeat             time.Duration // Task HeartbeatSeconds; 0 means none
	heartbeatPath         *path
}

// waitSpec is a Wait state's duration: exactly one field is set.
type waitSpec struct {
	seconds       int64
	hasSeconds    bool
	secondsPath   *path
	timestamp     time.Time
	hasTimestamp  bool
	timestampPath *path
}

// defError is a definition error naming the state and field.
func defError(st, field, format string, args ...any) error {
	where := "definition"
	if st != "" {
		where = fmt.Sprintf("state %q", st)
	}
	if field != "" {
		where += fmt.Sprintf(" field %q", field)
	}
	return fmt.Errorf("%w: %s: %s", ErrInvalidDefinition, where, fmt.Sprintf(format, args...))
}

// loadDefinition parses and validates an ASL definition.
func loadDefinition(text string) (*definition, error) {
	raw, err := decodeJSON([]byte(text))
	if err != nil {
		return nil, fmt.Errorf("%w: definition: %v", ErrInvalidDefinition, err)
	}
	top, ok := raw.(map[string]any)
	if !ok {
		return nil, defError("", "", "must be a JSON object, got %s", typeName(raw))
	}
	for k := range top {
		switch k {
		case "StartAt", "States", "Comment", "Version", "TimeoutSeconds":
		case "QueryLanguage":
			if top[k] != "JSONPath" {
				return nil, defError("", k, "only \"JSONPath\" is supported, got %s", jsonText(top[k]))
			}
		default:
			return nil, defError("", k, "is not supported by the local executor")
		}
	}
	f := fields{obj: top}
	startAt, err := f.str("StartAt", true)
	if err != nil {
		return nil, err
	}
	if _, err := f.str("Comment", false); err != nil {
		return nil, err
	}
	if v, ok := top["Version"]; ok && v != "1.0" {
		return nil, defError("", "Version", "must be \"1.0\", got %s", jsonText(v))
	}
	d := &definition{states: map[string]*state{}}
	if secs, ok, err := f.integer("TimeoutSeconds", 1, maxTimeoutSeconds); err != nil {
		return nil, err
	} else if ok {
		d.timeout = time.Duration(secs) * time.Second
	}
	rawStates, ok := top["States"].(map[string]any)
	if !ok {
		return nil, defError("", "States", "must be an object of states")
	}
	if len(rawStates) == 0 {
		return nil, defError("", "States", "must contain at least one state")
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
		return nil, defError("", "StartAt", "state %q does not exist", startAt)
	}
	if err := d.link(names); err != nil {
		return nil, err
	}
	return d, nil
}

// link resolves Next, Default and Catch targets and checks that every
// state is reachable from StartAt.
func (d *definition) link(names []string) error {
	resolve := func(from, field, target string) (*state, error) {
		st := d.states[target]
		if st == nil {
			return nil, defError(from, field, "refers to state %q, which does not exist", target)
		}
		return st, nil
	}
	for _, name := range names {
		st := d.states[name]
		var err error
		if st.nextName != "" {
			if st.next, err = resolve(name, "Next", st.nextName); err != nil {
				return err
			}
		}
		if st.defaultName != "" {
			if st.defaultState, err = resolve(name, "Default", st.defaultName); err != nil {
				return err
			}
		}
		st.choiceNext = make([]*state, len(st.choices))
		for i, r := range st.choices {
			if st.choiceNext[i], err = resolve(name, fmt.Sprintf("Choices[%d].Next", i), r.next); err != nil {
				return err
			}
		}
		for i, c := range st.catchers {
			if c.next, err = resolve(name, fmt.Sprintf("Catch[%d].Next", i), c.nextName); err != nil {
				return err
			}
		}
	}
	seen := map[*state]bool{d.startAt: true}
	stack := []*state{d.startAt}
	for len(stack) > 0 {
		st := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		targets := append([]*state{st.next, st.defaultState}, st.choiceNext...)
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
			return defError(name, "", "is not reachable from StartAt %q", d.startAt.name)
		}
	}
	return nil
}

// compileState validates and compiles one state.
func compileState(name string, raw any) (*state, error) {
	if name == "" || len([]rune(name)) > maxNameLength {
		return nil, defError(name, "", "state names must be 1-%d characters", maxNameLength)
	}
	obj, ok := raw.(map[string]any)
	if !ok {
		return nil, defError(name, "", "must be a JSON object, got %s", typeName(raw))
	}
	f := fields{obj: obj, state: name}
	typName, err := f.str("Type", true)
	if err != nil {
		return nil, err
	}
	typ, ok := stateTypes[typName]
	if !ok {
		return nil, defError(name, "Type", "%q is not supported by the local executor (supported: Task, Pass, Choice, Wait, Succeed, Fail)", typName)
	}
	if err := f.only(typ); err != nil {
		return nil, err
	}
	if _, err := f.str("Comment", false); err != nil {
		return nil, err
	}
	st := &state{name: name, typ: typ, entered: typName + "StateEntered", exited: typName + "StateExited"}
	st.usesContext = mentionsContext(obj)
	if err := st.compileTransition(&f); err != nil {
		return nil, err
	}
	if err := st.compileIO(&f); err != nil {
		return nil, err
	}
	switch typ {
	case typeTask:
		err = st.compileTask(&f)
	case typeChoice:
		err = st.compileChoice(&f)
	case typeWait:
		err = st.compileWait(&f)
	case typeFail:
		err = st.compileFail(&f)
	case typePass:
		st.result, st.hasResult = obj["Result"]
	}
	if err != nil {
		return nil, err
	}
	return st, nil
}

// compileTransition reads Next and End: Task, Pass and Wait need exactly
// one of them; the other types have neither.
func (st *state) compileTransition(f *fields) error {
	next, err := f.str("Next", false)
	if err != nil {
		return err
	}
	end, hasEnd := f.obj["End"]
	if hasEnd && end != true {
		return defError(st.name, "End", "must be true when present, got %s", jsonText(end))
	}
	switch st.typ {
	case typeTask, typePass, typeWait:
		if next == "" && !hasEnd {
			return defError(st.name, "Next", "a %s state needs Next or \"End\": true", typeLabel(st.typ))
		}
		if next != "" && hasEnd {
			return defError(st.name, "End", "cannot be combined with Next")
		}
	}
	st.nextName = next
	return nil
}

// compileIO compiles InputPath, OutputPath, Parameters, ResultSelector and
// ResultPath, whichever the state type allows.
func (st *state) compileIO(f *fields) error {
	var err error
	if st.inputPath, st.inputNull, err = f.path("InputPath"); err != nil {
		return err
	}
	if st.outputPath, st.outputNull, err = f.path("OutputPath"); err != nil {
		return err
	}
	if st.parameters, err = f.template("Parameters"); err != nil {
		return err
	}
	if st.resultSelector, err = f.template("ResultSelector"); err != nil {
		return err
	}
	if st.resultPath, st.resultNull, err = f.refPath("ResultPath"); err != nil {
		return err
	}
	return nil
}

// compileWait reads exactly one of Seconds, SecondsPath, Timestamp and
// TimestampPath.
func (st *state) compileWait(f *fields) error {
	w := &waitSpec{}
	set := 0
	secs, ok, err := f.integer("Seconds", 0, maxTimeoutSeconds)
	if err != nil {
		return err
	}
	if ok {
		w.seconds, w.hasSeconds = secs, true
		set++
	}
	if ts, err := f.str("Timestamp", false); err != nil {
		return err
	} else if _, present := f.obj["Timestamp"]; present {
		t, err := parseTimestamp(ts)
		if err != nil {
			return defError(st.name, "Timestamp", "%v", err)
		}
		w.timestamp, w.hasTimestamp = t, true
		set++
	}
	for _, field := range []string{"SecondsPath", "TimestampPath"} {
		p, null, err := f.path(field)
		if err != nil {
			return err
		}
		if null {
			return defError(st.name, field, "must be a path, not null")
		}
		if p != nil {
			set++
			if field == "SecondsPath" {
				w.secondsPath = p
			} else {
				w.timestampPath = p
			}
		}
	}
	if set != 1 {
		return defError(st.name, "Seconds", "a Wait state needs exactly one of Seconds, SecondsPath, Timestamp and TimestampPath, got %d", set)
	}
	st.wait = w
	return nil
}

// compileFail reads Error/ErrorPath and Cause/CausePath (at most one of
// each pair).
func (st *state) compileFail(f *fields) error {
	var err error
	for _, pair := range []struct {
		field, pathField string
		text             *string
		path             **path
	}{
		{"Error", "ErrorPath", &st.errorName, &st.errorPath},
		{"Cause", "CausePath", &st.cause, &st.causePath},
	} {
		if *pair.text, err = f.str(pair.field, false); err != nil {
			return err
		}
		var null bool
		if *pair.path, null, err = f.path(pair.pathField); err != nil {
			return err
		}
		if null {
			return defError(st.name, pair.pathField, "must be a path, not null")
		}
		if _, both := f.obj[pair.field]; both && *pair.path != nil {
			return defError(st.name, pair.pathField, "cannot be combined with %s", pair.field)
		}
	}
	return nil
}

// parseTimestamp parses an ASL timestamp: RFC 3339 with an uppercase T and,
// without an offset, an uppercase Z.
func parseTimestamp(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%q is not an RFC 3339 timestamp such as 2026-01-01T00:00:00Z", s)
	}
	return t, nil
}

// mentionsContext reports whether any string in raw refers to the context
// object ("$$"), so the engine builds it only for states that need it.
func mentionsContext(raw any) bool {
	switch v := raw.(type) {
	case string:
		return strings.Contains(v, "$$")
	case map[string]any:
		for _, x := range v {
			if mentionsContext(x) {
				return true
			}
		}
	case []any:
		for _, x := range v {
			if mentionsContext(x) {
				return true
			}
		}
	}
	return false
}

// typeLabel returns the ASL name of a state type.
func typeLabel(t stateType) string {
	for name, typ := range stateTypes {
		if typ == t {
			return name
		}
	}
	return "unknown"
}
