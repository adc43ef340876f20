package executor

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ohler55/ojg/oj"

	"github.com/redrive/redrive/emulate/asl"
)

// startTask begins an attempt of the current Task state: input
// processing, then the Lambda invocation. Each attempt re-evaluates
// Parameters, so $$.State.RetryCount is current, and a callback task's
// attempt gets a new task token, which only its Parameters see as
// $$.Task.Token. Call with x.mu held.
func (x *execution) startTask(ctx context.Context) {
	st, task := x.cur, x.cur.Task()
	ctxObj := x.contextObject()
	selected, err := st.InputPath(x.rawInput, ctxObj)
	if err != nil {
		x.taskError(ctx, err)
		return
	}
	timeout, heartbeat, err := task.Timeouts(selected, ctxObj)
	if err != nil {
		x.taskError(ctx, err)
		return
	}
	token := ""
	if task.Callback {
		token = x.issueToken()
		ctxObj = withTaskToken(ctxObj, token)
	}
	eff, err := st.Parameters(selected, ctxObj, x)
	if err != nil {
		x.taskError(ctx, err)
		return
	}
	function, payload, err := task.Invocation(eff)
	if err != nil {
		x.taskError(ctx, err)
		return
	}
	body, err := oj.Marshal(payload)
	if err != nil {
		x.taskError(ctx, asl.RuntimeErrorf("cannot serialise the Lambda payload: %v", err))
		return
	}
	var timeoutSecs int64
	if task.Timed {
		timeoutSecs = int64(timeout / time.Second)
	}
	if task.Kind == asl.LambdaInvoke {
		x.record("TaskScheduled", taskScheduledDetails{
			ResourceType: "lambda", Resource: task.Service, Region: x.e.opts.Region,
			Parameters: jsonDoc{eff}, TimeoutInSeconds: timeoutSecs, HeartbeatInSeconds: int64(heartbeat / time.Second),
		})
		x.record("TaskStarted", taskStartedDetails{ResourceType: "lambda", Resource: task.Service})
	} else {
		x.record("LambdaFunctionScheduled", lambdaScheduledDetails{Resource: task.Resource, Input: jsonDoc{payload}, TimeoutInSeconds: timeoutSecs})
		x.record("LambdaFunctionStarted", nil)
	}
	if x.status != Running {
		return
	}
	deadline := x.e.after(timeout)
	if task.Callback {
		x.cb = &callback{attempt: x.issued, heartbeat: heartbeat, deadline: deadline, timed: task.Timed}
	}
	// The handler of a .waitForTaskToken task runs under its function's
	// own timeout, not the task's.
	x.invoke(ctx, callSpec{function: function, payload: body, deadline: deadline, timed: task.Timed, bounded: !task.Callback})
}

// taskDone handles a finished invocation: its result, or for a callback
// task the submission after which the task waits for its token (an
// invocation that fails fails the task at once, without waiting). Call
// with x.mu held.
func (x *execution) taskDone(ctx context.Context, c *call) {
	task := x.cur.Task()
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
		if payload, err = asl.DecodeJSON(c.inv.Payload); err != nil {
			x.taskFailed(ctx, "Lambda.SdkClientException", fmt.Sprintf("the function's response is not valid JSON: %v", err))
			return
		}
	}
	if task.Kind == asl.LambdaFunction {
		x.taskSucceeded(ctx, payload)
		return
	}
	if x.unrecorded && !task.Callback {
		// No history shows the result: when the output is its Payload
		// alone, build none of the rest (most tasks of a long
		// simulation).
		if out, ok := x.cur.ResultFieldOutput("Payload", payload, maxInvokeMetadata); ok {
			x.skipInvokeResult()
			x.record("TaskSucceeded", nil)
			x.exit(x.cur, out, x.cur.Next())
			return
		}
	}
	result := x.invokeResult(c, payload)
	if task.Callback {
		x.record("TaskSubmitted", taskOutputDetails{ResourceType: "lambda", Resource: task.Service, Output: jsonDoc{result}})
		x.await(ctx)
		return
	}
	x.taskSucceeded(ctx, result)
}

// taskSucceeded records the task's result and leaves the state with it,
// after ResultSelector, ResultPath and OutputPath.
func (x *execution) taskSucceeded(ctx context.Context, result any) {
	st := x.cur
	if task := st.Task(); task.Kind == asl.LambdaInvoke {
		x.record("TaskSucceeded", taskOutputDetails{ResourceType: "lambda", Resource: task.Service, Output: jsonDoc{result}})
	} else {
		x.record("LambdaFunctionSucceeded", outputDetails{Output: jsonDoc{result}})
	}
	out, err := st.TaskOutput(x.rawInput, result, x.contextObject(), x)
	if err != nil {
		x.taskError(ctx, err)
		return
	}
	x.exit(st, out, st.Next())
}

// taskFailed records a failed task and handles its error.
func (x *execution) taskFailed(ctx context.Context, name, cause string) {
	x.closeCallback()
	if task := x.cur.Task(); task.Kind == asl.LambdaInvoke {
		x.record("TaskFailed", taskErrorDetails{ResourceType: "lambda", Resource: task.Service, Error: name, Cause: cause})
	} else {
		x.record("LambdaFunctionFailed", errorDetails{Error: name, Cause: cause})
	}
	x.handleError(ctx, name, cause)
}

// taskTimedOut records a timed-out task and handles name: States.Timeout,
// or asl.StatesHeartbeatTimeout for a missed heartbeat, which AWS records
// as States.Timeout too.
func (x *execution) taskTimedOut(ctx context.Context, name string) {
	x.closeCallback()
	if task := x.cur.Task(); task.Kind == asl.LambdaInvoke {
		x.record("TaskTimedOut", taskErrorDetails{ResourceType: "lambda", Resource: task.Service, Error: asl.StatesTimeout})
	} else {
		x.record("LambdaFunctionTimedOut", errorDetails{Error: asl.StatesTimeout})
	}
	x.handleError(ctx, name, "")
}

// taskError handles an error raised by the Task state's own input or
// output processing.
func (x *execution) taskError(ctx context.Context, err error) {
	name, cause := x.stateErrorOf(err)
	x.handleError(ctx, name, cause)
}

// handleError applies the Task state's Retry (see asl.State.Retry), then
// its Catch, to an error; an unhandled error fails the execution. Each
// retry is billed as a transition. A missed heartbeat
// (asl.StatesHeartbeatTimeout) is reported as States.Timeout, as AWS
// records it.
func (x *execution) handleError(ctx context.Context, name, cause string) {
	if x.status != Running {
		return
	}
	st := x.cur
	if wait, ok := st.Retry(name, x.retries, x.random); ok {
		x.retryCount++
		x.transitions++
		x.sm.counts.transition(asl.TaskState)
		x.ctxObj = nil
		x.suspend(x.e.after(wait), resumption{kind: resumeRetry})
		return
	}
	out, next, err := st.Catch(name, cause, x.rawInput)
	switch {
	case err != nil:
		x.failState(err)
	case next != nil:
		x.exit(st, out, next)
	default:
		x.fail(asl.Reported(name), cause)
	}
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
	if doc, err := asl.DecodeJSON(payload); err == nil {
		if m, ok := doc.(map[string]any); ok {
			if t, ok := m["errorType"].(string); ok && t != "" {
				name = t
			}
		}
	}
	return name, string(payload)
}
