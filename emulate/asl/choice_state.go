package asl

// compileChoice reads a Choice state's Choices and Default.
func (st *State) compileChoice(f *fields) error {
	raw, ok := f.obj["Choices"]
	if !ok {
		return f.err("Choices", "is required")
	}
	arr, ok := raw.([]any)
	if !ok || len(arr) == 0 {
		return f.err("Choices", "must be a non-empty array of Choice Rules")
	}
	for i, item := range arr {
		at := f.at.member("Choices").index(i)
		obj, ok := item.(map[string]any)
		if !ok {
			return defError(st.name, at, "must be a Choice Rule object, got %s", typeName(item))
		}
		r, err := compileChoiceRule(obj, at.label, true)
		if err != nil {
			return defError(st.name, field{}, "%v", err)
		}
		st.choices = append(st.choices, r)
	}
	var err error
	st.defaultName, err = f.str("Default", false)
	return err
}

// Choose is where a Choice state goes with its effective input (after
// InputPath): the first matching Choice Rule's Next, else Default, else a
// States.Runtime error.
func (st *State) Choose(input, ctxObj any) (*State, error) {
	for i, r := range st.choices {
		ok, err := r.match(input, ctxObj)
		if err != nil {
			return nil, err
		}
		if ok {
			return st.choiceNext[i], nil
		}
	}
	if st.defaultState == nil {
		// States.NoChoiceMatched is reserved: AWS reports States.Runtime.
		return nil, RuntimeErrorf("No Choice Rule matched the input and the Choice state has no Default.")
	}
	return st.defaultState, nil
}
