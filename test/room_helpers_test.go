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
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/emulate/executor"
	"github.com/redrive/redrive/emulate/local"
	"github.com/redrive/redrive/emulate/simtarget"
	"github.com/redrive/redrive/message"
	"github.com/redrive/redrive/room"
	"github.com/redrive/redrive/room/release"
	"github.com/redrive/redrive/test/roomtest"
)

// startCall is one StartExecution a controller made for a released room
// entry, and its answer.
type startCall struct {
	// OriginID, Attempt and Runs are the released document's.
	OriginID      string
	Attempt, Runs int
	// At is when it was answered (executor time).
	At time.Time
	// Releaser names the controller copy that made it (see
	// instrumentReleasers).
	Releaser string
	// Err is the answer's error, nil when the execution started.
	Err error
}

// startLog collects the controllers' StartExecution calls. It is safe for
// concurrent use.
type startLog struct {
	mu    sync.Mutex
	calls []startCall
}

func (l *startLog) add(c startCall) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.calls = append(l.calls, c)
}

// snapshot returns the calls so far, in the order they were answered.
func (l *startLog) snapshot() []startCall {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]startCall(nil), l.calls...)
}

// started counts, per origin id, the executions the controllers started.
func (l *startLog) started() map[string]int {
	out := map[string]int{}
	for _, c := range l.snapshot() {
		if c.Err == nil {
			out[c.OriginID]++
		}
	}
	return out
}

// startFaults are the faults a recordingStarts injects.
type startFaults struct {
	// fail, when set, is asked before each start: an error it returns is
	// the start's answer, and nothing is started.
	fail func(startCall) error
	// after, when set, runs after each start that succeeded (a panic
	// there is the controller dying after the start, before the room's
	// conditional delete).
	after func(startCall)
}

// recordingStarts is a controller's Step Functions client for the
// released entries: it records every StartExecution and its answer in
// log, with faults.
type recordingStarts struct {
	next     room.StartAPI
	now      func() time.Time
	releaser string
	faults   startFaults
	log      *startLog
}

func (r *recordingStarts) StartExecution(ctx context.Context, in *sfn.StartExecutionInput, optFns ...func(*sfn.Options)) (*sfn.StartExecutionOutput, error) {
	var doc message.Document
	if err := json.Unmarshal([]byte(aws.ToString(in.Input)), &doc); err != nil {
		return nil, err
	}
	c := startCall{OriginID: doc.OriginID, Attempt: doc.Attempt, Runs: doc.Runs, At: r.now(), Releaser: r.releaser}
	var out *sfn.StartExecutionOutput
	var err error
	if r.faults.fail != nil {
		err = r.faults.fail(c)
	}
	if err == nil {
		out, err = r.next.StartExecution(ctx, in, optFns...)
	}
	c.Err = err
	r.log.add(c)
	if r.faults.after != nil && err == nil {
		r.faults.after(c)
	}
	return out, err
}

// taggedInput is the release state machine's input with the name of the
// controller copy that runs it; the real handler ignores the extra field.
type taggedInput struct {
	release.Input
	Releaser string `json:"releaser,omitempty"`
}

// taggedOutput is a tick's output with the controller's name, so that the
// state machine's loop passes it on to the next invocation.
type taggedOutput struct {
	release.Output
	Releaser string `json:"releaser,omitempty"`
}

// instrumentReleasers hosts, as the stack's release function, copies of
// the real release handler, one per name in releasers, each starting the
// released entries' executions through its own recordingStarts on log
// (with faults). An execution's "releaser" input field picks the copy; the
// controllers the stack starts itself have none and run the copy named "".
func instrumentReleasers(t *testing.T, s *local.Stack, log *startLog, faults startFaults, releasers ...string) {
	t.Helper()
	copies := map[string]*release.Handler{}
	for _, name := range releasers {
		h := *s.Handlers.Release
		h.Releaser.SFN = &recordingStarts{next: h.Releaser.SFN, now: s.Executor.Now, releaser: name, faults: faults, log: log}
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
// name with input, as a second, duplicated invocation of a controller
// would run.
func startReleaser(t *testing.T, s *local.Stack, name string, input taggedInput) {
	t.Helper()
	b, err := json.Marshal(input)
	require.NoError(t, err)
	_, err = s.SFN.StartExecution(t.Context(), &sfn.StartExecutionInput{
		StateMachineArn: aws.String(s.ReleaseARN), Name: aws.String(name), Input: aws.String(string(b)),
	})
	require.NoError(t, err)
}

// releaseExecutions lists the release state machine's executions (the
// controllers), oldest first.
func releaseExecutions(t *testing.T, s *local.Stack) []executor.Execution {
	t.Helper()
	xs, err := s.Executor.ListExecutions(t.Context(), s.ReleaseARN, "")
	require.NoError(t, err)
	for i, j := 0, len(xs)-1; i < j; i, j = i+1, j-1 {
		xs[i], xs[j] = xs[j], xs[i]
	}
	return xs
}

// runningControllers counts the controllers running now.
func runningControllers(t *testing.T, s *local.Stack) int {
	t.Helper()
	xs, err := s.Executor.ListExecutions(t.Context(), s.ReleaseARN, executor.Running)
	require.NoError(t, err)
	return len(xs)
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

// How an execution of the attempt state machine ended, read from its
// output (Express keeps no history).
const (
	endDelivered = "Delivered"
	endQueued    = "Queued"
	endParked    = "Parked"
	endRunning   = "Running"
	endFailed    = "Failed"
)

// try is one execution of the attempt state machine: one delivery try, or
// a few within its short backoff.
type try struct {
	executor.Execution
	// Runs is its document's run (0 for the starter's execution, n for
	// the n-th release from the room).
	Runs int
	// End is how it ended (the end constants).
	End string
}

// triesByOrigin returns the attempt state machine's executions per origin
// id (every sent message has an entry), oldest first. It reads what the
// executor lists, so it works on Express executions too.
func triesByOrigin(t *testing.T, s *local.Stack) map[string][]try {
	t.Helper()
	xs, err := s.Executor.ListExecutions(t.Context(), s.RedriveARN, "")
	require.NoError(t, err)
	out := map[string][]try{}
	for _, m := range s.Sent() {
		out[m.ID] = nil
	}
	for i := len(xs) - 1; i >= 0; i-- {
		x := xs[i]
		var in message.Document
		require.NoError(t, json.Unmarshal(x.Input, &in), "input of %s", x.Name)
		tr := try{Execution: x, Runs: in.Runs, End: endOf(t, x)}
		out[in.OriginID] = append(out[in.OriginID], tr)
	}
	return out
}

// endOf tells how x ended from its status and output.
func endOf(t *testing.T, x executor.Execution) string {
	t.Helper()
	switch x.Status {
	case executor.Running:
		return endRunning
	case executor.Succeeded:
	default:
		return endFailed
	}
	var out struct {
		Next   string          `json:"next"`
		Queued json.RawMessage `json:"queued"`
	}
	require.NoError(t, json.Unmarshal(x.Output, &out), "output of %s", x.Name)
	switch {
	case len(out.Queued) > 0:
		return endQueued
	case out.Next == string(message.NextDone):
		return endDelivered
	}
	return endParked
}

// ends lists how each of tries ended.
func ends(tries []try) []string {
	out := make([]string, len(tries))
	for i, tr := range tries {
		out[i] = tr.End
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

// ticks is what the controllers' "release tick" log lines add up to.
type ticks struct {
	Released, Skipped, Failed int
}

// releaseTicks adds up the controllers' "release tick" log lines: the
// entries they released, those another release had, and the releases
// that failed.
func (b *syncBuffer) releaseTicks(t *testing.T) ticks {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	sc := bufio.NewScanner(bytes.NewReader(b.buf.Bytes()))
	sc.Buffer(nil, 1<<20)
	var sum ticks
	for sc.Scan() {
		var line struct {
			Msg      string `json:"message"`
			Released int    `json:"released"`
			Skipped  int    `json:"skipped"`
			Failed   int    `json:"failed"`
		}
		if json.Unmarshal(sc.Bytes(), &line) != nil || line.Msg != "release tick" {
			continue
		}
		sum.Released += line.Released
		sum.Skipped += line.Skipped
		sum.Failed += line.Failed
	}
	require.NoError(t, sc.Err())
	return sum
}

// String returns what was written so far.
func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// inRoom returns the documents waiting in key's room, by origin id, read
// through the stack's own DynamoDB client (not counted in Stats): listed
// through the room's index, each document read from its item (the index
// does not hold it).
func inRoom(t *testing.T, s *local.Stack, key string) map[string]message.Document {
	t.Helper()
	entries := roomtest.Waiting(t, s.DynamoDB, s.Table, room.New(s.DynamoDB, s.Table, time.Hour), key, 100000)
	out := map[string]message.Document{}
	for _, e := range entries {
		doc, err := message.ParseDocument(e.Document)
		require.NoError(t, err, "the document of %s", e.MessageID)
		_, twice := out[doc.OriginID]
		require.False(t, twice, "message %s has two entries in the room", doc.OriginID)
		out[doc.OriginID] = doc
	}
	return out
}

// assertWaiting checks that each message of ids waits in key's room as a
// document, and that no execution of it runs: waiting costs no execution.
func assertWaiting(t *testing.T, s *local.Stack, key string, ids []string) {
	t.Helper()
	held := inRoom(t, s, key)
	tries := triesByOrigin(t, s)
	for _, id := range ids {
		_, ok := held[id]
		assert.True(t, ok, "message %s waits in the room", id)
		for _, tr := range tries[id] {
			assert.NotEqual(t, endRunning, tr.End, "message %s: no execution of it runs while it waits (%s)", id, tr.Name)
		}
	}
}
