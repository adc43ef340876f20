package executor

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/emulate/asl"
	"github.com/redrive/redrive/emulate/asl/asltest"
)

// failing returns a function that fails with the given error types in
// turn, then succeeds with {"ok":true}; calls counts its invocations.
func failing(calls *atomic.Int32, errTypes ...string) func(context.Context, []byte) (Invocation, error) {
	return func(ctx context.Context, p []byte) (Invocation, error) {
		n := int(calls.Add(1)) - 1
		if n < len(errTypes) {
			return fnError(errTypes[n], "attempt failed")(ctx, p)
		}
		return respond(map[string]bool{"ok": true})(ctx, p)
	}
}

// scheduledGaps returns the virtual time between consecutive
// TaskScheduled events: the retry delays.
func scheduledGaps(h []Event) []time.Duration {
	sched := eventsOf(h, "TaskScheduled")
	var gaps []time.Duration
	for i := 1; i < len(sched); i++ {
		gaps = append(gaps, sched[i].Timestamp.Sub(sched[i-1].Timestamp))
	}
	return gaps
}

// invokeTask is a lambda:invoke Task state definition fragment.
func invokeTask(fn, extra string) string {
	return `{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke","Parameters":{"FunctionName":"` + fn + `","Payload.$":"$"}` + extra + `}`
}

func TestRetryBackoff(t *testing.T) {
	tests := []struct {
		name, retry string
		errs        []string
		wantGaps    []time.Duration
		wantStatus  Status
	}{
		{"AWS example: 3 s then 4.5 s", `{"ErrorEquals":["States.Timeout","E"],"IntervalSeconds":3,"MaxAttempts":2,"BackoffRate":1.5}`,
			[]string{"E", "E", "E"}, []time.Duration{3 * time.Second, 4500 * time.Millisecond}, Failed},
		{"defaults: 1 s, 2 s, 4 s", `{"ErrorEquals":["E"]}`,
			[]string{"E", "E", "E"}, []time.Duration{time.Second, 2 * time.Second, 4 * time.Second}, Succeeded},
		{"MaxDelaySeconds caps", `{"ErrorEquals":["E"],"IntervalSeconds":10,"BackoffRate":10,"MaxAttempts":3,"MaxDelaySeconds":30}`,
			[]string{"E", "E", "E"}, []time.Duration{10 * time.Second, 30 * time.Second, 30 * time.Second}, Succeeded},
		{"MaxAttempts 0 never retries", `{"ErrorEquals":["E"],"MaxAttempts":0}`,
			[]string{"E"}, nil, Failed},
		{"TaskFailed matches function errors", `{"ErrorEquals":["States.TaskFailed"],"IntervalSeconds":2}`,
			[]string{"E"}, []time.Duration{2 * time.Second}, Succeeded},
		{"other errors are not retried", `{"ErrorEquals":["Other"]}`,
			[]string{"E"}, nil, Failed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var calls atomic.Int32
			e := New(Options{Invoker: funcInvoker{"f": failing(&calls, tt.errs...)}})
			x, h := runMachine(t, e, asltest.Wrap(invokeTask("f", `,"Retry":[`+tt.retry+`],"End":true`)), `{}`)
			assert.Equal(t, tt.wantStatus, x.Status)
			assert.Equal(t, tt.wantGaps, scheduledGaps(h))
			assert.Equal(t, 1+len(tt.wantGaps), x.Transitions, "the state entry plus one per retry")
		})
	}
}

func TestRetrierPrecedenceAWSExample(t *testing.T) {
	// From AWS's "Complex retry scenarios": errors ErrorA, ErrorB, ErrorC
	// and ErrorB wait 1, 2 and 5 seconds, then the fourth is caught: the
	// first retrier's MaxAttempts of 2 is used up.
	var calls atomic.Int32
	e := New(Options{Invoker: funcInvoker{"x": failing(&calls, "ErrorA", "ErrorB", "ErrorC", "ErrorB")}})
	x, h := runMachine(t, e, asltest.Wrap(invokeTask("x", `,"Next":"Y",
		"Retry":[{"ErrorEquals":["ErrorA","ErrorB"],"IntervalSeconds":1,"BackoffRate":2.0,"MaxAttempts":2},{"ErrorEquals":["ErrorC"],"IntervalSeconds":5}],
		"Catch":[{"ErrorEquals":["States.ALL"],"Next":"Z"}]`), `"Y":{"Type":"Succeed"}`, `"Z":{"Type":"Pass","End":true}`), `{}`)
	require.Equal(t, Succeeded, x.Status)
	assert.Equal(t, []time.Duration{time.Second, 2 * time.Second, 5 * time.Second}, scheduledGaps(h))
	assert.Equal(t, int32(4), calls.Load())
	var out map[string]any
	require.NoError(t, json.Unmarshal(x.Output, &out))
	assert.Equal(t, "ErrorB", out["Error"])
	assert.Equal(t, []string{"TaskStateExited", "PassStateEntered"}, eventTypes(h[len(h)-4:len(h)-2]))
	assert.Equal(t, 1+3+1, x.Transitions)
}

func TestRetryJitter(t *testing.T) {
	gaps := func(seed int64) []time.Duration {
		var calls atomic.Int32
		e := New(Options{Seed: seed, Invoker: funcInvoker{"f": failing(&calls, "E", "E", "E", "E")}})
		_, h := runMachine(t, e, asltest.Wrap(invokeTask("f", `,"Retry":[{"ErrorEquals":["E"],"IntervalSeconds":10,"MaxAttempts":4,"JitterStrategy":"FULL"}],"End":true`)), `{}`)
		return scheduledGaps(h)
	}
	a := gaps(7)
	require.Len(t, a, 4)
	for i, g := range a {
		limit := 10 * time.Second << i
		assert.True(t, g >= 0 && g <= limit, "gap %d = %v outside [0, %v]", i, g, limit)
	}
	assert.Equal(t, a, gaps(7), "the same seed gives the same jitter")
	assert.NotEqual(t, a, gaps(8), "another seed gives other jitter")
}

func TestRetryCountInContext(t *testing.T) {
	var seen []float64
	var calls atomic.Int32
	e := New(Options{Invoker: funcInvoker{"f": func(ctx context.Context, p []byte) (Invocation, error) {
		var in struct{ Retry float64 }
		if err := json.Unmarshal(p, &in); err != nil {
			return Invocation{}, err
		}
		seen = append(seen, in.Retry)
		return failing(&calls, "E", "E")(ctx, p)
	}}})
	x, _ := runMachine(t, e, asltest.Wrap(`{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke",
		"Parameters":{"FunctionName":"f","Payload":{"Retry.$":"$$.State.RetryCount"}},"Retry":[{"ErrorEquals":["E"]}],"End":true}`), `{}`)
	require.Equal(t, Succeeded, x.Status, x.Cause)
	assert.Equal(t, []float64{0, 1, 2}, seen)
}

func TestCatch(t *testing.T) {
	tests := []struct {
		name, catch, input, wantState, wantOutput string
		invoker                                   funcInvoker
	}{
		{"ResultPath merges the error into the raw input",
			`[{"ErrorEquals":["E"],"ResultPath":"$.error","Next":"H"}]`, `{"a":1,"x":{"y":2}}`, "H",
			`{"a":1,"x":{"y":2},"error":{"Error":"E","Cause":"{\"errorMessage\":\"boom\",\"errorType\":\"E\"}"}}`,
			funcInvoker{"f": fnError("E", "boom")}},
		{"default ResultPath replaces the input",
			`[{"ErrorEquals":["States.ALL"],"Next":"H"}]`, `{"a":1}`, "H",
			`{"Error":"E","Cause":"{\"errorMessage\":\"boom\",\"errorType\":\"E\"}"}`,
			funcInvoker{"f": fnError("E", "boom")}},
		{"ResultPath null keeps the input",
			`[{"ErrorEquals":["States.TaskFailed"],"ResultPath":null,"Next":"H"}]`, `{"a":1}`, "H", `{"a":1}`,
			funcInvoker{"f": fnError("E", "boom")}},
		{"first matching catcher wins",
			`[{"ErrorEquals":["Other"],"Next":"G"},{"ErrorEquals":["E","X"],"ResultPath":null,"Next":"H"},{"ErrorEquals":["States.ALL"],"Next":"G"}]`, `{}`, "H", `{}`,
			funcInvoker{"f": fnError("E", "boom")}},
		{"unknown function is Lambda.ResourceNotFoundException",
			`[{"ErrorEquals":["Lambda.ResourceNotFoundException"],"ResultPath":"$.err","Next":"H"}]`, `{}`, "H",
			`{"err":{"Error":"Lambda.ResourceNotFoundException","Cause":"Function not found: f"}}`, funcInvoker{}},
		{"a plain Go error is Lambda.ServiceException",
			`[{"ErrorEquals":["Lambda.ServiceException"],"ResultPath":"$.err","Next":"H"}]`, `{}`, "H",
			`{"err":{"Error":"Lambda.ServiceException","Cause":"connection reset"}}`,
			funcInvoker{"f": func(context.Context, []byte) (Invocation, error) { return Invocation{}, errors.New("connection reset") }}},
		{"a panicking Invoker is Lambda.ServiceException",
			`[{"ErrorEquals":["Lambda.ServiceException"],"ResultPath":null,"Next":"H"}]`, `{}`, "H", `{}`,
			funcInvoker{"f": func(context.Context, []byte) (Invocation, error) { panic("bug") }}},
		{"an error document without errorType is Lambda.Unknown",
			`[{"ErrorEquals":["Lambda.Unknown"],"ResultPath":"$.err","Next":"H"}]`, `{}`, "H",
			`{"err":{"Error":"Lambda.Unknown","Cause":"{\"errorMessage\":\"Task timed out after 3.00 seconds\"}"}}`,
			funcInvoker{"f": func(context.Context, []byte) (Invocation, error) {
				return Invocation{Payload: []byte(`{"errorMessage":"Task timed out after 3.00 seconds"}`), FunctionError: "Unhandled"}, nil
			}}},
		{"ResultPathMatchFailure is caught",
			`[{"ErrorEquals":["States.ResultPathMatchFailure"],"ResultPath":null,"Next":"H"}]`, `{"r":"s"}`, "H", `{"r":"s"}`,
			funcInvoker{"f": respond(1)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			extra := `,"Catch":` + tt.catch + `,"End":true`
			if tt.name == "ResultPathMatchFailure is caught" {
				extra = `,"ResultPath":"$.r.x"` + extra
			}
			x, h := runMachine(t, New(Options{Invoker: tt.invoker}), wrapUsed(invokeTask("f", extra),
				`"H":{"Type":"Pass","End":true}`, `"G":{"Type":"Fail","Error":"Wrong"}`), tt.input)
			require.Equal(t, Succeeded, x.Status, "%s: %s", x.Error, x.Cause)
			entered := eventsOf(h, "PassStateEntered")
			require.Len(t, entered, 1)
			assert.Equal(t, tt.wantState, entered[0].Details.(stateEnteredDetails).Name)
			assert.JSONEq(t, tt.wantOutput, string(x.Output))
		})
	}
}

func TestTerminalErrorsAreNotCaughtByStatesALL(t *testing.T) {
	tests := []struct{ name, task, wantErr string }{
		{"States.Runtime from ResultSelector", invokeTask("f", `,"ResultSelector":{"a.$":"$.nope"},"Retry":[{"ErrorEquals":["States.ALL"]}],"Catch":[{"ErrorEquals":["States.ALL"],"Next":"H"}],"End":true`), "States.Runtime"},
		{"States.Runtime even by name", invokeTask("f", `,"ResultSelector":{"a.$":"$.nope"},"Catch":[{"ErrorEquals":["States.Runtime"],"Next":"H"}],"End":true`), "States.Runtime"},
		{"States.DataLimitExceeded", invokeTask("big", `,"Catch":[{"ErrorEquals":["States.ALL"],"Next":"H"}],"End":true`), "States.DataLimitExceeded"},
	}
	inv := funcInvoker{
		"f": respond(map[string]int{"a": 1}),
		"big": func(context.Context, []byte) (Invocation, error) {
			b, err := json.Marshal(string(make([]byte, asl.MaxPayloadBytes)))
			return Invocation{Payload: b}, err
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x, _ := runMachine(t, New(Options{Invoker: inv}), asltest.Wrap(tt.task, `"H":{"Type":"Pass","End":true}`), `{}`)
			assert.Equal(t, Failed, x.Status)
			assert.Equal(t, tt.wantErr, x.Error)
		})
	}
	x, _ := runMachine(t, New(Options{Invoker: inv}), asltest.Wrap(invokeTask("big", `,"Catch":[{"ErrorEquals":["States.DataLimitExceeded"],"ResultPath":null,"Next":"H"}],"End":true`), `"H":{"Type":"Pass","End":true}`), `{}`)
	assert.Equal(t, Succeeded, x.Status, "States.DataLimitExceeded is caught by name")
}

func TestTimeouts(t *testing.T) {
	var sawCancel atomic.Bool
	slow := func(ctx context.Context, p []byte) (Invocation, error) {
		var in struct{ Work int }
		_ = json.Unmarshal(p, &in)
		Delay(ctx, time.Duration(in.Work)*time.Second)
		if ctx.Err() != nil {
			sawCancel.Store(true)
		}
		return respond("done")(ctx, p)
	}
	tests := []struct {
		name, extra, input string
		wantStatus         Status
		wantOut            string
		wantElapsed        time.Duration
		wantEvent          string
	}{
		{"Delay within TimeoutSeconds", `,"TimeoutSeconds":10,"End":true`, `{"Work":3}`, Succeeded, `"done"`, 3 * time.Second, "TaskSucceeded"},
		{"Delay past TimeoutSeconds", `,"TimeoutSeconds":2,"End":true`, `{"Work":10}`, Failed, "", 2 * time.Second, "TaskTimedOut"},
		{"TimeoutSecondsPath", `,"TimeoutSecondsPath":"$.Limit","End":true`, `{"Work":10,"Limit":4}`, Failed, "", 4 * time.Second, "TaskTimedOut"},
		{"timeout caught, not by TaskFailed", `,"TimeoutSeconds":1,"Catch":[{"ErrorEquals":["States.TaskFailed"],"Next":"Wrong"},{"ErrorEquals":["States.Timeout"],"Next":"H"}],"End":true`,
			`{"Work":5}`, Succeeded, `{"Error":"States.Timeout"}`, time.Second, "TaskTimedOut"},
		{"timeout retried", `,"TimeoutSeconds":1,"Retry":[{"ErrorEquals":["States.Timeout"],"MaxAttempts":1,"IntervalSeconds":3}],"End":true`,
			`{"Work":5}`, Failed, "", 5 * time.Second, "TaskTimedOut"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sawCancel.Store(false)
			e := New(Options{Invoker: funcInvoker{"slow": slow}})
			x, h := runMachine(t, e, wrapUsed(`{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke","Parameters":{"FunctionName":"slow","Payload.$":"$"},"ResultSelector":{"r.$":"$.Payload"},"OutputPath":"$.r"`+tt.extra+`}`,
				`"H":{"Type":"Pass","End":true}`, `"Wrong":{"Type":"Fail","Error":"Wrong"}`), tt.input)
			assert.Equal(t, tt.wantStatus, x.Status, x.Cause)
			if tt.wantStatus == Failed {
				assert.Equal(t, "States.Timeout", x.Error)
			} else {
				assert.JSONEq(t, tt.wantOut, string(x.Output))
			}
			assert.Equal(t, tt.wantElapsed, x.StopDate.Sub(x.StartDate))
			assert.NotEmpty(t, eventsOf(h, tt.wantEvent))
			assert.Equal(t, tt.wantEvent == "TaskTimedOut", sawCancel.Load(), "the handler's context is cancelled on timeout")
			assert.Equal(t, x.StopDate, e.Now(), "the abandoned Delay does not move the clock")
		})
	}
}

func TestPlainFunctionARN(t *testing.T) {
	var got string
	e := New(Options{Invoker: funcInvoker{"greet": func(ctx context.Context, p []byte) (Invocation, error) {
		got = string(p)
		return respond(map[string]string{"hello": "world"})(ctx, p)
	}}})
	x, h := runMachine(t, e, asltest.Wrap(`{"Type":"Task","Resource":"arn:aws:lambda:us-east-1:123456789012:function:greet","InputPath":"$.in","ResultPath":"$.out","End":true}`), `{"in":{"name":"x"}}`)
	require.Equal(t, Succeeded, x.Status, x.Cause)
	assert.JSONEq(t, `{"name":"x"}`, got)
	assert.JSONEq(t, `{"in":{"name":"x"},"out":{"hello":"world"}}`, string(x.Output))
	assert.Equal(t, []string{"ExecutionStarted", "TaskStateEntered", "LambdaFunctionScheduled", "LambdaFunctionStarted",
		"LambdaFunctionSucceeded", "TaskStateExited", "ExecutionSucceeded"}, eventTypes(h))

	x, h = runMachine(t, New(Options{Invoker: funcInvoker{"greet": fnError("Nope", "no")}}),
		asltest.Wrap(`{"Type":"Task","Resource":"arn:aws:lambda:us-east-1:123456789012:function:greet","End":true}`), `{}`)
	assert.Equal(t, "Nope", x.Error)
	assert.JSONEq(t, `{"errorType":"Nope","errorMessage":"no"}`, x.Cause)
	assert.Len(t, eventsOf(h, "LambdaFunctionFailed"), 1)
}

func TestLambdaInvokeParameters(t *testing.T) {
	var function, payload string
	e := New(Options{Invoker: funcInvoker{"f": func(ctx context.Context, p []byte) (Invocation, error) {
		payload = string(p)
		return Invocation{Payload: []byte(`null`), ExecutedVersion: "7"}, nil
	}}})
	inv := e.opts.Invoker
	e.opts.Invoker = invokerFunc(func(ctx context.Context, fn string, p []byte) (Invocation, error) {
		function = fn
		return inv.Invoke(ctx, fn, p)
	})
	x, _ := runMachine(t, e, asltest.Wrap(`{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke",
		"Parameters":{"FunctionName.$":"$.fn","Qualifier":"live"},"ResultSelector":{"v.$":"$.ExecutedVersion","p.$":"$.Payload","s.$":"$.SdkHttpMetadata.HttpStatusCode"},"End":true}`),
		`{"fn":"arn:aws:lambda:us-east-1:123456789012:function:f"}`)
	require.Equal(t, Succeeded, x.Status, x.Cause)
	assert.Equal(t, "arn:aws:lambda:us-east-1:123456789012:function:f:live", function)
	assert.Equal(t, `{}`, payload, "no Payload sends an empty object")
	assert.JSONEq(t, `{"v":"7","p":null,"s":200}`, string(x.Output))

	x, _ = runMachine(t, e, asltest.Wrap(`{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke","Parameters":{"FunctionName.$":"$.fn"},"End":true}`), `{"fn":5}`)
	assert.Equal(t, "States.Runtime", x.Error)
	assert.Contains(t, x.Cause, "FunctionName")
}

func TestNoInvoker(t *testing.T) {
	x, _ := runMachine(t, New(Options{}), asltest.Wrap(invokeTask("f", `,"End":true`)), `{}`)
	assert.Equal(t, "States.Runtime", x.Error)
	assert.Contains(t, x.Cause, "no Invoker")
}

func TestStopDuringDelay(t *testing.T) {
	var e *Executor
	var handlerErr atomic.Value
	e = New(Options{Invoker: funcInvoker{"slow": func(ctx context.Context, p []byte) (Invocation, error) {
		Delay(ctx, time.Hour)
		handlerErr.Store(ctx.Err())
		return respond("late")(ctx, p)
	}}})
	ctx := context.Background()
	arn, err := e.CreateStateMachine(ctx, "stop", asltest.Wrap(invokeTask("slow", `,"End":true`)), "")
	require.NoError(t, err)
	x, err := e.StartExecution(ctx, arn, "a", "")
	require.NoError(t, err)
	e.At(e.Now().Add(time.Minute), func(ctx context.Context) {
		_, err := e.StopExecution(ctx, x.ARN, "Stop", "")
		assert.NoError(t, err)
	})
	require.NoError(t, e.Run(ctx))
	assert.Equal(t, x.StartDate.Add(time.Minute), e.Now(), "the handler returns when stopped, not an hour later")
	assert.Equal(t, context.Canceled, handlerErr.Load())
	got, err := e.DescribeExecution(ctx, x.ARN)
	require.NoError(t, err)
	assert.Equal(t, Aborted, got.Status)
	h, err := e.History(ctx, x.ARN)
	require.NoError(t, err)
	assert.Equal(t, "ExecutionAborted", h[len(h)-1].Type)
}

// invokerFunc adapts a function to Invoker.
type invokerFunc func(ctx context.Context, function string, payload []byte) (Invocation, error)

func (f invokerFunc) Invoke(ctx context.Context, function string, payload []byte) (Invocation, error) {
	return f(ctx, function, payload)
}

// wrapUsed is wrap with only the extra states that state refers to, so
// that every state is reachable.
func wrapUsed(state string, extra ...string) string {
	var used []string
	for _, x := range extra {
		name := x[:strings.Index(x[1:], `"`)+2]
		if strings.Contains(state, `"Next":`+name) {
			used = append(used, x)
		}
	}
	return asltest.Wrap(state, used...)
}

func TestDelayOutsideTheExecutor(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	Delay(ctx, time.Hour) // returns at once: ctx has ended
	Delay(context.Background(), -time.Second)
	Delay(context.Background(), time.Millisecond) // a plain sleep
	e := New(Options{})
	x := &execution{e: e}
	c := newCall(context.Background(), x, callSpec{function: "f"})
	c.finished.Store(true)
	Delay(c.ctx, time.Millisecond) // a finished call's context only sleeps
}
