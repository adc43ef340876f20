package local_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/emulate/local"
)

// lockedBuffer is a bytes.Buffer the stack's handlers may write to at once.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// A function's log line carries one time, the stack's clock (here the
// virtual one, years from the wall clock's): the time the handler read, as
// the row it wrote shows, and no second time of another clock beside it.
func TestFunctionsLogOnTheStacksClock(t *testing.T) {
	start0 := time.Date(2031, 7, 1, 9, 0, 0, 0, time.UTC)
	logs := &lockedBuffer{}
	s := start(t, local.Options{Start: start0, Logs: logs})

	out, err := s.Admin(t.Context(), map[string]string{"command": "open", "breaker": "orders", "reason": "maintenance", "actor": "alice"})
	require.NoError(t, err)
	at := out.After.ChangedAt
	require.WithinDuration(t, start0, at, time.Minute, "precondition: the handler read the stack's clock")

	seen := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewBufferString(logs.String()))
	for sc.Scan() {
		var line map[string]any
		if json.Unmarshal(sc.Bytes(), &line) != nil || (line["message"] != "breaker command" && line["message"] != "breaker state change") {
			continue // a metric line, or another function's
		}
		seen[line["message"].(string)] = true
		assert.Equal(t, at.Format(time.RFC3339Nano), line["timestamp"], "%s", sc.Text())
		assert.NotContains(t, line, "at", "one time per line: %s", sc.Text())
		assert.NotContains(t, line, "time", "%s", sc.Text())
	}
	assert.Equal(t, map[string]bool{"breaker command": true, "breaker state change": true}, seen,
		"the admin function's audit line and its breaker's state change: %s", logs.String())
}

// overlapWriter records its lines and whether two Writes ever overlapped.
type overlapWriter struct {
	active, overlaps atomic.Int32
	mu               sync.Mutex
	lines            int
}

func (w *overlapWriter) Write(p []byte) (int, error) {
	if w.active.Add(1) > 1 {
		w.overlaps.Add(1)
	}
	runtime.Gosched() // a slow writer: a second Write would come in now
	w.mu.Lock()
	w.lines += bytes.Count(p, []byte("\n"))
	w.mu.Unlock()
	w.active.Add(-1)
	return len(p), nil
}

// The stack's functions write to Options.Logs one at a time, whatever the
// writer: many executions at once never interleave their lines.
func TestLogsAreWrittenOneLineAtATime(t *testing.T) {
	logs := &overlapWriter{}
	s := start(t, local.Options{Workers: 8, Logs: logs})
	_, err := s.SendToDLQ(t.Context(), messages(40)...)
	require.NoError(t, err)
	require.NoError(t, s.RunUntilDrained(t.Context()))
	logs.mu.Lock()
	defer logs.mu.Unlock()
	assert.Greater(t, logs.lines, 40, "precondition: the functions logged")
	assert.Zero(t, logs.overlaps.Load(), "two writes overlapped")
}
