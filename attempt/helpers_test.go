package attempt_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/attempt"
	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/breaker/breakertest"
	"github.com/redrive/redrive/clock"
	"github.com/redrive/redrive/delivery"
	"github.com/redrive/redrive/delivery/target"
	"github.com/redrive/redrive/dynamo"
	"github.com/redrive/redrive/lambda/telemetry"
	"github.com/redrive/redrive/message"
	"github.com/redrive/redrive/room/pace"
	"github.com/redrive/redrive/room/waitroom"
	"github.com/redrive/redrive/test/roomtest"
)

// t0 is where every test clock starts.
var t0 = time.Date(2026, 5, 4, 10, 0, 0, 0, time.UTC)

// tripping is a jitter-free policy that trips after 3 transient failures
// in a row, cools down for a minute and closes on one canary success.
var tripping = breaker.Policy{
	ConsecutiveFailures: 3, FailureRateThreshold: -1, Jitter: -1,
	CooldownBase: time.Minute, SuccessesToClose: 1,
}

// neverTrips is a policy whose breaker stays closed through the tests'
// failures, to watch the per-message backoff alone.
var neverTrips = breaker.Policy{ConsecutiveFailures: 100, FailureRateThreshold: -1, Jitter: -1}

// testConfig has a backoff cap that is reached within MaxAttempts.
var testConfig = attempt.Config{MaxAttempts: 5, BackoffBase: 30 * time.Second, BackoffMax: 2 * time.Minute, DeliveryLease: time.Minute}

// shortBackoff is testConfig with backoffs from 3 s (4 s at the tests'
// jitter, half), doubling: the first waits inline, within
// attempt.MaxInlineWait, the second in the room.
var shortBackoff = attempt.Config{MaxAttempts: 5, BackoffBase: 4 * time.Second, BackoffMax: 2 * time.Minute, DeliveryLease: time.Minute}

// half is a Random that always returns 0.5: equal jitter then waits 3/4
// of the backoff step.
type half struct{}

func (half) Float64() float64 { return 0.5 }

// scriptedTarget is a hand-written Target: it returns its results in
// order (the last one again once they run out) and keeps what it was
// given. during, when set, runs inside each delivery.
type scriptedTarget struct {
	mu      sync.Mutex
	results []target.Result
	got     []message.Document
	during  func()
}

func (s *scriptedTarget) Deliver(_ context.Context, doc message.Document) target.Result {
	s.mu.Lock()
	s.got = append(s.got, doc)
	r := s.results[min(len(s.got), len(s.results))-1]
	during := s.during
	s.mu.Unlock()
	if during != nil {
		during()
	}
	return r
}

// calls is how many deliveries the target saw.
func (s *scriptedTarget) calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.got)
}

func transient(msg string) target.Result {
	return target.Result{Outcome: breaker.Transient, ErrorType: "TooManyRequestsException", Message: msg}
}

// fixture is an Attempt handler over the real breaker on the real DynamoDB
// store and the real delivery ledger (minidyn, or DDB_ENDPOINT), with a
// scripted target, a manual clock, and captured logs and metrics.
type fixture struct {
	handler *attempt.Handler
	breaker *breaker.Breaker
	ledger  *delivery.Ledger
	client  *dynamodb.Client
	table   string
	target  *scriptedTarget
	clock   *breakertest.Clock
	metrics *bytes.Buffer
	log     *bytes.Buffer
	// launcher records the controllers the handler starts.
	launcher *roomtest.Launcher
}

// options vary a fixture.
type options struct {
	policy breaker.Policy
	config attempt.Config
	// wrapStore, when set, wraps the breaker's DynamoDB store.
	wrapStore func(breaker.Store) breaker.Store
	// wrapLedger, when set, wraps the delivery ledger.
	wrapLedger func(attempt.Ledger) attempt.Ledger
	// clock, when set, is the clock of everything instead of the
	// fixture's manual clock (the local executor's virtual clock).
	clock clock.Clock
}

func newFixture(t testing.TB, o options, results ...target.Result) fixture {
	t.Helper()
	client, table := roomtest.Table(t)
	var store breaker.Store = dynamo.New(client, table)
	if o.wrapStore != nil {
		store = o.wrapStore(store)
	}
	manual := breakertest.NewClock(t0)
	var clk clock.Clock = manual
	if o.clock != nil {
		clk = o.clock
	}
	var metricsOut, logOut bytes.Buffer
	logger := telemetry.JSONLogger(&logOut)
	metrics := telemetry.NewMetrics(&metricsOut, logger, clk)
	b, err := breaker.New(store, o.policy, breaker.Options{Clock: clk, Random: breaker.NewRandom(1), ConflictBackoff: -1, MaxConflictRetries: 2, Observer: metrics.OnTransition})
	require.NoError(t, err)
	require.NotEmpty(t, results, "script at least one result")
	f := fixture{
		breaker:  b,
		ledger:   delivery.New(client, table, clk),
		client:   client,
		table:    table,
		target:   &scriptedTarget{results: results},
		clock:    manual,
		metrics:  &metricsOut,
		log:      &logOut,
		launcher: &roomtest.Launcher{},
	}
	var ledger attempt.Ledger = f.ledger
	if o.wrapLedger != nil {
		ledger = o.wrapLedger(ledger)
	}
	f.handler, err = attempt.New(attempt.Handler{Breaker: b, Ledger: ledger, Target: f.target, Metrics: metrics,
		Logger: logger, Clock: clk, Rand: half{}, Launcher: f.launcher, Pauses: pace.NewStore(client, table),
		Config: o.config.WithDefaults()})
	require.NoError(t, err)
	return f
}

// newDocument is the execution input the starter makes for a fresh
// message on key.
func newDocument(key string) message.Document {
	return message.Document{
		Message:    message.Message{ID: "m-1", Body: `{"order":42}`},
		OriginID:   "m-1",
		Attempt:    1,
		BreakerKey: key,
		ReceivedAt: t0.Add(-time.Minute),
	}
}

// run invokes the handler with doc as the state machine does: as JSON.
func (f fixture) run(t *testing.T, doc message.Document) (message.Document, error) {
	t.Helper()
	event, err := json.Marshal(doc)
	require.NoError(t, err)
	return f.handler.Handle(t.Context(), event)
}

// passOn takes doc, an Attempt's output, where the attempt state machine
// sends it and returns the next Attempt's input: after a WAIT the Backoff
// state waits waitSeconds (the clock moves on) within the execution; after
// a ROOM the Queue task enters it in the room (waitroom.Entry: the next
// run, its cycles counted afresh) and the controller releases it at its
// notBefore (the clock moves on to it), as a new execution.
func (f fixture) passOn(t *testing.T, doc message.Document) message.Document {
	t.Helper()
	switch doc.Next {
	case message.NextWait:
		f.clock.Advance(time.Duration(doc.WaitSeconds) * time.Second)
		return doc
	case message.NextRoom:
		e, err := waitroom.Entry(doc, f.clock.Now())
		require.NoError(t, err)
		if wait := e.NotBefore.Sub(f.clock.Now()); wait > 0 {
			f.clock.Advance(wait)
		}
		next, err := message.ParseDocument(e.Document)
		require.NoError(t, err)
		return next
	}
	t.Fatalf("passOn: %q ends the execution", doc.Next)
	return doc
}

// counts sums the EMF count metrics written so far, by metric name.
func (f fixture) counts(t *testing.T) map[telemetry.Name]int64 {
	t.Helper()
	out := map[telemetry.Name]int64{}
	sc := bufio.NewScanner(bytes.NewReader(f.metrics.Bytes()))
	for sc.Scan() {
		var line struct {
			AWS struct {
				CloudWatchMetrics []struct {
					Metrics []struct{ Name, Unit string }
				}
			} `json:"_aws"`
		}
		require.NoError(t, json.Unmarshal(sc.Bytes(), &line), sc.Text())
		var values map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(sc.Bytes(), &values))
		for _, m := range line.AWS.CloudWatchMetrics[0].Metrics {
			if m.Unit != "Count" {
				continue
			}
			var v int64
			require.NoError(t, json.Unmarshal(values[m.Name], &v))
			out[telemetry.Name(m.Name)] += v
		}
	}
	return out
}

// row is key's breaker row as stored.
func (f fixture) row(t *testing.T, key string) breaker.Row {
	t.Helper()
	r, err := f.breaker.Status(t.Context(), key)
	require.NoError(t, err)
	return r
}

// releaseProbe takes doc, turned away by key's OPEN breaker, through the
// room as the breaker's controller does: it waits the cooldown out (the
// clock moves on to OpenUntil) and releases doc as the probe, a new
// execution.
func (f fixture) releaseProbe(t *testing.T, doc message.Document, key string) message.Document {
	t.Helper()
	require.Equal(t, message.NextRoom, doc.Next)
	next := f.passOn(t, doc)
	row := f.row(t, key)
	require.Equal(t, breaker.Open, row.State, "the controller releases a probe only from an OPEN breaker")
	if wait := row.OpenUntil.Sub(f.clock.Now()); wait > 0 {
		f.clock.Advance(wait)
	}
	return next
}

// trip opens key's breaker the way other messages would: admitted
// deliveries that failed.
func (f fixture) trip(t *testing.T, key string) {
	t.Helper()
	for f.row(t, key).State != breaker.Open {
		d, err := f.breaker.Admit(t.Context(), key)
		require.NoError(t, err)
		require.Equal(t, breaker.Proceed, d.Verdict)
		_, err = f.breaker.Record(t.Context(), key, d.Row, d.Ticket, breaker.Transient)
		require.NoError(t, err)
	}
}
