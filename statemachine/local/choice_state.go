package local

import "fmt"

// compileChoice reads a Choice state's Choices and Default.
func (st *state) compileChoice(f *fields) error {
	raw, ok := f.obj["Choices"]
	if !ok {
		return f.err("Choices", "is required")
	}
	arr, ok := raw.([]any)
	if !ok || len(arr) == 0 {
		return f.err("Choices", "must be a non-empty array of Choice Rules")
	}
	for i, item := range arr {
		where := fmt.Sprintf("Choices[%d]", i)
		obj, ok := item.(map[string]any)
		if !ok {
			return f.err(where, "must be a Choice Rule object, got %s", typeName(item))
		}
		r, err := compileChoiceRule(obj, where, true)
		if err != nil {
			return defError(st.name, "", "%v", err)
		}
		st.choices = append(st.choices, r)
	}
	var err error
	st.defaultName, err = f.str("Default", false)
	return err
}

// choose runs a Choice state: the first matching rule's Next, else Default,
// else States.NoChoiceMatched. Call with x.mu held.
func (x *execution) choose(st *state) {
	eff, err := x.inputPath(st, x.rawInput)
	if err != nil {
		x.failState(err)
		return
	}
	target := st.defaultState
	for i, r := range st.choices {
		ok, err := r.match(eff, x.contextObject())
		if err != nil {
			x.failState(err)
			return
		}
		if ok {
			target = st.choiceNext[i]
			break
		}
	}
	if target == nil {
		// States.NoChoiceMatched is reserved: AWS reports States.Runtime.
		x.failState(runtimeErrorf("No Choice Rule matched the input and the Choice state has no Default."))
		return
	}
	out, err := x.outputPath(st, eff)
	if err != nil {
		x.failState(err)
		return
	}
	x.exit(st, out, target)
}
