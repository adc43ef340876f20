package attempt

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/claimcheck"
	"github.com/redrive/redrive/clock"
	"github.com/redrive/redrive/delivery"
	"github.com/redrive/redrive/delivery/target"
	"github.com/redrive/redrive/lambda/retryable"
	"github.com/redrive/redrive/lambda/telemetry"
	"github.com/redrive/redrive/message"
	"github.com/redrive/redrive/rules"
)

// Breaker is the part of *breaker.Breaker the handler calls.
type Breaker interface {
	Admit(ctx context.Context, key string) (breaker.Decision, error)
	RecordOnce(ctx context.Context, key string, seen breaker.Row, t breaker.Ticket, o breaker.Outcome, delivery string) (breaker.Row, error)
}

// Ledger is the part of *delivery.Ledger the handler calls.
type Ledger interface {
	Begin(ctx context.Context, id delivery.ID, ticket breaker.Ticket, lease time.Duration) (delivery.Record, bool, error)
	Complete(ctx context.Context, held delivery.Record, outcome breaker.Outcome, errorType, msg string) (delivery.Record, error)
}

// Metrics counts per breaker and writes the room's gauges;
// *telemetry.Metrics satisfies it.
type Metrics interface {
	Count(key string, name telemetry.Name, n int64)
	Gauges(key string, gauges ...telemetry.Gauge)
}

// Random is the randomness of the backoff jitter; breaker.NewRandom's
// result satisfies it (and is safe for concurrent use, as the local
// executor needs).
type Random interface {
	// Float64 returns a number in [0, 1).
	Float64() float64
}

var (
	_ Breaker = (*breaker.Breaker)(nil)
	_ Ledger  = (*delivery.Ledger)(nil)
	_ Metrics = (*telemetry.Metrics)(nil)
)

// Handler runs the Attempt task. Every exported field is required.
type Handler struct {
	// Breaker admits deliveries and records their outcomes.
	Breaker Breaker
	// Ledger makes each delivery try happen once.
	Ledger Ledger
	// Target delivers the message.
	Target target.Target
	// Metrics counts Delivered, Transient, Poison, Canaries and Waits.
	Metrics Metrics
	// Logger gets one line per invocation.
	Logger *slog.Logger
	// Clock is the clock, the breaker's and the ledger's own: the attempt
	// sleeps on it between the tries of storing an outcome, and sets the
	// delivery's deadline on it.
	Clock clock.Clock
	// Rand jitters the per-message backoff.
	Rand Random
	// Launcher makes sure the breaker's controller runs when a canary
	// succeeds or a forced mode ends, so the room is released.
	Launcher Launcher
	// Bodies, if set, gives a claim-checked message its body back for the
	// delivery (the document goes on carrying the reference); nil
	// delivers the document's body as it is.
	Bodies Redeemer
	// Rules, if set, are the operators' routing rules, applied before the
	// breaker is asked (see route); nil applies none.
	Rules rules.Source
	// Turns, if set, ends a FIFO message's turn in its group once it is
	// delivered, so the next message of the group goes; without it (or
	// when that fails) the next one takes the turn over after
	// room.StaleTurn.
	Turns Turns
	// Pauses, if set, pauses every breaker key's releases when the target
	// throttled this one's message (they release to the same target);
	// nil pauses only this key's.
	Pauses Pauser
	// Config tunes retries. Handle uses it as is, so it must be valid and
	// have its defaults applied: the Builder (lambda/wire) does both at
	// construction; by hand, Config.Validate then Config.WithDefaults.
	Config Config
}

// Redeemer fetches a claim-checked body back; *claimcheck.Store is one.
type Redeemer interface {
	Redeem(ctx context.Context, doc message.Document) (message.Document, error)
}

// Pauser pauses every controller's releases until a throttle's pause
// ends; *pace.Store is one.
type Pauser interface {
	NoteThrottle(ctx context.Context, until time.Time) error
}

// Turns ends FIFO messages' turns in their groups; waitroom.Turns is one.
type Turns interface {
	Advance(ctx context.Context, doc message.Document) error
}

// Launcher starts a breaker's controller when none runs;
// *release.Launcher satisfies it.
type Launcher interface {
	Ensure(ctx context.Context, key string) (bool, error)
}

// Handle runs one Attempt: event is the execution Document, the result the
// same Document with next and the cycle's fields set (see the package
// doc). It takes the raw event so that a malformed one is an
// *InvalidDocument naming the field, not a decoding error the state
// machine cannot tell from a crash.
func (h *Handler) Handle(ctx context.Context, event json.RawMessage) (message.Document, error) {
	doc, err := message.ParseDocument(event)
	if err != nil {
		return message.Document{}, &InvalidDocument{Err: err}
	}
	doc, err = h.attempt(ctx, doc, h.Config)
	if err != nil {
		h.Logger.WarnContext(ctx, "attempt failed", "breaker", doc.BreakerKey, "originId", doc.OriginID,
			"attempt", doc.Attempt, "try", doc.Tries+1, "error", err.Error())
		return message.Document{}, err
	}
	h.Logger.InfoContext(ctx, "attempt",
		"breaker", doc.BreakerKey, "originId", doc.OriginID, "attempt", doc.Attempt, "tries", doc.Tries,
		"cycles", doc.Cycles, "decision", doc.Decision, "outcome", doc.Outcome, "breakerState", doc.BreakerState,
		"next", doc.Next, "waitSeconds", doc.WaitSeconds, "notBefore", doc.NotBefore, "parkReason", doc.ParkReason)
	return doc, nil
}

// New returns h once it has every dependency and its Config's defaults,
// so that a handler built wrong fails where it is built, not on a nil
// pointer or a zero setting mid-delivery. Config's values are validated
// where they are parsed (Config.Validate).
func New(h Handler) (*Handler, error) {
	var missing []string
	for _, dep := range []struct {
		name  string
		isNil bool
	}{
		{"Breaker", h.Breaker == nil}, {"Ledger", h.Ledger == nil}, {"Target", h.Target == nil},
		{"Metrics", h.Metrics == nil}, {"Logger", h.Logger == nil}, {"Clock", h.Clock == nil}, {"Rand", h.Rand == nil},
		{"Launcher", h.Launcher == nil},
	} {
		if dep.isNil {
			missing = append(missing, dep.name)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("attempt: handler is missing %v", missing)
	}
	if h.Config != h.Config.WithDefaults() {
		return nil, errors.New("attempt: handler's Config lacks its defaults (use Config.WithDefaults)")
	}
	return &h, nil
}

// attempt is one cycle on a valid document.
func (h *Handler) attempt(ctx context.Context, doc message.Document, cfg Config) (message.Document, error) {
	doc.Next, doc.WaitSeconds, doc.NotBefore = "", 0, time.Time{}
	doc.Decision, doc.Outcome, doc.BreakerState, doc.ParkReason = "", "", "", ""
	doc.Cycles++
	key := doc.BreakerKey
	id := delivery.ID{OriginID: doc.OriginID, Attempt: doc.Attempt, Try: doc.Tries + doc.Throttled + 1, Message: doc.MessageTag()}
	// The table failed earlier Attempts of this message: it is set again
	// below if it still does.
	table := tableTrouble{waiting: doc.TableFailure != nil || !doc.TableSince.IsZero(), since: doc.TableSince}
	doc.TableFailure, doc.TableSince = nil, time.Time{}
	verdict, err := h.rules(ctx, doc)
	if err != nil {
		return h.tableFailed(doc, cfg, table, &TableUnavailable{Breaker: key, Op: "read the routing rules", Cause: err.Error()})
	}
	if routed, ok := h.route(doc, verdict); ok {
		return routed, nil
	}
	if left := h.executionLeft(doc); left >= 0 && left < minDeliveryTime {
		// Too late in this execution to call the consumer and store the
		// outcome: the next execution does it.
		return h.queue(doc), nil
	}
	full, err := h.redeem(ctx, doc)
	if claimcheck.Gone(err) {
		h.Metrics.Count(key, telemetry.Poison, 1)
		doc.Next, doc.ParkReason = message.NextPark, message.BoundReason("body unavailable: "+err.Error())
		return doc, nil
	}
	if err != nil {
		return h.tableFailed(doc, cfg, table, &TableUnavailable{Breaker: key, Op: "fetch the claim-checked body", Cause: err.Error()})
	}
	d, err := h.Breaker.Admit(ctx, key)
	if c := retryable.Contention("admit", err); c != nil && !table.waiting {
		return doc, c
	}
	if err != nil {
		return h.tableFailed(doc, cfg, table, &TableUnavailable{Breaker: key, Op: "admit", Cause: err.Error()})
	}
	doc.Decision, doc.BreakerState = d.Verdict.String(), d.State.String()
	if d.Lifted {
		// A timed forced mode just ended: release the room.
		h.startController(ctx, key)
	}
	if d.Verdict == breaker.Queue || d.Verdict == breaker.Wait {
		// Not now (OPEN, no permit, paced, forced open): the breaker's
		// controller releases it when the breaker lets it through, so it
		// waits in line without a time of its own, which a reset, a close
		// or the end of the cooldown would otherwise have to wait out.
		return h.queue(doc), nil
	}
	withBody := doc // this cycle's document, its body back from the claim check
	withBody.Message.Body, withBody.BodyRef = full.Message.Body, full.BodyRef
	done, err := h.deliver(ctx, withBody, id, d, cfg)
	if unavailable, ok := err.(*TableUnavailable); ok {
		return h.tableFailed(doc, cfg, table, unavailable)
	}
	if busy, ok := err.(*DeliveryInProgress); ok {
		// Another invocation holds this try (a duplicate of this Express
		// execution, or the retry of one that died mid-call): the message
		// waits in the room until its lease ends, when the record tells
		// what became of the try.
		doc.Decision = breaker.Queue.String()
		return h.wait(doc, max(busy.ExpiresAt.Sub(h.Clock.Now()), time.Second)), nil
	}
	if err != nil {
		return doc, err
	}
	// From here the outcome is known: it routes the message even if it
	// cannot be stored, and nothing below fails the invocation (a retry
	// would find the delivery record unfinished and deliver again).
	row := h.record(ctx, doc, d, done)
	if done.Outcome == breaker.Throttled {
		doc.Throttled++
		h.pauseReleases(ctx, key, row)
	} else {
		doc.Tries++
	}
	doc.Decision = verdictOf(done.Ticket).String()
	doc.Outcome = done.Outcome.String()
	doc.BreakerState = row.State.String()
	if verdictOf(done.Ticket) == breaker.Canary && (row.State == breaker.HalfOpen || row.State == breaker.Closed) {
		// The probe or a canary succeeded: the controller sends the next
		// canaries, then the backlog (it runs already, most likely).
		h.startController(ctx, key)
	}
	doc = h.next(doc, done, row, cfg, verdict.Delay)
	if doc.Next == message.NextDone {
		h.advance(ctx, doc)
	}
	return doc, nil
}

// pauseReleases pauses every key's releases for the pause the target's
// throttle set on row. A failure is logged: the other keys' controllers
// go on at their pace, and back off at their own throttles.
func (h *Handler) pauseReleases(ctx context.Context, key string, row breaker.Row) {
	if h.Pauses == nil || !row.ThrottledUntil.After(h.Clock.Now()) {
		return
	}
	if err := h.Pauses.NoteThrottle(ctx, row.ThrottledUntil); err != nil {
		h.Logger.WarnContext(ctx, "could not pause the other keys' releases after a throttle", "breaker", key, "error", err.Error())
	}
}

// advance ends a delivered FIFO message's turn in its group. A failure is
// logged, not returned (the delivery stands): the group's next message
// takes the turn over after room.StaleTurn.
func (h *Handler) advance(ctx context.Context, doc message.Document) {
	if h.Turns == nil || doc.FIFO == nil {
		return
	}
	if err := h.Turns.Advance(ctx, doc); err != nil {
		h.Logger.WarnContext(ctx, "could not end the delivered message's turn in its group; the next takes it over later",
			"breaker", doc.BreakerKey, "group", doc.FIFO.GroupID, "originId", doc.OriginID, "error", err.Error())
	}
}

// redeem is doc with its claim-checked body back, for the delivery.
func (h *Handler) redeem(ctx context.Context, doc message.Document) (message.Document, error) {
	if h.Bodies == nil || doc.BodyRef == nil {
		return doc, nil
	}
	return h.Bodies.Redeem(ctx, doc)
}

// startController starts key's controller unless one runs. A failure is
// logged and counted (ReleaserNotStarted, which an alarm watches), not
// returned: the delivery's outcome stands, and the sweep (the key is on
// the stalled-rooms list) or the next message to enter the room starts
// one.
func (h *Handler) startController(ctx context.Context, key string) {
	if _, err := h.Launcher.Ensure(ctx, key); err != nil {
		h.Metrics.Count(key, telemetry.ReleaserNotStarted, 1)
		h.Logger.WarnContext(ctx, "could not start the controller; the minute's sweep or the next message to enter the room starts it", "breaker", key, "error", err.Error())
	}
}

// deliver takes the delivery record for id, delivers, and stores the
// outcome on the record, which it returns COMPLETED. A record another
// invocation completed in the meantime is returned as it is; one another
// invocation holds is *DeliveryInProgress. Once the target answered, the
// outcome is returned even if the record cannot be completed (see
// complete).
func (h *Handler) deliver(ctx context.Context, doc message.Document, id delivery.ID, d breaker.Decision, cfg Config) (delivery.Record, error) {
	held, began, err := h.Ledger.Begin(ctx, id, d.Ticket, cfg.DeliveryLease)
	if err != nil {
		// Counted by tableFailed.
		return delivery.Record{}, &TableUnavailable{Breaker: doc.BreakerKey, Op: "begin delivery " + id.String(), Cause: err.Error()}
	}
	if !began {
		if held.Status == delivery.Completed {
			return held, nil
		}
		return delivery.Record{}, &DeliveryInProgress{Delivery: id.String(), ExpiresAt: held.ExpiresAt}
	}
	if held.TookOver {
		// The Attempt that held this try died while its consumer call was
		// in flight: the consumer may have the message already.
		h.Metrics.Count(doc.BreakerKey, telemetry.UnknownOutcomes, 1)
		h.Logger.WarnContext(ctx, "took over a delivery whose outcome is unknown", "breaker", doc.BreakerKey,
			"delivery", id.String(), "unknownOutcome", cfg.UnknownOutcome)
		if cfg.UnknownOutcome == Park {
			return h.complete(ctx, doc.BreakerKey, held, unknownOutcome(id)), nil
		}
	}
	if d.Verdict == breaker.Canary {
		h.Metrics.Count(doc.BreakerKey, telemetry.Canaries, 1)
	}
	dctx, cancel := h.deliveryContext(ctx, doc, d)
	res := h.Target.Deliver(dctx, doc)
	cancel()
	return h.complete(ctx, doc.BreakerKey, held, res), nil
}

// ErrorTypeUnknownOutcome is the error type of a delivery parked because
// its outcome is unknown (UNKNOWN_OUTCOME=park).
const ErrorTypeUnknownOutcome = "UnknownOutcome"

// unknownOutcome is the result a delivery whose outcome is unknown gets
// when such deliveries park: not delivered again, and not counted by the
// breaker (see record).
func unknownOutcome(id delivery.ID) target.Result {
	return target.Result{Outcome: breaker.Poison, ErrorType: ErrorTypeUnknownOutcome,
		Message: "the Attempt that made delivery " + id.String() + " died while the consumer call was in flight; " +
			"UNKNOWN_OUTCOME=park leaves it to a person to check with the consumer (idempotency key: the origin id)"}
}

// minDeliveryTime is the least time left of ExecutionBudget an Attempt
// needs to call the consumer (recordMargin is kept out of it).
const minDeliveryTime = 2 * recordMargin

// executionLeft is how much of ExecutionBudget doc's execution has left,
// or -1 when the document does not say when its execution started.
func (h *Handler) executionLeft(doc message.Document) time.Duration {
	if doc.Execution == nil || doc.Execution.StartTime.IsZero() {
		return -1
	}
	return max(doc.Execution.StartTime.Add(ExecutionBudget).Sub(h.Clock.Now()), 0)
}

// recordMargin is how long before its own deadline the Attempt stops
// waiting for the target, to store the outcome (which may take a few
// tries) and return it.
const recordMargin = 5 * time.Second

// deliveryContext is ctx with a deadline that leaves time to store the
// outcome before two others: the Attempt's own deadline (ctx's, in AWS),
// and, for a canary, the end of its lease, after which the breaker would
// drop its outcome. recordMargin before each (half the time left, when less
// than twice that is left). A target that runs past it fails as a
// transient "Timeout" the breaker counts, instead of an Attempt that dies
// with its outcome unknown or a canary whose outcome comes too late.
func (h *Handler) deliveryContext(ctx context.Context, doc message.Document, d breaker.Decision) (context.Context, context.CancelFunc) {
	var limits []time.Time
	if deadline, ok := h.Clock.Deadline(ctx); ok {
		limits = append(limits, deadline)
	}
	if doc.Execution != nil {
		limits = append(limits, doc.Execution.StartTime.Add(ExecutionBudget))
	}
	if i := slices.IndexFunc(d.Row.Leases, func(l breaker.Lease) bool { return l.ID == d.Ticket.LeaseID }); d.Ticket.LeaseID != "" && i >= 0 {
		limits = append(limits, d.Row.Leases[i].Expires)
	}
	if len(limits) == 0 {
		return ctx, func() {}
	}
	now := h.Clock.Now()
	left := slices.MinFunc(limits, time.Time.Compare).Sub(now)
	return h.Clock.WithDeadline(ctx, now.Add(left-min(recordMargin, left/2)))
}

// complete stores res on the record held, trying again a few times. If it
// cannot, the outcome stands all the same: the record stays IN_PROGRESS
// until its lease ends, which matters only to a retry of this invocation,
// and there is none, since the invocation returns the outcome.
func (h *Handler) complete(ctx context.Context, key string, held delivery.Record, res target.Result) delivery.Record {
	var done delivery.Record
	err := h.persist(ctx, func() (err error) {
		done, err = h.Ledger.Complete(ctx, held, res.Outcome, res.ErrorType, res.Message)
		return err
	})
	if err == nil {
		return done
	}
	h.unrecorded(ctx, key, "the delivery record", held.ID, res.Outcome, err)
	done = held
	done.Status, done.Outcome, done.ErrorType, done.CompletedAt = delivery.Completed, res.Outcome, res.ErrorType, h.Clock.Now()
	done.Message = message.Truncate(res.Message, message.MaxFailureMessage)
	return done
}

// record records done's outcome on the breaker, once (RecordOnce: the row
// lists the deliveries it counted, so the retry of an invocation that died
// after recording does not count it again), and returns the row the
// message is routed by. If the breaker cannot record it after a few tries,
// the message is routed by the row its admission read.
func (h *Handler) record(ctx context.Context, doc message.Document, d breaker.Decision, done delivery.Record) breaker.Row {
	key := doc.BreakerKey
	if done.ErrorType == ErrorTypeUnknownOutcome {
		return d.Row // nothing the target said
	}
	// A record completed by an earlier invocation carries the ticket it
	// was admitted with; this admission's row is then not the one to
	// record against.
	seen := d.Row
	if done.Ticket != d.Ticket {
		seen = breaker.Row{}
	}
	var row breaker.Row
	err := h.persist(ctx, func() (err error) {
		row, err = h.Breaker.RecordOnce(ctx, key, seen, done.Ticket, done.Outcome, done.ID.String())
		seen = breaker.Row{} // a retry reads the row afresh
		return err
	})
	if err != nil {
		h.unrecorded(ctx, key, "the breaker row", done.ID, done.Outcome, err)
		return d.Row
	}
	return row
}

// Storing an outcome is tried persistTries times, persistBackoff apart and
// doubling (1.75 s in all), within the invocation.
const (
	persistTries   = 4
	persistBackoff = 250 * time.Millisecond
)

// persist runs store until it succeeds, persistTries times at most,
// sleeping in between; it returns the last error. A delivery record held
// by another invocation is not tried again.
func (h *Handler) persist(ctx context.Context, store func() error) error {
	var err error
	for i := range persistTries {
		if i > 0 {
			h.Clock.Sleep(ctx, persistBackoff<<(i-1))
		}
		if err = store(); err == nil || errors.Is(err, delivery.ErrNotHeld) || ctx.Err() != nil {
			return err
		}
	}
	return err
}

// tableTrouble is what the document said of earlier table failures:
// whether the message is already waiting them out, and since when.
type tableTrouble struct {
	waiting bool
	since   time.Time
}

// tableWait is how long a message waits (in the room) before it tries a
// failing table again, once the Attempt state's own retries are spent.
const tableWait = 5 * time.Minute

// tableFailed handles a table that failed the Attempt before it delivered
// (unavailable), counting it. The first time it returns unavailable, for
// the state machine to retry in place; once those retries are spent (its Catch sets
// TableFailure, for TableUnavailable and for a breaker row that kept
// losing its conditional writes, BreakerContention), the message waits
// tableWait and tries again, routed as usual so that the document keeps
// TableSince, until TABLE_RETRY_BUDGET after it, and then it is parked: a
// table that stays down parks nothing sooner.
func (h *Handler) tableFailed(doc message.Document, cfg Config, t tableTrouble, unavailable *TableUnavailable) (message.Document, error) {
	h.Metrics.Count(doc.BreakerKey, telemetry.TableUnavailable, 1)
	if !t.waiting {
		return doc, unavailable
	}
	now := h.Clock.Now()
	doc.TableSince = t.since
	if doc.TableSince.IsZero() {
		doc.TableSince = now
	}
	if now.Sub(doc.TableSince) >= cfg.TableRetryBudget {
		doc.Next = message.NextPark
		doc.ParkReason = message.BoundReason(fmt.Sprintf("table unavailable: the table has failed this message's Attempts since %s, past TABLE_RETRY_BUDGET (%s): %s",
			doc.TableSince.UTC().Format(time.RFC3339), cfg.TableRetryBudget, unavailable.Error()))
		return doc, nil
	}
	return h.wait(doc, min(tableWait, cfg.TableRetryBudget)), nil
}

// unrecorded logs and counts an outcome that could not be stored in what.
func (h *Handler) unrecorded(ctx context.Context, key, what string, id delivery.ID, o breaker.Outcome, err error) {
	h.Metrics.Count(key, telemetry.UnrecordedOutcomes, 1)
	h.Logger.ErrorContext(ctx, "could not store a known outcome in "+what+"; the message is routed by it all the same",
		"breaker", key, "delivery", id.String(), "outcome", o.String(), "error", err.Error())
}

// next routes the document after the outcome of a delivery was recorded
// and left the breaker as row; a transient failure waits at least
// minBackoff (a delay rule's) before the next try.
func (h *Handler) next(doc message.Document, done delivery.Record, row breaker.Row, cfg Config, minBackoff time.Duration) message.Document {
	key := doc.BreakerKey
	switch done.Outcome {
	case breaker.Success:
		h.Metrics.Count(key, telemetry.Delivered, 1)
		doc.Next = message.NextDone
		return doc
	case breaker.Throttled:
		h.Metrics.Count(key, telemetry.Throttled, 1)
		return h.queue(doc)
	}
	failure := message.Failure{At: done.CompletedAt, Try: done.ID.Try, Outcome: done.Outcome.String(),
		ErrorType: done.ErrorType, Message: done.Message, BreakerState: doc.BreakerState}
	doc.AddFailure(failure)
	if done.ErrorType == ErrorTypeUnknownOutcome {
		doc.Next, doc.ParkReason = message.NextPark, message.BoundReason("unknown outcome: "+done.Message)
		return doc
	}
	if done.Outcome == breaker.Poison {
		h.Metrics.Count(key, telemetry.Poison, 1)
		doc.Next, doc.ParkReason = message.NextPark, message.BoundReason("poison: "+describe(failure))
		return doc
	}
	h.Metrics.Count(key, telemetry.Transient, 1)
	if doc.Tries >= cfg.MaxAttempts {
		doc.Next = message.NextPark
		doc.ParkReason = message.BoundReason(exhaustedReason(doc.Tries, failure))
		return doc
	}
	if row.State != breaker.Closed && row.State != breaker.ForcedClosed {
		// The breaker is not letting messages through: wait for its
		// recovery in the room rather than on a timer of our own.
		return h.queue(doc)
	}
	return h.wait(doc, max(cfg.backoff(doc.Tries, h.Rand.Float64()), minBackoff))
}

// rules is the routing rules' verdict on doc; none without Rules. The
// error is a failed read of rules never read before.
func (h *Handler) rules(ctx context.Context, doc message.Document) (rules.Verdict, error) {
	if h.Rules == nil {
		return rules.Verdict{}, nil
	}
	set, err := h.Rules.Rules(ctx)
	if err != nil {
		return rules.Verdict{}, err
	}
	return set.Match(h.Clock.Now(), doc.BreakerKey, doc.Message), nil
}

// route applies the routing rules' verdict v before the breaker is asked:
// a quarantine parks the message; a hold sends it to its breaker's room,
// to be looked at again in holdLook (or when the rule ends, if sooner); a
// message whose hold ended queues behind its breaker's room, so the
// controller paces it with the rest; a delay waits out what is left of it
// since the message's last failed try (or its arrival). ok is false when
// the rules let the Attempt go on.
func (h *Handler) route(doc message.Document, v rules.Verdict) (_ message.Document, ok bool) {
	key, now := doc.BreakerKey, h.Clock.Now()
	switch {
	case v.Quarantine != nil:
		h.Metrics.Count(key, telemetry.Quarantined, 1)
		doc.HeldBy, doc.Decision = "", message.DecisionQuarantine
		doc.Next, doc.ParkReason = message.NextPark, message.BoundReason("quarantined: "+v.Quarantine.Describe())
		return doc, true
	case v.Hold != nil:
		h.Metrics.Count(key, telemetry.Held, 1)
		look := holdLook
		if !v.Hold.Until.IsZero() {
			look = min(look, max(v.Hold.Until.Sub(now), 0))
		}
		doc.HeldBy, doc.Decision = v.Hold.ID, message.DecisionHold
		doc.Next, doc.NotBefore = message.NextRoom, now.Add(look)
		return doc, true
	case doc.HeldBy != "":
		doc.HeldBy, doc.Decision = "", breaker.Queue.String()
		return h.queue(doc), true
	case v.Delay > 0:
		if rest := doc.LastTurn().Add(v.Delay).Sub(now); rest > 0 {
			// Looked at again within holdLook, so that a removed or
			// shortened delay takes effect on the messages it delays.
			h.Metrics.Count(key, telemetry.Delayed, 1)
			doc.Decision = message.DecisionDelay
			return h.wait(doc, min(rest, holdLook)), true
		}
	}
	return doc, false
}

// holdLook is how often a held or delayed message is looked at again: a
// removed or changed hold or delay takes effect on the messages it held
// within it.
const holdLook = time.Minute

// wait routes the document to wait d: within the execution (the Backoff
// state) when d is short and the execution young (MaxInlineWait,
// InlineCycles, and time left after it within ExecutionBudget), else in
// the room until d has passed.
func (h *Handler) wait(doc message.Document, d time.Duration) message.Document {
	h.Metrics.Count(doc.BreakerKey, telemetry.Waits, 1)
	if left := h.executionLeft(doc); d <= MaxInlineWait && doc.Cycles < InlineCycles && (left < 0 || left > d+minDeliveryTime) {
		doc.Next, doc.WaitSeconds = message.NextWait, waitSeconds(d)
		return doc
	}
	doc.Next, doc.NotBefore = message.NextRoom, h.Clock.Now().Add(d)
	return doc
}

// queue routes the document to its breaker's room, to go as soon as the
// controller's pace allows.
func (h *Handler) queue(doc message.Document) message.Document {
	h.Metrics.Count(doc.BreakerKey, telemetry.Queued, 1)
	doc.Next = message.NextRoom
	return doc
}

// verdictOf is the verdict a delivery was admitted with: a ticket with a
// canary lease is a canary's.
func verdictOf(t breaker.Ticket) breaker.Verdict {
	if t.LeaseID != "" {
		return breaker.Canary
	}
	return breaker.Proceed
}

// exhaustedReason is the park reason of a message whose tries ran out.
// A last try that timed out may have been processed by a consumer that
// carried on past its deadline: its class, "timed out", keeps it apart
// from the exhausted, so that a person checks before replaying it.
func exhaustedReason(tries int, last message.Failure) string {
	if last.ErrorType == target.ErrorTimeout {
		return fmt.Sprintf("timed out: %d attempts, the last past its deadline, so the consumer may have processed it: check before replaying; last error %s",
			tries, describe(last))
	}
	return fmt.Sprintf("exhausted: %d attempts, last error %s", tries, describe(last))
}

// describe is a failure as "<errorType>: <message>", either part omitted
// when empty.
func describe(f message.Failure) string {
	switch {
	case f.ErrorType == "" && f.Message == "":
		return "no error details"
	case f.ErrorType == "":
		return f.Message
	case f.Message == "":
		return f.ErrorType
	}
	return f.ErrorType + ": " + f.Message
}
