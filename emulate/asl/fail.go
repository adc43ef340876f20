package asl

// compileFail reads Error/ErrorPath and Cause/CausePath (at most one of
// each pair).
func (st *State) compileFail(f *fields) error {
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
			return f.err(pair.pathField, "must be a path, not null")
		}
		if _, both := f.obj[pair.field]; both && *pair.path != nil {
			return f.err(pair.pathField, "cannot be combined with %s", pair.field)
		}
	}
	return nil
}

// FailError is the error and cause a Fail state fails the execution with,
// given its raw input and the context object: Error and Cause, or what
// ErrorPath and CausePath select.
func (st *State) FailError(input, ctxObj any) (name, cause string, err error) {
	name, cause = st.errorName, st.cause
	for _, p := range []struct {
		path  *path
		field string
		out   *string
	}{{st.errorPath, "ErrorPath", &name}, {st.causePath, "CausePath", &cause}} {
		if p.path == nil {
			continue
		}
		v, err := p.path.get(input, ctxObj)
		if err != nil {
			return "", "", err
		}
		s, ok := v.(string)
		if !ok {
			return "", "", RuntimeErrorf("The %s field does not reference a string: %s", p.field, jsonText(v))
		}
		*p.out = s
	}
	return name, cause, nil
}
