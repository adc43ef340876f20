package local

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// Error names the engine matches specially.
const (
	errAll               = "States.ALL"
	errTaskFailed        = "States.TaskFailed"
	errTimeout           = "States.Timeout"
	errDataLimitExceeded = "States.DataLimitExceeded"
	// errHeartbeatTimeout names a missed heartbeat while Retry and Catch
	// match it; AWS records and reports it as States.Timeout.
	errHeartbeatTimeout = "States.HeartbeatTimeout"
)

// knownStatesErrors are the States.* names a retrier or catcher may list;
// any other name with that prefix is reserved and rejected at load.
var knownStatesErrors = []string{
	errAll, errTaskFailed, errTimeout, errDataLimitExceeded, errNameRuntime,
	errHeartbeatTimeout, "States.Permissions", errNameResultPathMatchFailure,
	"States.ParameterPathFailure", "States.QueryEvaluationError", "States.BranchFailed",
	"States.NoChoiceMatched", errNameIntrinsicFailure, "States.ExceedToleratedFailureThreshold",
	"States.ItemReaderFailed", "States.ResultWriterFailed",
}

// retrier is one element of a Task state's Retry.
type retrier struct {
	errorEquals []string
	interval    time.Duration // IntervalSeconds, default 1 s
	maxAttempts int           // default 3; 0 never retries
	backoffRate float64       // default 2.0
	maxDelay    time.Duration // MaxDelaySeconds; 0 means no cap
	fullJitter  bool          // JitterStrategy FULL
}

// catcher is one element of a Task state's Catch.
type catcher struct {
	errorEquals []string
	resultPath  *refPath // nil means "$"
	resultNull  bool
	nextName    string
	next        *state
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
	if slices.Contains(names, errAll) {
		if len(names) != 1 {
			return nil, f.err("ErrorEquals", "States.ALL must appear alone")
		}
		if !last {
			return nil, f.err("ErrorEquals", "States.ALL must appear only in the last element")
		}
	}
	return names, nil
}

// compileRetry reads a Task state's Retry.
func (st *state) compileRetry(f *fields) error {
	return st.eachObject(f, "Retry", "retriers", func(rf *fields, last bool) error {
		if err := rf.allow("ErrorEquals", "IntervalSeconds", "MaxAttempts", "BackoffRate", "MaxDelaySeconds", "JitterStrategy", "Comment"); err != nil {
			return err
		}
		r := &retrier{interval: time.Second, maxAttempts: 3, backoffRate: 2}
		var err error
		if r.errorEquals, err = compileErrorEquals(rf, last); err != nil {
			return err
		}
		if n, ok, err := rf.integer("IntervalSeconds", 1, maxTimeoutSeconds); err != nil {
			return err
		} else if ok {
			r.interval = time.Duration(n) * time.Second
		}
		if n, ok, err := rf.integer("MaxAttempts", 0, maxTimeoutSeconds); err != nil {
			return err
		} else if ok {
			r.maxAttempts = int(n)
		}
		if x, ok, err := rf.number("BackoffRate", 1); err != nil {
			return err
		} else if ok {
			r.backoffRate = x
		}
		if n, ok, err := rf.integer("MaxDelaySeconds", 1, maxMaxDelaySeconds); err != nil {
			return err
		} else if ok {
			r.maxDelay = time.Duration(n) * time.Second
		}
		switch js, err := rf.str("JitterStrategy", false); {
		case err != nil:
			return err
		case js == "FULL":
			r.fullJitter = true
		case js != "" && js != "NONE":
			return rf.err("JitterStrategy", "must be \"FULL\" or \"NONE\", got %q", js)
		}
		st.retriers = append(st.retriers, r)
		return nil
	})
}

// compileCatch reads a Task state's Catch.
func (st *state) compileCatch(f *fields) error {
	return st.eachObject(f, "Catch", "catchers", func(cf *fields, last bool) error {
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

// eachObject calls fn on each element of the array member name (Retry,
// Catch), with last set for the final one; what names the elements in the
// error for a member that is not an array.
func (st *state) eachObject(f *fields, name, what string, fn func(ef *fields, last bool) error) error {
	raw, ok := f.obj[name]
	if !ok {
		return nil
	}
	arr, ok := raw.([]any)
	if !ok {
		return f.err(name, "must be an array of %s, got %s", what, typeName(raw))
	}
	for i, item := range arr {
		obj, ok := item.(map[string]any)
		if !ok {
			return f.err(fmt.Sprintf("%s[%d]", name, i), "must be an object, got %s", typeName(item))
		}
		ef := fields{obj: obj, state: st.name, prefix: fmt.Sprintf("%s[%d].", name, i)}
		if err := fn(&ef, i == len(arr)-1); err != nil {
			return err
		}
	}
	return nil
}

// matches reports whether an error named name matches the list, with
// AWS's wildcards: States.ALL matches everything except the terminal
// States.Runtime and States.DataLimitExceeded; States.TaskFailed matches
// everything except the timeouts and those two; States.Timeout matches a
// missed heartbeat too (errHeartbeatTimeout: "States.Timeout: A Task state
// either ran longer than the TimeoutSeconds value, or failed to send a
// heartbeat for a period longer than the HeartbeatSeconds value",
// https://docs.aws.amazon.com/step-functions/latest/dg/concepts-error-handling.html).
// States.Runtime is never
// retried or caught, even by name ("A States.Runtime error isn't
// retriable, and will always cause the execution to fail").
func matches(errorEquals []string, name string) bool {
	if name == errNameRuntime {
		return false
	}
	for _, want := range errorEquals {
		switch {
		case want == name:
			return true
		case want == errAll && name != errDataLimitExceeded:
			return true
		case want == errTaskFailed && name != errDataLimitExceeded && name != errTimeout && name != errHeartbeatTimeout:
			return true
		case want == errTimeout && name == errHeartbeatTimeout:
			return true
		}
	}
	return false
}

// delay returns the wait before retry number attempt (0-based) of r:
// IntervalSeconds x BackoffRate^attempt, capped at MaxDelaySeconds, and with
// FULL jitter a uniformly random duration between 0 and that (rnd in [0,1)).
func (r *retrier) delay(attempt int, rnd float64) time.Duration {
	d := float64(r.interval) * math.Pow(r.backoffRate, float64(attempt))
	if limit := float64(maxTimeoutSeconds) * float64(time.Second); d > limit || math.IsInf(d, 0) {
		d = limit
	}
	if r.maxDelay > 0 && d > float64(r.maxDelay) {
		d = float64(r.maxDelay)
	}
	if r.fullJitter {
		d *= rnd
	}
	return time.Duration(d)
}
