package asl

// Input and output processing: InputPath, Parameters, ResultSelector,
// ResultPath and OutputPath, in the order the Amazon States Language
// applies them.

// InputPath applies the state's InputPath to its raw input.
func (st *State) InputPath(input, ctxObj any) (any, error) {
	return selectPath(st.inputPath, st.inputNull, input, ctxObj)
}

// OutputPath applies the state's OutputPath to its output.
func (st *State) OutputPath(output, ctxObj any) (any, error) {
	return selectPath(st.outputPath, st.outputNull, output, ctxObj)
}

// Parameters applies the state's Parameters, with the context object
// ctxObj, to the input InputPath selected; the result must fit the
// payload quota.
func (st *State) Parameters(input, ctxObj any, env Env) (any, error) {
	if st.parameters == nil {
		return input, nil
	}
	eff, err := st.parameters.eval(input, ctxObj, env)
	if err != nil {
		return nil, err
	}
	if overLimit(eff) {
		return nil, dataLimitError("state", st.name, "received an input after Parameters")
	}
	return eff, nil
}

// PassOutput is a Pass state's output for its raw input: InputPath,
// Parameters, Result, ResultPath and OutputPath.
func (st *State) PassOutput(input, ctxObj any, env Env) (any, error) {
	eff, err := st.InputPath(input, ctxObj)
	if err != nil {
		return nil, err
	}
	if eff, err = st.Parameters(eff, ctxObj, env); err != nil {
		return nil, err
	}
	result := eff
	if st.hasResult {
		result = st.result
	}
	return st.output(input, result, ctxObj)
}

// TaskOutput is a Task state's output for its raw input and its task's
// result: the result must fit the payload quota, and then ResultSelector,
// ResultPath and OutputPath apply.
func (st *State) TaskOutput(input, result, ctxObj any, env Env) (any, error) {
	if overLimit(result) {
		return nil, dataLimitError("task", st.name, "returned a result")
	}
	if st.resultSelector != nil {
		var err error
		if result, err = st.resultSelector.eval(result, ctxObj, env); err != nil {
			return nil, err
		}
	}
	return st.output(input, result, ctxObj)
}

// ResultFieldOutput is TaskOutput for a state whose output is one field
// of its result and nothing else (no ResultSelector, ResultPath "$",
// OutputPath "$.<field>", as an arn:aws:states:::lambda:invoke task's
// "$.Payload"), given only that field's value and a bound on how much
// the rest of the result adds to its JSON: a caller need not build the
// rest. ok is false for any other state, and for a value that may come
// near the payload quota, which TaskOutput must then check with the whole
// result.
func (st *State) ResultFieldOutput(field string, value any, rest int) (out any, ok bool) {
	p := st.outputPath
	if st.resultSelector != nil || st.resultNull || (st.resultPath != nil && len(st.resultPath.steps) > 0) ||
		st.outputNull || p == nil || p.ctx || p.query != nil || len(p.steps) != 1 || p.steps[0].isIndex || p.steps[0].key != field {
		return nil, false
	}
	if longerThan(value, MaxPayloadBytes-rest) {
		return nil, false
	}
	return value, true
}

// output applies ResultPath (over the state's raw input) and OutputPath to
// a result; the output must fit the payload quota.
func (st *State) output(input, result, ctxObj any) (any, error) {
	out, err := applyResultPath(st.resultPath, st.resultNull, input, result)
	if err != nil {
		return nil, err
	}
	if out, err = st.OutputPath(out, ctxObj); err != nil {
		return nil, err
	}
	if overLimit(out) {
		return nil, dataLimitError("state", st.name, "returned an output")
	}
	return out, nil
}

// selectPath applies an InputPath or OutputPath p to v: null (the path
// given as JSON null) yields {}, and no path passes v through.
func selectPath(p *path, null bool, v, ctxObj any) (any, error) {
	switch {
	case null:
		return map[string]any{}, nil
	case p == nil:
		return v, nil
	}
	return p.get(v, ctxObj)
}

// applyResultPath combines a state's raw input and its result: "$" (the
// default) keeps the result, null keeps the input, a deeper path puts the
// result into a copy of the input.
func applyResultPath(p *refPath, null bool, in, result any) (any, error) {
	switch {
	case null:
		return in, nil
	case p == nil:
		return result, nil
	}
	return p.set(in, result)
}
