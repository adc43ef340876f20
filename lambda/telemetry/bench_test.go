package telemetry_test

import (
	"io"
	"testing"

	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/breaker/breakertest"
	"github.com/redrive/redrive/lambda/telemetry"
)

// BenchmarkCount is the cost on every Attempt: one EMF line.
func BenchmarkCount(b *testing.B) {
	m := telemetry.NewMetrics(io.Discard, nil, breakertest.NewClock(t0))
	b.ReportAllocs()
	for b.Loop() {
		m.Count("orders", telemetry.Delivered, 1)
	}
}

// BenchmarkOnTransition is the cost of a state change: a log line and an
// EMF line.
func BenchmarkOnTransition(b *testing.B) {
	m := telemetry.NewMetrics(io.Discard, telemetry.JSONLogger(io.Discard), nil)
	tr := breaker.Transition{Key: "orders", From: breaker.Closed, To: breaker.Open, Generation: 3, Cause: breaker.CauseFailureRate, At: t0}
	b.ReportAllocs()
	for b.Loop() {
		m.OnTransition(tr)
	}
}
