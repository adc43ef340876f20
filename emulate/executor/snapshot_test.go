package executor

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// restartFunctions are the functions of the restart tests: flaky fails
// with Busy, then Flaky, then answers; job works until 90 s after its
// execution started, wherever it is invoked from, as a job that resumes
// its own progress does; wait records the task token it is given, by
// execution name.
type restartFunctions struct {
	mu     sync.Mutex
	tokens map[string]string
	jobs   atomic.Int32 // invocations of job
}

func (f *restartFunctions) invoker() funcInvoker {
	return funcInvoker{
		"flaky": func(ctx context.Context, p []byte) (Invocation, error) {
			var in struct{ N int }
			if err := json.Unmarshal(p, &in); err != nil {
				return Invocation{}, err
			}
			switch in.N {
			case 0:
				return fnError("Busy", "busy")(ctx, p)
			case 1:
				return fnError("Flaky", "flaky")(ctx, p)
			}
			return Invocation{Payload: p}, nil
		},
		"job": func(ctx context.Context, p []byte) (Invocation, error) {
			f.jobs.Add(1)
			var in struct{ Start string }
			if err := json.Unmarshal(p, &in); err != nil {
				return Invocation{}, err
			}
			start, err := time.Parse(isoMillis, in.Start)
			if err != nil {
				return Invocation{}, err
			}
			Delay(ctx, start.Add(90*time.Second).Sub(clockOf(ctx).Now()))
			return Invocation{Payload: []byte(`{"done":true}`)}, nil
		},
		"wait": func(_ context.Context, p []byte) (Invocation, error) {
			var in struct{ Token, Name string }
			if err := json.Unmarshal(p, &in); err != nil {
				return Invocation{}, err
			}
			f.mu.Lock()
			f.tokens[in.Name] = in.Token
			f.mu.Unlock()
			return Invocation{Payload: []byte(`{"submitted":true}`)}, nil
		},
	}
}

// token is the latest task token of the execution called name.
func (f *restartFunctions) token(name string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.tokens[name]
}

// The state machines of the restart tests, by name.
var restartMachines = map[string]string{
	"waits": `{"StartAt":"W","States":{"W":{"Type":"Wait","Seconds":60,"Next":"U"},` + uuidPass + `}}`,
	"retries": `{"StartAt":"T","States":{"T":{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke",
		"Parameters":{"FunctionName":"flaky","Payload":{"n.$":"$$.State.RetryCount"}},"ResultSelector":{"n.$":"$.Payload.n"},
		"Retry":[{"ErrorEquals":["Busy"],"IntervalSeconds":45,"BackoffRate":1},{"ErrorEquals":["Flaky"],"IntervalSeconds":30,"JitterStrategy":"FULL"}],
		"Next":"U"},` + uuidPass + `}}`,
	"callbacks": `{"StartAt":"T","States":{"T":{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke.waitForTaskToken",
		"Parameters":{"FunctionName":"wait","Payload":{"token.$":"$$.Task.Token","name.$":"$$.Execution.Name"}},
		"TimeoutSeconds":3600,"HeartbeatSeconds":200,"Next":"U"},` + uuidPass + `}}`,
	"jobs": `{"StartAt":"T","States":{"T":{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke",
		"Parameters":{"FunctionName":"job","Payload":{"start.$":"$$.Execution.StartTime"}},"TimeoutSeconds":300,"Next":"U"},` + uuidPass + `}}`,
	"bounded": `{"TimeoutSeconds":500,"StartAt":"W","States":{"W":{"Type":"Wait","Seconds":1000,"End":true}}}`,
}

// uuidPass is a state U drawing on the execution's randomness.
const uuidPass = `"U":{"Type":"Pass","Parameters":{"id.$":"States.UUID()","in.$":"$"},"End":true}`

// playRestart runs the executions of the restart test on the virtual
// clock: at 30 s, while they wait in every way an execution can, the
// executor is snapshotted and restored if restart is set. It returns what
// every execution ended as (description and history, as JSON) by ARN,
// and the clock at the end.
func playRestart(t *testing.T, restart bool) (map[string]string, time.Time) {
	ctx := context.Background()
	fns := &restartFunctions{tokens: map[string]string{}}
	opts := Options{Invoker: fns.invoker()}
	e := New(opts)
	start := e.Now()
	arns := map[string]string{}
	for _, name := range slices.Sorted(maps.Keys(restartMachines)) {
		arn, err := e.CreateStateMachine(ctx, name, restartMachines[name], "arn:aws:iam::123456789012:role/test")
		require.NoError(t, err, name)
		arns[name] = arn
	}
	for _, x := range [][2]string{{"waits", "w"}, {"retries", "r"}, {"callbacks", "answered"}, {"callbacks", "silent"}, {"callbacks", "early"}, {"jobs", "j"}, {"bounded", "b"}} {
		_, err := e.StartExecution(ctx, arns[x[0]], x[1], `{"x":"`+x[1]+`"}`)
		require.NoError(t, err)
	}
	require.NoError(t, e.RunUntil(ctx, start.Add(30*time.Second)))
	require.NoError(t, e.SendTaskSuccess(ctx, fns.token("early"), `{"early":true}`))
	_, err := e.StartExecution(ctx, arns["waits"], "late", `{}`)
	require.NoError(t, err)

	if restart {
		var buf bytes.Buffer
		require.NoError(t, e.Snapshot(&buf))
		assert.Equal(t, map[string]string{
			"w": "wait", "r": "retry", "answered": "", "silent": "", "early": "outcome", "j": "call", "b": "wait", "late": "start",
		}, resumeKindsIn(t, buf.Bytes()), "the executions wait in every way there is")
		e.Close()
		e, err = Restore(&buf, opts)
		require.NoError(t, err)
		defer e.Close()
	}

	_, err = e.StartExecution(ctx, arns["waits"], "", `{}`) // a name from the executor's randomness
	require.NoError(t, err)
	require.NoError(t, e.RunUntil(ctx, start.Add(150*time.Second)))
	require.NoError(t, e.SendTaskHeartbeat(ctx, fns.token("answered")))
	require.NoError(t, e.RunUntil(ctx, start.Add(300*time.Second)))
	require.NoError(t, e.SendTaskSuccess(ctx, fns.token("answered"), `{"v":1}`))
	require.NoError(t, e.Run(ctx))
	if restart {
		assert.EqualValues(t, 2, fns.jobs.Load(), "the job in flight was invoked again")
	}

	out := map[string]string{}
	for _, arn := range arns {
		xs, err := e.ListExecutions(ctx, arn, "")
		require.NoError(t, err)
		for _, x := range xs {
			h, err := e.History(ctx, x.ARN)
			require.NoError(t, err)
			times := make([]time.Time, len(h))
			for i, ev := range h {
				times[i] = ev.Timestamp
			}
			b, err := json.Marshal(struct {
				X Execution
				H []Event
				T []time.Time // to the nanosecond
			}{x, h, times})
			require.NoError(t, err)
			out[x.ARN] = string(b)
		}
	}
	return out, e.Now()
}

// resumeKindsIn returns the continuation kind of each running execution
// of a snapshot, by name ("" for one waiting for its task token).
func resumeKindsIn(t *testing.T, b []byte) map[string]string {
	var snap snapshot
	require.NoError(t, json.Unmarshal(b, &snap))
	kinds := map[string]string{}
	for _, x := range snap.Executions {
		if x.Run == nil {
			continue
		}
		kinds[x.Name] = ""
		if x.Run.Resume != nil {
			kinds[x.Name] = x.Run.Resume.Kind
		}
	}
	return kinds
}

func TestRestoreContinuesAVirtualRunAsIfUninterrupted(t *testing.T) {
	want, wantEnd := playRestart(t, false)
	got, gotEnd := playRestart(t, true)
	assert.Equal(t, want, got)
	assert.Equal(t, wantEnd, gotEnd)

	status := map[string]Status{}
	for _, doc := range want {
		var x struct{ X Execution }
		require.NoError(t, json.Unmarshal([]byte(doc), &x))
		status[x.X.Name] = x.X.Status
		if x.X.Name == "silent" {
			assert.Equal(t, "States.Timeout", x.X.Error, "its heartbeat timed out after the restart")
		}
	}
	assert.Len(t, status, 9, "with the one started after the restart")
	for name, want := range map[string]Status{"w": Succeeded, "r": Succeeded, "answered": Succeeded, "silent": Failed, "early": Succeeded, "j": Succeeded, "b": TimedOut, "late": Succeeded} {
		assert.Equal(t, want, status[name], name)
	}
}

func TestRestoreOnAScaledClock(t *testing.T) {
	fns := &restartFunctions{tokens: map[string]string{}}
	opts := Options{Scaled: scaledClock(t, 100), Invoker: fns.invoker()}
	e := New(opts)
	ctx, stop := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() { ran <- e.Run(ctx) }()
	var arns []string
	for _, x := range [][2]string{{"callbacks", "cb"}, {"waits", "w"}} {
		sm, err := e.CreateStateMachine(ctx, x[0], restartMachines[x[0]], "")
		require.NoError(t, err)
		x, err := e.StartExecution(ctx, sm, x[1], `{}`)
		require.NoError(t, err)
		arns = append(arns, x.ARN)
	}
	waitsFor := func(e *Executor, arn, event string) func() bool {
		return func() bool {
			h, err := e.History(ctx, arn)
			return err == nil && len(eventsOf(h, event)) > 0
		}
	}
	require.Eventually(t, waitsFor(e, arns[0], "TaskSubmitted"), 5*time.Second, time.Millisecond)
	require.Eventually(t, waitsFor(e, arns[1], "WaitStateEntered"), 5*time.Second, time.Millisecond)
	stop()
	require.ErrorIs(t, <-ran, context.Canceled)
	var buf bytes.Buffer
	require.NoError(t, e.Snapshot(&buf))
	require.Equal(t, map[string]string{"cb": "", "w": "wait"}, resumeKindsIn(t, buf.Bytes()))
	e.Close()

	opts.Scaled = scaledClock(t, 100) // a new process's clock
	e, err := Restore(&buf, opts)
	require.NoError(t, err)
	defer e.Close()
	ctx, stop = context.WithCancel(context.Background())
	defer stop()
	go func() { ran <- e.Run(ctx) }()
	require.NoError(t, e.SendTaskSuccess(ctx, fns.token("cb"), `{"after":"restart"}`), "the token survives the restart")
	for _, arn := range arns {
		require.Eventually(t, waitsFor(e, arn, "ExecutionSucceeded"), 5*time.Second, time.Millisecond) // 60 s scaled to 0.6 s
	}
	x, _ := describe(t, e, arns[0])
	var out struct{ In map[string]string }
	require.NoError(t, json.Unmarshal(x.Output, &out))
	assert.Equal(t, map[string]string{"after": "restart"}, out.In)
	_, h := describe(t, e, arns[1])
	entered, exited := eventsOf(h, "WaitStateEntered")[0], eventsOf(h, "WaitStateExited")[0]
	assert.GreaterOrEqual(t, exited.Timestamp.Sub(entered.Timestamp), time.Minute, "the Wait ended at its time, on the restored clock")
	stop()
	require.ErrorIs(t, <-ran, context.Canceled)
}

func TestRestoreRejectsOtherAndCorruptSnapshots(t *testing.T) {
	ctx := context.Background()
	fns := &restartFunctions{tokens: map[string]string{}}
	e := New(Options{Invoker: fns.invoker()})
	for _, x := range [][2]string{{"callbacks", "cb"}, {"waits", "w"}} {
		sm, err := e.CreateStateMachine(ctx, x[0], restartMachines[x[0]], "")
		require.NoError(t, err)
		_, err = e.StartExecution(ctx, sm, x[1], `{}`)
		require.NoError(t, err)
	}
	require.NoError(t, e.RunUntil(ctx, e.Now().Add(30*time.Second)))
	var buf bytes.Buffer
	require.NoError(t, e.Snapshot(&buf))
	valid := buf.Bytes()
	_, err := Restore(bytes.NewReader(valid), Options{})
	require.NoError(t, err, "the snapshot the cases alter is valid")

	execution := func(snap map[string]any, i int) map[string]any {
		return snap["executions"].([]any)[i].(map[string]any)
	}
	run := func(snap map[string]any, i int) map[string]any { return execution(snap, i)["run"].(map[string]any) }
	for _, tt := range []struct {
		name  string
		text  string               // the snapshot, if not the valid one altered
		alter func(map[string]any) // alters the valid one
		opts  Options              // the options restoring it
		want  string
	}{
		{name: "not JSON", text: `{"format":`, want: "snapshot is not valid JSON"},
		{name: "not an object", text: `[1]`, want: "snapshot is a JSON array, not an object"},
		{name: "no format", text: `{"executions":[]}`, want: `snapshot has no format field: this executor reads "statemachine/local.snapshot/v1"`},
		{name: "another version", alter: func(s map[string]any) { s["format"] = "statemachine/local.snapshot/v2" },
			want: `snapshot format "statemachine/local.snapshot/v2" is not supported: this executor reads "statemachine/local.snapshot/v1"`},
		{name: "another kind", text: `{"format":"sqslocal.snapshot/v1","queues":[]}`, want: `snapshot format "sqslocal.snapshot/v1" is not supported`},
		{name: "unknown field", alter: func(s map[string]any) { s["paused"] = true }, want: `malformed snapshot: json: unknown field "paused"`},
		{name: "another seed", opts: Options{Seed: 2}, want: "snapshot is of seed 1, which keys its task tokens; the options' is 2"},
		{name: "another account", opts: Options{Account: "210987654321"}, want: `snapshot is of account "123456789012" in region "us-east-1", the options name account "210987654321"`},
		{name: "bad random state", alter: func(s map[string]any) { s["rng"] = "AAAA" }, want: "rng: "},
		{name: "invalid definition", alter: func(s map[string]any) {
			s["stateMachines"].([]any)[0].(map[string]any)["definition"] = `{"StartAt":"X"}`
		}, want: `state machine "callbacks": executor: invalid state machine definition`},
		{name: "no state machine", alter: func(s map[string]any) { execution(s, 1)["stateMachine"] = "gone" },
			want: `execution "w" of state machine "gone": its state machine is not in the snapshot`},
		{name: "twice", alter: func(s map[string]any) { s["executions"] = append(s["executions"].([]any), execution(s, 1)) },
			want: `execution "w" of state machine "waits": the snapshot holds it twice`},
		{name: "unknown status", alter: func(s map[string]any) { execution(s, 1)["status"] = "PAUSED" }, want: `status "PAUSED" is not an execution status`},
		{name: "running without its run", alter: func(s map[string]any) { delete(execution(s, 1), "run") }, want: "a running execution needs its run and its history"},
		{name: "unknown state", alter: func(s map[string]any) { run(s, 1)["state"] = "Nap" }, want: `state "Nap" is not in its definition`},
		{name: "forged token", alter: func(s map[string]any) {
			cb := run(s, 0)["callback"].(map[string]any)
			cb["token"] = "B" + cb["token"].(string)[1:]
		}, want: `execution "cb" of state machine "callbacks": callback: the task token is not one the execution issued`},
		{name: "unknown continuation", alter: func(s map[string]any) { run(s, 1)["resume"].(map[string]any)["kind"] = "nap" },
			want: `continuation kind "nap" is not one of ["start" "wait" "retry" "outcome" "call"]`},
		{name: "misplaced continuation", alter: func(s map[string]any) { run(s, 1)["resume"].(map[string]any)["kind"] = "retry" },
			want: `a "retry" continuation does not apply in state "W"`},
		{name: "no continuation", alter: func(s map[string]any) { delete(run(s, 1), "resume") }, want: "it waits for nothing: no continuation, no task token"},
		{name: "event out of sequence", alter: func(s map[string]any) {
			run(s, 1)["resume"].(map[string]any)["timer"].(map[string]any)["seq"] = 999
		}, want: `wait event: seq 999 is not in the snapshot's sequence 1-`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			text := []byte(tt.text)
			if tt.text == "" {
				var snap map[string]any
				require.NoError(t, json.Unmarshal(valid, &snap))
				if tt.alter != nil {
					tt.alter(snap)
				}
				var err error
				text, err = json.Marshal(snap)
				require.NoError(t, err)
			}
			e, err := Restore(bytes.NewReader(text), tt.opts)
			assert.Nil(t, e)
			require.ErrorContains(t, err, tt.want)
			assert.Regexp(t, `^executor: restore: `, err.Error())
		})
	}
}

func TestSnapshotWaitsForTheLoopAndTheExecutor(t *testing.T) {
	e := New(Options{})
	var during error
	e.At(e.Now(), func(context.Context) { during = e.Snapshot(&bytes.Buffer{}) })
	require.NoError(t, e.Run(context.Background()))
	assert.ErrorIs(t, during, errRunInProgress, "not while the loop runs")
	require.NoError(t, e.Snapshot(&bytes.Buffer{}), "between runs")
	e.Close()
	assert.ErrorIs(t, e.Snapshot(&bytes.Buffer{}), ErrClosed)
}

func TestSnapshotHoldsWhatTheExecutorHolds(t *testing.T) {
	ctx := context.Background()
	opts := Options{Retention: time.Minute, FinishedHistories: 1}
	e := New(opts)
	start := e.Now()
	sm, err := e.CreateStateMachine(ctx, "pass", `{"StartAt":"P","States":{"P":{"Type":"Pass","End":true}}}`, "")
	require.NoError(t, err)
	arns := map[string]string{}
	for _, x := range []struct {
		name string
		at   time.Duration
	}{{"evicted", 0}, {"described", 100 * time.Second}, {"kept", 110 * time.Second}} {
		require.NoError(t, e.RunUntil(ctx, start.Add(x.at)))
		got, err := e.StartExecution(ctx, sm, x.name, `{}`)
		require.NoError(t, err)
		arns[x.name] = got.ARN
	}
	require.NoError(t, e.RunUntil(ctx, start.Add(130*time.Second)))
	_, want := describe(t, e, arns["kept"])
	var buf bytes.Buffer
	require.NoError(t, e.Snapshot(&buf))
	e, err = Restore(&buf, opts)
	require.NoError(t, err)
	assert.Equal(t, start.Add(130*time.Second), e.Now(), "the virtual clock continues from the snapshot")

	_, err = e.DescribeExecution(ctx, arns["evicted"])
	assert.ErrorIs(t, err, ErrExecutionDoesNotExist, "evicted by Retention, it is not in the snapshot")
	_, err = e.History(ctx, arns["described"])
	assert.ErrorIs(t, err, ErrHistoryEvicted)
	_, got := describe(t, e, arns["kept"])
	wantJSON, err := json.Marshal(want)
	require.NoError(t, err)
	gotJSON, err := json.Marshal(got)
	require.NoError(t, err)
	assert.JSONEq(t, string(wantJSON), string(gotJSON))

	require.NoError(t, e.RunUntil(ctx, start.Add(165*time.Second)))
	_, err = e.DescribeExecution(ctx, arns["described"])
	assert.ErrorIs(t, err, ErrExecutionDoesNotExist, "the restored executor goes on evicting")
	_, err = e.DescribeExecution(ctx, arns["kept"])
	assert.NoError(t, err)
}
