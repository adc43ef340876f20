package simtarget

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/redrive/redrive/clock"
	"github.com/redrive/redrive/emulate/executor"
	"github.com/redrive/redrive/message"
)

// Predicate selects records, e.g. the ones that are poison.
type Predicate func(events.SQSMessage) bool

// BodyContains selects records whose body contains marker.
func BodyContains(marker string) Predicate {
	return func(m events.SQSMessage) bool { return strings.Contains(m.Body, marker) }
}

// Options configures a Target. Clock is required; the zero value of every
// other field means "none" or the documented default.
type Options struct {
	// Clock is the clock the target lives on: the executor's.
	Clock clock.Clock
	// Capacity is how many invocations per virtual second the target
	// takes; the ones beyond it fail with *Throttled. 0 means unlimited.
	Capacity int
	// Schedule is the target's health over time; empty means always
	// healthy.
	Schedule Schedule
	// FromFirstCall starts Schedule at the first call instead of at its
	// own times: the whole schedule shifts so its first phase begins when
	// the first invocation arrives (an outage "from now" that waits for
	// traffic).
	FromFirstCall bool
	// Latency is how long every invocation takes, spent with executor.Delay
	// so that it is executor time.
	Latency time.Duration
	// Poison selects records that fail with *PoisonMessage.
	Poison Predicate
	// Reject selects records that always fail with *Rejected.
	Reject Predicate
	// Seed seeds the draws of a Degraded phase's error rate. Default 1.
	Seed uint64
	// KeepCalls bounds the ledger to about the last KeepCalls calls (at
	// most twice that), for a long-running stack. Default 0: every call.
	KeepCalls int
	// Tally, when set, takes every call instead of the ledger, which
	// stays empty: the target then keeps nothing per call, and memory is
	// what Tally keeps (a simulation's running figures). It is called in
	// the ledger's order, one call at a time, with the target's lock held:
	// it must not call the target.
	Tally func(Call)
}

// Target is the simulated consumer. Its Handle method is the Lambda
// handler. It is safe for concurrent use.
type Target struct {
	opts Options

	mu     sync.Mutex
	rnd    *rand.Rand
	shift  *time.Duration // FromFirstCall: how far the schedule moved, once set
	second int64          // the virtual second (Unix) being counted for Capacity
	inSec  int            // invocations admitted in that second
	calls  []Call
}

// New returns a Target with opts, or an error naming the invalid option.
func New(opts Options) (*Target, error) {
	t := &Target{}
	if err := t.Reset(opts); err != nil {
		return nil, err
	}
	return t, nil
}

// Reset makes t behave as opts say from now on, as if new: an empty
// ledger, a fresh schedule and capacity count. A test or a demo changes
// its consumer's behaviour with it while the consumer is hosted.
func (t *Target) Reset(opts Options) error {
	opts, err := opts.withDefaults()
	if err != nil {
		return err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.opts, t.rnd, t.shift, t.second, t.inSec, t.calls = opts, rand.New(rand.NewPCG(opts.Seed, 0x5137a)), nil, -1, 0, nil
	return nil
}

// withDefaults returns opts with its defaults, or an error naming the
// invalid option.
func (opts Options) withDefaults() (Options, error) {
	switch {
	case opts.Clock == nil:
		return opts, errors.New("simtarget: options: Clock is required (the executor's)")
	case opts.Capacity < 0:
		return opts, fmt.Errorf("simtarget: options: Capacity %d is negative (0 means unlimited)", opts.Capacity)
	case opts.Latency < 0:
		return opts, fmt.Errorf("simtarget: options: Latency %v is negative", opts.Latency)
	}
	if err := opts.Schedule.Validate(); err != nil {
		return opts, err
	}
	if opts.Seed == 0 {
		opts.Seed = 1
	}
	return opts, nil
}

// Handle is the consumer's Lambda handler. The invocation's fate is decided
// when it arrives (capacity, then health, then each record), then the
// target's latency passes; a throttled invocation is turned away at the
// door, without the latency, as a 429 or Lambda's TooManyRequests is. A one-record event fails with the record's
// error; in a larger batch the failed records are reported in
// batchItemFailures, unless the whole invocation failed.
func (t *Target) Handle(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
	if len(ev.Records) == 0 {
		return events.SQSEventResponse{}, errors.New("simtarget: event has no records")
	}
	errs, latency, callErr := t.arrive(ev.Records)
	if _, throttled := callErr.(*Throttled); !throttled {
		executor.Delay(ctx, latency)
	}
	if callErr != nil {
		return events.SQSEventResponse{}, callErr
	}
	if len(ev.Records) == 1 {
		if errs[0] != nil {
			return events.SQSEventResponse{}, errs[0]
		}
		return events.SQSEventResponse{}, nil
	}
	var resp events.SQSEventResponse
	for i, err := range errs {
		if err != nil {
			resp.BatchItemFailures = append(resp.BatchItemFailures,
				events.SQSBatchItemFailure{ItemIdentifier: ev.Records[i].MessageId})
		}
	}
	return resp, nil
}

// arrive decides an invocation and writes it to the ledger: one error (nil
// for delivered) per record, or an error for the whole invocation; and
// how long the invocation takes.
func (t *Target) arrive(records []events.SQSMessage) ([]error, time.Duration, error) {
	now := t.opts.Clock.Now()
	t.mu.Lock()
	defer t.mu.Unlock()
	phase := t.phase(now)
	c := Call{At: now, Health: phase.Health, Records: make([]Record, len(records))}
	for i, r := range records {
		c.Records[i] = Record{MessageID: r.MessageId, OriginID: originOf(r),
			Group: r.Attributes["MessageGroupId"], Sequence: r.Attributes["SequenceNumber"]}
	}
	defer t.record(c)

	if callErr := t.admit(now, phase); callErr != nil {
		outcome := OutcomeUnavailable
		if _, ok := callErr.(*Throttled); ok {
			outcome = OutcomeThrottled
		}
		for i := range c.Records {
			c.Records[i].Outcome = outcome
		}
		return nil, t.opts.Latency, callErr
	}
	errs := make([]error, len(records))
	for i, r := range records {
		c.Records[i].Outcome, errs[i] = t.process(r, phase)
	}
	return errs, t.opts.Latency, nil
}

// record adds c to the ledger, dropping the oldest calls beyond twice
// KeepCalls, or hands it to Tally. Call with t.mu held.
func (t *Target) record(c Call) {
	if t.opts.Tally != nil {
		t.opts.Tally(c)
		return
	}
	t.calls = append(t.calls, c)
	if keep := t.opts.KeepCalls; keep > 0 && len(t.calls) >= 2*keep {
		t.calls = append([]Call(nil), t.calls[len(t.calls)-keep:]...)
	}
}

// phase is the schedule's phase at now. Call with t.mu held.
func (t *Target) phase(now time.Time) Phase {
	if !t.opts.FromFirstCall || len(t.opts.Schedule) == 0 {
		return t.opts.Schedule.At(now)
	}
	if t.shift == nil {
		d := now.Sub(t.opts.Schedule[0].From)
		t.shift = &d
	}
	return t.opts.Schedule.At(now.Add(-*t.shift))
}

// admit applies capacity and a Down phase to an invocation. Call with t.mu
// held.
func (t *Target) admit(now time.Time, phase Phase) error {
	if t.opts.Capacity > 0 {
		sec := now.Unix()
		if sec != t.second {
			t.second, t.inSec = sec, 0
		}
		if t.inSec >= t.opts.Capacity {
			return &Throttled{Capacity: t.opts.Capacity, Second: time.Unix(sec, 0).UTC()}
		}
		t.inSec++
	}
	if phase.Health == Down {
		return &Unavailable{Health: Down}
	}
	return nil
}

// process decides one record of an admitted invocation. Call with t.mu
// held.
func (t *Target) process(r events.SQSMessage, phase Phase) (Outcome, error) {
	switch {
	case t.opts.Poison != nil && t.opts.Poison(r):
		return OutcomePoison, &PoisonMessage{MessageID: r.MessageId}
	case t.opts.Reject != nil && t.opts.Reject(r):
		return OutcomeRejected, &Rejected{MessageID: r.MessageId}
	case phase.Health == Degraded && t.rnd.Float64() < phase.ErrorRate:
		return OutcomeUnavailable, &Unavailable{Health: Degraded}
	}
	return OutcomeDelivered, nil
}

// originOf is the record's origin id: from its redrive lineage, else (no
// or malformed lineage) its own message id.
func originOf(r events.SQSMessage) string {
	lin, _, err := message.LineageOfEvent(r)
	if err != nil || lin.OriginID == "" {
		return r.MessageId
	}
	return lin.OriginID
}

// Ledger returns a snapshot of the invocations so far (the last ones,
// with KeepCalls; none, with Tally).
func (t *Target) Ledger() Ledger {
	t.mu.Lock()
	defer t.mu.Unlock()
	calls := make([]Call, len(t.calls))
	for i, c := range t.calls {
		c.Records = append([]Record(nil), c.Records...)
		calls[i] = c
	}
	return Ledger{calls: calls}
}
