package executor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/emulate/asl"
	"github.com/redrive/redrive/emulate/asl/asltest"
)

func TestTimelineOrder(t *testing.T) {
	var q timeline
	in := []event{{at: 5, seq: 1}, {at: 1, seq: 2}, {at: 5, seq: 3}, {at: 3, seq: 4}, {at: 1, seq: 5}, {at: 0, seq: 6}}
	for _, ev := range in {
		q.push(ev)
	}
	var got [][2]int64
	for len(q) > 0 {
		ev := q.pop()
		got = append(got, [2]int64{ev.at, int64(ev.seq)})
	}
	assert.Equal(t, [][2]int64{{0, 6}, {1, 2}, {1, 5}, {3, 4}, {5, 1}, {5, 3}}, got)
}

// staleThirds returns a scheduler compacted with n events at every
// instant below n, out of order, of which two in three have gone stale
// since (through gen, which stales the events pushed with it).
func staleThirds(t *testing.T) (s *scheduler, gen *atomic.Uint64, n int) {
	t.Helper()
	s, gen, n = &scheduler{}, &atomic.Uint64{}, 3*minCompaction
	for i := range n {
		at := int64((i * 7919) % n)
		if i%3 == 0 {
			s.queue.push(event{at: at, seq: uint64(i)})
		} else {
			s.queue.push(event{at: at, seq: uint64(i), gen: gen, want: 0})
		}
	}
	s.compact()
	require.Len(t, s.queue, n, "nothing is stale yet")
	gen.Add(1)
	return s, gen, n
}

// assertLiveInOrder pops s's timeline: none stale, in time order.
func assertLiveInOrder(t *testing.T, s *scheduler) {
	t.Helper()
	last := int64(-1)
	for len(s.queue) > 0 {
		ev := s.queue.pop()
		assert.False(t, ev.stale())
		assert.Greater(t, ev.at, last, "in order")
		last = ev.at
	}
}

// TestTimelineCompaction schedules events of which two in three go stale:
// compaction drops them, once the timeline is long enough, and leaves the
// live ones in their order.
func TestTimelineCompaction(t *testing.T) {
	s, gen, n := staleThirds(t)
	s.compact()
	require.Len(t, s.queue, n, "not twice as long as after the last compaction")
	for i := range minCompaction + n {
		s.queue.push(event{at: int64(n + i), seq: uint64(n + i), gen: gen, want: 0})
	}
	s.compact()
	require.Len(t, s.queue, n/3)
	assertLiveInOrder(t, s)
}

// TestTimelineCompactionAfterADrain: a timeline that does not grow is
// compacted once executions as many as half its events have ended, not
// before, and keeps its live events in their order.
func TestTimelineCompactionAfterADrain(t *testing.T) {
	s, _, n := staleThirds(t)
	s.ended.Store(int64(n/2 - 1))
	s.compact()
	require.Len(t, s.queue, n, "fewer ended executions than half the events")
	s.ended.Add(1)
	s.compact()
	require.Len(t, s.queue, n/3)
	assert.Zero(t, s.ended.Load(), "counted afresh")
	assertLiveInOrder(t, s)
}

func TestAtRunsInTimeOrderAndJumpsTheClock(t *testing.T) {
	e := New(Options{})
	start := e.Now()
	var got []string
	for _, d := range []int{30, 10, 20, 10} {
		e.At(start.Add(time.Duration(d)*time.Second), func(context.Context) {
			got = append(got, fmt.Sprintf("%d@%v", d, e.Now().Sub(start)))
		})
	}
	require.NoError(t, e.Run(context.Background()))
	assert.Equal(t, []string{"10@10s", "10@10s", "20@20s", "30@30s"}, got)
	assert.Equal(t, start.Add(30*time.Second), e.Now())
}

func TestRunUntil(t *testing.T) {
	e := New(Options{})
	ctx := context.Background()
	start := e.Now()
	var ran []int
	e.At(start.Add(time.Minute), func(context.Context) { ran = append(ran, 1) })
	e.At(start.Add(time.Hour), func(context.Context) { ran = append(ran, 2) })
	require.NoError(t, e.RunUntil(ctx, start.Add(30*time.Minute)))
	assert.Equal(t, []int{1}, ran)
	assert.Equal(t, start.Add(30*time.Minute), e.Now(), "the clock stays at the limit")
	require.NoError(t, e.RunUntil(ctx, start.Add(10*time.Minute)))
	assert.Equal(t, start.Add(30*time.Minute), e.Now(), "the clock never goes back")
	e.At(start, func(context.Context) { ran = append(ran, 3) })
	require.NoError(t, e.Run(ctx))
	assert.Equal(t, []int{1, 3, 2}, ran, "a time in the past runs next")
}

func TestRunStopsWithContext(t *testing.T) {
	e := New(Options{})
	ctx, cancel := context.WithCancel(context.Background())
	var n int
	var tick func(context.Context)
	tick = func(context.Context) {
		n++
		if n == 5 {
			cancel()
		}
		e.At(e.Now().Add(time.Second), tick)
	}
	e.At(e.Now(), tick)
	assert.ErrorIs(t, e.Run(ctx), context.Canceled)
	assert.Equal(t, 5, n)
}

func TestRunIsNotReentrant(t *testing.T) {
	e := New(Options{})
	var inner error
	e.At(e.Now(), func(ctx context.Context) { inner = e.Run(ctx) })
	require.NoError(t, e.Run(context.Background()))
	assert.True(t, errors.Is(inner, errRunInProgress), "got %v", inner)
}

// TestHandlersCallBackIntoTheExecutor checks re-entrancy: a handler starts
// another execution, describes its own and reads the clock while the loop
// is processing it.
func TestHandlersCallBackIntoTheExecutor(t *testing.T) {
	var e *Executor
	var childARN, selfStatus string
	e = New(Options{Invoker: funcInvoker{"spawn": func(ctx context.Context, p []byte) (Invocation, error) {
		list, err := e.ListExecutions(ctx, e.stateMachineARN("parent"), Running)
		if err != nil || len(list) != 1 {
			return Invocation{}, fmt.Errorf("list: %v %d", err, len(list))
		}
		self, err := e.DescribeExecution(ctx, list[0].ARN)
		if err != nil {
			return Invocation{}, err
		}
		selfStatus = string(self.Status)
		child, err := e.StartExecution(ctx, e.stateMachineARN("child"), "child-1", `{"from":"parent"}`)
		if err != nil {
			return Invocation{}, err
		}
		childARN = child.ARN
		return Invocation{Payload: []byte(`"spawned"`)}, nil
	}}})
	ctx := context.Background()
	_, err := e.CreateStateMachine(ctx, "child", asltest.Wrap(`{"Type":"Wait","Seconds":5,"End":true}`), "")
	require.NoError(t, err)
	parent, err := e.CreateStateMachine(ctx, "parent", asltest.Wrap(invokeTask("spawn", `,"End":true`)), "")
	require.NoError(t, err)
	x, err := e.StartExecution(ctx, parent, "p", "")
	require.NoError(t, err)
	require.NoError(t, e.Run(ctx))
	x, err = e.DescribeExecution(ctx, x.ARN)
	require.NoError(t, err)
	assert.Equal(t, Succeeded, x.Status, x.Cause)
	list, err := e.ListExecutions(ctx, e.stateMachineARN("child"), "")
	require.NoError(t, err)
	require.Len(t, list, 1)
	assert.Equal(t, childARN, list[0].ARN)
	assert.Equal(t, Succeeded, list[0].Status)
	assert.Equal(t, "RUNNING", selfStatus)
}

// TestWorkersRunSameInstantConcurrently runs many executions whose
// handlers meet at a barrier: with Workers > 1 events due at the same
// virtual instant run at once. Under -race this also checks the locking.
func TestWorkersRunSameInstantConcurrently(t *testing.T) {
	const n = 4
	var arrived sync.WaitGroup
	arrived.Add(2)
	var inFlight, maxInFlight atomic.Int32
	release := make(chan struct{})
	var once sync.Once
	e := New(Options{Workers: 2, Invoker: funcInvoker{"meet": func(ctx context.Context, p []byte) (Invocation, error) {
		cur := inFlight.Add(1)
		for {
			m := maxInFlight.Load()
			if cur <= m || maxInFlight.CompareAndSwap(m, cur) {
				break
			}
		}
		if cur == 2 {
			once.Do(func() { close(release) })
		}
		select {
		case <-release:
		case <-time.After(5 * time.Second):
		}
		inFlight.Add(-1)
		Delay(ctx, time.Second)
		return Invocation{Payload: p}, nil
	}}})
	ctx := context.Background()
	arn, err := e.CreateStateMachine(ctx, "w", `{"StartAt":"T","States":{"T":`+invokeTask("meet", `,"Next":"W"`)+`,"W":{"Type":"Wait","Seconds":1,"End":true}}}`, "")
	require.NoError(t, err)
	for i := range n {
		_, err := e.StartExecution(ctx, arn, fmt.Sprintf("x%d", i), fmt.Sprintf(`{"i":%d}`, i))
		require.NoError(t, err)
	}
	require.NoError(t, e.Run(ctx))
	assert.Equal(t, int32(2), maxInFlight.Load(), "two workers ran handlers at the same time")
	list, err := e.ListExecutions(ctx, arn, Succeeded)
	require.NoError(t, err)
	assert.Len(t, list, n)
	for _, x := range list {
		assert.Equal(t, 2*time.Second, x.StopDate.Sub(x.StartDate))
	}
}

func TestDeterministicWithOneWorker(t *testing.T) {
	run := func() []string {
		var calls atomic.Int32
		e := New(Options{Seed: 42, Invoker: funcInvoker{
			"f": failing(&calls, "E", "E", "E", "E", "E", "E"),
			"id": func(ctx context.Context, p []byte) (Invocation, error) {
				Delay(ctx, time.Duration(len(p))*time.Millisecond)
				return Invocation{Payload: p}, nil
			},
		}})
		ctx := context.Background()
		arn, err := e.CreateStateMachine(ctx, "d", `{"StartAt":"A","States":{
			"A":`+invokeTask("id", `,"ResultSelector":{"u.$":"States.UUID()"},"ResultPath":"$.u","Next":"B"`)+`,
			"B":`+invokeTask("f", `,"Retry":[{"ErrorEquals":["E"],"MaxAttempts":1,"JitterStrategy":"FULL","IntervalSeconds":5}],"Catch":[{"ErrorEquals":["States.ALL"],"Next":"C"}],"End":true`)+`,
			"C":{"Type":"Pass","End":true}}}`, "")
		require.NoError(t, err)
		for i := range 20 {
			_, err := e.StartExecution(ctx, arn, "", fmt.Sprintf(`{"pad":"%0*d"}`, i, 0))
			require.NoError(t, err)
		}
		require.NoError(t, e.Run(ctx))
		list, err := e.ListExecutions(ctx, arn, "")
		require.NoError(t, err)
		var out []string
		for _, x := range list {
			out = append(out, fmt.Sprintf("%s %s %s %v", x.Name, x.Status, x.Output, x.StopDate.Sub(x.StartDate)))
		}
		return out
	}
	first := run()
	assert.Len(t, first, 20)
	assert.Equal(t, first, run())
}

func TestScaledClockRunWaitsForWork(t *testing.T) {
	e := New(Options{Scaled: scaledClock(t, 1000), Invoker: funcInvoker{"nap": func(ctx context.Context, p []byte) (Invocation, error) {
		Delay(ctx, 2*time.Second) // 2 ms of wall time at scale 1000
		return Invocation{Payload: p}, nil
	}}})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.Run(ctx) }()

	arn, err := e.CreateStateMachine(ctx, "rt", `{"StartAt":"W","States":{"W":{"Type":"Wait","Seconds":5,"Next":"T"},"T":`+invokeTask("nap", `,"TimeoutSeconds":60,"End":true`)+`}}`, "")
	require.NoError(t, err)
	x, err := e.StartExecution(ctx, arn, "from-another-goroutine", `{"a":1}`)
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		got, err := e.DescribeExecution(ctx, x.ARN)
		return err == nil && got.Status == Succeeded
	}, 5*time.Second, time.Millisecond)
	got, err := e.DescribeExecution(ctx, x.ARN)
	require.NoError(t, err)
	assert.JSONEq(t, `{"a":1}`, mustPayload(t, got.Output))

	select {
	case err := <-done:
		t.Fatalf("Run returned while idle on a scaled clock: %v", err)
	default:
	}
	cancel()
	assert.ErrorIs(t, <-done, context.Canceled)
}

func TestScaledClockTimeout(t *testing.T) {
	e := New(Options{Scaled: scaledClock(t, 1000), Invoker: funcInvoker{"hang": func(ctx context.Context, p []byte) (Invocation, error) {
		Delay(ctx, time.Hour)
		return Invocation{Payload: p}, nil
	}}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = e.Run(ctx) }()
	arn, err := e.CreateStateMachine(ctx, "rt", asltest.Wrap(invokeTask("hang", `,"TimeoutSeconds":1,"End":true`)), "")
	require.NoError(t, err)
	x, err := e.StartExecution(ctx, arn, "", "")
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		got, err := e.DescribeExecution(ctx, x.ARN)
		return err == nil && got.Status == Failed && got.Error == "States.Timeout"
	}, 5*time.Second, time.Millisecond)
}

// mustPayload returns the Payload member of a lambda:invoke result.
func mustPayload(t *testing.T, out []byte) string {
	t.Helper()
	v, err := asl.DecodeJSON(out)
	require.NoError(t, err)
	m, ok := v.(map[string]any)
	require.True(t, ok, "output %s", out)
	payload, err := json.Marshal(m["Payload"])
	require.NoError(t, err)
	return string(payload)
}
