package executor_test

// Conformance cases: golden files under testdata/conformance, one case per
// file, each transcribed from AWS Step Functions documentation and naming
// its source. TestConformance runs every case on the local executor;
// TestConformanceStepFunctionsLocal (sfnlocal_test.go) runs the same files
// against Step Functions Local. Run one case with
//
//	go test ./emulate/executor/ -run 'TestConformance/NAME$'
//
// where NAME is the file name without ".json". A file is one JSON object;
// unknown members are an error:
//
//	{
//	  "source":      "<doc URL> <section>",       required
//	  "description": "what the case shows",        required
//	  "definition":  {ASL},                        required
//	  "input":       <JSON>,                       default {}
//	  "expect": {                                  required unless loadError
//	    "status":        "SUCCEEDED" | "FAILED" | "TIMED_OUT",
//	    "output":        <JSON>,                   required for (and only for) SUCCEEDED; compared as JSON
//	    "error":         "...",                    exact execution error (may be "")
//	    "cause":         "...",                    exact execution cause
//	    "causeContains": "..."                     substring of the cause (not with cause)
//	  },
//	  "expectStates":               ["A", "B"],    the *StateEntered events' state names, in order
//	  "expectDurationSeconds":      N,             virtual seconds from start to stop (±1 ms)
//	  "expectDurationBelowSeconds": N,             virtual seconds from start to stop are < N
//	  "expectInvocations":          {"Fn": N},     invocations of each named test function
//	  "expectTransitions":          N,             state transitions as AWS bills them
//	  "callbacks": [                               task token calls, run on the virtual clock
//	    {"atSeconds": N,                           virtual seconds from the start
//	     "send": "SendTaskSuccess" | "SendTaskFailure" | "SendTaskHeartbeat",
//	     "output": <JSON>,                         SendTaskSuccess's output (required there only)
//	     "error": "...", "cause": "...",           SendTaskFailure's (optional)
//	     "expectError": "TaskTimedOut"}            the API error the call gets (default: none)
//	  ],
//	  "loadError": "substring" | ["substring", ...]
//	}
//
// A callback sends the latest task token the Callback test function was
// given (its payload's "token" member).
// A case with loadError (and no expect) passes when CreateStateMachine
// rejects the definition with executor.ErrInvalidDefinition and a message
// containing every substring (the state and the field at fault).
//
// Every case runs on a fresh executor in virtual time, starting at
// conformanceStart with a fixed seed: state machine "stateMachineName",
// execution "executionName", role conformanceRole, so the context object is
// known. Task resources name the test functions (conformanceFunctions) as
// arn:aws:lambda:us-east-1:123456789012:function:<Name>, directly or as the
// FunctionName of arn:aws:states:::lambda:invoke.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/lambda/messages"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/emulate/executor"
)

const (
	conformanceDir          = "testdata/conformance"
	conformanceStateMachine = "stateMachineName"
	conformanceExecution    = "executionName"
	conformanceRole         = "arn:aws:iam::123456789012:role/service-role/StepFunctionsConformanceRole"
	conformanceSeed         = 7
	// conformanceMinCases guards against a glob that silently finds nothing.
	conformanceMinCases = 60
)

// conformanceStart is the virtual clock's start for every case: before the
// Wait state page's example timestamp, with milliseconds so that the
// context object's ISO 8601 times are unambiguous.
var conformanceStart = time.Date(2016, 3, 14, 1, 0, 0, 123e6, time.UTC)

// conformanceCase is one golden file (see the format above).
type conformanceCase struct {
	name string

	Source                     string          `json:"source"`
	Description                string          `json:"description"`
	Definition                 json.RawMessage `json:"definition"`
	Input                      json.RawMessage `json:"input"`
	Expect                     *expectation    `json:"expect"`
	ExpectStates               []string        `json:"expectStates"`
	ExpectDurationSeconds      *float64        `json:"expectDurationSeconds"`
	ExpectDurationBelowSeconds *float64        `json:"expectDurationBelowSeconds"`
	ExpectInvocations          map[string]int  `json:"expectInvocations"`
	ExpectTransitions          *int            `json:"expectTransitions"`
	Callbacks                  []callbackCall  `json:"callbacks"`
	LoadError                  substrings      `json:"loadError"`
}

// callbackCall is one SendTask* call of a case.
type callbackCall struct {
	AtSeconds   float64         `json:"atSeconds"`
	Send        string          `json:"send"`
	Output      json.RawMessage `json:"output"`
	Error       string          `json:"error"`
	Cause       string          `json:"cause"`
	ExpectError string          `json:"expectError"`
}

// callbackErrors are the API errors a callback may expect, by name.
var callbackErrors = map[string]error{
	"InvalidToken":     executor.ErrInvalidToken,
	"TaskDoesNotExist": executor.ErrTaskDoesNotExist,
	"TaskTimedOut":     executor.ErrTaskTimedOut,
	"InvalidOutput":    executor.ErrInvalidOutput,
}

// validate checks a callback's members.
func (cb callbackCall) validate() error {
	if _, ok := callbackErrors[cb.ExpectError]; cb.ExpectError != "" && !ok {
		return fmt.Errorf("callbacks: expectError %q is not one of the SendTask* errors", cb.ExpectError)
	}
	switch {
	case cb.AtSeconds < 0:
		return errors.New("callbacks: atSeconds must not be negative")
	case cb.Send == "SendTaskSuccess" && len(cb.Output) == 0:
		return errors.New("callbacks: SendTaskSuccess needs output")
	case cb.Send != "SendTaskSuccess" && len(cb.Output) > 0:
		return fmt.Errorf("callbacks: output is for SendTaskSuccess, not %s", cb.Send)
	case cb.Send != "SendTaskFailure" && (cb.Error != "" || cb.Cause != ""):
		return fmt.Errorf("callbacks: error and cause are for SendTaskFailure, not %s", cb.Send)
	case cb.Send != "SendTaskSuccess" && cb.Send != "SendTaskFailure" && cb.Send != "SendTaskHeartbeat":
		return fmt.Errorf("callbacks: send %q is not SendTaskSuccess, SendTaskFailure or SendTaskHeartbeat", cb.Send)
	}
	return nil
}

// call makes the callback on e with token.
func (cb callbackCall) call(ctx context.Context, e *executor.Executor, token string) error {
	switch cb.Send {
	case "SendTaskSuccess":
		return e.SendTaskSuccess(ctx, token, string(cb.Output))
	case "SendTaskFailure":
		return e.SendTaskFailure(ctx, token, cb.Error, cb.Cause)
	}
	return e.SendTaskHeartbeat(ctx, token)
}

// schedule puts c's callbacks on e's timeline, from start.
func (c conformanceCase) schedule(t *testing.T, e *executor.Executor, start time.Time, fns *conformanceFunctions) {
	for _, cb := range c.Callbacks {
		at := start.Add(time.Duration(cb.AtSeconds * float64(time.Second)))
		e.At(at, func(ctx context.Context) {
			err := cb.call(ctx, e, fns.lastToken())
			if cb.ExpectError == "" {
				assert.NoError(t, err, "%s at %vs", cb.Send, cb.AtSeconds)
				return
			}
			assert.ErrorIs(t, err, callbackErrors[cb.ExpectError], "%s at %vs", cb.Send, cb.AtSeconds)
		})
	}
}

// expectation is a case's expected end of execution.
type expectation struct {
	Status        executor.Status `json:"status"`
	Output        json.RawMessage `json:"output"`
	Error         *string         `json:"error"`
	Cause         *string         `json:"cause"`
	CauseContains string          `json:"causeContains"`
}

// substrings is loadError: one string or an array of them.
type substrings []string

// UnmarshalJSON accepts "s" or ["s", ...].
func (s *substrings) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*s = substrings{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return fmt.Errorf("loadError must be a string or an array of strings: %w", err)
	}
	*s = many
	return nil
}

// outcome is what an executor reported for one case's execution.
type outcome struct {
	Status      executor.Status
	Output      string
	Error       string
	Cause       string
	States      []string // names from the *StateEntered events, in order
	Duration    time.Duration
	Transitions int // -1 when the executor does not report them
	Invocations map[string]int
}

func TestConformance(t *testing.T) {
	for _, c := range loadConformanceCases(t) {
		t.Run(c.name, func(t *testing.T) { runLocalCase(t, c) })
	}
}

// runLocalCase runs c on a fresh virtual-time executor and checks it.
func runLocalCase(t *testing.T, c conformanceCase) {
	reg, fns := newConformanceRegistry(t)
	e := executor.New(executor.Options{Invoker: reg, Start: conformanceStart, Seed: conformanceSeed})
	// A bound on wall time: a hanging executor fails the case, not the run.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	smARN, err := e.CreateStateMachine(ctx, conformanceStateMachine, string(c.Definition), conformanceRole)
	if len(c.LoadError) > 0 {
		require.Error(t, err, "the definition must be rejected at load")
		assert.ErrorIs(t, err, executor.ErrInvalidDefinition)
		for _, s := range c.LoadError {
			assert.Contains(t, err.Error(), s, "load error must name %q", s)
		}
		return
	}
	require.NoError(t, err, "CreateStateMachine")
	started, err := e.StartExecution(ctx, smARN, conformanceExecution, c.input())
	require.NoError(t, err, "StartExecution")
	c.schedule(t, e, started.StartDate, fns)
	require.NoError(t, e.Run(ctx), "Run")
	ex, err := e.DescribeExecution(ctx, started.ARN)
	require.NoError(t, err, "DescribeExecution")
	events, err := e.History(ctx, started.ARN)
	require.NoError(t, err, "History")

	states, err := enteredStates(events)
	require.NoError(t, err, "read the StateEntered events")
	c.check(t, outcome{
		Status:      ex.Status,
		Output:      string(ex.Output),
		Error:       ex.Error,
		Cause:       ex.Cause,
		States:      states,
		Duration:    ex.StopDate.Sub(ex.StartDate),
		Transitions: ex.Transitions,
		Invocations: fns.invocationCounts(),
	})
	if t.Failed() {
		logHistory(t, events)
	}
}

// loadConformanceCases reads and validates every case file.
func loadConformanceCases(t *testing.T) []conformanceCase {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(conformanceDir, "*.json"))
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(files), conformanceMinCases, "conformance cases in %s", conformanceDir)
	cases := make([]conformanceCase, 0, len(files))
	for _, f := range files {
		c, err := readConformanceCase(f)
		require.NoError(t, err)
		cases = append(cases, c)
	}
	return cases
}

// readConformanceCase decodes one file strictly and checks that it is a
// well-formed case.
func readConformanceCase(file string) (conformanceCase, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return conformanceCase{}, fmt.Errorf("read case: %w", err)
	}
	var c conformanceCase
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return conformanceCase{}, fmt.Errorf("case %s: %w", file, err)
	}
	c.name = strings.TrimSuffix(filepath.Base(file), ".json")
	if err := c.validate(); err != nil {
		return conformanceCase{}, fmt.Errorf("case %s: %w", file, err)
	}
	return c, nil
}

// validate rejects a case file that could not fail or says nothing.
func (c conformanceCase) validate() error {
	switch {
	case c.Source == "":
		return errors.New("source is required")
	case c.Description == "":
		return errors.New("description is required")
	case len(c.Definition) == 0:
		return errors.New("definition is required")
	case len(c.LoadError) > 0 && c.Expect != nil:
		return errors.New("loadError and expect are exclusive")
	case len(c.LoadError) > 0 && len(c.Callbacks) > 0:
		return errors.New("loadError and callbacks are exclusive")
	case len(c.LoadError) > 0:
		if slices.Contains(c.LoadError, "") {
			return errors.New("loadError substrings must not be empty")
		}
		return nil
	case c.Expect == nil:
		return errors.New("expect (or loadError) is required")
	}
	for _, cb := range c.Callbacks {
		if err := cb.validate(); err != nil {
			return err
		}
	}
	x := c.Expect
	switch x.Status {
	case executor.Succeeded:
		if len(x.Output) == 0 {
			return errors.New("expect.output is required for SUCCEEDED")
		}
		if x.Error != nil || x.Cause != nil || x.CauseContains != "" {
			return errors.New("expect.error and cause are for failures")
		}
	case executor.Failed, executor.TimedOut:
		if len(x.Output) > 0 {
			return fmt.Errorf("expect.output is only for SUCCEEDED, not %s", x.Status)
		}
		if x.Error == nil {
			return fmt.Errorf("expect.error is required for %s", x.Status)
		}
		if x.Cause != nil && x.CauseContains != "" {
			return errors.New("expect.cause and causeContains are exclusive")
		}
	default:
		return fmt.Errorf("expect.status %q is not SUCCEEDED, FAILED or TIMED_OUT", x.Status)
	}
	return nil
}

// input is the execution input: {} when the case has none.
func (c conformanceCase) input() string {
	if len(c.Input) == 0 {
		return "{}"
	}
	return string(c.Input)
}

// check compares an outcome with the case's expectations.
func (c conformanceCase) check(t *testing.T, got outcome) {
	t.Helper()
	want := c.Expect
	if !assert.Equal(t, want.Status, got.Status, "status (error %q, cause %q, output %s)", got.Error, got.Cause, got.Output) {
		return
	}
	if len(want.Output) > 0 {
		assert.JSONEq(t, string(want.Output), got.Output, "execution output")
	}
	if want.Error != nil {
		assert.Equal(t, *want.Error, got.Error, "execution error")
	}
	if want.Cause != nil {
		assert.Equal(t, *want.Cause, got.Cause, "execution cause")
	}
	if want.CauseContains != "" {
		assert.Contains(t, got.Cause, want.CauseContains, "execution cause")
	}
	if c.ExpectStates != nil {
		assert.Equal(t, c.ExpectStates, got.States, "states entered, in order")
	}
	if c.ExpectDurationSeconds != nil {
		assert.InDelta(t, *c.ExpectDurationSeconds, got.Duration.Seconds(), 0.001, "virtual seconds from start to stop")
	}
	if c.ExpectDurationBelowSeconds != nil {
		assert.Less(t, got.Duration.Seconds(), *c.ExpectDurationBelowSeconds, "virtual seconds from start to stop")
	}
	for fn, n := range c.ExpectInvocations {
		assert.Equal(t, n, got.Invocations[fn], "invocations of %s", fn)
	}
	if c.ExpectTransitions != nil && got.Transitions >= 0 {
		assert.Equal(t, *c.ExpectTransitions, got.Transitions, "state transitions")
	}
}

// enteredStates lists the state names of the *StateEntered events.
func enteredStates(events []executor.Event) ([]string, error) {
	var names []string
	for _, ev := range events {
		if !strings.HasSuffix(ev.Type, "StateEntered") {
			continue
		}
		b, err := json.Marshal(ev.Details)
		if err != nil {
			return nil, fmt.Errorf("event %d %s: %w", ev.ID, ev.Type, err)
		}
		var d struct {
			Name string `json:"name"`
		}
		if err := json.Unmarshal(b, &d); err != nil {
			return nil, fmt.Errorf("event %d %s details %s: %w", ev.ID, ev.Type, b, err)
		}
		names = append(names, d.Name)
	}
	return names, nil
}

// logHistory prints a failed case's history, one event per line.
func logHistory(t *testing.T, events []executor.Event) {
	t.Helper()
	var sb strings.Builder
	for _, ev := range events {
		b, err := json.Marshal(ev)
		if err != nil {
			b = fmt.Appendf(nil, "%d %s (unmarshalable: %v)", ev.ID, ev.Type, err)
		}
		sb.Write(b)
		sb.WriteByte('\n')
	}
	t.Logf("history:\n%s", sb.String())
}

// conformanceFunctions are the Lambda functions the cases invoke, hosted in
// a executor.Registry with aws-lambda-go's serialisation and error documents.
// Where a documentation example names a function and its output
// (HelloFunction, FailFunction, sleep10), the function here produces that
// output. Each instance counts its own invocations: one per case.
type conformanceFunctions struct {
	mu          sync.Mutex
	invocations map[string]int
	attempts    map[string]int // Flaky's invocations per input key
	token       string         // the latest task token Callback was given
}

// HandledError is FailFunction's error. aws-lambda-go reports a returned
// error's type name, so the task error is "HandledError", as the error
// handling page's FailFunction reports.
type HandledError struct{ Message string }

func (e *HandledError) Error() string { return e.Message }

// blobLimit bounds Blob's output, well over the 256 KiB state payload quota
// and under Lambda's 6 MB response limit.
const blobLimit = 1 << 20

// newConformanceRegistry registers a fresh set of test functions.
func newConformanceRegistry(t testing.TB) (*executor.Registry, *conformanceFunctions) {
	t.Helper()
	f := &conformanceFunctions{invocations: map[string]int{}, attempts: map[string]int{}}
	reg := executor.NewRegistry()
	for name, h := range f.handlers() {
		require.NoError(t, reg.Register(name, f.counted(name, h)), "register %s", name)
	}
	return reg, f
}

// conformanceHandler is the one handler signature the test functions use.
type conformanceHandler func(ctx context.Context, in json.RawMessage) (any, error)

// handlers maps function names to their handlers.
func (f *conformanceFunctions) handlers() map[string]conformanceHandler {
	constant := func(v string) conformanceHandler {
		return func(context.Context, json.RawMessage) (any, error) { return v, nil }
	}
	return map[string]conformanceHandler{
		// The tutorial's function: "Hello, " + event.who + "!".
		"HelloFunction": func(_ context.Context, in json.RawMessage) (any, error) {
			var ev struct {
				Who string `json:"who"`
			}
			if err := json.Unmarshal(in, &ev); err != nil {
				return nil, fmt.Errorf("HelloFunction: decode input: %w", err)
			}
			return "Hello, " + ev.Who + "!", nil
		},
		// Echo returns its payload unchanged.
		"Echo": func(_ context.Context, in json.RawMessage) (any, error) { return in, nil },
		// Add returns val1 + val2, the page's "task returns 7".
		"Add": func(_ context.Context, in json.RawMessage) (any, error) {
			var ev struct {
				Val1 float64 `json:"val1"`
				Val2 float64 `json:"val2"`
			}
			if err := json.Unmarshal(in, &ev); err != nil {
				return nil, fmt.Errorf("Add: decode input: %w", err)
			}
			return ev.Val1 + ev.Val2, nil
		},
		// FailFunction always fails, with the message "error".
		"FailFunction": func(context.Context, json.RawMessage) (any, error) {
			return nil, &HandledError{Message: "error"}
		},
		"Flaky": f.flaky,
		// Callback keeps the task token it is given ({"token": ...}) for
		// the case's callbacks, and returns "Submitted".
		"Callback": func(_ context.Context, in json.RawMessage) (any, error) {
			var ev struct {
				Token string `json:"token"`
			}
			if err := json.Unmarshal(in, &ev); err != nil {
				return nil, fmt.Errorf("Callback: decode input: %w", err)
			}
			f.mu.Lock()
			f.token = ev.Token
			f.mu.Unlock()
			return "Submitted", nil
		},
		// sleep10 takes 10 seconds of virtual time, then returns its input.
		"sleep10": func(ctx context.Context, in json.RawMessage) (any, error) {
			executor.Delay(ctx, 10*time.Second)
			return in, nil
		},
		// Blob returns a string of {"bytes": n} characters.
		"Blob": func(_ context.Context, in json.RawMessage) (any, error) {
			var ev struct {
				Bytes int `json:"bytes"`
			}
			if err := json.Unmarshal(in, &ev); err != nil {
				return nil, fmt.Errorf("Blob: decode input: %w", err)
			}
			if ev.Bytes < 0 || ev.Bytes > blobLimit {
				return nil, fmt.Errorf("Blob: bytes %d outside [0, %d]", ev.Bytes, blobLimit)
			}
			return strings.Repeat("x", ev.Bytes), nil
		},
		// The Choice state page's example tasks.
		"Foo":  constant("Foo"),
		"Zero": constant("Zero"),
		"Bar":  constant("Bar"),
	}
}

// flaky fails its n-th invocation for an input key with the error named
// errors[n] (its errorMessage "attempt n+1 failed"), and returns its input
// once the list is exhausted: {"key": "...", "errors": ["ErrorA", ...]}.
// Error names need not be Go identifiers (java.lang.Exception), so the
// error is aws-lambda-go's own error document type, which it reports as is.
func (f *conformanceFunctions) flaky(_ context.Context, in json.RawMessage) (any, error) {
	var ev struct {
		Key    string   `json:"key"`
		Errors []string `json:"errors"`
	}
	if err := json.Unmarshal(in, &ev); err != nil {
		return nil, fmt.Errorf("Flaky: decode input: %w", err)
	}
	f.mu.Lock()
	n := f.attempts[ev.Key]
	f.attempts[ev.Key] = n + 1
	f.mu.Unlock()
	if n < len(ev.Errors) {
		return nil, messages.InvokeResponse_Error{Type: ev.Errors[n], Message: fmt.Sprintf("attempt %d failed", n+1)}
	}
	return in, nil
}

// counted wraps h to count its invocations under name.
func (f *conformanceFunctions) counted(name string, h conformanceHandler) conformanceHandler {
	return func(ctx context.Context, in json.RawMessage) (any, error) {
		f.mu.Lock()
		f.invocations[name]++
		f.mu.Unlock()
		return h(ctx, in)
	}
}

// lastToken returns the latest task token Callback was given.
func (f *conformanceFunctions) lastToken() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.token
}

// invocationCounts returns a copy of the invocation counts.
func (f *conformanceFunctions) invocationCounts() map[string]int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return maps.Clone(f.invocations)
}
