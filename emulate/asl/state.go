package asl

import (
	"strings"
)

// Type is a state's Type.
type Type int

// The supported state types.
const (
	TaskState Type = iota
	PassState
	ChoiceState
	WaitState
	SucceedState
	FailState
)

// stateTypes maps the ASL Type names to state types.
var stateTypes = map[string]Type{
	"Task": TaskState, "Pass": PassState, "Choice": ChoiceState,
	"Wait": WaitState, "Succeed": SucceedState, "Fail": FailState,
}

// allowedFields lists, per state type, the fields the executor supports
// (Type and Comment are allowed everywhere). Anything else is a load error.
var allowedFields = map[Type][]string{
	TaskState: {"Resource", "Next", "End", "InputPath", "OutputPath", "Parameters", "ResultSelector",
		"ResultPath", "Retry", "Catch", "TimeoutSeconds", "TimeoutSecondsPath", "HeartbeatSeconds", "HeartbeatSecondsPath"},
	PassState:    {"Next", "End", "InputPath", "OutputPath", "Parameters", "Result", "ResultPath"},
	ChoiceState:  {"Choices", "Default", "InputPath", "OutputPath"},
	WaitState:    {"Next", "End", "InputPath", "OutputPath", "Seconds", "SecondsPath", "Timestamp", "TimestampPath"},
	SucceedState: {"InputPath", "OutputPath"},
	FailState:    {"Error", "ErrorPath", "Cause", "CausePath"},
}

// State is one compiled state. Pointers left nil mean the field's default.
type State struct {
	name string
	typ  Type
	// entered and exited are the history event types, e.g. "TaskStateEntered".
	entered, exited string
	next            *State // nil with End (or for Choice, Succeed, Fail)
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
	task                  *Task
	wait                  *waitSpec
	choices               []*choiceRule
	choiceNext            []*State // the states choices[i] leads to
	defaultName           string
	defaultState          *State
	errorName, cause      string
	errorPath, causePath  *path
	retriers              []*retrier
	catchers              []*catcher
}

// Name is the state's name.
func (st *State) Name() string { return st.name }

// Type is the state's Type.
func (st *State) Type() Type { return st.typ }

// EnteredEvent is the type of the history event of entering the state,
// e.g. "TaskStateEntered".
func (st *State) EnteredEvent() string { return st.entered }

// ExitedEvent is the type of the history event of leaving the state, e.g.
// "TaskStateExited".
func (st *State) ExitedEvent() string { return st.exited }

// Next is the state that Next names, or nil where the execution ends (End,
// Succeed) or Next does not apply (Choice, Fail).
func (st *State) Next() *State { return st.next }

// UsesContext reports whether any of the state's paths refers to the
// context object ("$$"), so that the engine builds it only for states that
// read it.
func (st *State) UsesContext() bool { return st.usesContext }

// Task is a Task state's resource, or nil for other types.
func (st *State) Task() *Task { return st.task }

// compileState validates and compiles one state.
func compileState(name string, raw any) (*State, error) {
	if name == "" || len([]rune(name)) > MaxNameLength {
		return nil, defError(name, field{}, "state names must be 1-%d characters", MaxNameLength)
	}
	obj, ok := raw.(map[string]any)
	if !ok {
		return nil, defError(name, field{}, "must be a JSON object, got %s", typeName(raw))
	}
	f := fields{obj: obj, state: name}
	typName, err := f.str("Type", true)
	if err != nil {
		return nil, err
	}
	typ, ok := stateTypes[typName]
	if !ok {
		return nil, f.err("Type", "%q is not supported by the local executor (supported: Task, Pass, Choice, Wait, Succeed, Fail)", typName)
	}
	if err := f.only(typ); err != nil {
		return nil, err
	}
	if _, err := f.str("Comment", false); err != nil {
		return nil, err
	}
	st := &State{name: name, typ: typ, entered: typName + "StateEntered", exited: typName + "StateExited"}
	st.usesContext = mentionsContext(obj)
	if err := st.compileTransition(&f); err != nil {
		return nil, err
	}
	if err := st.compileIO(&f); err != nil {
		return nil, err
	}
	switch typ {
	case TaskState:
		err = st.compileTask(&f)
	case ChoiceState:
		err = st.compileChoice(&f)
	case WaitState:
		err = st.compileWait(&f)
	case FailState:
		err = st.compileFail(&f)
	case PassState:
		st.result, st.hasResult = obj["Result"]
	}
	if err != nil {
		return nil, err
	}
	return st, nil
}

// compileTransition reads Next and End: Task, Pass and Wait need exactly
// one of them; the other types have neither.
func (st *State) compileTransition(f *fields) error {
	next, err := f.str("Next", false)
	if err != nil {
		return err
	}
	end, hasEnd := f.obj["End"]
	if hasEnd && end != true {
		return f.err("End", "must be true when present, got %s", jsonText(end))
	}
	switch st.typ {
	case TaskState, PassState, WaitState:
		if next == "" && !hasEnd {
			return f.err("Next", "a %s state needs Next or \"End\": true", typeLabel(st.typ))
		}
		if next != "" && hasEnd {
			return f.err("End", "cannot be combined with Next")
		}
	}
	st.nextName = next
	return nil
}

// compileIO compiles InputPath, OutputPath, Parameters, ResultSelector and
// ResultPath, whichever the state type allows.
func (st *State) compileIO(f *fields) error {
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

// mentionsContext reports whether any string in raw refers to the context
// object ("$$").
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
func typeLabel(t Type) string {
	for name, typ := range stateTypes {
		if typ == t {
			return name
		}
	}
	return "unknown"
}
