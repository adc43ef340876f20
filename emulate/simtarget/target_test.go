package simtarget_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/breaker/breakertest"
	"github.com/redrive/redrive/emulate/executor"
	"github.com/redrive/redrive/emulate/simtarget"
)

func TestNewRejectsBadOptions(t *testing.T) {
	now := breakertest.NewClock(t0)
	tests := []struct {
		name string
		opts simtarget.Options
		want string
	}{
		{"no clock", simtarget.Options{}, "Clock is required"},
		{"negative capacity", simtarget.Options{Clock: now, Capacity: -1}, "Capacity -1 is negative"},
		{"negative latency", simtarget.Options{Clock: now, Latency: -time.Second}, "Latency -1s is negative"},
		{"bad schedule", simtarget.Options{Clock: now, Schedule: simtarget.Schedule{{From: t0, Health: simtarget.Degraded}}},
			"phase 0: DEGRADED needs an ErrorRate"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := simtarget.New(tt.opts)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestHealthyDeliversAndCountsByOrigin(t *testing.T) {
	h := host(t, simtarget.Options{})
	assert.Equal(t, result{}, h.invoke(t, record("m-1", "a")))
	assert.Equal(t, result{}, h.invoke(t, redriven("m-2", "b", "origin-1")))
	assert.Equal(t, result{}, h.invoke(t, redriven("m-3", "b", "origin-1")))

	l := h.target.Ledger()
	assert.Equal(t, map[string]int{"m-1": 1, "origin-1": 2}, l.Deliveries())
	assert.Equal(t, 3, l.Count(simtarget.OutcomeDelivered))
	assert.Equal(t, 3, l.CallsWhile(simtarget.Healthy))
	require.Len(t, l.Calls(), 3)
	assert.Equal(t, simtarget.Record{MessageID: "m-2", OriginID: "origin-1", Outcome: simtarget.OutcomeDelivered}, l.Calls()[1].Records[0])
}

func TestMalformedLineageCountsUnderMessageID(t *testing.T) {
	h := host(t, simtarget.Options{})
	r := redriven("m-1", "a", "x")
	bad := "{not json"
	r.MessageAttributes["redrive"] = events.SQSMessageAttribute{DataType: "String", StringValue: &bad}
	assert.Equal(t, result{}, h.invoke(t, r))
	assert.Equal(t, map[string]int{"m-1": 1}, h.target.Ledger().Deliveries())
}

func TestCapacityThrottlesPerVirtualSecond(t *testing.T) {
	h := host(t, simtarget.Options{Capacity: 3})
	var got []string
	for i := range 5 {
		got = append(got, h.invoke(t, record(fmt.Sprint("a", i), "x")).errorType)
	}
	assert.Equal(t, []string{"", "", "", "Throttled", "Throttled"}, got)

	h.clock.Set(t0.Add(999 * time.Millisecond))
	assert.Equal(t, "Throttled", h.invoke(t, record("b", "x")).errorType, "same second")
	h.clock.Set(t0.Add(time.Second))
	assert.Empty(t, h.invoke(t, record("c", "x")).errorType, "next second")

	l := h.target.Ledger()
	assert.Equal(t, 3, l.Count(simtarget.OutcomeThrottled))
	assert.Equal(t, 4, l.Count(simtarget.OutcomeDelivered))
	assert.Equal(t, 6, l.PeakRate())
	assert.Equal(t, map[time.Time]int{t0: 6, t0.Add(time.Second): 1}, l.PerSecond())
}

func TestScheduleDrivesHealth(t *testing.T) {
	down := t0.Add(time.Minute)
	h := host(t, simtarget.Options{Schedule: simtarget.Outage(down, 10*time.Minute)})
	steps := []struct {
		at        time.Time
		wantType  string
		wantState simtarget.Health
	}{
		{t0, "", simtarget.Healthy},
		{down.Add(-time.Nanosecond), "", simtarget.Healthy},
		{down, "Unavailable", simtarget.Down},
		{down.Add(5 * time.Minute), "Unavailable", simtarget.Down},
		{down.Add(10 * time.Minute), "", simtarget.Healthy},
	}
	for i, s := range steps {
		h.clock.Set(s.at)
		assert.Equal(t, s.wantType, h.invoke(t, record(fmt.Sprint("m", i), "x")).errorType, "step %d", i)
	}
	l := h.target.Ledger()
	assert.Equal(t, 2, l.CallsWhile(simtarget.Down))
	assert.Equal(t, 2, l.CallsBetween(down, down.Add(10*time.Minute)))
	assert.Equal(t, 2, l.Count(simtarget.OutcomeUnavailable))
	assert.Empty(t, l.Deliveries()["m2"])
}

func TestScheduleValidate(t *testing.T) {
	tests := []struct {
		name string
		s    simtarget.Schedule
		want string
	}{
		{"empty", nil, ""},
		{"outage", simtarget.Outage(t0, time.Hour), ""},
		{"zero from", simtarget.Schedule{{Health: simtarget.Down}}, "phase 0: From is zero"},
		{"out of order", simtarget.Schedule{{From: t0, Health: simtarget.Down}, {From: t0}}, "phase 1: From 2026-01-01T00:00:00Z is not after phase 0's"},
		{"unknown health", simtarget.Schedule{{From: t0, Health: 7}}, "phase 0: unknown health 7"},
		{"rate above 1", simtarget.Schedule{{From: t0, Health: simtarget.Degraded, ErrorRate: 1.5}}, "ErrorRate in (0, 1], got 1.5"},
		{"rate when down", simtarget.Schedule{{From: t0, Health: simtarget.Down, ErrorRate: 0.5}}, "ErrorRate 0.5 is only for DEGRADED, not DOWN"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.s.Validate()
			if tt.want == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestDegradedFailsAtItsRateReproducibly(t *testing.T) {
	const calls = 2000
	schedule := simtarget.Schedule{{From: t0, Health: simtarget.Degraded, ErrorRate: 0.3}}
	run := func(seed uint64) []string {
		h := host(t, simtarget.Options{Schedule: schedule, Seed: seed})
		var types []string
		for i := range calls {
			types = append(types, h.invoke(t, record(fmt.Sprint(i), "x")).errorType)
		}
		assert.Equal(t, calls, h.target.Ledger().CallsWhile(simtarget.Degraded))
		return types
	}
	first := run(7)
	failed := 0
	for _, typ := range first {
		if typ != "" {
			assert.Equal(t, "Unavailable", typ)
			failed++
		}
	}
	// 30% of 2000 is 600, with a standard deviation of about 20.
	assert.InDelta(t, 600, failed, 100)
	assert.Equal(t, first, run(7), "same seed, same failures")
	assert.NotEqual(t, first, run(8), "another seed, other failures")
}

func TestPoisonAndRejectedMessages(t *testing.T) {
	h := host(t, simtarget.Options{
		Poison: simtarget.BodyContains("POISON"),
		Reject: simtarget.BodyContains("FLAKY"),
	})
	assert.Equal(t, "PoisonMessage", h.invoke(t, record("p", `{"x":"POISON"}`)).errorType)
	assert.Equal(t, "Rejected", h.invoke(t, record("f", "FLAKY")).errorType)
	assert.Equal(t, "Rejected", h.invoke(t, record("f", "FLAKY")).errorType, "every time")
	assert.Empty(t, h.invoke(t, record("ok", "fine")).errorType)

	l := h.target.Ledger()
	assert.Equal(t, 1, l.Count(simtarget.OutcomePoison))
	assert.Equal(t, 2, l.Count(simtarget.OutcomeRejected))
	assert.Equal(t, map[string]int{"ok": 1}, l.Deliveries())
}

func TestBatchReportsFailedRecords(t *testing.T) {
	h := host(t, simtarget.Options{Poison: simtarget.BodyContains("POISON"), Capacity: 1})
	got := h.invoke(t, record("a", "ok"), record("b", "POISON"), record("c", "ok"))
	assert.Equal(t, result{failures: []string{"b"}}, got)
	assert.Equal(t, map[string]int{"a": 1, "c": 1}, h.target.Ledger().Deliveries())

	got = h.invoke(t, record("d", "ok"), record("e", "ok"))
	assert.Equal(t, "Throttled", got.errorType, "a whole invocation over capacity fails")
	assert.Equal(t, 2, h.target.Ledger().Count(simtarget.OutcomeThrottled))
}

func TestEmptyEventIsAnError(t *testing.T) {
	h := host(t, simtarget.Options{})
	_, err := h.target.Handle(context.Background(), events.SQSEvent{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "event has no records")
	assert.Empty(t, h.target.Ledger().Calls())
}

func TestLatencyIsExecutorTime(t *testing.T) {
	reg := executor.NewRegistry()
	e := executor.New(executor.Options{Invoker: reg})
	target, err := simtarget.New(simtarget.Options{Clock: e, Latency: 90 * time.Second})
	require.NoError(t, err)
	require.NoError(t, reg.Register("consumer", target.Handle))
	sm, err := e.CreateStateMachine(context.Background(), "deliver", `{
		"StartAt": "Deliver",
		"States": {"Deliver": {"Type": "Task", "Resource": "arn:aws:states:::lambda:invoke",
			"Parameters": {"FunctionName": "consumer", "Payload.$": "$"}, "End": true}}}`,
		"arn:aws:iam::123456789012:role/sim")
	require.NoError(t, err)
	x, err := e.StartExecution(context.Background(), sm, "one", `{"Records":[{"messageId":"m","body":"b"}]}`)
	require.NoError(t, err)

	wall := time.Now()
	require.NoError(t, e.Run(context.Background()))
	assert.Less(t, time.Since(wall), 90*time.Second, "latency is not spent in wall time")
	done, err := e.DescribeExecution(context.Background(), x.ARN)
	require.NoError(t, err)
	assert.Equal(t, executor.Succeeded, done.Status)
	assert.Equal(t, 90*time.Second, done.StopDate.Sub(done.StartDate))
	require.Len(t, target.Ledger().Calls(), 1)
	assert.Equal(t, done.StartDate, target.Ledger().Calls()[0].At, "the call arrives before its latency")
}

func TestConcurrentCallsRespectCapacity(t *testing.T) {
	const goroutines, each, capacity = 32, 20, 50
	h := host(t, simtarget.Options{Capacity: capacity})
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for i := range each {
				h.invoke(t, record(fmt.Sprintf("%d-%d", g, i), "x"))
			}
		})
	}
	wg.Wait()
	l := h.target.Ledger()
	assert.Len(t, l.Calls(), goroutines*each)
	assert.Equal(t, capacity, l.Count(simtarget.OutcomeDelivered), "one virtual second admits Capacity calls")
	assert.Equal(t, goroutines*each-capacity, l.Count(simtarget.OutcomeThrottled))
	assert.Len(t, l.Deliveries(), capacity)
}

func TestNames(t *testing.T) {
	assert.Equal(t, "DEGRADED", simtarget.Degraded.String())
	assert.Equal(t, "Health(9)", simtarget.Health(9).String())
	assert.Equal(t, "REJECTED", simtarget.OutcomeRejected.String())
	assert.Equal(t, "Outcome(-1)", simtarget.Outcome(-1).String())
}

func TestErrorMessages(t *testing.T) {
	tests := []struct {
		err  error
		want string
	}{
		{&simtarget.Throttled{Capacity: 5, Second: t0}, "simtarget: throttled: over capacity of 5 calls per second at 2026-01-01T00:00:00Z"},
		{&simtarget.Unavailable{Health: simtarget.Down}, "simtarget: downstream unavailable (DOWN)"},
		{&simtarget.PoisonMessage{MessageID: "m-1"}, `simtarget: message "m-1" is poison`},
		{&simtarget.Rejected{MessageID: "m-2"}, `simtarget: message "m-2" rejected (transient)`},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%T", tt.err), func(t *testing.T) {
			assert.Equal(t, tt.want, tt.err.Error())
		})
	}
}

func TestScheduleFromTheFirstCall(t *testing.T) {
	h := host(t, simtarget.Options{Schedule: simtarget.Outage(t0, 2*time.Minute), FromFirstCall: true})
	h.clock.Set(t0.Add(10 * time.Minute)) // the outage would be over, were it not waiting for traffic
	assert.Equal(t, "Unavailable", h.invoke(t, record("m-1", "{}")).errorType, "the outage starts at the first call")
	h.clock.Set(t0.Add(11 * time.Minute))
	assert.Equal(t, "Unavailable", h.invoke(t, record("m-2", "{}")).errorType)
	h.clock.Set(t0.Add(12 * time.Minute))
	assert.Empty(t, h.invoke(t, record("m-3", "{}")).errorType, "and lasts its 2 minutes")
}

func TestKeepCallsBoundsTheLedger(t *testing.T) {
	h := host(t, simtarget.Options{KeepCalls: 10})
	for i := range 25 {
		h.invoke(t, record(fmt.Sprintf("m-%d", i), "{}"))
	}
	calls := h.target.Ledger().Calls()
	assert.LessOrEqual(t, len(calls), 20)
	assert.GreaterOrEqual(t, len(calls), 10)
	assert.Equal(t, "m-24", calls[len(calls)-1].Records[0].MessageID, "the latest calls are kept")
}

func TestTallyTakesEveryCallInsteadOfTheLedger(t *testing.T) {
	var tallied []simtarget.Call
	h := host(t, simtarget.Options{Capacity: 1, Tally: func(c simtarget.Call) { tallied = append(tallied, c) }})
	h.invoke(t, record("m-1", "{}"))
	h.invoke(t, redriven("m-2", "{}", "origin-1"))
	assert.Empty(t, h.target.Ledger().Calls(), "the ledger keeps nothing")
	assert.Equal(t, []simtarget.Call{
		{At: t0, Health: simtarget.Healthy, Records: []simtarget.Record{{MessageID: "m-1", OriginID: "m-1", Outcome: simtarget.OutcomeDelivered}}},
		{At: t0, Health: simtarget.Healthy, Records: []simtarget.Record{{MessageID: "m-2", OriginID: "origin-1", Outcome: simtarget.OutcomeThrottled}}},
	}, tallied, "every call, in order, as the ledger would have it")
}
