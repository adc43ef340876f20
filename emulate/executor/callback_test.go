package executor

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/emulate/asl"
	"github.com/redrive/redrive/emulate/asl/asltest"
)

// tokens is a test function that records the task tokens it is invoked
// with ({"token": ...}) and returns {"submitted": true}.
type tokens struct {
	mu   sync.Mutex
	seen []string
}

func (tk *tokens) invoke(_ context.Context, p []byte) (Invocation, error) {
	var in struct {
		Token string `json:"token"`
	}
	if err := json.Unmarshal(p, &in); err != nil {
		return Invocation{}, err
	}
	tk.mu.Lock()
	tk.seen = append(tk.seen, in.Token)
	tk.mu.Unlock()
	return Invocation{Payload: []byte(`{"submitted":true}`)}, nil
}

// last returns the latest token.
func (tk *tokens) last(t testing.TB) string {
	t.Helper()
	tk.mu.Lock()
	defer tk.mu.Unlock()
	require.NotEmpty(t, tk.seen, "the function was not invoked")
	return tk.seen[len(tk.seen)-1]
}

// callbackTask is a waitForTaskToken Task state invoking fn with the token
// as {"token": $$.Task.Token}, followed by extra fields.
func callbackTask(fn, extra string) string {
	return `{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke.waitForTaskToken",
		"Parameters":{"FunctionName":"` + fn + `","Payload":{"token.$":"$$.Task.Token"}}` + extra + `}`
}

// startCallback starts one execution of definition on e and runs it until
// it waits; it returns the execution's ARN.
func startCallback(t *testing.T, e *Executor, definition, input string) string {
	t.Helper()
	ctx := context.Background()
	arn, err := e.CreateStateMachine(ctx, "cb", definition, "arn:aws:iam::123456789012:role/test")
	require.NoError(t, err)
	x, err := e.StartExecution(ctx, arn, "", input)
	require.NoError(t, err)
	require.NoError(t, e.Run(ctx))
	return x.ARN
}

// describe returns an execution and its history.
func describe(t *testing.T, e *Executor, arn string) (Execution, []Event) {
	t.Helper()
	x, err := e.DescribeExecution(context.Background(), arn)
	require.NoError(t, err)
	h, err := e.History(context.Background(), arn)
	require.NoError(t, err)
	return x, h
}

// details decodes an event's details.
func details(t *testing.T, ev Event) map[string]any {
	t.Helper()
	b, err := json.Marshal(ev.Details)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	return m
}

func TestCallbackSuccess(t *testing.T) {
	tk := &tokens{}
	e := New(Options{Invoker: funcInvoker{"wait": tk.invoke}})
	start := e.Now()
	arn := startCallback(t, e, asltest.Wrap(callbackTask("wait", `,"ResultSelector":{"got.$":"$.v"},"ResultPath":"$.r","OutputPath":"$.r","End":true`)), `{"in":1}`)

	x, h := describe(t, e, arn)
	require.Equal(t, Running, x.Status, "the task waits for its token")
	assert.Equal(t, []string{"ExecutionStarted", "TaskStateEntered", "TaskScheduled", "TaskStarted", "TaskSubmitted"}, eventTypes(h))
	token := tk.last(t)
	assert.Len(t, token, 672)
	_, err := base64.StdEncoding.DecodeString(token)
	assert.NoError(t, err, "the token is base64")
	scheduled := details(t, h[2])
	assert.Equal(t, "invoke.waitForTaskToken", scheduled["resource"])
	assert.Contains(t, scheduled["parameters"], token)
	submitted := details(t, h[4])
	assert.Equal(t, "lambda", submitted["resourceType"])
	assert.Contains(t, submitted["output"], `"Payload":{"submitted":true}`)

	// The task consumes nothing while it waits: an hour passes.
	ctx := context.Background()
	require.NoError(t, e.RunUntil(ctx, start.Add(time.Hour)))
	require.NoError(t, e.SendTaskSuccess(ctx, token, `{"v":2}`))
	require.NoError(t, e.Run(ctx))
	x, h = describe(t, e, arn)
	require.Equal(t, Succeeded, x.Status, x.Cause)
	assert.JSONEq(t, `{"got":2}`, string(x.Output))
	assert.Equal(t, time.Hour, x.StopDate.Sub(x.StartDate), "resumes at the instant of SendTaskSuccess")
	succeeded := eventsOf(h, "TaskSucceeded")
	require.Len(t, succeeded, 1)
	assert.Equal(t, `{"v":2}`, details(t, succeeded[0])["output"])

	assert.ErrorIs(t, e.SendTaskSuccess(ctx, token, `{}`), ErrTaskTimedOut, "token reused after completion")
	assert.ErrorIs(t, e.SendTaskHeartbeat(ctx, token), ErrTaskTimedOut)
}

func TestCallbackFailureRetriedThenCaught(t *testing.T) {
	tk := &tokens{}
	e := New(Options{Invoker: funcInvoker{"wait": tk.invoke}})
	ctx := context.Background()
	arn := startCallback(t, e, asltest.Wrap(callbackTask("wait", `,"Retry":[{"ErrorEquals":["Rejected"],"IntervalSeconds":5,"MaxAttempts":1}],
		"Catch":[{"ErrorEquals":["States.TaskFailed"],"ResultPath":"$.err","Next":"Caught"}],"End":true`), `"Caught":{"Type":"Pass","End":true}`), `{}`)

	first := tk.last(t)
	require.NoError(t, e.SendTaskFailure(ctx, first, "Rejected", "no"))
	require.NoError(t, e.Run(ctx))
	second := tk.last(t)
	assert.NotEqual(t, first, second, "a retry gets a new token")
	assert.ErrorIs(t, e.SendTaskSuccess(ctx, first, `{}`), ErrTaskTimedOut, "the first attempt's token is closed")
	require.NoError(t, e.SendTaskFailure(ctx, second, "Rejected", "again"))
	require.NoError(t, e.Run(ctx))

	x, h := describe(t, e, arn)
	require.Equal(t, Succeeded, x.Status, x.Cause)
	assert.JSONEq(t, `{"err":{"Error":"Rejected","Cause":"again"}}`, string(x.Output))
	assert.Equal(t, 5*time.Second, x.StopDate.Sub(x.StartDate))
	failed := eventsOf(h, "TaskFailed")
	require.Len(t, failed, 2)
	assert.Equal(t, map[string]any{"resourceType": "lambda", "resource": "invoke.waitForTaskToken", "error": "Rejected", "cause": "no"}, details(t, failed[0]))
}

func TestCallbackFunctionErrorFailsAtOnce(t *testing.T) {
	e := New(Options{Invoker: funcInvoker{"boom": fnError("Boom", "failed before calling back")}})
	x, h := runMachine(t, e, asltest.Wrap(callbackTask("boom", `,"End":true`)), `{}`)
	require.Equal(t, Failed, x.Status)
	assert.Equal(t, "Boom", x.Error)
	assert.Equal(t, []string{"ExecutionStarted", "TaskStateEntered", "TaskScheduled", "TaskStarted", "TaskFailed", "ExecutionFailed"}, eventTypes(h))
}

func TestCallbackTimeout(t *testing.T) {
	tk := &tokens{}
	e := New(Options{Invoker: funcInvoker{"wait": tk.invoke}})
	arn := startCallback(t, e, asltest.Wrap(callbackTask("wait", `,"TimeoutSeconds":30,"End":true`)), `{}`)
	x, h := describe(t, e, arn)
	require.Equal(t, Failed, x.Status)
	assert.Equal(t, asl.StatesTimeout, x.Error)
	assert.Equal(t, 30*time.Second, x.StopDate.Sub(x.StartDate))
	timedOut := eventsOf(h, "TaskTimedOut")
	require.Len(t, timedOut, 1)
	assert.Equal(t, map[string]any{"resourceType": "lambda", "resource": "invoke.waitForTaskToken", "error": asl.StatesTimeout}, details(t, timedOut[0]))
	assert.ErrorIs(t, e.SendTaskSuccess(context.Background(), tk.last(t), `{}`), ErrTaskTimedOut)
}

func TestCallbackHeartbeat(t *testing.T) {
	definition := asltest.Wrap(callbackTask("wait", `,"TimeoutSeconds":30,"HeartbeatSeconds":10,
		"Catch":[{"ErrorEquals":["States.TaskFailed"],"Next":"Failed"},{"ErrorEquals":["States.HeartbeatTimeout"],"Next":"Silent"}],"End":true`),
		`"Failed":{"Type":"Fail","Error":"NotCaughtHere"}`, `"Silent":{"Type":"Pass","End":true}`)
	tests := []struct {
		name       string
		beats      []time.Duration // heartbeats, from the start
		succeed    time.Duration   // SendTaskSuccess, from the start; 0 means never
		wantStatus Status
		wantOutput string
		wantError  string
		wantStop   time.Duration
	}{
		{name: "missed heartbeat is caught by States.HeartbeatTimeout", wantStatus: Succeeded,
			wantOutput: `{"Error":"States.Timeout"}`, wantStop: 10 * time.Second},
		{name: "heartbeats extend", beats: []time.Duration{8 * time.Second, 16 * time.Second}, succeed: 25 * time.Second,
			wantStatus: Succeeded, wantOutput: `{"ok":true}`, wantStop: 25 * time.Second},
		{name: "heartbeats do not extend TimeoutSeconds", beats: []time.Duration{8 * time.Second, 16 * time.Second, 24 * time.Second},
			wantStatus: Failed, wantError: asl.StatesTimeout, wantStop: 30 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tk := &tokens{}
			e := New(Options{Invoker: funcInvoker{"wait": tk.invoke}})
			ctx := context.Background()
			arn, err := e.CreateStateMachine(ctx, "hb", definition, "")
			require.NoError(t, err)
			x, err := e.StartExecution(ctx, arn, "", `{}`)
			require.NoError(t, err)
			for _, d := range tt.beats {
				e.At(x.StartDate.Add(d), func(ctx context.Context) { assert.NoError(t, e.SendTaskHeartbeat(ctx, tk.last(t))) })
			}
			if tt.succeed > 0 {
				e.At(x.StartDate.Add(tt.succeed), func(ctx context.Context) { assert.NoError(t, e.SendTaskSuccess(ctx, tk.last(t), `{"ok":true}`)) })
			}
			require.NoError(t, e.Run(ctx))
			got, h := describe(t, e, x.ARN)
			require.Equal(t, tt.wantStatus, got.Status, got.Cause)
			if tt.wantOutput != "" {
				assert.JSONEq(t, tt.wantOutput, string(got.Output))
			}
			assert.Equal(t, tt.wantError, got.Error)
			assert.Equal(t, tt.wantStop, got.StopDate.Sub(got.StartDate))
			assert.EqualValues(t, 10, details(t, eventsOf(h, "TaskScheduled")[0])["heartbeatInSeconds"])
		})
	}
}

func TestCallbackHeartbeatSecondsPath(t *testing.T) {
	tk := &tokens{}
	e := New(Options{Invoker: funcInvoker{"wait": tk.invoke}})
	arn := startCallback(t, e, asltest.Wrap(callbackTask("wait", `,"HeartbeatSecondsPath":"$.hb","End":true`)), `{"hb":7}`)
	x, _ := describe(t, e, arn)
	require.Equal(t, Failed, x.Status)
	assert.Equal(t, asl.StatesTimeout, x.Error)
	assert.Equal(t, 7*time.Second, x.StopDate.Sub(x.StartDate))

	arn = startCallback(t, e, asltest.Wrap(callbackTask("wait", `,"HeartbeatSecondsPath":"$.hb","End":true`)), `{"hb":0}`)
	x, _ = describe(t, e, arn)
	assert.Equal(t, asl.StatesRuntime, x.Error)
	assert.Contains(t, x.Cause, "HeartbeatSecondsPath")
}

func TestCallbackTokenAfterStop(t *testing.T) {
	tk := &tokens{}
	e := New(Options{Invoker: funcInvoker{"wait": tk.invoke}})
	ctx := context.Background()
	arn := startCallback(t, e, asltest.Wrap(callbackTask("wait", `,"End":true`)), `{}`)
	_, err := e.StopExecution(ctx, arn, "Operator", "stopped")
	require.NoError(t, err)
	for _, err := range []error{
		e.SendTaskSuccess(ctx, tk.last(t), `{}`),
		e.SendTaskFailure(ctx, tk.last(t), "E", "C"),
		e.SendTaskHeartbeat(ctx, tk.last(t)),
	} {
		assert.ErrorIs(t, err, ErrTaskTimedOut)
	}
}

func TestCallbackInvalidTokensAndOutput(t *testing.T) {
	tk := &tokens{}
	e := New(Options{Invoker: funcInvoker{"wait": tk.invoke}})
	ctx := context.Background()
	startCallback(t, e, asltest.Wrap(callbackTask("wait", `,"End":true`)), `{}`)
	token := tk.last(t)
	altered := []byte(token)
	altered[100] ^= 1 // still base64, no longer authentic
	for name, bad := range map[string]string{
		"empty":        "",
		"not base64":   "not a token!",
		"short":        token[:64],
		"altered":      string(altered),
		"other seed":   issueOne(t, 2),
		"bad version":  base64.StdEncoding.EncodeToString(append([]byte{3}, mustDecode(t, token)[1:]...)),
		"with newline": token + "\n",
	} {
		assert.ErrorIs(t, e.SendTaskSuccess(ctx, bad, `{}`), ErrInvalidToken, name)
		assert.ErrorIs(t, e.SendTaskFailure(ctx, bad, "", ""), ErrInvalidToken, name)
		assert.ErrorIs(t, e.SendTaskHeartbeat(ctx, bad), ErrInvalidToken, name)
	}
	// The same seed authenticates, but this executor has no such execution.
	twin := New(Options{})
	assert.ErrorIs(t, twin.SendTaskSuccess(ctx, token, `{}`), ErrTaskDoesNotExist)

	assert.ErrorIs(t, e.SendTaskSuccess(ctx, token, `{"a":`), ErrInvalidOutput)
	assert.ErrorIs(t, e.SendTaskSuccess(ctx, token, `"`+strings.Repeat("x", asl.MaxPayloadBytes)+`"`), ErrInvalidOutput)
	require.NoError(t, e.SendTaskSuccess(ctx, token, `{}`), "the rejected calls left the task open")
}

// issueOne runs one callback execution on a new executor with seed and
// returns its token.
func issueOne(t *testing.T, seed int64) string {
	t.Helper()
	tk := &tokens{}
	e := New(Options{Seed: seed, Invoker: funcInvoker{"wait": tk.invoke}})
	startCallback(t, e, asltest.Wrap(callbackTask("wait", `,"End":true`)), `{}`)
	return tk.last(t)
}

func mustDecode(t *testing.T, token string) []byte {
	t.Helper()
	b, err := base64.StdEncoding.DecodeString(token)
	require.NoError(t, err)
	return b
}

func TestCallbackConcurrentSendTaskSuccess(t *testing.T) {
	tk := &tokens{}
	e := New(Options{Invoker: funcInvoker{"wait": tk.invoke}})
	ctx := context.Background()
	arn := startCallback(t, e, asltest.Wrap(callbackTask("wait", `,"End":true`)), `{}`)
	token := tk.last(t)

	errs := make([]error, 100)
	var wg sync.WaitGroup
	for i := range errs {
		wg.Go(func() { errs[i] = e.SendTaskSuccess(ctx, token, `{"winner":true}`) })
	}
	wg.Wait()
	won := 0
	for _, err := range errs {
		if err == nil {
			won++
			continue
		}
		assert.ErrorIs(t, err, ErrTaskTimedOut)
	}
	assert.Equal(t, 1, won, "exactly one SendTaskSuccess settles the token")
	require.NoError(t, e.Run(ctx))
	x, h := describe(t, e, arn)
	require.Equal(t, Succeeded, x.Status)
	assert.Len(t, eventsOf(h, "TaskSucceeded"), 1)
}

func TestCallbackFromInsideHandlers(t *testing.T) {
	var e *Executor
	tk := &tokens{}
	e = New(Options{Invoker: funcInvoker{
		"wait": tk.invoke,
		// self calls back with its own token before returning.
		"self": func(ctx context.Context, p []byte) (Invocation, error) {
			var in struct{ Token string }
			if err := json.Unmarshal(p, &in); err != nil {
				return Invocation{}, err
			}
			if err := e.SendTaskSuccess(ctx, in.Token, `"self"`); err != nil {
				return Invocation{}, err
			}
			Delay(ctx, 3*time.Second)
			return Invocation{Payload: []byte(`{}`)}, nil
		},
		// release settles the token it is given, 5 s into its run.
		"release": func(ctx context.Context, p []byte) (Invocation, error) {
			var in struct{ Token string }
			if err := json.Unmarshal(p, &in); err != nil {
				return Invocation{}, err
			}
			Delay(ctx, 5*time.Second)
			return Invocation{Payload: []byte(`{}`)}, e.SendTaskSuccess(ctx, in.Token, `"released"`)
		},
	}})

	self, h := runMachine(t, e, asltest.Wrap(`{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke.waitForTaskToken",
		"Parameters":{"FunctionName":"self","Payload":{"Token.$":"$$.Task.Token"}},"End":true}`), `{}`)
	require.Equal(t, Succeeded, self.Status, self.Cause)
	assert.JSONEq(t, `"self"`, string(self.Output))
	assert.Equal(t, 3*time.Second, self.StopDate.Sub(self.StartDate), "applied when the invocation returns")
	assert.Equal(t, []string{"ExecutionStarted", "TaskStateEntered", "TaskScheduled", "TaskStarted", "TaskSubmitted", "TaskSucceeded", "TaskStateExited", "ExecutionSucceeded"}, eventTypes(h))

	waiting := startCallback(t, e, asltest.Wrap(callbackTask("wait", `,"End":true`)), `{}`)
	releaser, _ := runMachine(t, e, asltest.Wrap(`{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke",
		"Parameters":{"FunctionName":"release","Payload":{"Token":"`+tk.last(t)+`"}},"End":true}`), `{}`)
	require.Equal(t, Succeeded, releaser.Status, releaser.Cause)
	x, _ := describe(t, e, waiting)
	require.Equal(t, Succeeded, x.Status, x.Cause)
	assert.JSONEq(t, `"released"`, string(x.Output))
	assert.Equal(t, releaser.StartDate.Add(5*time.Second), x.StopDate, "resumes at the virtual instant of the call")
}

func TestCallbackTaskTokenOnlyInCallbackParameters(t *testing.T) {
	e := New(Options{Invoker: funcInvoker{"echo": func(_ context.Context, p []byte) (Invocation, error) { return Invocation{Payload: p}, nil }}})
	x, _ := runMachine(t, e, asltest.Wrap(`{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke","Parameters":{"FunctionName":"echo","Payload":{"t.$":"$$.Task.Token"}},"End":true}`), `{}`)
	assert.Equal(t, asl.StatesRuntime, x.Error)
	assert.Contains(t, x.Cause, "Task")

	tk := &tokens{}
	e = New(Options{Invoker: funcInvoker{"wait": tk.invoke}})
	arn := startCallback(t, e, asltest.Wrap(callbackTask("wait", `,"ResultSelector":{"t.$":"$$.Task.Token"},"End":true`)), `{}`)
	require.NoError(t, e.SendTaskSuccess(context.Background(), tk.last(t), `{}`))
	require.NoError(t, e.Run(context.Background()))
	x, _ = describe(t, e, arn)
	assert.Equal(t, asl.StatesRuntime, x.Error, "the token is not in ResultSelector's context object")
}

func TestCallbackScaledClock(t *testing.T) {
	tk := &tokens{}
	e := New(Options{Scaled: scaledClock(t, 1000), Invoker: funcInvoker{"wait": tk.invoke}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = e.Run(ctx) }()
	arn, err := e.CreateStateMachine(ctx, "rt", asltest.Wrap(callbackTask("wait", `,"TimeoutSeconds":3600,"HeartbeatSeconds":60,"End":true`)), "")
	require.NoError(t, err)

	status := func(x Execution) func() bool {
		return func() bool {
			got, err := e.DescribeExecution(ctx, x.ARN)
			return err == nil && got.Status != Running
		}
	}
	ok, err := e.StartExecution(ctx, arn, "answered", `{}`)
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		h, err := e.History(ctx, ok.ARN)
		return err == nil && len(eventsOf(h, "TaskSubmitted")) == 1
	}, 5*time.Second, time.Millisecond)
	require.NoError(t, e.SendTaskHeartbeat(ctx, tk.last(t)))
	require.NoError(t, e.SendTaskSuccess(ctx, tk.last(t), `{"rt":1}`))
	require.Eventually(t, status(ok), 5*time.Second, time.Millisecond)
	got, err := e.DescribeExecution(ctx, ok.ARN)
	require.NoError(t, err)
	assert.Equal(t, Succeeded, got.Status)

	silent, err := e.StartExecution(ctx, arn, "silent", `{}`)
	require.NoError(t, err)
	require.Eventually(t, status(silent), 5*time.Second, time.Millisecond) // 60 s scaled to 60 ms
	got, err = e.DescribeExecution(ctx, silent.ARN)
	require.NoError(t, err)
	assert.Equal(t, asl.StatesTimeout, got.Error)
}

// TestCallbackTokensReplay checks that a seed replays the same tokens and
// that each attempt's token is unique.
func TestCallbackTokensReplay(t *testing.T) {
	run := func() []string {
		tk := &tokens{}
		e := New(Options{Invoker: funcInvoker{"wait": tk.invoke}})
		ctx := context.Background()
		arn, err := e.CreateStateMachine(ctx, "replay", asltest.Wrap(callbackTask("wait", `,"TimeoutSeconds":1,"Retry":[{"ErrorEquals":["States.Timeout"],"MaxAttempts":2}],"End":true`)), "")
		require.NoError(t, err)
		for range 3 {
			_, err := e.StartExecution(ctx, arn, "", `{}`)
			require.NoError(t, err)
		}
		require.NoError(t, e.Run(ctx))
		return tk.seen
	}
	first := run()
	require.Len(t, first, 9)
	seen := map[string]bool{}
	for _, tok := range first {
		assert.False(t, seen[tok], "token reused")
		seen[tok] = true
	}
	assert.Equal(t, first, run())
}

// Options.Compact issues version 3 tokens, 40 characters, that settle
// their task as the long ones do; one with a changed header or a version
// 2 length is not a token.
func TestCallbackShortToken(t *testing.T) {
	tk := &tokens{}
	e := New(Options{Compact: true, Invoker: funcInvoker{"wait": tk.invoke}})
	arn := startCallback(t, e, asltest.Wrap(callbackTask("wait", `,"End":true`)), `{}`)
	token := tk.last(t)
	require.Len(t, token, 40)
	b, err := base64.StdEncoding.DecodeString(token)
	require.NoError(t, err)
	require.EqualValues(t, shortTokenVersion, b[0])
	other := slices.Clone(b)
	other[12]++ // another attempt
	long := append(slices.Clone(b), make([]byte, tokenBytes-len(b))...)
	for name, forged := range map[string][]byte{"other header": other, "version 2 length": long, "version 2 header": append([]byte{tokenVersion}, b[1:]...)} {
		assert.ErrorIs(t, e.SendTaskSuccess(t.Context(), base64.StdEncoding.EncodeToString(forged), `{}`), ErrInvalidToken, name)
	}
	require.NoError(t, e.SendTaskSuccess(t.Context(), token, `{"v":3}`))
	require.NoError(t, e.Run(t.Context()))
	x, _ := describe(t, e, arn)
	assert.Equal(t, Succeeded, x.Status)
}

// A version 1 token, which states saved before version 2 hold, still
// settles its task; a version 1 token with a version 2 body does not.
func TestCallbackVersion1Token(t *testing.T) {
	tk := &tokens{}
	e := New(Options{Invoker: funcInvoker{"wait": tk.invoke}})
	arn := startCallback(t, e, asltest.Wrap(callbackTask("wait", `,"End":true`)), `{}`)
	b, err := base64.StdEncoding.DecodeString(tk.last(t))
	require.NoError(t, err)
	require.EqualValues(t, tokenVersion, b[0])
	header := append([]byte{1}, b[1:tokenHeader]...)
	forged := base64.StdEncoding.EncodeToString(append(header, b[tokenHeader:]...))
	assert.ErrorIs(t, e.SendTaskSuccess(t.Context(), forged, `{}`), ErrInvalidToken)
	v1 := base64.StdEncoding.EncodeToString(append(header, e.tokenBodyV1(header)...))
	require.NoError(t, e.SendTaskSuccess(t.Context(), v1, `{"v":1}`))
	require.NoError(t, e.Run(t.Context()))
	x, _ := describe(t, e, arn)
	assert.Equal(t, Succeeded, x.Status)
}
