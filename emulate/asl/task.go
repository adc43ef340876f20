package asl

import (
	"regexp"
	"slices"
	"strings"
	"time"
)

// TaskKind is how a Task state's Resource runs.
type TaskKind int

const (
	// LambdaInvoke is "arn:aws:states:::lambda:invoke" (and its
	// ".waitForTaskToken" callback form): Parameters carry FunctionName and
	// Payload; the result is the Invoke API's response (for a callback,
	// the output sent with the task token).
	LambdaInvoke TaskKind = iota
	// LambdaFunction is a plain function ARN: the effective input is the
	// payload and the result is the function's response.
	LambdaFunction
)

// defaultTaskTimeout is a Task state's TimeoutSeconds when not given.
const defaultTaskTimeout = maxTimeoutSeconds * time.Second

// Resource patterns the executor runs.
var (
	lambdaInvokeARN   = regexp.MustCompile(`^arn:aws[a-z-]*:states:::lambda:(invoke(\.waitForTaskToken)?)$`)
	lambdaFunctionARN = regexp.MustCompile(`^arn:aws[a-z-]*:lambda:[a-z0-9-]+:\d{12}:function:[A-Za-z0-9_-]{1,64}(:[A-Za-z0-9$_-]{1,128})?$`)
)

// lambdaInvokeParameters are the Parameters arn:aws:states:::lambda:invoke
// accepts.
var lambdaInvokeParameters = []string{"FunctionName", "Payload", "Qualifier", "InvocationType", "ClientContext", "LogType"}

// Task is a Task state's resource. Parse sets its fields; they are read
// only.
type Task struct {
	// Resource is the state's Resource.
	Resource string
	// Kind is how Resource runs.
	Kind TaskKind
	// Service is the resource of a LambdaInvoke task as history events
	// name it: "invoke" or "invoke.waitForTaskToken".
	Service string
	// Callback is set for ".waitForTaskToken": the task waits for
	// SendTaskSuccess or SendTaskFailure with its token.
	Callback bool
	// Timed is set when TimeoutSeconds or TimeoutSecondsPath is given.
	Timed bool

	timeout       time.Duration // TimeoutSeconds (default 99999999 s)
	timeoutPath   *path
	heartbeat     time.Duration // HeartbeatSeconds; 0 means none
	heartbeatPath *path
}

// compileTask reads a Task state's Resource, timeouts, Retry and Catch.
func (st *State) compileTask(f *fields) error {
	res, err := f.str("Resource", true)
	if err != nil {
		return err
	}
	t := &Task{Resource: res, timeout: defaultTaskTimeout}
	switch {
	case lambdaInvokeARN.MatchString(res):
		t.Kind = LambdaInvoke
		t.Service = lambdaInvokeARN.FindStringSubmatch(res)[1]
		t.Callback = t.Service != "invoke"
		if err := checkInvokeParameters(f); err != nil {
			return err
		}
	case lambdaFunctionARN.MatchString(res):
		t.Kind = LambdaFunction
	default:
		return f.err("Resource", "%q is not supported: the local executor runs arn:aws:states:::lambda:invoke, arn:aws:states:::lambda:invoke.waitForTaskToken and Lambda function ARNs", res)
	}
	st.task = t
	secs, ok, err := f.integer("TimeoutSeconds", 1, maxTimeoutSeconds)
	if err != nil {
		return err
	}
	if ok {
		t.timeout, t.Timed = time.Duration(secs)*time.Second, true
	}
	p, null, err := f.path("TimeoutSecondsPath")
	switch {
	case err != nil:
		return err
	case null:
		return f.err("TimeoutSecondsPath", "must be a path, not null")
	case p != nil && ok:
		return f.err("TimeoutSecondsPath", "cannot be combined with TimeoutSeconds")
	case p != nil:
		t.timeoutPath, t.Timed = p, true
	}
	if err := t.compileHeartbeat(f, ok); err != nil {
		return err
	}
	if err := st.compileRetry(f); err != nil {
		return err
	}
	return st.compileCatch(f)
}

// compileHeartbeat reads HeartbeatSeconds or HeartbeatSecondsPath, which
// the executor supports on callback tasks only (a synchronous Lambda task
// has no token to send heartbeats with). As the Amazon States Language
// requires, HeartbeatSeconds is a positive integer smaller than
// TimeoutSeconds (staticTimeout: given as a number) or its default.
func (t *Task) compileHeartbeat(f *fields, staticTimeout bool) error {
	secs, ok, err := f.integer("HeartbeatSeconds", 1, maxTimeoutSeconds)
	if err != nil {
		return err
	}
	p, null, err := f.path("HeartbeatSecondsPath")
	switch {
	case err != nil:
		return err
	case null:
		return f.err("HeartbeatSecondsPath", "must be a path, not null")
	case p != nil && ok:
		return f.err("HeartbeatSecondsPath", "cannot be combined with HeartbeatSeconds")
	case (ok || p != nil) && !t.Callback:
		name := "HeartbeatSeconds"
		if p != nil {
			name = "HeartbeatSecondsPath"
		}
		return f.err(name, "is supported only on arn:aws:states:::lambda:invoke.waitForTaskToken tasks by the local executor")
	case ok && time.Duration(secs)*time.Second >= t.timeout:
		what := "the default TimeoutSeconds"
		if staticTimeout {
			what = "TimeoutSeconds"
		}
		return f.err("HeartbeatSeconds", "must be smaller than %s (%d), got %d", what, int64(t.timeout/time.Second), secs)
	}
	t.heartbeat, t.heartbeatPath = time.Duration(secs)*time.Second, p
	return nil
}

// checkInvokeParameters checks lambda:invoke's Parameters: FunctionName is
// required, only the Invoke API's fields are allowed, and InvocationType,
// when static, must be RequestResponse (the only one that returns a result).
func checkInvokeParameters(f *fields) error {
	params, ok := f.obj["Parameters"].(map[string]any)
	if !ok {
		return f.err("Parameters", "arn:aws:states:::lambda:invoke needs Parameters with FunctionName")
	}
	hasName := false
	for k, v := range params {
		name := strings.TrimSuffix(k, ".$")
		if !slices.Contains(lambdaInvokeParameters, name) {
			return f.err("Parameters", "%q is not a parameter of arn:aws:states:::lambda:invoke (allowed: %s)", k, strings.Join(lambdaInvokeParameters, ", "))
		}
		if name == "FunctionName" {
			hasName = true
		}
		if k == "InvocationType" && v != "RequestResponse" {
			return f.err("Parameters", "InvocationType %s is not supported; only \"RequestResponse\" is", jsonText(v))
		}
	}
	if !hasName {
		return f.err("Parameters", "arn:aws:states:::lambda:invoke needs FunctionName")
	}
	return nil
}

// Timeouts are the task's TimeoutSeconds and HeartbeatSeconds (0: none)
// for an attempt whose input, after InputPath and before Parameters, is
// input: static, or the positive integers TimeoutSecondsPath and
// HeartbeatSecondsPath select.
func (t *Task) Timeouts(input, ctxObj any) (timeout, heartbeat time.Duration, err error) {
	if timeout, err = seconds(t.timeoutPath, "TimeoutSecondsPath", t.timeout, input, ctxObj); err != nil {
		return 0, 0, err
	}
	if heartbeat, err = seconds(t.heartbeatPath, "HeartbeatSecondsPath", t.heartbeat, input, ctxObj); err != nil {
		return 0, 0, err
	}
	return timeout, heartbeat, nil
}

// seconds is static, or the positive integer number of seconds that p (the
// field name) selects.
func seconds(p *path, name string, static time.Duration, input, ctxObj any) (time.Duration, error) {
	if p == nil {
		return static, nil
	}
	v, err := p.get(input, ctxObj)
	if err != nil {
		return 0, err
	}
	secs, ok := integerValue(v)
	if !ok || secs < 1 || secs > maxTimeoutSeconds {
		return 0, RuntimeErrorf("The %s parameter does not reference a positive integer: %s", name, jsonText(v))
	}
	return time.Duration(secs) * time.Second, nil
}

// Invocation is the function to invoke and its payload, given the
// attempt's effective input (after Parameters): the Resource and the
// input itself for a LambdaFunction task; FunctionName (with Qualifier)
// and Payload for a LambdaInvoke task.
func (t *Task) Invocation(input any) (function string, payload any, err error) {
	if t.Kind == LambdaFunction {
		return t.Resource, input, nil
	}
	params, _ := input.(map[string]any)
	function, _ = params["FunctionName"].(string)
	if function == "" {
		return "", nil, RuntimeErrorf("The value for the field 'FunctionName' must be a non-empty STRING, got %s", jsonText(params["FunctionName"]))
	}
	if q, ok := params["Qualifier"]; ok {
		qs, _ := q.(string)
		if qs == "" {
			return "", nil, RuntimeErrorf("The value for the field 'Qualifier' must be a non-empty STRING, got %s", jsonText(q))
		}
		function += ":" + qs
	}
	payload, ok := params["Payload"]
	if !ok {
		payload = map[string]any{}
	}
	return function, payload, nil
}
