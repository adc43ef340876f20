package asl

// catcher is one element of a Task state's Catch.
type catcher struct {
	errorEquals []string
	resultPath  *refPath // nil means "$"
	resultNull  bool
	nextName    string
	next        *State
}

// compileCatch reads a Task state's Catch.
func (st *State) compileCatch(f *fields) error {
	return eachObject(f, "Catch", "catchers", func(cf *fields, last bool) error {
		if err := cf.allow("ErrorEquals", "ResultPath", "Next", "Comment"); err != nil {
			return err
		}
		c := &catcher{}
		var err error
		if c.errorEquals, err = compileErrorEquals(cf, last); err != nil {
			return err
		}
		if c.nextName, err = cf.str("Next", true); err != nil {
			return err
		}
		if c.resultPath, c.resultNull, err = cf.refPath("ResultPath"); err != nil {
			return err
		}
		st.catchers = append(st.catchers, c)
		return nil
	})
}

// Catch applies the state's Catch to an error named name with cause: the
// first catcher whose ErrorEquals matches leads to its Next with the state
// output its ResultPath makes of the raw input and the error output
// {"Error": Reported(name), "Cause": cause}. next is nil when no catcher
// matches.
func (st *State) Catch(name, cause string, input any) (output any, next *State, err error) {
	for _, c := range st.catchers {
		if !matches(c.errorEquals, name) {
			continue
		}
		errOut := map[string]any{"Error": Reported(name)}
		if cause != "" {
			errOut["Cause"] = cause
		}
		out, err := applyResultPath(c.resultPath, c.resultNull, input, errOut)
		if err == nil && overLimit(out) {
			err = dataLimitError("state", st.name, "returned an output")
		}
		if err != nil {
			return nil, nil, err
		}
		return out, c.next, nil
	}
	return nil, nil, nil
}
