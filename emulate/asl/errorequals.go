package asl

import (
	"slices"
	"strings"
)

// knownStatesErrors are the States.* names a retrier or catcher may list;
// any other name with that prefix is reserved and rejected at load.
var knownStatesErrors = []string{
	statesALL, statesTaskFailed, StatesTimeout, statesDataLimitExceeded, StatesRuntime,
	StatesHeartbeatTimeout, "States.Permissions", statesResultPathMatchFailure,
	"States.ParameterPathFailure", "States.QueryEvaluationError", "States.BranchFailed",
	"States.NoChoiceMatched", statesIntrinsicFailure, "States.ExceedToleratedFailureThreshold",
	"States.ItemReaderFailed", "States.ResultWriterFailed",
}

// compileErrorEquals validates an ErrorEquals list: a non-empty array of
// strings, States.ALL alone and only in the last element of its list.
func compileErrorEquals(f *fields, last bool) ([]string, error) {
	raw, ok := f.obj["ErrorEquals"]
	if !ok {
		return nil, f.err("ErrorEquals", "is required")
	}
	arr, ok := raw.([]any)
	if !ok || len(arr) == 0 {
		return nil, f.err("ErrorEquals", "must be a non-empty array of error names")
	}
	names := make([]string, len(arr))
	for i, v := range arr {
		s, ok := v.(string)
		if !ok || s == "" {
			return nil, f.err("ErrorEquals", "element %d must be a non-empty string, got %s", i, jsonText(v))
		}
		if strings.HasPrefix(s, "States.") && !slices.Contains(knownStatesErrors, s) {
			return nil, f.err("ErrorEquals", "%q is not a known States.* error name", s)
		}
		names[i] = s
	}
	if slices.Contains(names, statesALL) {
		if len(names) != 1 {
			return nil, f.err("ErrorEquals", "States.ALL must appear alone")
		}
		if !last {
			return nil, f.err("ErrorEquals", "States.ALL must appear only in the last element")
		}
	}
	return names, nil
}

// matches reports whether an error named name matches the list, with
// AWS's wildcards: States.ALL matches everything except the terminal
// States.Runtime and States.DataLimitExceeded; States.TaskFailed matches
// everything except the timeouts and those two; States.Timeout matches a
// missed heartbeat too (StatesHeartbeatTimeout: "States.Timeout: A Task state
// either ran longer than the TimeoutSeconds value, or failed to send a
// heartbeat for a period longer than the HeartbeatSeconds value",
// https://docs.aws.amazon.com/step-functions/latest/dg/concepts-error-handling.html).
// States.Runtime is never retried or caught, even by name ("A
// States.Runtime error isn't retriable, and will always cause the
// execution to fail").
func matches(errorEquals []string, name string) bool {
	if name == StatesRuntime {
		return false
	}
	for _, want := range errorEquals {
		switch {
		case want == name:
			return true
		case want == statesALL && name != statesDataLimitExceeded:
			return true
		case want == statesTaskFailed && name != statesDataLimitExceeded && name != StatesTimeout && name != StatesHeartbeatTimeout:
			return true
		case want == StatesTimeout && name == StatesHeartbeatTimeout:
			return true
		}
	}
	return false
}

// eachObject calls fn on each element of the array member name (Retry,
// Catch), with last set for the final one; what names the elements in the
// error for a member that is not an array.
func eachObject(f *fields, name, what string, fn func(ef *fields, last bool) error) error {
	raw, ok := f.obj[name]
	if !ok {
		return nil
	}
	arr, ok := raw.([]any)
	if !ok {
		return f.err(name, "must be an array of %s, got %s", what, typeName(raw))
	}
	for i, item := range arr {
		at := f.at.member(name).index(i)
		obj, ok := item.(map[string]any)
		if !ok {
			return defError(f.state, at, "must be an object, got %s", typeName(item))
		}
		ef := fields{obj: obj, state: f.state, at: at}
		if err := fn(&ef, i == len(arr)-1); err != nil {
			return err
		}
	}
	return nil
}
