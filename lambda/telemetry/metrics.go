package telemetry

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/clock"
)

// Namespace and Dimension name where the metrics go in CloudWatch.
const (
	Namespace = "Redrive"
	Dimension = "Breaker"
)

// Name is a count metric.
type Name string

// The count metrics, per breaker.
const (
	// Delivered counts messages the target accepted.
	Delivered Name = "Delivered"
	// Transient counts deliveries that failed in a way that counts toward
	// the breaker.
	Transient Name = "Transient"
	// Poison counts deliveries that failed because of the message itself.
	Poison Name = "Poison"
	// Parked counts messages sent to the parking lot.
	Parked Name = "Parked"
	// Trips counts transitions to OPEN.
	Trips Name = "Trips"
	// Closes counts recoveries: the canaries closed the breaker.
	Closes Name = "Closes"
	// Canaries counts canary deliveries in HALF_OPEN.
	Canaries Name = "Canaries"
	// Waits counts attempts told to wait by the breaker or the backoff.
	Waits Name = "Waits"
	// Queued counts messages sent to the waiting room.
	Queued Name = "Queued"
	// Paced counts fresh arrivals the starter paced into the room.
	Paced Name = "Paced"
	// Throttled counts deliveries the target throttled.
	Throttled Name = "Throttled"
	// Released counts messages the breaker's controller released from the
	// room (an Express execution started for each).
	Released Name = "Released"
	// Duplicates counts DLQ messages whose execution already existed.
	Duplicates Name = "Duplicates"
	// StartThrottled counts StartExecution calls refused for throttling.
	StartThrottled Name = "StartThrottled"
	// UnrecordedOutcomes counts delivery outcomes the Attempt knew but
	// could not store, on the delivery record or on the breaker row, after
	// retrying: the message was routed by the outcome all the same.
	UnrecordedOutcomes Name = "UnrecordedOutcomes"
	// TableUnavailable counts Attempts the table failed before they could
	// deliver; they wait the table out up to TABLE_RETRY_BUDGET.
	TableUnavailable Name = "TableUnavailable"
	// UnknownOutcomes counts deliveries taken over from an Attempt that
	// died while its consumer call was in flight.
	UnknownOutcomes Name = "UnknownOutcomes"
	// ParkIndexFailed counts parked messages the parking lot's index
	// could not record: they are in the lot, but `redrive parked` does
	// not show them.
	ParkIndexFailed Name = "ParkIndexFailed"
	// Quarantined counts messages a routing rule parked.
	Quarantined Name = "Quarantined"
	// Held counts Attempts a routing rule held.
	Held Name = "Held"
	// Delayed counts Attempts a routing rule's delay made wait.
	Delayed Name = "Delayed"
	// ReleaserNotStarted counts breaker controllers that could not be
	// started (the pace row's lease or StartExecution failed) by the
	// starter, the Queue task or an Attempt: the room waits for the next
	// entry, or the starter's look at a stalled room, to start one.
	ReleaserNotStarted Name = "ReleaserNotStarted"
)

// StateMetric is the gauge of a breaker's state, written on every state
// change with the value StateValue gives.
const StateMetric = "BreakerState"

// StateValue is the BreakerState value of s, ordered by how much traffic
// is held back: 0 CLOSED, 1 HALF_OPEN, 2 OPEN, 3 FORCED_OPEN, 4
// FORCED_CLOSED; -1 for a state that is none of them.
func StateValue(s breaker.State) int64 {
	switch s {
	case breaker.Closed:
		return 0
	case breaker.HalfOpen:
		return 1
	case breaker.Open:
		return 2
	case breaker.ForcedOpen:
		return 3
	case breaker.ForcedClosed:
		return 4
	}
	return -1
}

// Metrics writes EMF lines to one writer, each with one Write call. It is
// safe for concurrent use, and Count does not allocate.
type Metrics struct {
	log   *slog.Logger
	clock clock.Clock

	mu  sync.Mutex
	w   io.Writer
	buf []byte
	err error
}

// NewMetrics returns Metrics writing to w (stdout in Lambda), logging
// state changes to log and reading the time from clk; nil means io.Discard,
// no logging and clock.Wall.
func NewMetrics(w io.Writer, log *slog.Logger, clk clock.Clock) *Metrics {
	if w == nil {
		w = io.Discard
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if clk == nil {
		clk = clock.Wall
	}
	return &Metrics{w: w, log: log, clock: clk, buf: make([]byte, 0, 512)}
}

// Count writes one line adding n to the metric name of breaker key.
func (m *Metrics) Count(key string, name Name, n int64) {
	m.emit(key, m.clock.Now(), metric{name: string(name), unit: unitCount, value: n})
}

// OnTransition reports a breaker state change: one log line (warning when
// the breaker stops traffic) and one metric line with BreakerState, plus
// Trips on a trip or Closes on a recovery. Pass it as breaker.Options.Observer.
// The log line's one time is the logger's (see JSONLoggerOn), on the
// clock the breaker read; the metric line is stamped with the change's.
func (m *Metrics) OnTransition(t breaker.Transition) {
	level := slog.LevelInfo
	if t.To == breaker.Open || t.To == breaker.ForcedOpen {
		level = slog.LevelWarn
	}
	m.log.LogAttrs(context.Background(), level, "breaker state change",
		slog.String("breaker", t.Key),
		slog.String("from", t.From.String()),
		slog.String("to", t.To.String()),
		slog.String("cause", t.Cause),
		slog.Int64("generation", t.Generation),
	)
	state := metric{name: StateMetric, unit: unitNone, value: StateValue(t.To)}
	switch {
	case t.To == breaker.Open:
		m.emit(t.Key, t.At, state, metric{name: string(Trips), unit: unitCount, value: 1})
	case t.To == breaker.Closed && t.Cause == breaker.CauseCanarySuccesses:
		m.emit(t.Key, t.At, state, metric{name: string(Closes), unit: unitCount, value: 1})
	default:
		m.emit(t.Key, t.At, state)
	}
}

// Err returns the first error the writer returned, if any: metrics never
// fail a task, but a broken writer should be noticed.
func (m *Metrics) Err() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.err
}

// emit writes one EMF line for key at time at.
func (m *Metrics) emit(key string, at time.Time, metrics ...metric) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.buf = appendLine(m.buf[:0], key, at, metrics)
	if _, err := m.w.Write(m.buf); err != nil && m.err == nil {
		m.err = err
	}
}
