package test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	sfntypes "github.com/aws/aws-sdk-go-v2/service/sfn/types"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/emulate/executor"
	"github.com/redrive/redrive/emulate/local"
	"github.com/redrive/redrive/emulate/simtarget"
	"github.com/redrive/redrive/room"
	"github.com/redrive/redrive/room/release"
)

// taskCall is one SendTaskSuccess a releaser made, and its answer.
type taskCall struct {
	// Token is the task token it sent.
	Token string
	// At is when it was answered (executor time).
	At time.Time
	// Releaser names the releaser copy that made it (see
	// instrumentReleasers).
	Releaser string
	// Err is the answer's error, nil when the execution resumed.
	Err error
}

// taskLog collects the releasers' SendTaskSuccess calls. It is safe for
// concurrent use.
type taskLog struct {
	mu    sync.Mutex
	calls []taskCall
}

func (l *taskLog) add(c taskCall) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.calls = append(l.calls, c)
}

// snapshot returns the calls so far, in the order they were answered.
func (l *taskLog) snapshot() []taskCall {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]taskCall(nil), l.calls...)
}

// timedOut reports an answer that says the task no longer waits on the
// token because it timed out or already closed.
func timedOut(err error) bool {
	_, ok := errors.AsType[*sfntypes.TaskTimedOut](err)
	return ok
}

// recordingTasks is a releaser's Step Functions client: it records every
// SendTaskSuccess and its answer in log. after, when set, runs next,
// with the token (fault injection: a panic there is the releaser dying
// after SendTaskSuccess, before the room's conditional delete).
type recordingTasks struct {
	next     room.TaskAPI
	now      func() time.Time
	releaser string
	after    func(token string)
	log      *taskLog
}

func (r *recordingTasks) SendTaskSuccess(ctx context.Context, in *sfn.SendTaskSuccessInput, optFns ...func(*sfn.Options)) (*sfn.SendTaskSuccessOutput, error) {
	token := aws.ToString(in.TaskToken)
	out, err := r.next.SendTaskSuccess(ctx, in, optFns...)
	r.log.add(taskCall{Token: token, At: r.now(), Releaser: r.releaser, Err: err})
	if r.after != nil {
		r.after(token)
	}
	return out, err
}

// taggedInput is the release state machine's input with the name of the
// releaser copy that runs it; the real handler ignores the extra field.
type taggedInput struct {
	release.Input
	Releaser string `json:"releaser,omitempty"`
}

// taggedOutput is a tick's output with the releaser's name, so that the
// state machine's loop passes it on to the next invocation.
type taggedOutput struct {
	release.Output
	Releaser string `json:"releaser,omitempty"`
}

// instrumentReleasers hosts, as the stack's release function, copies of
// the real release handler, one per name in releasers, each resuming
// executions through its own recordingTasks on log (with after). An
// execution's "releaser" input field picks the copy; the releasers the
// stack starts itself have none and run the copy named "".
func instrumentReleasers(t *testing.T, s *local.Stack, log *taskLog, after func(token string), releasers ...string) {
	t.Helper()
	copies := map[string]*release.Handler{}
	for _, name := range releasers {
		h := *s.Handlers.Release
		h.Tasks = &recordingTasks{next: h.Tasks, now: s.Executor.Now, releaser: name, after: after, log: log}
		copies[name] = &h
	}
	handle := func(ctx context.Context, in taggedInput) (taggedOutput, error) {
		h, ok := copies[in.Releaser]
		if !ok {
			return taggedOutput{}, errors.New("no releaser copy named " + in.Releaser)
		}
		out, err := h.Handle(ctx, in.Input)
		return taggedOutput{Output: out, Releaser: in.Releaser}, err
	}
	require.NoError(t, s.Registry.Register(local.FunctionRelease, handle))
}

// startReleaser starts an execution of the release state machine named
// name with input, as a second, duplicated invocation of a releaser would
// run.
func startReleaser(t *testing.T, s *local.Stack, name string, input taggedInput) {
	t.Helper()
	b, err := json.Marshal(input)
	require.NoError(t, err)
	_, err = s.SFN.StartExecution(t.Context(), &sfn.StartExecutionInput{
		StateMachineArn: aws.String(s.ReleaseARN), Name: aws.String(name), Input: aws.String(string(b)),
	})
	require.NoError(t, err)
}

// releaseExecutions lists the release state machine's executions, oldest
// first.
func releaseExecutions(t *testing.T, s *local.Stack) []executor.Execution {
	t.Helper()
	xs, err := s.Executor.ListExecutions(t.Context(), s.ReleaseARN, "")
	require.NoError(t, err)
	for i, j := 0, len(xs)-1; i < j; i, j = i+1, j-1 {
		xs[i], xs[j] = xs[j], xs[i]
	}
	return xs
}

// countEvents counts the events of type typ in the history of arn.
func countEvents(t *testing.T, s *local.Stack, arn, typ string) int {
	t.Helper()
	history, err := s.Executor.History(t.Context(), arn)
	require.NoError(t, err)
	n := 0
	for _, ev := range history {
		if ev.Type == typ {
			n++
		}
	}
	return n
}

// roomVisit is one stay of an execution in the WaitingRoom state.
type roomVisit struct {
	// Entered and Left are when it entered the state and when its task
	// ended (zero while it waits).
	Entered, Left time.Time
	// Released: a SendTaskSuccess ended it. TimedOut: its TimeoutSeconds.
	Released, TimedOut bool
}

// roomVisits reads the WaitingRoom stays from the history of arn.
func roomVisits(t *testing.T, s *local.Stack, arn string) []roomVisit {
	t.Helper()
	history, err := s.Executor.History(t.Context(), arn)
	require.NoError(t, err)
	var visits []roomVisit
	in := false
	for _, ev := range history {
		switch {
		case ev.Type == "TaskStateEntered":
			raw, err := json.Marshal(ev)
			require.NoError(t, err)
			var doc struct {
				Details struct {
					Name string `json:"name"`
				} `json:"stateEnteredEventDetails"`
			}
			require.NoError(t, json.Unmarshal(raw, &doc))
			in = doc.Details.Name == "WaitingRoom"
			if in {
				visits = append(visits, roomVisit{Entered: ev.Timestamp})
			}
		case in && ev.Type == "TaskSucceeded":
			// The waitroom function's own return is TaskSubmitted; the
			// callback's success is TaskSucceeded.
			visits[len(visits)-1].Released, visits[len(visits)-1].Left = true, ev.Timestamp
			in = false
		case in && ev.Type == "TaskTimedOut":
			visits[len(visits)-1].TimedOut, visits[len(visits)-1].Left = true, ev.Timestamp
			in = false
		}
	}
	return visits
}

// visitsByOrigin returns, per origin id, the redrive executions'
// room visits, oldest execution first.
func visitsByOrigin(t *testing.T, s *local.Stack) map[string][]roomVisit {
	t.Helper()
	out := map[string][]roomVisit{}
	for id, costs := range costsByOrigin(t, s) {
		for _, c := range costs {
			out[id] = append(out[id], roomVisits(t, s, c.Execution.ARN)...)
		}
	}
	return out
}

// deliveredAt returns when each origin id was delivered (its last
// successful delivery).
func deliveredAt(s *local.Stack) map[string]time.Time {
	out := map[string]time.Time{}
	for _, c := range s.Target.Ledger().Calls() {
		for _, r := range c.Records {
			if r.Outcome == simtarget.OutcomeDelivered {
				out[r.OriginID] = c.At
			}
		}
	}
	return out
}

// syncBuffer is a log destination the handlers may write to concurrently.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// releaseTicks adds up the releasers' "release tick" log lines: the
// entries they resumed, and the spent tokens they dropped.
func (b *syncBuffer) releaseTicks(t *testing.T) (released, dropped int) {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	sc := bufio.NewScanner(bytes.NewReader(b.buf.Bytes()))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var line struct {
			Msg      string `json:"message"`
			Released int    `json:"released"`
			Dropped  int    `json:"dropped"`
		}
		if json.Unmarshal(sc.Bytes(), &line) != nil || line.Msg != "release tick" {
			continue
		}
		released += line.Released
		dropped += line.Dropped
	}
	require.NoError(t, sc.Err())
	return released, dropped
}

// String returns what was written so far.
func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
