package local

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/ohler55/ojg/oj"
)

// taskKind is how a Task state's Resource runs.
type taskKind int

const (
	// lambdaInvoke is "arn:aws:states:::lambda:invoke" (and its
	// ".waitForTaskToken" callback form): Parameters carry FunctionName and
	// Payload; the result is the Invoke API's response (for a callback,
	// the output sent with the task token).
	lambdaInvoke taskKind = iota
	// lambdaFunction is a plain function ARN: the effective input is the
	// payload and the result is the function's response.
	lambdaFunction
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

// taskSpec is a Task state's resource.
type taskSpec struct {
	resource string
	kind     taskKind
	// service is the resource as history events name it: "invoke" or
	// "invoke.waitForTaskToken".
	service string
	// callback is set for ".waitForTaskToken": the task waits for
	// SendTaskSuccess or SendTaskFailure with its token.
	callback   bool
	timeoutSet bool // TimeoutSeconds or TimeoutSecondsPath given
}

// compileTask reads a Task state's Resource, timeouts, Retry and Catch.
func (st *state) compileTask(f *fields) error {
	res, err := f.str("Resource", true)
	if err != nil {
		return err
	}
	t := &taskSpec{resource: res}
	switch {
	case lambdaInvokeARN.MatchString(res):
		t.kind = lambdaInvoke
		t.service = lambdaInvokeARN.FindStringSubmatch(res)[1]
		t.callback = t.service != "invoke"
		if err := checkInvokeParameters(f); err != nil {
			return err
		}
	case lambdaFunctionARN.MatchString(res):
		t.kind = lambdaFunction
	default:
		return f.err("Resource", "%q is not supported: the local executor runs arn:aws:states:::lambda:invoke, arn:aws:states:::lambda:invoke.waitForTaskToken and Lambda function ARNs", res)
	}
	st.task = t
	st.timeout = defaultTaskTimeout
	secs, ok, err := f.integer("TimeoutSeconds", 1, maxTimeoutSeconds)
	if err != nil {
		return err
	}
	if ok {
		st.timeout, t.timeoutSet = time.Duration(secs)*time.Second, true
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
		st.timeoutPath, t.timeoutSet = p, true
	}
	if err := st.compileHeartbeat(f, ok); err != nil {
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
func (st *state) compileHeartbeat(f *fields, staticTimeout bool) error {
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
	case (ok || p != nil) && !st.task.callback:
		field := "HeartbeatSeconds"
		if p != nil {
			field = "HeartbeatSecondsPath"
		}
		return f.err(field, "is supported only on arn:aws:states:::lambda:invoke.waitForTaskToken tasks by the local executor")
	case ok && time.Duration(secs)*time.Second >= st.timeout:
		what := "the default TimeoutSeconds"
		if staticTimeout {
			what = "TimeoutSeconds"
		}
		return f.err("HeartbeatSeconds", "must be smaller than %s (%d), got %d", what, int64(st.timeout/time.Second), secs)
	}
	st.heartbeat, st.heartbeatPath = time.Duration(secs)*time.Second, p
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

// startTask begins an attempt of the current Task state: input
// processing, then the Lambda invocation. Each attempt re-evaluates
// Parameters, so $$.State.RetryCount is current, and a callback task's
// attempt gets a new task token, which only its Parameters see as
// $$.Task.Token. Call with x.mu held.
func (x *execution) startTask(ctx context.Context) {
	st := x.cur
	selected, err := x.inputPath(st, x.rawInput)
	if err != nil {
		x.taskError(ctx, err)
		return
	}
	timeout, err := x.taskSeconds(st.timeoutPath, "TimeoutSecondsPath", st.timeout, selected)
	if err != nil {
		x.taskError(ctx, err)
		return
	}
	heartbeat, err := x.taskSeconds(st.heartbeatPath, "HeartbeatSecondsPath", st.heartbeat, selected)
	if err != nil {
		x.taskError(ctx, err)
		return
	}
	ctxObj, token := x.contextObject(), ""
	if st.task.callback {
		token = x.issueToken()
		ctxObj = withTaskToken(ctxObj, token)
	}
	eff, err := x.parameters(st, selected, ctxObj)
	if err != nil {
		x.taskError(ctx, err)
		return
	}
	function, payload, err := invocationOf(st.task, eff)
	if err != nil {
		x.taskError(ctx, err)
		return
	}
	body, err := oj.Marshal(payload)
	if err != nil {
		x.taskError(ctx, runtimeErrorf("cannot serialise the Lambda payload: %v", err))
		return
	}
	var timeoutSecs int64
	if st.task.timeoutSet {
		timeoutSecs = int64(timeout / time.Second)
	}
	if st.task.kind == lambdaInvoke {
		x.record("TaskScheduled", taskScheduledDetails{
			ResourceType: "lambda", Resource: st.task.service, Region: x.e.opts.Region,
			Parameters: jsonDoc{eff}, TimeoutInSeconds: timeoutSecs, HeartbeatInSeconds: int64(heartbeat / time.Second),
		})
		x.record("TaskStarted", taskStartedDetails{ResourceType: "lambda", Resource: st.task.service})
	} else {
		x.record("LambdaFunctionScheduled", lambdaScheduledDetails{Resource: st.task.resource, Input: jsonDoc{payload}, TimeoutInSeconds: timeoutSecs})
		x.record("LambdaFunctionStarted", nil)
	}
	if x.status != Running {
		return
	}
	if x.e.opts.Invoker == nil {
		x.taskError(ctx, runtimeErrorf("no Invoker is configured in local.Options to run %s", function))
		return
	}
	deadline := x.e.after(timeout)
	if st.task.callback {
		x.cb = &callback{token: token, heartbeat: heartbeat, deadline: deadline, timed: st.task.timeoutSet}
	}
	// The handler of a .waitForTaskToken task runs under its function's
	// own timeout, not the task's.
	c := newCall(ctx, x, function, body, deadline, st.task.timeoutSet, !st.task.callback)
	x.invoke(ctx, c)
}

// taskSeconds returns a Task state's TimeoutSeconds or HeartbeatSeconds for
// this attempt: static, or the positive integer p (the field
// TimeoutSecondsPath or HeartbeatSecondsPath) selects from the state input
// (after InputPath, before Parameters).
func (x *execution) taskSeconds(p *path, field string, static time.Duration, selected any) (time.Duration, error) {
	if p == nil {
		return static, nil
	}
	v, err := p.get(selected, x.contextObject())
	if err != nil {
		return 0, err
	}
	secs, ok := integerValue(v)
	if !ok || secs < 1 || secs > maxTimeoutSeconds {
		return 0, runtimeErrorf("The %s parameter does not reference a positive integer: %s", field, jsonText(v))
	}
	return time.Duration(secs) * time.Second, nil
}

// invocationOf returns the function to invoke and its payload.
func invocationOf(t *taskSpec, eff any) (function string, payload any, err error) {
	if t.kind == lambdaFunction {
		return t.resource, eff, nil
	}
	params, _ := eff.(map[string]any)
	function, _ = params["FunctionName"].(string)
	if function == "" {
		return "", nil, runtimeErrorf("The value for the field 'FunctionName' must be a non-empty STRING, got %s", jsonText(params["FunctionName"]))
	}
	if q, ok := params["Qualifier"]; ok {
		qs, _ := q.(string)
		if qs == "" {
			return "", nil, runtimeErrorf("The value for the field 'Qualifier' must be a non-empty STRING, got %s", jsonText(q))
		}
		function += ":" + qs
	}
	payload, ok := params["Payload"]
	if !ok {
		payload = map[string]any{}
	}
	return function, payload, nil
}

// taskDone handles a finished invocation: its result, or for a callback
// task the submission after which the task waits for its token (an
// invocation that fails fails the task at once, without waiting). Call
// with x.mu held.
func (x *execution) taskDone(ctx context.Context, c *call) {
	st := x.cur
	if c.err != nil {
		x.taskFailed(ctx, lambdaErrorName(c.err), c.err.Error())
		return
	}
	if c.inv.FunctionError != "" {
		name, cause := functionError(c.inv.Payload)
		x.taskFailed(ctx, name, cause)
		return
	}
	var payload any
	if len(c.inv.Payload) > 0 {
		var err error
		if payload, err = decodeJSON(c.inv.Payload); err != nil {
			x.taskFailed(ctx, "Lambda.SdkClientException", fmt.Sprintf("the function's response is not valid JSON: %v", err))
			return
		}
	}
	if st.task.kind == lambdaFunction {
		x.taskSucceeded(ctx, payload)
		return
	}
	result := x.invokeResult(c, payload)
	if st.task.callback {
		x.record("TaskSubmitted", taskOutputDetails{ResourceType: "lambda", Resource: st.task.service, Output: jsonDoc{result}})
		x.await(ctx)
		return
	}
	x.taskSucceeded(ctx, result)
}

// taskSucceeded records the task's result and leaves the state with it,
// after ResultSelector, ResultPath and OutputPath.
func (x *execution) taskSucceeded(ctx context.Context, result any) {
	st := x.cur
	if st.task.kind == lambdaInvoke {
		x.record("TaskSucceeded", taskOutputDetails{ResourceType: "lambda", Resource: st.task.service, Output: jsonDoc{result}})
	} else {
		x.record("LambdaFunctionSucceeded", outputDetails{Output: jsonDoc{result}})
	}
	if overLimit(result) {
		x.taskError(ctx, dataLimitError("task", st.name, "returned a result"))
		return
	}
	if st.resultSelector != nil {
		var err error
		if result, err = st.resultSelector.eval(result, x.contextObject(), &x.env); err != nil {
			x.taskError(ctx, err)
			return
		}
	}
	out, err := x.stateOutput(st, result)
	if err != nil {
		x.taskError(ctx, err)
		return
	}
	x.exit(st, out, st.next)
}

// taskFailed records a failed task and handles its error.
func (x *execution) taskFailed(ctx context.Context, name, cause string) {
	x.closeCallback()
	if x.cur.task.kind == lambdaInvoke {
		x.record("TaskFailed", taskErrorDetails{ResourceType: "lambda", Resource: x.cur.task.service, Error: name, Cause: cause})
	} else {
		x.record("LambdaFunctionFailed", errorDetails{Error: name, Cause: cause})
	}
	x.handleError(ctx, name, cause)
}

// taskTimedOut records a timed-out task and handles name: States.Timeout,
// or errHeartbeatTimeout for a missed heartbeat, which AWS records as
// States.Timeout too.
func (x *execution) taskTimedOut(ctx context.Context, name string) {
	x.closeCallback()
	if x.cur.task.kind == lambdaInvoke {
		x.record("TaskTimedOut", taskErrorDetails{ResourceType: "lambda", Resource: x.cur.task.service, Error: errTimeout})
	} else {
		x.record("LambdaFunctionTimedOut", errorDetails{Error: errTimeout})
	}
	x.handleError(ctx, name, "")
}

// taskError handles an error raised by the Task state's own input or
// output processing.
func (x *execution) taskError(ctx context.Context, err error) {
	name, cause := x.stateErrorOf(err)
	x.handleError(ctx, name, cause)
}

// handleError applies the Task state's retriers, then its catchers, to an
// error; an unhandled error fails the execution. The first retrier whose
// ErrorEquals matches decides: once its attempts are used up the catchers
// apply, even if a later retrier would also match (AWS's "Complex retry
// scenarios": ErrorA, ErrorB, ErrorC, ErrorB wait 1, 2 and 5 seconds, then
// the fourth error is caught because the first retrier's MaxAttempts of 2
// is used up). Each retry is billed as a transition. A missed heartbeat
// (errHeartbeatTimeout) matches States.HeartbeatTimeout and States.Timeout
// and is reported as States.Timeout, as AWS records it.
func (x *execution) handleError(ctx context.Context, name, cause string) {
	if x.status != Running {
		return
	}
	st := x.cur
	for i, r := range st.retriers {
		if !matches(r.errorEquals, name) {
			continue
		}
		if x.retries[i] < r.maxAttempts {
			d := r.delay(x.retries[i], x.random())
			x.retries[i]++
			x.retryCount++
			x.transitions++
			x.ctxObj = nil
			x.suspend(x.e.after(d), x.startTask)
			return
		}
		break
	}
	reported := name
	if name == errHeartbeatTimeout {
		reported = errTimeout // matched apart, reported as States.Timeout
	}
	for _, c := range st.catchers {
		if !matches(c.errorEquals, name) {
			continue
		}
		errOut := map[string]any{"Error": reported}
		if cause != "" {
			errOut["Cause"] = cause
		}
		out, err := applyResultPath(c.resultPath, c.resultNull, x.rawInput, errOut)
		if err == nil && overLimit(out) {
			err = dataLimitError("state", st.name, "returned an output")
		}
		if err != nil {
			x.failState(err)
			return
		}
		x.exit(st, out, c.next)
		return
	}
	x.fail(reported, cause)
}

// lambdaErrorName names an Invoker's Go error as Step Functions does: a
// service error with an ErrorCode (as aws-sdk-go-v2's are) is
// "Lambda.<code>", anything else "Lambda.ServiceException".
func lambdaErrorName(err error) string {
	var coded interface{ ErrorCode() string }
	if errors.As(err, &coded) && coded.ErrorCode() != "" {
		return "Lambda." + coded.ErrorCode()
	}
	return "Lambda.ServiceException"
}

// functionError returns the error name and cause of a function error: the
// error document's errorType ("Lambda.Unknown" without one) and the
// document itself.
func functionError(payload []byte) (name, cause string) {
	name = "Lambda.Unknown"
	if doc, err := decodeJSON(payload); err == nil {
		if m, ok := doc.(map[string]any); ok {
			if t, ok := m["errorType"].(string); ok && t != "" {
				name = t
			}
		}
	}
	return name, string(payload)
}
